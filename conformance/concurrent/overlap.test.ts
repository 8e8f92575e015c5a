/**
 * Requests in flight together, read from a history's stamps: none for requests sent one after
 * another, every pair whose times in flight meet otherwise; and a campaign whose histories never
 * overlap is `not_exercised`, never `passed`, while one with overlaps says how many it saw.
 */
import { describe, expect, it } from 'vitest';
import type { History } from './history.ts';
import { overlapOf } from './overlap.ts';
import { runConcurrentCampaign } from './campaign.ts';
import { lockedJobStoreFactory, sequentialFactory } from './inProcess.ts';
import { jobStoreFactory } from '../stores/jobStore.ts';

/** A history of operations given as [invoked, returned] (undefined: no reply came). */
const history = (...ops: [number, number | undefined][]): History<unknown, unknown> => ({
  operations: ops.map(([invoked, returned], id) => ({
    id,
    lane: id,
    input: null,
    invoked,
    ...(returned === undefined ? {} : { returned, output: null }),
  })),
});

describe('overlapOf', () => {
  it('counts none for requests each sent after the reply to the one before', () => {
    expect(overlapOf(history([0, 1], [2, 3], [4, 5]))).toEqual({ requests: 3, overlapping: 0, pairs: 0 });
  });

  it('counts every pair in flight together, and each request in one', () => {
    // 0 and 1 overlap, 1 and 2 overlap, 0 and 2 do not; 3 is alone.
    expect(overlapOf(history([0, 2], [1, 4], [3, 5], [6, 7]))).toEqual({ requests: 4, overlapping: 3, pairs: 2 });
    expect(overlapOf(history([0, 9], [1, 2], [3, 4]))).toEqual({ requests: 3, overlapping: 3, pairs: 2 });
  });

  it('holds a request without a reply in flight for ever, and leaves out the one it is told to', () => {
    expect(overlapOf(history([0, undefined], [5, 6]))).toEqual({ requests: 2, overlapping: 2, pairs: 1 });
    expect(overlapOf(history([0, undefined], [5, 6]), 1)).toEqual({ requests: 1, overlapping: 0, pairs: 0 });
  });
});

describe('a concurrent campaign', () => {
  it('is not exercised, never passed, when the store takes one request at a time, and says why', async () => {
    const r = await runConcurrentCampaign({
      factory: sequentialFactory(jobStoreFactory()),
      workers: 4,
      numRuns: 20,
      seed: 1,
    });
    expect(r.verdict).toBe('not_exercised');
    expect(r.overlap.requests).toBeGreaterThan(0);
    expect(r.overlap.pairs).toBe(0);
    expect(r.notExercised).toMatch(
      /^the implementation takes one request at a time .* none of the \d+ requests of 20 runs/,
    );
  });

  it('passes a store that takes requests at once, with the overlap it saw', async () => {
    const r = await runConcurrentCampaign({ factory: lockedJobStoreFactory(), workers: 4, numRuns: 20, seed: 1 });
    expect(r.verdict).toBe('passed');
    expect(r.notExercised).toBeNull();
    expect(r.overlap.pairs).toBeGreaterThan(0);
    expect(r.overlap.overlapping).toBeLessThanOrEqual(r.overlap.requests);
  });
});
