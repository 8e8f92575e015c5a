/**
 * The floor of the benchmark: the least work any queue must do for the same command stream.
 * A plain FIFO array and Maps for lookups; no validation, no clock, no per-account order, no
 * leases, deadlines, backoff, ledger or capacity. It still answers every command with a reply
 * object, because any store must. Not a job store: its replies are only shaped like the real ones.
 */
import type { Command, Snapshot } from '../contract/index.ts';

interface FloorJob {
  readonly id: string;
  readonly account: string;
  readonly key: string;
  readonly amount: number;
  readonly deadline: number;
  readonly seq: number;
}

/** A FIFO array plus Maps: the cost floor for a command stream. Mutable. */
export class FloorQueue {
  protected readonly jobs = new Map<string, FloorJob>();
  protected readonly byToken = new Map<number, FloorJob>();
  protected readonly balances = new Map<string, number>();
  protected queue: FloorJob[] = [];
  protected head = 0;
  protected nextToken = 1;
  protected nextSeq = 1;

  /** A floor queue holding the same jobs as a snapshot (unresolved ones queued in seq order). */
  static fromSnapshot(s: Snapshot): FloorQueue {
    const floor = new FloorQueue();
    floor.nextToken = s.nextToken;
    floor.nextSeq = s.nextSeq;
    for (const [id, r] of Object.entries(s.jobs)) {
      const job: FloorJob = { id, ...r.payload, seq: r.seq };
      floor.jobs.set(id, job);
      if (r.status === 'ready' || r.status === 'waiting' || r.status === 'running') floor.queue.push(job);
    }
    for (const [account, amount] of Object.entries(s.balances)) floor.balances.set(account, amount);
    return floor;
  }

  /** Handles one command with no semantics beyond lookups, a FIFO and a reply. */
  execute(c: Command): unknown {
    switch (c.type) {
      case 'submit': {
        const existing = this.jobs.get(c.id);
        if (existing !== undefined) return { ok: true, type: 'submit', id: c.id, seq: existing.seq, duplicate: true };
        const job: FloorJob = { id: c.id, account: c.account, key: c.key, amount: c.amount, deadline: c.deadline, seq: this.nextSeq++ };
        this.jobs.set(c.id, job);
        this.queue.push(job);
        return { ok: true, type: 'submit', id: c.id, seq: job.seq, duplicate: false };
      }
      case 'claim': {
        if (this.head === this.queue.length) return { ok: true, type: 'claim', job: null };
        const job = this.queue[this.head++] as FloorJob;
        if (this.head > 4096 && this.head * 2 > this.queue.length) {
          this.queue = this.queue.slice(this.head);
          this.head = 0;
        }
        const token = this.nextToken++;
        this.byToken.set(token, job);
        return {
          ok: true,
          type: 'claim',
          job: { id: job.id, token, attempt: 1, leaseUntil: c.now + 20, payload: { account: job.account, key: job.key, amount: job.amount, deadline: job.deadline } },
        };
      }
      case 'commit': {
        const job = this.byToken.get(c.token);
        if (job === undefined) return { ok: false, code: 'stale_token', message: 'stale' };
        const balance = (this.balances.get(job.account) ?? 0) + job.amount;
        this.balances.set(job.account, balance);
        return { ok: true, type: 'commit', id: job.id, applied: true, balance };
      }
      case 'ack': {
        const job = this.byToken.get(c.token);
        if (job === undefined) return { ok: false, code: 'stale_token', message: 'stale' };
        this.byToken.delete(c.token);
        return { ok: true, type: 'ack', id: job.id };
      }
      case 'fail': {
        const job = this.byToken.get(c.token);
        if (job === undefined) return { ok: false, code: 'stale_token', message: 'stale' };
        this.byToken.delete(c.token);
        this.queue.push(job);
        return { ok: true, type: 'fail', id: job.id, status: 'waiting', notBefore: c.now + 2 };
      }
      case 'tick':
        return { ok: true, type: 'tick', clock: c.now };
    }
  }
}
