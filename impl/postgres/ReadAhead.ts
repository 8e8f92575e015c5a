/**
 * The rows a PostgreSQL store object keeps from one transaction for the next (PostgresStore.ts's
 * read-ahead path): what its last transaction read and wrote (its Prefetch) with the rows read
 * behind its COMMIT laid in, the meta row's version (xmin) and the counters that COMMIT left. The
 * next group opens on them with a guarded lock that checks the meta row is still that version; a
 * stale guard sends the group to the locked path, and the store backs off: the next 2, 4, … 64
 * groups run locked while other writers keep making the rows stale.
 */
import type { Counters } from '../durable/index.ts';
import type { Prefetch } from './Prefetch.ts';

/** The rows read behind a store's last COMMIT, as that COMMIT left them. */
export interface ReadAhead {
  /** The meta row's xmin then (text). */
  readonly version: string;
  readonly counters: Counters;
  /** What the last transaction read and wrote, with the rows read behind its COMMIT laid in. */
  readonly prefetch: Prefetch;
}

/** A read sent ahead or behind, with what keeps its rows in a Prefetch. */
export interface Read {
  readonly sql: string;
  readonly keep: (p: Prefetch, rows: unknown[]) => void;
}

/** Rows and answers a Prefetch carries from one transaction to the next at most; past it the next group starts afresh. */
export const CARRIED_MAX = 512;

/** Groups at most that run on the locked path after read-ahead rows were found stale (the backoff's cap). */
const STALE_SKIP_MAX = 64;

/** The rows one store object keeps for its next group, with the backoff after stale ones and their counts. */
export class ReadAheadKeeper {
  private kept: ReadAhead | undefined;
  /** Read-ahead rows found stale in a row (the backoff's exponent), and groups left to run locked. */
  private staleStreak = 0;
  private staleSkip = 0;
  /** Groups that opened on rows read ahead, and those of them found stale (for the benchmark's profile). */
  groups = 0;
  staleGroups = 0;

  /** Whether groups run locked for now (backing off after stale rows): nothing is worth reading behind a COMMIT. */
  get backingOff(): boolean {
    return this.staleSkip > 0;
  }

  /** The rows for the group about to run, taken (none while backing off, which counts that group). */
  take(): ReadAhead | undefined {
    const cached = this.kept;
    this.kept = undefined;
    if (this.staleSkip > 0) {
      this.staleSkip -= 1;
      return undefined;
    }
    if (cached !== undefined) this.groups += 1;
    return cached;
  }

  /** Keeps `rows` (what a COMMIT left) for the next group, or nothing. */
  keep(rows: ReadAhead | undefined): void {
    this.kept = rows;
  }

  /** A group opened on rows read ahead committed: the backoff starts over. */
  fresh(): void {
    this.staleStreak = 0;
  }

  /** Rows read ahead were stale (another store wrote): the next groups run locked, more of them each time in a row. */
  stale(): void {
    this.staleGroups += 1;
    this.staleStreak = Math.min(this.staleStreak + 1, 6);
    this.staleSkip = Math.min(2 ** this.staleStreak, STALE_SKIP_MAX);
  }
}

/**
 * What a COMMIT leaves for the next group: `prefetch` with the rows read behind it laid in, and the
 * meta row's version and counters: `version` and `m` when the transaction knows them (it opened on
 * rows read ahead: the guard wrote the row), else the first read behind's (the meta row).
 */
export function readAheadOf(
  behind: readonly Read[],
  rows: readonly unknown[][],
  prefetch: Prefetch,
  m: Counters,
  version: string | undefined,
): ReadAhead {
  behind.forEach((b, i) => {
    b.keep(prefetch, (rows[i] ?? []) as unknown[]);
  });
  if (version !== undefined) return { version, counters: { ...m }, prefetch };
  const meta = rows[0]?.[0] as Counters & { version: string };
  // The counters as committed (the core's own, unless a subclass wrote others).
  const counters = { clock: meta.clock, nextToken: meta.nextToken, nextSeq: meta.nextSeq, unresolved: meta.unresolved };
  return { version: meta.version, counters, prefetch };
}
