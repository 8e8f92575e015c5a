/**
 * One transaction of the PostgreSQL store, with its writes held back until they can travel with
 * the next message: a write whose answer the core does not need (every write but the guarded
 * ones, whose row count is checked when they run) waits, and goes to the server in front of the
 * next read, or in front of COMMIT. Each message is one simple-protocol query of several
 * statements (literal.ts), so a command costs one round trip per read it needs, not one per
 * statement. Reads see every write before them, as the statements run in the order they were
 * asked for.
 *
 * A read may take more reads along (`read`'s `more`): their rows are kept until asked for, and
 * forgotten at the next write, after which they could be stale. (What BEGIN reads for a whole
 * group is kept apart, in Prefetch.ts, which follows the writes.)
 *
 * The fault points keep their meaning: after-first-write fires when the first message holding a
 * write has run, and that message never holds COMMIT (`commit` sends the writes first when none
 * has run yet), so a kill there always finds the transaction open.
 */
import type { PgPoolClient, PgQueryResult } from './PgPool.ts';
import { FAULT_POINTS, faultPoint } from '../faults.ts';
import { Prefetch } from './Prefetch.ts';

/** A held-back write: its text (parameters inlined) and, for a guarded one, the check of its row count. */
interface PendingWrite {
  readonly sql: string;
  readonly check: ((rowCount: number) => Error | undefined) | undefined;
  /** Writes with the same key replace each other (the counters: only the last values matter). */
  readonly key: string | undefined;
}

/** The connection one transaction runs on, with its held-back writes and reads sent ahead. */
export class Tx {
  /** Whether a write of this transaction has run on the server. */
  wrote = false;
  /** Whether the message holding COMMIT was sent (a failure after it leaves the outcome unknown). */
  committing = false;
  /** Round trips of this transaction so far (for the benchmark's profile). */
  roundTrips = 0;
  /** Milliseconds from sending BEGIN to COMMIT's answer (the meta row's lock is held for most of it), once committed. */
  heldMs = 0;
  private started = 0;
  /** What BEGIN read for the group, kept up to date by the writes since (Prefetch.ts). */
  readonly prefetch = new Prefetch();
  private pending: PendingWrite[] = [];
  private readonly ahead = new Map<string, unknown[]>();

  /** A transaction on `client`, not yet begun. */
  constructor(readonly client: PgPoolClient) {}

  /**
   * Sends `opening` (BEGIN and the meta row's lock, two statements) with `reads` after it, in one
   * round trip: the rows of the lock's statement (the counters), then each read's rows.
   */
  async begin(opening: string, reads: readonly string[]): Promise<unknown[][]> {
    this.started = performance.now();
    const results = await this.send([opening, ...reads]);
    return results.slice(1).map((r) => r.rows);
  }

  /** Holds a write back until the next message; `check` sees its row count and returns the error to fail with. */
  defer(sql: string, check?: (rowCount: number) => Error | undefined, key?: string): void {
    this.ahead.clear();
    if (key !== undefined) this.pending = this.pending.filter((w) => w.key !== key);
    this.pending.push({ sql, check, key });
  }

  /**
   * The rows of read `sql`: from a read sent ahead if one is still valid, else sent now with the
   * held-back writes before it and `more` reads after it (kept for later, as `prefetch` keeps them).
   */
  async read(sql: string, more: readonly string[] = []): Promise<unknown[]> {
    const kept = this.ahead.get(sql);
    if (kept !== undefined && this.pending.length === 0) {
      this.ahead.delete(sql);
      return kept;
    }
    const rows = await this.flush([sql, ...more]);
    more.forEach((s, i) => {
      this.ahead.set(s, rows[1 + i] ?? []);
    });
    return rows[0] ?? [];
  }

  /** Commits: the held-back writes and COMMIT in one message, unless a guarded write or the first write must run (and be checked) before it. */
  async commit(): Promise<void> {
    if (this.pending.length > 0 && (!this.wrote || this.pending.some((w) => w.check !== undefined)))
      await this.flush([]);
    const writes = this.pending;
    this.pending = [];
    this.committing = true;
    await this.send([...writes.map((w) => w.sql), 'COMMIT']);
    this.heldMs = performance.now() - this.started;
  }

  /** Runs the held-back writes then `reads` in one round trip, checks the guarded writes, passes the first-write fault point; the reads' rows. */
  private async flush(reads: readonly string[]): Promise<unknown[][]> {
    const writes = this.pending;
    this.pending = [];
    this.ahead.clear();
    const results = await this.send([...writes.map((w) => w.sql), ...reads]);
    writes.forEach((w, i) => {
      const error = w.check?.(results[i]?.rowCount ?? 0);
      if (error !== undefined) throw error;
    });
    if (writes.length > 0 && !this.wrote) {
      this.wrote = true;
      faultPoint(FAULT_POINTS.afterFirstWrite);
    }
    return reads.map((_, i) => results[writes.length + i]?.rows ?? []);
  }

  /** One message of several statements; one result per statement. */
  private async send(statements: readonly string[]): Promise<PgQueryResult[]> {
    this.roundTrips += 1;
    const result = (await this.client.query(statements.join(';\n'))) as unknown as PgQueryResult | PgQueryResult[];
    return Array.isArray(result) ? result : [result];
  }
}
