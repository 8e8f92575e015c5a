/**
 * The store's own record of one job: a flat, mutable object with a fixed shape (every field is
 * initialised in the constructor, absent values use sentinels), so that V8 keeps one hidden class
 * for all jobs and the hot paths stay monomorphic. It is never handed out: replies, queries and
 * snapshots copy what they need into fresh plain objects.
 */
import type { DeadReason, JobRecord, JobStatus } from '../../contract/index.ts';

/** Sentinel for "no token" (real tokens are >= 1). */
export const NO_TOKEN = 0;
/** Sentinel for "no time" in leaseUntil / notBefore (real times are >= 0). */
export const NO_TIME = -1;

/** One job inside the store. Mutable; owned by exactly one JobStore. */
export class JobEntry {
  status: JobStatus = 'ready';
  attempts = 0;
  /** Running only; NO_TOKEN otherwise. */
  token = NO_TOKEN;
  /** Running only. */
  owner: string | undefined = undefined;
  /** Running only; NO_TIME otherwise. */
  leaseUntil = NO_TIME;
  /** Waiting only; NO_TIME otherwise. */
  notBefore = NO_TIME;
  /** Dead only. */
  reason: DeadReason | undefined = undefined;
  lastError: string | undefined = undefined;
  /**
   * Bumped on every status change. Heap entries carry the generation they were pushed at, so an
   * entry whose tag differs from the job's generation is stale and is skipped when it surfaces.
   */
  gen = 0;
  /** Neighbours in the account's FIFO of unresolved jobs (null at the ends and once resolved). */
  prev: JobEntry | null = null;
  next: JobEntry | null = null;

  constructor(
    readonly id: string,
    readonly account: string,
    readonly key: string,
    readonly amount: number,
    readonly deadline: number,
    readonly seq: number,
  ) {}

  /** The canonical record of this job: a fresh plain object with only the meaningful fields. Pure. */
  toRecord(): JobRecord {
    const record: { -readonly [K in keyof JobRecord]: JobRecord[K] } = {
      payload: { account: this.account, key: this.key, amount: this.amount, deadline: this.deadline },
      seq: this.seq,
      status: this.status,
      attempts: this.attempts,
    };
    switch (this.status) {
      case 'running':
        record.token = this.token;
        record.owner = this.owner as string;
        record.leaseUntil = this.leaseUntil;
        break;
      case 'waiting':
        record.notBefore = this.notBefore;
        break;
      case 'dead':
        record.reason = this.reason as DeadReason;
        break;
      default:
        break;
    }
    if (this.lastError !== undefined) record.lastError = this.lastError;
    return record;
  }
}

/** Ready, waiting and running jobs are unresolved: they count against capacity and hold their account. */
export const isUnresolvedStatus = (status: JobStatus): boolean =>
  status === 'ready' || status === 'waiting' || status === 'running';

/** Largest time value; sums of times saturate here rather than leave the safe-integer range. */
export const TIME_MAX = Number.MAX_SAFE_INTEGER;

/** `a + b` for non-negative times, saturating at TIME_MAX. Pure. */
export function addTime(a: number, b: number): number {
  return a > TIME_MAX - b ? TIME_MAX : a + b;
}

/** The retry delay after `attempts` deliveries: `min(base * 2^(attempts-1), cap)`, without overflow. Pure. */
export function retryDelay(base: number, cap: number, attempts: number): number {
  let delay = base;
  for (let i = 1; i < attempts && delay < cap; i++) delay *= 2;
  return delay < cap ? delay : cap;
}
