/**
 * BUG: a retry forgets the original deadline. A transient failure always schedules a retry after
 * the backoff delay, even when the retry would start at or after the job's deadline (the contract
 * says: dead with reason `no_time_for_retry`).
 * A decision bug: the contract's decisions with the fail outcome replaced, run by every store.
 */
import { DECISIONS, JobStore, addTime, retryDelay, withDecisions } from '../../impl/index.ts';
import type { Decisions } from '../../impl/index.ts';

/** The decisions with a fail outcome that never compares the retry with the deadline. */
export const retryForgetsDeadline: Decisions = {
  ...DECISIONS,
  failOutcome: (cfg, c, job) => {
    if (c.kind === 'permanent' || job.attempts >= cfg.maxAttempts) return DECISIONS.failOutcome(cfg, c, job);
    // the bug: no comparison of notBefore with job.deadline
    return { status: 'waiting', notBefore: addTime(c.now, retryDelay(cfg.backoffBase, cfg.backoffCap, job.attempts)) };
  },
};

/** JobStore whose transient failures never check the deadline. */
export const RetryForgetsDeadline = withDecisions(JobStore, retryForgetsDeadline);
