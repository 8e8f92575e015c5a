/**
 * How concurrent a history was: which requests were in flight together. A request is in flight
 * from the instant it was sent to the instant its reply was read, or for ever when no reply came.
 * Two requests overlap when each was sent before the other's reply was read. A campaign whose
 * requests never overlapped checked sequential histories only: it could not have found a race,
 * so its pass is no concurrency pass (result.ts, `not_exercised`).
 */
import type { History } from './history.ts';

/** Requests in flight together, in one history or added up over a campaign's. */
export interface Overlap {
  /** Requests sent (a run's final snapshot left out: it is sent once everything has settled). */
  readonly requests: number;
  /** Requests in flight together with at least one other. */
  readonly overlapping: number;
  /** Pairs of requests in flight together. */
  readonly pairs: number;
}

/** No request, no overlap. */
export const NO_OVERLAP: Overlap = { requests: 0, overlapping: 0, pairs: 0 };

/** The two counts added up. Pure. */
export const addOverlap = (a: Overlap, b: Overlap): Overlap => ({
  requests: a.requests + b.requests,
  overlapping: a.overlapping + b.overlapping,
  pairs: a.pairs + b.pairs,
});

/**
 * The overlap of a history's requests, read from their stamps (`invoked`, `returned`); the
 * operation `leaveOut` (a run's final snapshot) is not counted. Pure; O(n log n + pairs).
 */
export function overlapOf<I, O>(history: History<I, O>, leaveOut?: number): Overlap {
  const ops = history.operations
    .filter((o) => o.id !== leaveOut)
    .map((o) => ({ invoked: o.invoked, returned: o.returned ?? Number.POSITIVE_INFINITY, overlapping: false }))
    .sort((a, b) => a.invoked - b.invoked);
  let pairs = 0;
  for (let i = 0; i < ops.length; i++) {
    const a = ops[i]!;
    // Sorted by sending: every later request sent before `a`'s reply was read overlaps it.
    for (let j = i + 1; j < ops.length && ops[j]!.invoked < a.returned; j++) {
      pairs += 1;
      a.overlapping = true;
      ops[j]!.overlapping = true;
    }
  }
  return { requests: ops.length, overlapping: ops.filter((o) => o.overlapping).length, pairs };
}
