/**
 * The store's own record of one job: a flat, mutable object with a fixed shape (every field is
 * initialised in the constructor, absent values use sentinels), so that V8 keeps one hidden class
 * for all jobs and the hot paths stay monomorphic. It is never handed out: replies, queries and
 * snapshots copy what they need into fresh plain objects. The time arithmetic the store shares
 * with the durable stores lives in impl/decisions/time.ts.
 */
import type { DeadReason, JobRecord, JobStatus } from '../../contract/index.ts';
import { jobRecord } from '../durable/index.ts';

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
    return jobRecord(this);
  }
}
