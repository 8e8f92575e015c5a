/**
 * BUG: commit is not idempotent. The effect ledger is not consulted, so a second commit of the
 * same (account, key), e.g. by a redelivery of the job, adds the amount again (and overwrites
 * the ledger row).
 * A decision bug: the contract's decisions with the commit plan replaced, run by every store.
 */
import { DECISIONS, JobStore, withDecisions } from '../../impl/index.ts';
import type { Decisions } from '../../impl/index.ts';

/** The decisions with a commit plan that forgets what the ledger already holds. */
export const commitNotIdempotent: Decisions = {
  ...DECISIONS,
  commitPlan: (effect, recorded, before) => {
    const plan = DECISIONS.commitPlan(effect, undefined, before); // the bug: the ledger's row is not looked at
    return plan.type === 'apply' ? { ...plan, replaces: recorded !== undefined } : plan;
  },
};

/** JobStore whose commits forget what the ledger already holds. */
export const CommitNotIdempotent = withDecisions(JobStore, commitNotIdempotent);
