/**
 * BUG: deadline and lease precedence are swapped. When a running job's lease and its deadline
 * have both passed, the lease is looked at first: on the last attempt the job dies with reason
 * `lease_expired` instead of `deadline`.
 */
import { JobStore } from '../../impl/index.ts';
import type { JobEntry } from '../../impl/index.ts';

/** JobStore that checks the lease before the deadline. */
export class LeaseBeforeDeadline extends JobStore {
  protected override expire(job: JobEntry, now: number): boolean {
    if (job.status === 'running' && now >= job.leaseUntil && now >= job.deadline) {
      // the bug: the lease outcome is decided before the deadline is looked at
      if (job.attempts >= this.cfg.maxAttempts) this.kill(job, 'lease_expired');
      else {
        this.endDelivery(job);
        this.makeReady(job);
      }
      return true;
    }
    return super.expire(job, now);
  }
}
