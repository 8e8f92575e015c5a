/**
 * BUG: a retry forgets the original deadline. A transient failure always schedules a retry after
 * the backoff delay, even when the retry would start at or after the job's deadline (the contract
 * says: dead with reason `no_time_for_retry`).
 */
import { JobStore, addTime, retryDelay } from '../../impl/index.ts';
import type { FailCommand, Reply } from '../../contract/index.ts';

/** JobStore whose transient failures never check the deadline. */
export class RetryForgetsDeadline extends JobStore {
  protected override applyFail(c: FailCommand): Reply {
    const job = this.delivery(c);
    if ('ok' in job) return job;
    const willRetry = c.kind === 'transient' && job.attempts < this.cfg.maxAttempts;
    if (!willRetry) return super.applyFail(c);
    this.endDelivery(job);
    job.lastError = c.error;
    // the bug: no comparison of notBefore with job.deadline
    const notBefore = addTime(c.now, retryDelay(this.cfg.backoffBase, this.cfg.backoffCap, job.attempts));
    job.notBefore = notBefore;
    this.setStatus(job, 'waiting');
    this.schedule(job);
    return { ok: true, type: 'fail', id: job.id, status: 'waiting', notBefore };
  }
}
