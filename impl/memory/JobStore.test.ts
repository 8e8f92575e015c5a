/**
 * JobStore's own API: construction, validation at the boundary, queries, snapshot freshness,
 * restore, and the bounds on its indexes. Agreement with the reference model is checked in
 * conformance/stores/impl.test.ts (this folder never imports the model). Expected values here are
 * worked out by hand from the contract's rules.
 */
import { describe, expect, it } from 'vitest';
import { JobcheckError } from '../../contract/index.ts';
import type { Config, Snapshot } from '../../contract/index.ts';
import { JobStore } from '../index.ts';

const CONFIG: Config = { capacity: 3, maxAttempts: 2, leaseTicks: 5, backoffBase: 2, backoffCap: 8 };

/** A store that exposes the sizes of its lazy heaps. */
class Probe extends JobStore {
  heapSizes(): { timers: number; claimable: number; unresolved: number } {
    return { timers: this.timers.size, claimable: this.claimable.size, unresolved: this.unresolved };
  }
}

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('JobStore.create', () => {
  it('refuses a config whose backoffCap is below backoffBase, naming the field', () => {
    const error = thrown(() => JobStore.create({ ...CONFIG, backoffCap: 1 }));
    expect(error).toBeInstanceOf(JobcheckError);
    expect(error).toMatchObject({ code: 'invalid_config', path: 'backoffCap' });
  });

  it('builds an instance of the subclass it is called on', () => {
    expect(Probe.create(CONFIG)).toBeInstanceOf(Probe);
  });
});

describe('JobStore commands', () => {
  it('runs a job from submit to ack and answers the queries along the way', () => {
    const store = JobStore.create(CONFIG);
    expect(store.submit({ id: 'a', account: 'x', key: 'k', amount: 5, deadline: 100, now: 0 })).toEqual({
      ok: true,
      type: 'submit',
      id: 'a',
      seq: 1,
      duplicate: false,
    });
    expect(store.claim({ worker: 'w', now: 1 })).toEqual({
      ok: true,
      type: 'claim',
      job: {
        id: 'a',
        token: 1,
        attempt: 1,
        leaseUntil: 6,
        payload: { account: 'x', key: 'k', amount: 5, deadline: 100 },
      },
    });
    expect(store.counts()).toEqual({ ready: 0, waiting: 0, running: 1, done: 0, dead: 0 });
    expect(store.commit({ worker: 'w', token: 1, now: 2 })).toEqual({
      ok: true,
      type: 'commit',
      id: 'a',
      applied: true,
      balance: 5,
    });
    expect(store.ack({ worker: 'w', token: 1, now: 3 })).toEqual({ ok: true, type: 'ack', id: 'a' });
    expect(store.job('a')).toEqual({
      payload: { account: 'x', key: 'k', amount: 5, deadline: 100 },
      seq: 1,
      status: 'done',
      attempts: 1,
    });
    expect(store.balance('x')).toBe(5);
    expect(store.balance('nobody')).toBe(0);
    expect(store.balances()).toEqual({ x: 5 });
    expect(store.counts()).toEqual({ ready: 0, waiting: 0, running: 0, done: 1, dead: 0 });
    expect(store.tick({ now: 9 })).toEqual({ ok: true, type: 'tick', clock: 9 });
    expect(store.clock).toBe(9);
    expect(store.size).toBe(1);
  });

  it('schedules a transient failure after the doubled backoff and kills the last attempt', () => {
    const store = JobStore.create(CONFIG);
    store.submit({ id: 'a', account: 'x', key: 'k', amount: 1, deadline: 100, now: 0 });
    store.claim({ worker: 'w', now: 9 }); // leaseUntil 14
    // attempt 1 fails at 10: delay = backoffBase * 2^0 = 2.
    expect(store.fail({ worker: 'w', token: 1, kind: 'transient', error: 'boom', now: 10 })).toEqual({
      ok: true,
      type: 'fail',
      id: 'a',
      status: 'waiting',
      notBefore: 12,
    });
    expect(store.claim({ worker: 'w', now: 11 })).toEqual({ ok: true, type: 'claim', job: null });
    expect(store.claim({ worker: 'w', now: 12 })).toMatchObject({ job: { id: 'a', token: 2, attempt: 2 } });
    // attempt 2 == maxAttempts: no retry.
    expect(store.fail({ worker: 'w', token: 2, kind: 'transient', error: 'again', now: 13 })).toEqual({
      ok: true,
      type: 'fail',
      id: 'a',
      status: 'dead',
      reason: 'attempts_exhausted',
    });
    expect(store.job('a')).toMatchObject({ status: 'dead', reason: 'attempts_exhausted', lastError: 'again' });
  });

  it('refuses a malformed command with invalid_argument naming the field and value, changing nothing', () => {
    const store = JobStore.create(CONFIG);
    const before = store.snapshot();
    const reply = store.execute({ type: 'claim', worker: 'w', now: -3 });
    expect(reply).toMatchObject({ ok: false, code: 'invalid_argument' });
    expect(!reply.ok && reply.message).toContain('now');
    expect(!reply.ok && reply.message).toContain('-3');
    expect(store.snapshot()).toEqual(before);
  });

  it('refuses a command from before the clock with clock_regressed, naming both times', () => {
    const store = JobStore.create(CONFIG);
    store.tick({ now: 7 });
    const reply = store.tick({ now: 6 });
    expect(reply).toMatchObject({ ok: false, code: 'clock_regressed' });
    expect(!reply.ok && reply.message).toMatch(/6.*7/);
    expect(store.clock).toBe(7);
  });

  it('expires a thousand jobs in one clock advance and frees the capacity', () => {
    const store = JobStore.create({ ...CONFIG, capacity: 1000 });
    for (let i = 0; i < 1000; i++)
      store.submit({ id: `j${i}`, account: `a${i % 7}`, key: `k${i}`, amount: 1, deadline: 10 + (i % 5), now: 0 });
    expect(store.submit({ id: 'extra', account: 'a', key: 'k', amount: 1, deadline: 99, now: 0 })).toMatchObject({
      code: 'capacity_exceeded',
    });
    store.tick({ now: 14 });
    expect(store.counts()).toEqual({ ready: 0, waiting: 0, running: 0, done: 0, dead: 1000 });
    expect(store.submit({ id: 'extra', account: 'a', key: 'k', amount: 1, deadline: 99, now: 14 })).toMatchObject({
      ok: true,
      seq: 1001,
    });
  });
});

describe('JobStore snapshots and restore', () => {
  function busyStore(): JobStore {
    const store = JobStore.create(CONFIG);
    store.submit({ id: 'a', account: 'x', key: 'k1', amount: 5, deadline: 100, now: 0 });
    store.submit({ id: 'b', account: 'x', key: 'k2', amount: 6, deadline: 100, now: 0 });
    store.submit({ id: 'c', account: 'y', key: 'k1', amount: 7, deadline: 100, now: 0 });
    store.claim({ worker: 'w', now: 1 });
    store.commit({ worker: 'w', token: 1, now: 1 });
    return store;
  }

  it('hands out a snapshot that shares nothing with the store', () => {
    const store = busyStore();
    const taken = store.snapshot() as {
      jobs: Record<string, { payload: { amount: number } }>;
      effects: Record<string, Record<string, { amount: number }>>;
    };
    const copy = structuredClone(taken);
    (taken.jobs['a'] as { payload: { amount: number } }).payload.amount = 99;
    (taken.effects['x']?.['k1'] as { amount: number }).amount = 99;
    expect(store.snapshot()).toEqual(copy);
  });

  it('keeps no reference to the object it was restored from', () => {
    const given = JSON.parse(JSON.stringify(busyStore().snapshot())) as Snapshot;
    const copy = structuredClone(given);
    const store = JobStore.restore(given);
    (given.jobs['b'] as { seq: number }).seq = 42;
    (given.balances as Record<string, number>)['x'] = -1;
    expect(store.snapshot()).toEqual(copy);
  });

  it('refuses an invalid snapshot with invalid_snapshot naming the field', () => {
    const bad = JSON.parse(JSON.stringify(busyStore().snapshot())) as { jobs: Record<string, Record<string, unknown>> };
    delete bad.jobs['a']?.['token'];
    const error = thrown(() => JobStore.restore(bad));
    expect(error).toBeInstanceOf(JobcheckError);
    expect(error).toMatchObject({ code: 'invalid_snapshot', path: 'jobs.a.token' });
  });

  it('restores jobs listed out of admission order and still claims and lists them by seq', () => {
    const snap = busyStore().snapshot();
    const reversed: Snapshot = { ...snap, jobs: Object.fromEntries(Object.entries(snap.jobs).reverse()) };
    const store = JobStore.restore(reversed);
    expect(Object.keys(store.snapshot().jobs)).toEqual(['a', 'b', 'c']);
    // a (x's head) is running, so b waits behind it and c (y's head) is next.
    expect(store.claim({ worker: 'v', now: 2 })).toMatchObject({ job: { id: 'c', token: 2 } });
    expect(store.claim({ worker: 'v', now: 2 })).toEqual({ ok: true, type: 'claim', job: null });
    // a's lease ends at 1 + 5 = 6: a is ready again and precedes b.
    expect(store.claim({ worker: 'v', now: 6 })).toMatchObject({ job: { id: 'a', token: 3, attempt: 2 } });
  });
});

describe('JobStore indexes', () => {
  it('keeps its lazy heaps within twice the unresolved jobs plus a constant over a long run', () => {
    const store = Probe.create({ ...CONFIG, capacity: 100, leaseTicks: 1000 });
    let worst = 0;
    for (let i = 0; i < 20_000; i++) {
      store.submit({ id: `j${i}`, account: `a${i % 50}`, key: `k${i}`, amount: 1, deadline: 1_000_000, now: i });
      const claimed = store.claim({ worker: 'w', now: i });
      if (claimed.ok && claimed.job !== null) store.ack({ worker: 'w', token: claimed.job.token, now: i });
      const { timers, claimable, unresolved } = store.heapSizes();
      worst = Math.max(worst, timers - 2 * unresolved, claimable - 2 * unresolved);
    }
    expect(store.counts().done).toBe(20_000);
    // Without compaction the timer heap alone would hold over 40 000 entries by now.
    expect(worst).toBeLessThan(1100);
  });
});
