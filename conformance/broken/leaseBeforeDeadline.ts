/**
 * BUG: deadline and lease precedence are swapped. When a running job's lease and its deadline
 * have both passed, the lease is looked at first: on the last attempt the job dies with reason
 * `lease_expired` instead of `deadline` (and before it, it is requeued past its deadline).
 * A decision bug: the contract's decisions with expiry replaced, run by every store.
 */
import { DECISIONS, JobStore, withDecisions } from '../../impl/index.ts';
import type { Decisions } from '../../impl/index.ts';

/** The decisions that check the lease before the deadline. */
export const leaseBeforeDeadline: Decisions = {
  ...DECISIONS,
  expiry: (cfg, job, now) => {
    if (job.status === 'running' && now >= (job.leaseUntil as number) && now >= job.deadline) {
      return job.attempts >= cfg.maxAttempts ? 'lease_expired' : 'requeue'; // the bug: the lease outcome is decided before the deadline
    }
    return DECISIONS.expiry(cfg, job, now);
  },
};

/** JobStore that checks the lease before the deadline. */
export const LeaseBeforeDeadline = withDecisions(JobStore, leaseBeforeDeadline);
