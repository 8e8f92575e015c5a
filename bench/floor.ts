/**
 * The floor of the benchmark: the least work a queue with an effect ledger must do for the same
 * command stream. It keeps a FIFO of queued jobs, Maps from id and from token to job, and the
 * ledger (per account: balance and, per operation key, the effect applied), and answers every
 * command with a reply object, because any store must. It has no validation, clock, per-account
 * order, leases, deadlines, backoff, capacity count or owner check.
 *
 * Decisions that need those semantics are not worked out but read from the recording (the
 * stream's hints): whether a claim found a job (and the token the store handed out, so that the
 * stream's settlements find their delivery here too), whether a submit was admitted, whether a
 * failed job waits for a retry. The floor does the data-structure work those decisions imply,
 * nothing else. A malformed command gets a constant rejection (it is not even looked at).
 * Not a job store: its replies are only shaped like the real ones.
 */
import type { Command, Snapshot } from '../contract/index.ts';

interface FloorJob {
  readonly id: string;
  readonly account: string;
  readonly key: string;
  readonly amount: number;
  readonly deadline: number;
  readonly seq: number;
  attempt: number;
}

interface FloorEffect {
  readonly amount: number;
  readonly job: string;
  readonly token: number;
}

interface FloorLedger {
  balance: number;
  readonly effects: Map<string, FloorEffect>;
}

const MALFORMED = { ok: false, code: 'invalid_argument', message: 'malformed' } as const;

/** A FIFO array, Maps for lookups and an effect ledger: the cost floor for a command stream. Mutable. */
export class FloorQueue {
  protected readonly jobs = new Map<string, FloorJob>();
  protected readonly byToken = new Map<number, FloorJob>();
  protected readonly ledgers = new Map<string, FloorLedger>();
  protected queue: FloorJob[] = [];
  protected head = 0;
  protected nextSeq = 1;
  /** Settlements whose token named no delivery here (the stream's stale tokens, and any drift). */
  misses = 0;

  /** A floor holding the same jobs and ledger as a snapshot (unresolved jobs queued in seq order). */
  static fromSnapshot(s: Snapshot): FloorQueue {
    const floor = new FloorQueue();
    floor.nextSeq = s.nextSeq;
    for (const [id, r] of Object.entries(s.jobs)) {
      const job: FloorJob = { id, ...r.payload, seq: r.seq, attempt: r.attempts };
      floor.jobs.set(id, job);
      if (r.status === 'running') floor.byToken.set(r.token as number, job);
      else if (r.status === 'ready' || r.status === 'waiting') floor.queue.push(job);
    }
    for (const [account, byKey] of Object.entries(s.effects)) {
      floor.ledgers.set(account, { balance: s.balances[account] ?? 0, effects: new Map(Object.entries(byKey)) });
    }
    return floor;
  }

  /** Handles one command, given whether it is well formed and its hint (see Stream in workload.ts). */
  execute(c: Command, wellFormed: number, hint: number): unknown {
    if (wellFormed === 0) return MALFORMED;
    switch (c.type) {
      case 'submit': {
        const existing = this.jobs.get(c.id);
        if (existing !== undefined) return { ok: true, type: 'submit', id: c.id, seq: existing.seq, duplicate: true };
        if (hint === 0) return { ok: false, code: 'capacity_exceeded', message: 'full' };
        const job: FloorJob = {
          id: c.id,
          account: c.account,
          key: c.key,
          amount: c.amount,
          deadline: c.deadline,
          seq: this.nextSeq++,
          attempt: 0,
        };
        this.jobs.set(c.id, job);
        this.queue.push(job);
        return { ok: true, type: 'submit', id: c.id, seq: job.seq, duplicate: false };
      }
      case 'claim': {
        if (hint === 0 || this.head === this.queue.length) return { ok: true, type: 'claim', job: null };
        const job = this.queue[this.head++] as FloorJob;
        if (this.head > 4096 && this.head * 2 > this.queue.length) {
          this.queue = this.queue.slice(this.head);
          this.head = 0;
        }
        job.attempt++;
        this.byToken.set(hint, job);
        return {
          ok: true,
          type: 'claim',
          job: {
            id: job.id,
            token: hint,
            attempt: job.attempt,
            leaseUntil: c.now + 12,
            payload: { account: job.account, key: job.key, amount: job.amount, deadline: job.deadline },
          },
        };
      }
      case 'commit': {
        const job = this.byToken.get(c.token);
        if (job === undefined) return this.miss();
        let ledger = this.ledgers.get(job.account);
        const recorded = ledger?.effects.get(job.key);
        if (recorded !== undefined) {
          if (recorded.amount !== job.amount) return { ok: false, code: 'conflict', message: 'conflict' };
          return { ok: true, type: 'commit', id: job.id, applied: false, balance: (ledger as FloorLedger).balance };
        }
        if (ledger === undefined) {
          ledger = { balance: 0, effects: new Map() };
          this.ledgers.set(job.account, ledger);
        }
        ledger.balance += job.amount;
        ledger.effects.set(job.key, { amount: job.amount, job: job.id, token: c.token });
        return { ok: true, type: 'commit', id: job.id, applied: true, balance: ledger.balance };
      }
      case 'ack': {
        const job = this.byToken.get(c.token);
        if (job === undefined) return this.miss();
        this.byToken.delete(c.token);
        return { ok: true, type: 'ack', id: job.id };
      }
      case 'fail': {
        const job = this.byToken.get(c.token);
        if (job === undefined) return this.miss();
        this.byToken.delete(c.token);
        if (hint === 0)
          return {
            ok: true,
            type: 'fail',
            id: job.id,
            status: 'dead',
            reason: c.kind === 'permanent' ? 'permanent' : 'attempts_exhausted',
          };
        this.queue.push(job);
        return { ok: true, type: 'fail', id: job.id, status: 'waiting', notBefore: c.now + 2 };
      }
      case 'tick':
        return { ok: true, type: 'tick', clock: c.now };
    }
  }

  protected miss(): unknown {
    this.misses++;
    return { ok: false, code: 'stale_token', message: 'stale' };
  }
}
