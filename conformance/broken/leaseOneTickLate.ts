/**
 * BUG: a lease expires one tick late. At `now == leaseUntil` the lease is treated as still valid
 * (`now > leaseUntil` instead of `now >= leaseUntil`), so the job stays running one tick longer
 * and its worker can still settle it.
 * A decision bug: the contract's decisions with expiry replaced, run by every store.
 */
import { DECISIONS, JobStore, withDecisions } from '../../impl/index.ts';
import type { Decisions } from '../../impl/index.ts';

/** The decisions whose leases expire one tick after leaseUntil. */
export const leaseOneTickLate: Decisions = {
  ...DECISIONS,
  expiry: (cfg, job, now) =>
    job.status === 'running' && now === job.leaseUntil && now < job.deadline ? 'none' : DECISIONS.expiry(cfg, job, now), // the bug: equality is still leased
};

/** JobStore whose leases expire one tick after leaseUntil. */
export const LeaseOneTickLate = withDecisions(JobStore, leaseOneTickLate);
