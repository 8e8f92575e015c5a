/**
 * What a group's transaction read with BEGIN, kept up to date by its writes since, so that most
 * of the core's reads need no round trip. With BEGIN (and the meta row's lock) travel the reads
 * the group's commands are likely to ask for (GroupReads.ts). Nobody else writes while the lock
 * is held, so a row read then changes only by a write of this transaction, and every such write
 * names the job it leaves (`wrote`): a read is answered from the rows read at BEGIN with the
 * written jobs laid over them.
 *
 * - An answer is given only when it is certain: a list cut by its LIMIT answers only while the
 *   chosen row comes before the cut; a job made claimable by seq alone (`madeClaimable`) answers
 *   only where it was read at BEGIN; a write that names no job (`unknownWrite`) ends every answer.
 *   Otherwise `undefined` (a miss): the store reads it from the server.
 * - The same object answers the store's next group when that group opens on rows read ahead
 *   (ReadAhead.ts): its rows are still the schema's while nobody else wrote, which that group's
 *   guarded lock checks. Pure apart from its own state.
 */
import { dueOf } from '../decisions/index.ts';
import type { AccountHead } from '../core/index.ts';
import type { Job } from '../durable/index.ts';

/** An account's first unresolved jobs read at BEGIN, in seq order, and whether that was all of them. */
interface HeadRows {
  readonly rows: readonly AccountHead[];
  readonly complete: boolean;
}

/** The rows a group read with BEGIN, and the jobs its transaction wrote since. */
export class Prefetch {
  private dueNow = Number.NEGATIVE_INFINITY;
  private dueRows: readonly Job[] = [];
  private claimable: readonly Job[] | undefined;
  private claimableComplete = false;
  private readonly tokens = new Map<number, Job | undefined>();
  private readonly ids = new Map<string, Job | undefined>();
  private readonly heads = new Map<string, HeadRows>();
  /** Jobs written since BEGIN, as written, by seq. */
  private readonly written = new Map<number, Job>();
  /** Seqs made claimable since BEGIN with no other column written. */
  private readonly flagged = new Set<number>();
  private unknown = false;

  /** Keeps the jobs due by `now` (every one: the read has no LIMIT). */
  setDue(now: number, jobs: readonly Job[]): void {
    this.dueNow = now;
    this.dueRows = jobs;
  }

  /**
   * Keeps the unresolved jobs in `due` order, read with LIMIT `limit`: every job due before the
   * last one read (all of them when fewer came back), so the due jobs by any `now` up to there.
   */
  setDueFirst(jobs: readonly Job[], limit: number): void {
    if (jobs.length < limit) {
      this.setDue(Number.POSITIVE_INFINITY, jobs);
      return;
    }
    // Jobs due at the last one's time may have been cut: known up to the moment before it.
    const last = dueOf(jobs.at(-1) as Job) ?? Number.NEGATIVE_INFINITY;
    this.setDue(
      last - 1,
      jobs.filter((j) => (dueOf(j) ?? Number.POSITIVE_INFINITY) < last),
    );
  }

  /** Whether the jobs due by `now` are known (a `due(now)` would answer). */
  knowsDue(now: number): boolean {
    return !this.unknown && now <= this.dueNow;
  }

  /** Whether `n` claimable jobs read are still unwritten (as a group with n - 1 claims asks), or all were read. */
  knowsClaimable(n: number): boolean {
    if (this.unknown || this.claimable === undefined) return false;
    if (this.claimableComplete) return true;
    let left = 0;
    for (const job of this.claimable) if (!this.written.has(job.seq)) left += 1;
    return left >= n;
  }

  /**
   * Marks `token` known: no job read holds it, so the job holding it is the one a write of this
   * transaction left holding it, or none. True only for a token a write of this transaction
   * handed out or kept (tokens are unique), which is how the store calls it.
   */
  knowToken(token: number): void {
    if (!this.tokens.has(token)) this.tokens.set(token, undefined);
  }

  /** How many rows and answers this holds (the store starts afresh past a bound). */
  get size(): number {
    return (
      this.dueRows.length +
      (this.claimable?.length ?? 0) +
      this.tokens.size +
      this.ids.size +
      this.heads.size +
      this.written.size +
      this.flagged.size
    );
  }

  /** Whether an account's first unresolved jobs were read. */
  knowsHeads(account: string): boolean {
    return this.heads.has(account);
  }

  /** The tokens held by the jobs this transaction wrote, and whether every write was followed (no `unknownWrite`). */
  writtenTokens(): { readonly followed: boolean; readonly tokens: readonly number[] } {
    const tokens: number[] = [];
    for (const job of this.written.values()) if (job.token !== null) tokens.push(job.token);
    return { followed: !this.unknown, tokens };
  }

  /** Keeps the first claimable jobs in seq order, read with LIMIT `limit`. */
  setClaimable(jobs: readonly Job[], limit: number): void {
    this.claimable = jobs;
    this.claimableComplete = jobs.length < limit;
  }

  /** Keeps the job holding `token` (or none). */
  setToken(token: number, job: Job | undefined): void {
    this.tokens.set(token, job);
  }

  /** Keeps the job of `id` (or none). */
  setId(id: string, job: Job | undefined): void {
    this.ids.set(id, job);
  }

  /** Keeps an account's first unresolved jobs in seq order, read with LIMIT `limit`. */
  setHeads(account: string, rows: readonly AccountHead[], limit: number): void {
    this.heads.set(account, { rows, complete: rows.length < limit });
  }

  /** A write of this transaction left `job` so (a copy is kept). */
  wrote(job: Job): void {
    this.written.set(job.seq, { ...job });
    this.flagged.delete(job.seq);
  }

  /** A write of this transaction set `claimable` on job `seq` and nothing else. */
  madeClaimable(seq: number): void {
    const known = this.written.get(seq);
    if (known !== undefined) this.written.set(seq, { ...known, claimable: true });
    else this.flagged.add(seq);
  }

  /** A write this class cannot follow: no answer from here on. */
  unknownWrite(): void {
    this.unknown = true;
  }

  /** The jobs due by `now`, or undefined for a miss. */
  due(now: number): Job[] | undefined {
    if (this.unknown || now > this.dueNow) return undefined;
    const out: Job[] = [];
    for (const job of this.dueRows) {
      if (this.written.has(job.seq)) continue;
      const due = dueOf(job);
      if (due !== null && due <= now) out.push(this.flagged.has(job.seq) ? { ...job, claimable: true } : { ...job });
    }
    for (const job of this.written.values()) {
      const due = dueOf(job);
      if (due !== null && due <= now) out.push({ ...job });
    }
    return out;
  }

  /** The lowest-seq claimable job (null for none), or undefined for a miss. */
  claimHead(): Job | null | undefined {
    if (this.unknown || this.claimable === undefined) return undefined;
    let best: Job | undefined;
    for (const job of this.claimable) {
      if (this.written.has(job.seq)) continue;
      best = job;
      break;
    }
    const cut = this.claimableComplete ? Number.POSITIVE_INFINITY : (this.claimable.at(-1)?.seq ?? 0);
    for (const job of this.written.values())
      if (job.claimable && (best === undefined || job.seq < best.seq)) best = job;
    for (const seq of this.flagged) {
      // A row made claimable whose columns were not read: a miss if it may come first.
      if (best === undefined || seq < best.seq) {
        const read = this.claimable.find((j) => j.seq === seq) ?? this.dueRows.find((j) => j.seq === seq);
        if (read === undefined) return undefined;
        best = { ...read, claimable: true };
      }
    }
    if (best === undefined) return this.claimableComplete ? null : undefined;
    // Past the cut, a claimable row not read at BEGIN may come before it.
    return best.seq > cut ? undefined : { ...best };
  }

  /** The running or unresolved job holding `token` (null for none), or undefined for a miss. */
  byToken(token: number): Job | null | undefined {
    if (this.unknown || !this.tokens.has(token)) return undefined;
    for (const job of this.written.values()) if (job.token === token) return { ...job };
    const read = this.tokens.get(token);
    if (read === undefined) return null;
    if (this.written.has(read.seq)) return null;
    if (this.flagged.has(read.seq)) return { ...read, claimable: true };
    return { ...read };
  }

  /** The job of `id` (null for none), or undefined for a miss. */
  byId(id: string): Job | null | undefined {
    if (this.unknown || !this.ids.has(id)) return undefined;
    for (const job of this.written.values()) if (job.id === id) return { ...job };
    const read = this.ids.get(id);
    if (read === undefined) return null;
    const written = this.written.get(read.seq);
    if (written !== undefined) return { ...written };
    if (this.flagged.has(read.seq)) return { ...read, claimable: true };
    return { ...read };
  }

  /** An account's earliest unresolved job (null for none), or undefined for a miss. */
  accountHead(account: string): AccountHead | null | undefined {
    const read = this.heads.get(account);
    if (this.unknown || read === undefined) return undefined;
    let best: AccountHead | undefined;
    for (const row of read.rows) {
      if (this.written.has(row.seq)) continue;
      best = row;
      break;
    }
    const cut = read.complete ? Number.POSITIVE_INFINITY : (read.rows.at(-1)?.seq ?? 0);
    for (const job of this.written.values())
      if (job.account === account && dueOf(job) !== null && (best === undefined || job.seq < best.seq))
        best = { seq: job.seq, status: job.status };
    if (best === undefined) return read.complete ? null : undefined;
    if (best.seq > cut) return undefined;
    return { ...best };
  }
}
