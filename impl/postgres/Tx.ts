/**
 * One transaction of the PostgreSQL store, its writes held back until they can travel with the
 * next message (in front of the next read, or of COMMIT). Each message is one simple-protocol
 * query of several statements (literal.ts): a command costs one round trip per read it needs plus
 * one for its writes and COMMIT together. Reads see every write before them.
 *
 * - A guarded write (commit, ack and fail, under the delivery's token) must touch a row. One
 *   guarded write travels with COMMIT, wrapped so that the server fails the message when it
 *   touched none (`guardedSql`): nothing after it runs, COMMIT included, and the failure becomes
 *   the write's own error (`lost_guard`). Several go in a message of their own, their row counts
 *   are checked here, then COMMIT follows (why: docs/durable-bench.md, "Design notes").
 * - A failed message holding COMMIT did not commit (`committing` goes back to false, the store
 *   rolls back); only a message that got no answer (a lost connection) leaves the outcome unknown.
 * - Rows a read took along (`read`'s `more`) are kept until asked for, and forgotten at the next
 *   write. What BEGIN read for a whole group is kept apart, in Prefetch.ts.
 * - When JOBCHECK_FAULT arms after-first-write (impl/faults.ts), the first writes go in a message
 *   of their own before COMMIT's, so that a kill there finds the transaction open.
 * - A transaction opened on rows read ahead sends its opening (BEGIN and the guarded meta update,
 *   `readAheadGuardSql`) in front of its first message; a stale guard fails it with `StaleReadAhead`.
 */
import type { PgPoolClient, PgQueryResult } from './PgPool.ts';
import { FAULT_POINTS, faultArmed, faultPoint } from '../faults.ts';
import { Prefetch } from './Prefetch.ts';

/** A held-back write: its text (parameters inlined) and, for a guarded one, the error when it touched no row. */
interface PendingWrite {
  readonly sql: string;
  readonly lost: ((cause: unknown) => Error) | undefined;
  /** Writes with the same key replace each other (the counters: only the last values matter). */
  readonly key: string | undefined;
  /** For a guarded write, its statement when the server checks it as the `index`th of its message (else `guardedSql` of `sql`). */
  readonly checked: ((index: number) => string) | undefined;
}

/** Whether JOBCHECK_FAULT arms after-first-write in this process (read once, as impl/faults.ts reads it). */
const FIRST_WRITE_ARMED = faultArmed(FAULT_POINTS.afterFirstWrite);

/** Guarded writes at most that travel with COMMIT, checked by the server; with more, the writes go first and are checked here. */
const SERVER_CHECKED_MAX = 1;

/** The tag of a guarded write's failure, in the text the server's error quotes: `<tag><index>:<rows>`. */
const GUARD_TAG = 'jobcheck_guard:';

/** The tag of a failed read-ahead guard (`readAheadGuardSql`), in the text the server's error quotes. */
const READ_AHEAD_TAG = 'jobcheck_read_ahead:';

/** The transaction's opening went with rows read ahead that are no longer the server's: nothing of it ran. */
export class StaleReadAhead extends Error {
  override name = 'StaleReadAhead' as const;
}

/**
 * `update` (an UPDATE of the meta row with a RETURNING clause, conditioned on the row being as it
 * was read ahead) wrapped so that it fails, with READ_AHEAD_TAG in the error's text, when it
 * touches no row; its one row holds the transaction's id (`xact`, with its epoch: the row's new
 * xmin is its low 32 bits). Pure.
 */
export function readAheadGuardSql(update: string): string {
  return `WITH w AS (${update}) SELECT CASE WHEN n > 0 THEN 0 ELSE ('${READ_AHEAD_TAG}' || n)::integer END AS ok, txid_current() AS xact FROM (SELECT count(*) AS n FROM w) c`;
}

/** The xmin (as text) of a row this transaction wrote, from the guard's row (`readAheadGuardSql`). Pure. */
export function xminOf(guardRows: readonly unknown[]): string | undefined {
  const xact = (guardRows[0] as { xact?: unknown } | undefined)?.xact;
  return typeof xact === 'number' ? String(xact % 2 ** 32) : undefined;
}

/** Whether `error` is the server's failure of a read-ahead guard. Pure. */
function isStaleReadAhead(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error as { code?: unknown }).code === '22P02' &&
    error.message.includes(`"${READ_AHEAD_TAG}`)
  );
}

/**
 * `write` (a statement with a RETURNING clause) wrapped so that it fails, with `GUARD_TAG` and
 * `index` in the error's text, when it returns no row. The failing branch depends on the row
 * count, so the planner cannot fold it to a constant and fail every time. Pure.
 */
export function guardedSql(write: string, index: number): string {
  return guardedBy(write, `'${GUARD_TAG}${index}:'`);
}

/**
 * `guardedSql` for a prepared statement: the write's index is parameter `param` (text), so that
 * one prepared statement serves every index (Prepared.ts). Pure.
 */
export function guardedSqlAt(write: string, param: number): string {
  return guardedBy(write, `'${GUARD_TAG}' || $${param}::text || ':'`);
}

/** The guard around `write`, failing with the text `tag` (an SQL expression) followed by the count of rows it touched. Pure. */
function guardedBy(write: string, tag: string): string {
  return `WITH w AS (${write}) SELECT CASE WHEN n > 0 THEN 0 ELSE (${tag} || n)::integer END AS ok FROM (SELECT count(*) AS n FROM w) c`;
}

/** The index of the guarded write whose failure `error` is, or undefined for another error. Pure. */
export function failedGuard(error: unknown): number | undefined {
  if (!(error instanceof Error) || (error as { code?: unknown }).code !== '22P02') return undefined;
  const match = new RegExp(`"${GUARD_TAG}(\\d+):\\d+"`).exec(error.message);
  return match === null ? undefined : Number(match[1]);
}

/** Whether `error` is the server's answer to a statement (a SQLSTATE), not a failure to reach it. Pure. */
function answeredByServer(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !/^(08|57P)/.test(code);
}

/** The connection one transaction runs on, with its held-back writes and reads sent ahead. */
export class Tx {
  /** Whether a write of this transaction has run on the server. */
  wrote = false;
  /** Whether the message holding COMMIT was sent and no answer came back (a failure then leaves the outcome unknown). */
  committing = false;
  /** Round trips of this transaction so far (for the benchmark's profile). */
  roundTrips = 0;
  /** Milliseconds from sending BEGIN to COMMIT's answer (the meta row's lock is held for most of it), once committed. */
  heldMs = 0;
  /** Whether a write was asked for (sent or held back). */
  anyWrite = false;
  /** Whether a write of the meta row was asked for (the counters). */
  metaWritten = false;
  private started = 0;
  /** The opening (BEGIN and the read-ahead guard, two statements) waiting to go in front of the first message. */
  private opening: string | undefined;
  /** The read-ahead guard's rows, once its opening went with a message (`beginLater`). */
  openedRows: unknown[] = [];
  /** What BEGIN read for the group (or the store's last transactions), kept up to date by the writes since (Prefetch.ts). */
  readonly prefetch: Prefetch;
  private pending: PendingWrite[] = [];
  private readonly ahead = new Map<string, unknown[]>();

  /** A transaction on `client`, not yet begun, answering reads from `prefetch` (a fresh one by default). */
  constructor(
    readonly client: PgPoolClient,
    prefetch?: Prefetch,
  ) {
    this.prefetch = prefetch ?? new Prefetch();
  }

  /**
   * Sends `opening` (BEGIN and the meta row's lock, two statements) with `reads` after it, in one
   * round trip: the rows of the lock's statement (the counters), then each read's rows.
   */
  async begin(opening: string, reads: readonly string[]): Promise<unknown[][]> {
    this.started = performance.now();
    const results = await this.send([opening, ...reads]);
    return results.slice(1).map((r) => r.rows);
  }

  /**
   * Whether the opening held back by `beginLater` has not been sent yet: then nothing of the
   * transaction has run, and the opening may still be replaced (`beginLater` again).
   */
  get openingHeld(): boolean {
    return this.opening !== undefined;
  }

  /** Drops the held-back write of `key`, if one is held; whether one was. */
  dropPending(key: string): boolean {
    const before = this.pending.length;
    this.pending = this.pending.filter((w) => w.key !== key);
    return this.pending.length < before;
  }

  /**
   * Holds `opening` (BEGIN and the read-ahead guard, two statements) back until the first
   * message, in front of it: a transaction whose reads were answered ahead sends no message of
   * its own for BEGIN.
   */
  beginLater(opening: string): void {
    this.started = performance.now();
    this.opening = opening;
  }

  /**
   * Holds a write back until the next message. With `lost`, the write is guarded: its text must
   * end in a RETURNING clause, and when it returns no row the server fails the message there and
   * the transaction fails with `lost(the server's error)`; `checked`, when given, is the statement
   * that runs it checked by the server as the `index`th of its message (a prepared one), in place
   * of `guardedSql(sql, index)`.
   */
  defer(sql: string, lost?: (cause: unknown) => Error, key?: string, checked?: (index: number) => string): void {
    this.ahead.clear();
    this.anyWrite = true;
    if (key === 'counters') this.metaWritten = true;
    if (key !== undefined) this.pending = this.pending.filter((w) => w.key !== key);
    this.pending.push({ sql, lost, key, checked });
  }

  /**
   * The rows of read `sql`, as `T` (what its SQL selects: the driver checks nothing): from a read
   * sent ahead if one is still valid, else sent now with the held-back writes before it and `more`
   * reads after it (kept for later, as `prefetch` keeps them).
   */
  read<T = unknown>(sql: string, more: readonly string[] = []): Promise<T[]> {
    return this.rows(sql, more) as Promise<T[]>;
  }

  private async rows(sql: string, more: readonly string[]): Promise<unknown[]> {
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

  /**
   * Commits: the held-back writes, the reads `behind` (run after every write, under the lock, so
   * they see the state this COMMIT makes durable) and COMMIT in one message (the writes first in
   * a message of their own only when the after-first-write fault point is armed and none has run
   * yet). The rows of each read behind.
   */
  async commit(behind: readonly string[] = []): Promise<unknown[][]> {
    const guarded = this.pending.filter((w) => w.lost !== undefined).length;
    // One guarded write is checked by the server beside COMMIT; several go before it, checked
    // here (the server's check costs a statement each: measured, it outweighs the round trip).
    if ((FIRST_WRITE_ARMED && this.pending.length > 0 && !this.wrote) || guarded > SERVER_CHECKED_MAX)
      await this.flush([]);
    const writes = this.pending;
    this.pending = [];
    this.committing = true;
    let results: PgQueryResult[];
    try {
      results = await this.sendWrites(writes, [...behind, 'COMMIT']);
    } catch (error) {
      // The server answered: the statements after the failed one, COMMIT among them, did not run.
      if (answeredByServer(error) || answeredByServer((error as Error).cause)) this.committing = false;
      throw error;
    }
    this.heldMs = performance.now() - this.started;
    return behind.map((_, i) => results[writes.length + i]?.rows ?? []);
  }

  /** Runs the held-back writes then `reads` in one round trip, passes the first-write fault point; the reads' rows. */
  private async flush(reads: readonly string[]): Promise<unknown[][]> {
    const writes = this.pending;
    this.pending = [];
    this.ahead.clear();
    const results = await this.sendWrites(writes, reads);
    if (writes.length > 0 && !this.wrote) {
      this.wrote = true;
      faultPoint(FAULT_POINTS.afterFirstWrite);
    }
    return reads.map((_, i) => results[writes.length + i]?.rows ?? []);
  }

  /**
   * `writes` then `after` in one message; a guarded write that touched no row fails with its own
   * error. With COMMIT after them, the guarded writes are wrapped (`guardedSql`), so that the server
   * stops the message before COMMIT; else they run as they are and their row counts are checked here.
   */
  private async sendWrites(writes: readonly PendingWrite[], after: readonly string[]): Promise<PgQueryResult[]> {
    const serverChecked = after.includes('COMMIT');
    let results: PgQueryResult[];
    try {
      results = await this.send([
        ...writes.map((w, i) =>
          w.lost === undefined || !serverChecked ? w.sql : (w.checked?.(i) ?? guardedSql(w.sql, i)),
        ),
        ...after,
      ]);
    } catch (error) {
      const i = failedGuard(error);
      const lost = i === undefined ? undefined : writes[i]?.lost;
      if (lost === undefined) throw error;
      // The server's failure is the cause: it says the message was answered (`commit`).
      throw lost(error);
    }
    for (const [i, w] of writes.entries())
      if (w.lost !== undefined && !serverChecked && (results[i]?.rowCount ?? 0) === 0)
        throw w.lost(new Error(`the guarded write returned no row: ${w.sql.slice(0, 80)}`));
    return results;
  }

  /** One message of several statements (the held-back opening in front); one result per statement of `statements`. */
  private async send(statements: readonly string[]): Promise<PgQueryResult[]> {
    this.roundTrips += 1;
    const opening = this.opening;
    this.opening = undefined;
    const text = (opening === undefined ? statements : [opening, ...statements]).join(';\n');
    let result: PgQueryResult | PgQueryResult[];
    try {
      result = (await this.client.query(text)) as unknown as PgQueryResult | PgQueryResult[];
    } catch (error) {
      if (isStaleReadAhead(error))
        throw new StaleReadAhead('the meta row changed since the rows read ahead', { cause: error });
      throw error;
    }
    const all = Array.isArray(result) ? result : [result];
    if (opening === undefined) return all;
    // The opening is two statements: BEGIN and the guard.
    this.openedRows = all[1]?.rows ?? [];
    return all.slice(2);
  }
}
