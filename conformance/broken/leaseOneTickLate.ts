/**
 * BUG: a lease expires one tick late. At `now == leaseUntil` the lease is treated as still valid
 * (`now > leaseUntil` instead of `now >= leaseUntil`), so the job stays running one tick longer
 * and its worker can still settle it.
 */
import { JobStore } from '../../impl/index.ts';
import type { JobEntry } from '../../impl/index.ts';

/** JobStore whose leases expire one tick after leaseUntil. */
export class LeaseOneTickLate extends JobStore {
  protected override expire(job: JobEntry, now: number): boolean {
    if (job.status === 'running' && now === job.leaseUntil && now < job.deadline) return false; // the bug: equality is still leased
    return super.expire(job, now);
  }
}
