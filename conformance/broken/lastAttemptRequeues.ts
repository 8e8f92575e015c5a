/**
 * BUG: when the lease of a job's last allowed attempt expires, the job is put back in the queue
 * (ready) instead of dying with reason `lease_expired`, so it can be delivered more than
 * `maxAttempts` times.
 */
import { JobStore } from '../../impl/index.ts';
import type { JobEntry } from '../../impl/index.ts';

/** JobStore that requeues a job whose last lease expired. */
export class LastAttemptRequeues extends JobStore {
  protected override expire(job: JobEntry, now: number): boolean {
    if (job.status === 'running' && now >= job.leaseUntil && now < job.deadline && job.attempts >= this.cfg.maxAttempts) {
      this.endDelivery(job);
      this.makeReady(job); // the bug: should be this.kill(job, 'lease_expired')
      return true;
    }
    return super.expire(job, now);
  }
}
