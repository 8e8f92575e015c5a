/**
 * BUG: when the lease of a job's last allowed attempt expires, the job is put back in the queue
 * (ready) instead of dying with reason `lease_expired`, so it can be delivered more than
 * `maxAttempts` times.
 * A decision bug: the contract's decisions with expiry replaced, run by every store.
 */
import { DECISIONS, JobStore, withDecisions } from '../../impl/index.ts';
import type { Decisions } from '../../impl/index.ts';

/** The decisions that requeue a job whose last lease expired. */
export const lastAttemptRequeues: Decisions = {
  ...DECISIONS,
  expiry: (cfg, job, now) => {
    const expiry = DECISIONS.expiry(cfg, job, now);
    return expiry === 'lease_expired' ? 'requeue' : expiry; // the bug: should die with lease_expired
  },
};

/** JobStore that requeues a job whose last lease expired. */
export const LastAttemptRequeues = withDecisions(JobStore, lastAttemptRequeues);
