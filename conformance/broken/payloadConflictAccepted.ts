/**
 * BUG: a payload conflict is silently accepted. Submitting an existing id with another payload
 * answers as a harmless duplicate instead of refusing it with `conflict`, so the caller believes
 * its (different) job was admitted.
 * A decision bug: the contract's decisions with admission replaced, run by every store.
 */
import { DECISIONS, JobStore, withDecisions } from '../../impl/index.ts';
import type { Decisions } from '../../impl/index.ts';

/** The decisions with an admission that treats any resubmission of an id as a duplicate. */
export const payloadConflictAccepted: Decisions = {
  ...DECISIONS,
  admission: (cfg, c, existing, load) =>
    existing !== undefined ? { type: 'duplicate', seq: existing.seq } : DECISIONS.admission(cfg, c, existing, load), // the bug: payload not compared
};

/** JobStore that treats any resubmission of an id as a duplicate. */
export const PayloadConflictAccepted = withDecisions(JobStore, payloadConflictAccepted);
