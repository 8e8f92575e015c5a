/**
 * Expiry (contract section 6, step 2): an unresolved job hears the clock. The deadline comes
 * first; then a running job's lease (requeued while attempts are left, else dead with
 * `lease_expired`); then a waiting job's end of backoff. Stores call it only for jobs whose
 * `dueOf` instant has come, but it decides from the job's fields alone.
 */
import type { Config, JobStatus } from '../../contract/index.ts';

/**
 * What the clock does to a job: `deadline` and `lease_expired` kill it with that reason,
 * `requeue` ends its delivery and makes it ready, `retry` ends its backoff, `none` leaves it.
 */
export type Expiry = 'deadline' | 'lease_expired' | 'requeue' | 'retry' | 'none';

/** What expiry reads of a job (a time that does not apply to its status is ignored). */
export interface ExpiringJob {
  readonly status: JobStatus;
  readonly attempts: number;
  readonly deadline: number;
  readonly leaseUntil: number | null;
  readonly notBefore: number | null;
}

/** The contract's answer for an unresolved job at `now`. Pure. */
export function expiry(cfg: Config, job: ExpiringJob, now: number): Expiry {
  if (now >= job.deadline) return 'deadline';
  if (job.status === 'running' && now >= (job.leaseUntil as number))
    return job.attempts >= cfg.maxAttempts ? 'lease_expired' : 'requeue';
  if (job.status === 'waiting' && now >= (job.notBefore as number)) return 'retry';
  return 'none';
}
