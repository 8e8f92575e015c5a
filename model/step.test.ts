import { describe, expect, it } from 'vitest';
import type { Config, Reply } from '../contract/index.ts';
import { JobcheckError } from '../contract/index.ts';
import { backoffDelay } from './jobMachine.ts';
import { initialState, step, toSnapshot } from './step.ts';
import type { ModelState } from './step.ts';

const MAX = Number.MAX_SAFE_INTEGER;
const base: Config = { capacity: 2, maxAttempts: 2, leaseTicks: 5, backoffBase: 2, backoffCap: 8 };

/** Runs commands from an empty store; returns the final state and every reply. */
function run(commands: readonly unknown[], config: Config = base): { state: ModelState; replies: Reply[] } {
  let state = initialState(config);
  const replies: Reply[] = [];
  for (const c of commands) {
    const r = step(state, c);
    state = r.state;
    replies.push(r.reply);
  }
  return { state, replies };
}

const submit = (
  id: string,
  now = 0,
  extra: Partial<{ account: string; key: string; amount: number; deadline: number }> = {},
) => ({
  type: 'submit',
  id,
  account: extra.account ?? 'alice',
  key: extra.key ?? `${id}:k`,
  amount: extra.amount ?? 1,
  deadline: extra.deadline ?? 100,
  now,
});
const claim = (worker: string, now: number) => ({ type: 'claim', worker, now });
const commit = (worker: string, token: number, now: number) => ({ type: 'commit', worker, token, now });
const ack = (worker: string, token: number, now: number) => ({ type: 'ack', worker, token, now });
const fail = (worker: string, token: number, now: number, kind = 'transient', error = 'boom') => ({
  type: 'fail',
  worker,
  token,
  kind,
  error,
  now,
});
const tick = (now: number) => ({ type: 'tick', now });

/**
 * Applies `command` after `setup` and checks the reply has `code` and that nothing changed: not at
 * all for a validation failure, nothing beyond the clock advance (a tick to the same now) otherwise.
 */
function expectRejected(setup: readonly unknown[], command: unknown, code: string, config: Config = base): Reply {
  const { state } = run(setup, config);
  const validation = code === 'invalid_argument' || code === 'clock_regressed';
  const before = toSnapshot(validation ? state : step(state, tick((command as { now: number }).now)).state);
  const r = step(state, command);
  expect(r.reply).toMatchObject({ ok: false, code });
  expect(toSnapshot(r.state)).toEqual(before);
  return r.reply;
}

describe('initialState', () => {
  it('starts with clock 0, first token 1, first seq 1 and nothing else', () => {
    expect(toSnapshot(initialState(base))).toEqual({
      format: 'jobcheck.snapshot/1',
      config: base,
      clock: 0,
      nextToken: 1,
      nextSeq: 1,
      jobs: {},
      balances: {},
      effects: {},
    });
  });

  it('refuses a config with backoffCap below backoffBase, naming the field', () => {
    expect(() => initialState({ ...base, backoffCap: 1 })).toThrow(JobcheckError);
    expect(() => initialState({ ...base, backoffCap: 1 })).toThrow(/backoffCap/);
    expect(() => initialState({ ...base, capacity: 0 })).toThrow(/capacity/);
  });
});

describe('every rejection code', () => {
  it('invalid_argument: a malformed command, naming the field and value', () => {
    const reply = expectRejected([], { type: 'claim', worker: '', now: 0 }, 'invalid_argument');
    expect(reply.ok ? '' : reply.message).toMatch(/worker/);
  });

  it('invalid_argument: a submit whose deadline is not after now, even as a duplicate', () => {
    expectRejected([submit('a', 0)], { ...submit('a', 5), deadline: 5 }, 'invalid_argument');
    expectRejected([submit('a', 0, { deadline: 10 })], { ...submit('a', 10, { deadline: 10 }) }, 'invalid_argument');
  });

  it('clock_regressed: a command whose now is before the clock', () => {
    const reply = expectRejected([tick(7)], tick(6), 'clock_regressed');
    expect(reply.ok ? '' : reply.message).toMatch(/now/);
  });

  it('stale_token: a token never issued, or no longer current', () => {
    expectRejected([submit('a')], commit('w1', 1, 0), 'stale_token');
    expectRejected([submit('a'), claim('w1', 0), ack('w1', 1, 1)], ack('w1', 1, 2), 'stale_token');
  });

  it('stale_token is decided before ownership', () => {
    expectRejected([submit('a'), claim('w1', 0)], fail('w2', 2, 1), 'stale_token');
  });

  it('not_owner: the current token from another worker, for commit, ack and fail', () => {
    const setup = [submit('a'), claim('w1', 0)];
    expectRejected(setup, commit('w2', 1, 1), 'not_owner');
    expectRejected(setup, ack('w2', 1, 1), 'not_owner');
    expectRejected(setup, fail('w2', 1, 1), 'not_owner');
  });

  it('conflict (submit): a known id with another payload', () => {
    expectRejected([submit('a', 0, { amount: 1 })], submit('a', 1, { amount: 2 }), 'conflict');
    expectRejected([submit('a', 0)], submit('a', 1, { deadline: 99 }), 'conflict');
  });

  it('conflict (effect): a commit whose (account, key) is recorded with another amount', () => {
    const setup = [
      submit('a', 0, { key: 'k', amount: 3 }),
      submit('b', 0, { key: 'k', amount: 4 }),
      claim('w1', 0),
      commit('w1', 1, 0),
      ack('w1', 1, 0),
      claim('w1', 1),
    ];
    expectRejected(setup, commit('w1', 2, 1), 'conflict');
  });

  it('capacity_exceeded: a new id when ready + waiting + running jobs fill the capacity', () => {
    // a running, b waiting after a transient failure (notBefore 3), capacity 2.
    const setup = [submit('a', 0), submit('b', 0, { account: 'bob' }), claim('w', 0), claim('w', 0), fail('w', 2, 1)];
    expectRejected(setup, submit('c', 1, { account: 'carol' }), 'capacity_exceeded');
  });

  it('out_of_range: a commit that would take the balance beyond 2^53-1', () => {
    const setup = [
      submit('a', 0, { key: 'k1', amount: MAX }),
      submit('b', 0, { key: 'k2', amount: 1 }),
      claim('w', 0),
      commit('w', 1, 0),
      ack('w', 1, 0),
      claim('w', 0),
    ];
    expectRejected(setup, commit('w', 2, 0), 'out_of_range');
  });

  it('out_of_range also guards the negative side', () => {
    const setup = [
      submit('a', 0, { key: 'k1', amount: -MAX }),
      submit('b', 0, { key: 'k2', amount: -1 }),
      claim('w', 0),
      commit('w', 1, 0),
      ack('w', 1, 0),
      claim('w', 0),
    ];
    expectRejected(setup, commit('w', 2, 0), 'out_of_range');
  });
});

describe('submit', () => {
  it('admits a ready job with the next seq', () => {
    const { replies, state } = run([submit('a'), submit('b', 1)]);
    expect(replies).toEqual([
      { ok: true, type: 'submit', id: 'a', seq: 1, duplicate: false },
      { ok: true, type: 'submit', id: 'b', seq: 2, duplicate: false },
    ]);
    expect(toSnapshot(state).jobs['b']).toEqual({
      payload: { account: 'alice', key: 'b:k', amount: 1, deadline: 100 },
      seq: 2,
      status: 'ready',
      attempts: 0,
    });
  });

  it('accepts an exact repeat as a duplicate even at capacity and after the job is done', () => {
    const { replies } = run(
      [submit('a'), submit('b', 0, { account: 'bob' }), submit('a', 1), claim('w', 1), ack('w', 1, 2), submit('a', 3)],
      {
        ...base,
        capacity: 2,
      },
    );
    expect(replies[2]).toEqual({ ok: true, type: 'submit', id: 'a', seq: 1, duplicate: true });
    expect(replies[5]).toEqual({ ok: true, type: 'submit', id: 'a', seq: 1, duplicate: true });
  });

  it('lets terminal jobs free capacity', () => {
    const { replies } = run([
      submit('a'),
      submit('b', 0, { account: 'bob' }),
      claim('w', 0),
      ack('w', 1, 1),
      submit('c', 1),
    ]);
    expect(replies[4]).toEqual({ ok: true, type: 'submit', id: 'c', seq: 3, duplicate: false });
  });
});

describe('claim', () => {
  it('answers an empty store with job null, not an error', () => {
    expect(run([claim('w', 0)]).replies[0]).toEqual({ ok: true, type: 'claim', job: null });
  });

  it('delivers only the head of each account, smallest seq first', () => {
    const { replies } = run(
      [submit('a1'), submit('a2'), submit('b1', 0, { account: 'bob' }), claim('w', 0), claim('w', 0), claim('w', 0)],
      {
        ...base,
        capacity: 3,
      },
    );
    expect(replies.slice(3).map((r) => (r.ok && r.type === 'claim' ? (r.job?.id ?? null) : r))).toEqual([
      'a1',
      'b1',
      null,
    ]);
  });

  it('lets a dead head unblock the next job of its account', () => {
    const { replies } = run([submit('a1'), submit('a2'), claim('w', 0), fail('w', 1, 1, 'permanent'), claim('w', 1)]);
    expect(replies[4]).toMatchObject({ ok: true, type: 'claim', job: { id: 'a2', token: 2, attempt: 1 } });
  });

  it('saturates leaseUntil at 2^53-1', () => {
    const { replies } = run([submit('a', 10, { deadline: MAX }), claim('w', 10)], { ...base, leaseTicks: MAX });
    expect(replies[1]).toMatchObject({ job: { leaseUntil: MAX } });
  });
});

describe('commit and ack', () => {
  it('applies an effect once and leaves the job running until ack', () => {
    const { replies, state } = run([
      submit('a', 0, { amount: 5 }),
      claim('w', 0),
      commit('w', 1, 1),
      commit('w', 1, 2),
    ]);
    expect(replies.slice(2)).toEqual([
      { ok: true, type: 'commit', id: 'a', applied: true, balance: 5 },
      { ok: true, type: 'commit', id: 'a', applied: false, balance: 5 },
    ]);
    const snap = toSnapshot(state);
    expect(snap.jobs['a']).toMatchObject({ status: 'running', token: 1 });
    expect(snap.effects).toEqual({ alice: { 'a:k': { amount: 5, job: 'a', token: 1 } } });
  });

  it('ack settles the job and removes its delivery fields', () => {
    const { state } = run([submit('a'), claim('w', 0), ack('w', 1, 1)]);
    expect(toSnapshot(state).jobs['a']).toEqual({ payload: submitPayload('a'), seq: 1, status: 'done', attempts: 1 });
  });
});

const submitPayload = (id: string) => ({ account: 'alice', key: `${id}:k`, amount: 1, deadline: 100 });

describe('fail', () => {
  it('permanent: dead at once, keeping the error', () => {
    const { replies, state } = run([submit('a'), claim('w', 0), fail('w', 1, 1, 'permanent', 'bad input')]);
    expect(replies[2]).toEqual({ ok: true, type: 'fail', id: 'a', status: 'dead', reason: 'permanent' });
    expect(toSnapshot(state).jobs['a']).toEqual({
      payload: submitPayload('a'),
      seq: 1,
      status: 'dead',
      attempts: 1,
      reason: 'permanent',
      lastError: 'bad input',
    });
  });

  it('transient: waits min(base * 2^(attempts-1), cap), then becomes ready', () => {
    // base 2, cap 8: after attempt 1 the delay is 2; after attempt 2 it would be 4.
    const cfg = { ...base, maxAttempts: 3 };
    const { replies } = run(
      [submit('a'), claim('w', 0), fail('w', 1, 1), claim('w', 2), claim('w', 3), fail('w', 2, 4)],
      cfg,
    );
    expect(replies[2]).toEqual({ ok: true, type: 'fail', id: 'a', status: 'waiting', notBefore: 3 });
    expect(replies[3]).toEqual({ ok: true, type: 'claim', job: null });
    expect(replies[4]).toMatchObject({ job: { id: 'a', token: 2, attempt: 2 } });
    expect(replies[5]).toEqual({ ok: true, type: 'fail', id: 'a', status: 'waiting', notBefore: 8 });
  });

  it('transient on the last attempt: dead, attempts_exhausted', () => {
    const { replies } = run([submit('a'), claim('w', 0), fail('w', 1, 1), claim('w', 3), fail('w', 2, 4)]);
    expect(replies[4]).toEqual({ ok: true, type: 'fail', id: 'a', status: 'dead', reason: 'attempts_exhausted' });
  });

  it('transient when the retry would not start before the deadline: dead, no_time_for_retry', () => {
    // now 1 + delay 2 = 3, deadline 3: not before the deadline.
    const { replies } = run([submit('a', 0, { deadline: 3 }), claim('w', 0), fail('w', 1, 1)]);
    expect(replies[2]).toEqual({ ok: true, type: 'fail', id: 'a', status: 'dead', reason: 'no_time_for_retry' });
    const ok = run([submit('a', 0, { deadline: 4 }), claim('w', 0), fail('w', 1, 1)]);
    expect(ok.replies[2]).toEqual({ ok: true, type: 'fail', id: 'a', status: 'waiting', notBefore: 3 });
  });

  it('computes the backoff of a very late attempt without overflow', () => {
    const policy = { maxAttempts: 10 ** 6, leaseTicks: 1, backoffBase: 3, backoffCap: 100 };
    expect([1, 2, 3, 4, 5, 6].map((a) => backoffDelay(policy, a))).toEqual([3, 6, 12, 24, 48, 96]);
    expect(backoffDelay(policy, 7)).toBe(100);
    expect(backoffDelay(policy, 10 ** 6)).toBe(100);
    expect(backoffDelay({ ...policy, backoffBase: 2 ** 40, backoffCap: MAX }, 5000)).toBe(MAX);
  });

  it('saturates now + delay at 2^53-1, so a retry past the largest deadline is no_time_for_retry', () => {
    const cfg = { capacity: 1, maxAttempts: 3, leaseTicks: 1, backoffBase: MAX, backoffCap: MAX };
    const { replies } = run([submit('a', 5, { deadline: MAX }), claim('w', 5), fail('w', 1, 5)], cfg);
    expect(replies[2]).toEqual({ ok: true, type: 'fail', id: 'a', status: 'dead', reason: 'no_time_for_retry' });
  });
});

describe('advancing the clock (step 2)', () => {
  it('kills a job at its deadline before looking at its lease', () => {
    const { replies, state } = run([submit('a', 0, { deadline: 5 }), claim('w', 0), tick(5)], {
      ...base,
      leaseTicks: 5,
    });
    expect(replies[2]).toEqual({ ok: true, type: 'tick', clock: 5 });
    expect(toSnapshot(state).jobs['a']).toMatchObject({ status: 'dead', reason: 'deadline', attempts: 1 });
    expect(toSnapshot(state).jobs['a']).not.toHaveProperty('token');
  });

  it("prefers the deadline over the expiry of the last attempt's lease at the same tick", () => {
    const { state } = run([submit('a', 0, { deadline: 5 }), claim('w', 0), tick(5)], {
      ...base,
      maxAttempts: 1,
      leaseTicks: 5,
    });
    expect(toSnapshot(state).jobs['a']).toMatchObject({ status: 'dead', reason: 'deadline', attempts: 1 });
  });

  it('expires a lease at exactly leaseUntil: ready with attempts left, dead on the last', () => {
    const one = run([submit('a'), claim('w', 0), tick(4)]);
    expect(toSnapshot(one.state).jobs['a']).toMatchObject({ status: 'running' });
    const two = run([submit('a'), claim('w', 0), tick(5)]);
    expect(toSnapshot(two.state).jobs['a']).toEqual({
      payload: submitPayload('a'),
      seq: 1,
      status: 'ready',
      attempts: 1,
    });
    const last = run([submit('a'), claim('w', 0), tick(5), claim('w', 5), tick(10)]);
    expect(toSnapshot(last.state).jobs['a']).toMatchObject({ status: 'dead', reason: 'lease_expired', attempts: 2 });
    expect(toSnapshot(last.state).jobs['a']).not.toHaveProperty('lastError');
  });

  it('kills a waiting job at its deadline and readies it at notBefore, keeping lastError', () => {
    const ready = run([submit('a', 0, { deadline: 10 }), claim('w', 0), fail('w', 1, 1, 'transient', 'e1'), tick(3)]);
    expect(toSnapshot(ready.state).jobs['a']).toEqual({
      payload: { ...submitPayload('a'), deadline: 10 },
      seq: 1,
      status: 'ready',
      attempts: 1,
      lastError: 'e1',
    });
    const dead = run([submit('a', 0, { deadline: 10 }), claim('w', 0), fail('w', 1, 1, 'transient', 'e1'), tick(10)]);
    expect(toSnapshot(dead.state).jobs['a']).toMatchObject({ status: 'dead', reason: 'deadline', lastError: 'e1' });
  });

  it('moves the clock even for a rejected domain command', () => {
    const { state, replies } = run([tick(3), commit('w', 9, 8)]);
    expect(replies[1]).toMatchObject({ ok: false, code: 'stale_token' });
    expect(toSnapshot(state).clock).toBe(8);
  });
});
