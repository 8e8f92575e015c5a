/**
 * BUG: the retry backoff is not capped. The delay doubles with every attempt past `backoffCap`,
 * so a job that failed a few times waits longer than the contract allows (or dies for lack of
 * time before its deadline).
 * A decision bug: the contract's decisions with the fail outcome replaced, run by every store.
 */
import { DECISIONS, JobStore, withDecisions } from '../../impl/index.ts';
import type { Decisions } from '../../impl/index.ts';

/** The decisions with a retry delay that ignores backoffCap. */
export const backoffNotCapped: Decisions = {
  ...DECISIONS,
  failOutcome: (cfg, c, job) => DECISIONS.failOutcome({ ...cfg, backoffCap: Number.MAX_SAFE_INTEGER }, c, job), // the bug: no cap on the delay
};

/** JobStore whose retry delay ignores backoffCap. */
export const BackoffNotCapped = withDecisions(JobStore, backoffNotCapped);
