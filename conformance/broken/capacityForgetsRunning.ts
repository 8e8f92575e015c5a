/**
 * BUG: the capacity check forgets running jobs. Only ready and waiting jobs are counted against
 * `capacity`, so a store whose slots are all held by running jobs still admits new ones.
 * A decision bug: the contract's decisions with admission replaced, run by every store.
 */
import { DECISIONS, JobStore, withDecisions } from '../../impl/index.ts';
import type { Decisions } from '../../impl/index.ts';

/** The decisions with an admission that ignores running jobs (it asks the store how many run). */
export const capacityForgetsRunning: Decisions = {
  ...DECISIONS,
  admission: (cfg, c, existing, load) => {
    if (load.running === undefined) return { type: 'ask', fact: 'running' };
    return DECISIONS.admission(cfg, c, existing, { ...load, unresolved: load.unresolved - load.running }); // the bug: running jobs do not count
  },
};

/** JobStore whose admission ignores running jobs. */
export const CapacityForgetsRunning = withDecisions(JobStore, capacityForgetsRunning);
