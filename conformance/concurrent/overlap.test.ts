/**
 * Requests in flight together, read from a history's stamps: none for requests sent one after
 * another, every pair whose times in flight meet otherwise, each pair by the kinds of race it can
 * show (a kind at 0 when no pair of it was in flight); and a campaign whose histories never
 * overlap is `not_exercised`, never `passed`, while one with overlaps says how many it saw.
 */
import { describe, expect, it } from 'vitest';
import type { History } from './history.ts';
import { OVERLAP_KINDS, overlapOf } from './overlap.ts';
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
    expect(overlapOf(history([0, 1], [2, 3], [4, 5]))).toMatchObject({ requests: 3, overlapping: 0, pairs: 0 });
  });

  it('counts every pair in flight together, and each request in one', () => {
    // 0 and 1 overlap, 1 and 2 overlap, 0 and 2 do not; 3 is alone.
    expect(overlapOf(history([0, 2], [1, 4], [3, 5], [6, 7]))).toMatchObject({ requests: 4, overlapping: 3, pairs: 2 });
    expect(overlapOf(history([0, 9], [1, 2], [3, 4]))).toMatchObject({ requests: 3, overlapping: 3, pairs: 2 });
  });

  it('holds a request without a reply in flight for ever, and leaves out the one it is told to', () => {
    expect(overlapOf(history([0, undefined], [5, 6]))).toMatchObject({ requests: 2, overlapping: 2, pairs: 1 });
    expect(overlapOf(history([0, undefined], [5, 6]), 1)).toMatchObject({ requests: 1, overlapping: 0, pairs: 0 });
  });
});

/** An operation of a history: a command sent at `invoked`, its reply read at `returned`. */
const op = (id: number, invoked: number, returned: number, input: object, output: object = { ok: true }) => ({
  id,
  lane: id % 4,
  input,
  invoked,
  returned,
  output,
});
const claimed = (token: number, leaseUntil: number, id = 'a') => ({
  ok: true,
  type: 'claim',
  job: { id, token, attempt: 1, leaseUntil, payload: {} },
});

describe('the kinds of overlapping pairs', () => {
  // w1 claims job a (token 1, lease until 3); at tick 3 its ack and w2's claim are in flight together.
  const leaseEnd = {
    operations: [
      op(1, 0, 1, { type: 'claim', worker: 'w1', now: 1 }, claimed(1, 3)),
      op(2, 2, 5, { type: 'ack', worker: 'w1', token: 1, now: 3 }),
      op(3, 3, 4, { type: 'claim', worker: 'w2', now: 3 }, claimed(2, 5)),
    ],
  };

  it('counts an ack at its lease end beside a claim at that end, and the claim beside the expiry', () => {
    const o = overlapOf(leaseEnd);
    expect(o.pairs).toBe(1);
    expect(o.kinds).toEqual({ claimClaim: 0, settleAtLeaseEnd: 1, claimAtExpiry: 1, submitSubmit: 0, commitCommit: 0 });
  });

  it('counts none of those when the ack comes two ticks before the lease ends, or once the expiry is past', () => {
    const early = {
      operations: leaseEnd.operations.map((o) => (o.id === 2 ? { ...o, input: { ...o.input, now: 1 } } : o)),
    };
    expect(overlapOf(early).kinds.settleAtLeaseEnd).toBe(0);
    // A tick at 3 answered before either was sent: the lease had already ended.
    const past = {
      operations: [
        ...leaseEnd.operations.map((o) => ({ ...o, invoked: o.invoked + 10, returned: o.returned + 10 })),
        op(9, 1, 2, { type: 'tick', now: 3 }),
      ],
    };
    past.operations[0] = op(1, 0, 1, { type: 'claim', worker: 'w1', now: 1 }, claimed(1, 3));
    expect(overlapOf(past).kinds.claimAtExpiry).toBe(0);
  });

  it('counts two claims, two submits and two commits of one job, each only when they overlap', () => {
    const h = {
      operations: [
        op(1, 0, 3, { type: 'claim', worker: 'w1', now: 0 }, claimed(1, 5, 'a')),
        op(2, 1, 2, { type: 'claim', worker: 'w2', now: 0 }, claimed(2, 5, 'b')),
        op(3, 4, 6, { type: 'submit', id: 'c', now: 0 }),
        op(4, 5, 7, { type: 'submit', id: 'd', now: 0 }),
        op(5, 8, 10, { type: 'commit', worker: 'w1', token: 1, now: 1 }),
        op(6, 9, 11, { type: 'commit', worker: 'w2', token: 2, now: 1 }),
        op(7, 12, 13, { type: 'claim', worker: 'w3', now: 1 }, claimed(3, 6, 'a')),
        op(8, 14, 16, { type: 'commit', worker: 'w1', token: 1, now: 1 }),
        op(9, 15, 17, { type: 'commit', worker: 'w3', token: 3, now: 1 }),
      ],
    };
    expect(overlapOf(h).kinds).toEqual({
      claimClaim: 1,
      settleAtLeaseEnd: 0,
      claimAtExpiry: 0,
      submitSubmit: 1,
      commitCommit: 1,
    });
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
    expect(Object.values(r.overlap.kinds).every((n) => n === 0)).toBe(true);
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
    // The moments a race can bite were tried: a settlement at its lease's end beside a claim, and the rest.
    for (const kind of OVERLAP_KINDS.filter((k) => k !== 'commitCommit'))
      expect(r.overlap.kinds[kind], kind).toBeGreaterThan(0);
  });
});
