/**
 * The fail outcome (contract section 7, fail): a permanent failure kills the job; a transient
 * one kills it once its attempts are spent, else schedules a retry after the capped backoff,
 * provided the retry starts before the deadline (else `no_time_for_retry`).
 */
import type { Config, DeadReason, FailCommand } from '../../contract/index.ts';
import { addTime, retryDelay } from './time.ts';

/** What a failed delivery becomes. */
export type FailOutcome =
  | { readonly status: 'waiting'; readonly notBefore: number }
  | { readonly status: 'dead'; readonly reason: DeadReason };

/** What the outcome reads of the failed job. */
export interface FailedJob {
  readonly attempts: number;
  readonly deadline: number;
}

/** The contract's outcome of failure `c` of a job's delivery. Pure. */
export function failOutcome(cfg: Config, c: Pick<FailCommand, 'kind' | 'now'>, job: FailedJob): FailOutcome {
  if (c.kind === 'permanent') return { status: 'dead', reason: 'permanent' };
  if (job.attempts >= cfg.maxAttempts) return { status: 'dead', reason: 'attempts_exhausted' };
  const notBefore = addTime(c.now, retryDelay(cfg.backoffBase, cfg.backoffCap, job.attempts));
  if (notBefore < job.deadline) return { status: 'waiting', notBefore };
  return { status: 'dead', reason: 'no_time_for_retry' };
}
