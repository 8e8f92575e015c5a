import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../contract/index.ts';
import { JobcheckError } from '../contract/index.ts';
import { fromSnapshot, initialState, step, toSnapshot } from './step.ts';

const config = { capacity: 4, maxAttempts: 3, leaseTicks: 5, backoffBase: 1, backoffCap: 4 };

/** h running with an effect, i waiting after a transient failure (the snapshot-aliasing story, step 6). */
function busyState() {
  let state = initialState(config);
  for (const c of [
    { type: 'submit', id: 'h', account: 'alice', key: 'h:add-4', amount: 4, deadline: 100, now: 0 },
    { type: 'submit', id: 'i', account: 'bob', key: 'i:add-6', amount: 6, deadline: 100, now: 0 },
    { type: 'claim', worker: 'w1', now: 1 },
    { type: 'commit', worker: 'w1', token: 1, now: 2 },
    { type: 'claim', worker: 'w2', now: 2 },
    { type: 'fail', worker: 'w2', token: 2, kind: 'transient', error: 'busy', now: 3 },
  ]) {
    state = step(state, c).state;
  }
  return state;
}

const EXPECTED: Snapshot = {
  format: 'jobcheck.snapshot/1',
  config,
  clock: 3,
  nextToken: 3,
  nextSeq: 3,
  jobs: {
    h: {
      payload: { account: 'alice', key: 'h:add-4', amount: 4, deadline: 100 },
      seq: 1,
      status: 'running',
      attempts: 1,
      token: 1,
      owner: 'w1',
      leaseUntil: 6,
    },
    i: {
      payload: { account: 'bob', key: 'i:add-6', amount: 6, deadline: 100 },
      seq: 2,
      status: 'waiting',
      attempts: 1,
      notBefore: 4,
      lastError: 'busy',
    },
  },
  balances: { alice: 4 },
  effects: { alice: { 'h:add-4': { amount: 4, job: 'h', token: 1 } } },
};

describe('toSnapshot', () => {
  it('writes the canonical snapshot, with optional fields absent where not meaningful', () => {
    expect(toSnapshot(busyState())).toEqual(EXPECTED);
  });

  it('lists jobs in admission order and accounts sorted', () => {
    const snap = toSnapshot(busyState());
    expect(Object.keys(snap.jobs)).toEqual(['h', 'i']);
    expect(JSON.stringify(snap)).not.toContain('null');
  });
});

describe('fromSnapshot', () => {
  it('restores a state whose snapshot is the same, and whose old token still works', () => {
    const restored = fromSnapshot(JSON.parse(JSON.stringify(EXPECTED)));
    expect(toSnapshot(restored)).toEqual(EXPECTED);
    const r = step(restored, { type: 'ack', worker: 'w1', token: 1, now: 5 });
    expect(r.reply).toEqual({ ok: true, type: 'ack', id: 'h' });
    const c = step(r.state, { type: 'claim', worker: 'w2', now: 5 });
    expect(c.reply).toMatchObject({ job: { id: 'i', token: 3, attempt: 2 } });
  });

  // biome-ignore lint/suspicious/noExplicitAny: each case corrupts a snapshot in its own way; a precise type would forbid the corruption.
  type Corrupt = (s: Record<string, any>) => unknown;
  const cases: [string, string, Corrupt][] = [
    ['an unknown format version', 'format', (s) => ({ ...s, format: 'jobcheck.snapshot/2' })],
    [
      'a config with backoffCap below backoffBase',
      'config.backoffCap',
      (s) => ({ ...s, config: { ...s.config, backoffBase: 5 } }),
    ],
    ['a negative clock', 'clock', (s) => ({ ...s, clock: -1 })],
    ['an unknown top-level field', 'version', (s) => ({ ...s, version: 1 })],
    [
      'a running job without leaseUntil',
      'jobs.h.leaseUntil',
      (s) => {
        delete s.jobs.h.leaseUntil;
        return s;
      },
    ],
    [
      'a running job with notBefore',
      'jobs.h.notBefore',
      (s) => {
        s.jobs.h.notBefore = 9;
        return s;
      },
    ],
    [
      'a null optional field',
      'jobs.i.reason',
      (s) => {
        s.jobs.i.reason = null;
        return s;
      },
    ],
    [
      'a token not below nextToken',
      'jobs.h.token',
      (s) => {
        s.jobs.h.token = 3;
        return s;
      },
    ],
    [
      'a duplicate seq',
      'jobs.i.seq',
      (s) => {
        s.jobs.i.seq = 1;
        return s;
      },
    ],
    [
      'an unresolved job past its deadline',
      'jobs.h.payload.deadline',
      (s) => {
        s.jobs.h.payload.deadline = 3;
        return s;
      },
    ],
    [
      'a balance that differs from its ledger',
      'balances.alice',
      (s) => {
        s.balances.alice = 5;
        return s;
      },
    ],
    [
      'a balance with no effect',
      'balances.bob',
      (s) => {
        s.balances.bob = 0;
        return s;
      },
    ],
    [
      'an effect naming an unknown job',
      'effects.alice.h:add-4.job',
      (s) => {
        s.effects.alice['h:add-4'].job = 'nobody';
        return s;
      },
    ],
    [
      'a NaN amount',
      'jobs.i.payload.amount',
      (s) => {
        s.jobs.i.payload.amount = Number.NaN;
        return s;
      },
    ],
    [
      'a waiting job with attempts used up',
      'jobs.i.attempts',
      (s) => {
        s.jobs.i.attempts = 3;
        return s;
      },
    ],
  ];

  it.each(cases)('refuses %s with invalid_snapshot naming %s', (_label, path, corrupt) => {
    const input = corrupt(structuredClone(EXPECTED) as Parameters<Corrupt>[0]);
    const copy = structuredClone(input);
    let error: unknown;
    try {
      fromSnapshot(input);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(JobcheckError);
    expect(error).toMatchObject({ code: 'invalid_snapshot', path });
    expect((error as Error).message).toContain(path);
    expect(input).toEqual(copy);
  });

  it.each([null, 'snapshot', [], 42])('refuses a snapshot that is not an object (%j)', (input) => {
    expect(() => fromSnapshot(input)).toThrow(JobcheckError);
  });
});
