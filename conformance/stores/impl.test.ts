/**
 * The minimal differential check that keeps impl/JobStore honest against the reference model:
 * every fixture story, a random lockstep property (equal replies without `message`, equal
 * snapshots after every command, restarts mixed in), and restores across the two (a model
 * snapshot into JobStore and back). The full harness with shrinking stories and coverage lives
 * beside this file; this one depends only on the model, the fixtures and JobStore.
 *
 * Bigger runs: JOBCHECK_IMPL_RUNS (default 300) and JOBCHECK_IMPL_STEPS (default 60).
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Config, Reply, Snapshot } from '../../contract/index.ts';
import { JobStore } from '../../impl/index.ts';
import { listFixtures, loadFixture, modelDriver, runFixture } from '../../model/fixtures.ts';
import type { FixtureDriver } from '../../model/fixtures.ts';
import { fromSnapshot, initialState, step, toSnapshot } from '../../model/index.ts';
import type { ModelState } from '../../model/index.ts';
import { configArb } from '../random/arbitraries.ts';

/** The store under test (a scratch copy of this file swaps in a broken subclass to see each check fail). */
const Store = JobStore;
type StoreInstance = InstanceType<typeof Store>;

const RUNS = Number(process.env['JOBCHECK_IMPL_RUNS'] ?? 300);
const STEPS = Number(process.env['JOBCHECK_IMPL_STEPS'] ?? 60);

const withoutMessage = (reply: Reply): unknown => {
  if (reply.ok) return reply;
  const { message: _ignored, ...rest } = reply;
  return rest;
};
const viaJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** A fixture driver over JobStore that also records every reply, for comparison with the model. */
function recordingStoreDriver(config: Config): FixtureDriver & { replies: Reply[] } {
  let store: StoreInstance = Store.create(config);
  const replies: Reply[] = [];
  return {
    replies,
    execute: async (command) => {
      const reply = store.execute(command);
      replies.push(reply);
      return reply;
    },
    snapshot: async () => store.snapshot(),
    restart: async () => {
      store = Store.restore(viaJson(store.snapshot()));
    },
    restoreFrom: async (snapshot) => {
      store = Store.restore(snapshot);
    },
  };
}

function recordingModelDriver(config: Config): FixtureDriver & { replies: Reply[] } {
  const inner = modelDriver(config);
  const replies: Reply[] = [];
  return {
    ...inner,
    replies,
    execute: async (command) => {
      const reply = await inner.execute(command);
      replies.push(reply);
      return reply;
    },
  };
}

describe('JobStore against the fixture stories', () => {
  const names = listFixtures();

  it('finds fixture stories to replay', () => {
    expect(names.length).toBeGreaterThan(0);
  });

  for (const name of names) {
    it(`passes "${name}" with the same replies and final snapshot as the model`, async () => {
      const fixture = loadFixture(name);
      const store = recordingStoreDriver(fixture.config);
      const model = recordingModelDriver(fixture.config);
      const storeResult = await runFixture(fixture, store);
      expect(storeResult.ok ? 'passed' : storeResult.message).toBe('passed');
      const modelResult = await runFixture(fixture, model);
      expect(modelResult.ok ? 'passed' : modelResult.message).toBe('passed');
      expect(store.replies.map(withoutMessage)).toEqual(model.replies.map(withoutMessage));
      expect(await store.snapshot()).toEqual(await model.snapshot());
    });
  }
});

// ------------------------------------------------------------------------------------------------
// Random lockstep

const IDS = ['a', 'b', 'c', 'd', 'e'] as const;
/** A submit id that stands for a new id (`j<nextSeq>`), so that runs keep admitting jobs. */
const FRESH = '(fresh)';
const ACCOUNTS = ['x', 'y'] as const;
const KEYS = ['k1', 'k2'] as const;
/** The largest time: a deadline that never comes (submits use it now and then). */
const NEVER = Number.MAX_SAFE_INTEGER;
const WORKERS = ['w1', 'w2'] as const;

/**
 * When a command happens: `delta` ticks after the clock (-1 regresses), or on / next to one of
 * the instants the store is waiting for (a deadline, lease end or backoff end), which is where
 * off-by-one mistakes live; rarely, just below the largest time, where sums saturate.
 */
type TimeSpec =
  | { readonly delta: number }
  | { readonly instant: number; readonly off: -1 | 0 | 1 }
  | { readonly far: true };
/**
 * A token: a small literal, or the token of the n-th running job (so most tokens are live), sent
 * by a given worker or by the job's owner.
 */
type TokenSpec =
  | { readonly literal: number; readonly worker: string }
  | { readonly running: number; readonly owner: boolean; readonly worker: string };

type Op =
  | {
      readonly op: 'submit';
      readonly id: string;
      readonly account: string;
      readonly key: string;
      readonly amount: number;
      readonly life: number;
      readonly at: TimeSpec;
    }
  | { readonly op: 'claim'; readonly worker: string; readonly at: TimeSpec }
  | { readonly op: 'commit' | 'ack'; readonly token: TokenSpec; readonly at: TimeSpec }
  | {
      readonly op: 'fail';
      readonly token: TokenSpec;
      readonly permanent: boolean;
      readonly error: string;
      readonly at: TimeSpec;
    }
  | { readonly op: 'tick'; readonly at: TimeSpec }
  | { readonly op: 'raw'; readonly command: unknown }
  | { readonly op: 'restart'; readonly swap: boolean };

const timeArb: fc.Arbitrary<TimeSpec> = fc.oneof(
  { weight: 500, arbitrary: fc.constant({ delta: 0 }) },
  { weight: 300, arbitrary: fc.integer({ min: -1, max: 3 }).map((delta) => ({ delta })) },
  { weight: 30, arbitrary: fc.integer({ min: 4, max: 30 }).map((delta) => ({ delta })) },
  {
    weight: 200,
    arbitrary: fc.record({ instant: fc.nat(7), off: fc.constantFrom(-1 as const, 0 as const, 1 as const) }),
  },
  { weight: 1, arbitrary: fc.constant({ far: true as const }) },
);
const workerArb = fc.constantFrom(...WORKERS);
const tokenArb: fc.Arbitrary<TokenSpec> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ running: fc.nat(3), owner: fc.boolean(), worker: workerArb }) },
  { weight: 1, arbitrary: fc.record({ literal: fc.integer({ min: 1, max: 8 }), worker: workerArb }) },
);
const amountArb = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -3, max: 3 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER - 1),
  },
);
const rawArb = fc.constantFrom<unknown>(
  null,
  42,
  { type: 'launch', now: 0 },
  { type: 'tick' },
  { type: 'tick', now: -1 },
  { type: 'tick', now: 1.5 },
  { type: 'claim', worker: '', now: 0 },
  { type: 'claim', worker: 'w1', now: 0, extra: true },
  { type: 'commit', worker: 'w1', token: 0, now: 0 },
  { type: 'fail', worker: 'w1', token: 1, kind: 'fatal', error: 'x', now: 0 },
  { type: 'fail', worker: 'w1', token: 1, kind: 'transient', error: '', now: 0 },
  { type: 'submit', id: 'a', account: 'x', key: 'k1', amount: 0.5, deadline: 5, now: 0 },
);

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant('submit' as const),
      id: fc.oneof({ weight: 2, arbitrary: fc.constant(FRESH) }, { weight: 1, arbitrary: fc.constantFrom(...IDS) }),
      account: fc.constantFrom(...ACCOUNTS),
      key: fc.constantFrom(...KEYS),
      amount: amountArb,
      life: fc.oneof(
        { weight: 20, arbitrary: fc.integer({ min: 0, max: 14 }) },
        { weight: 1, arbitrary: fc.constant(-1) },
      ),
      at: timeArb,
    }),
  },
  { weight: 5, arbitrary: fc.record({ op: fc.constant('claim' as const), worker: workerArb, at: timeArb }) },
  {
    weight: 4,
    arbitrary: fc.record({ op: fc.constantFrom('commit' as const, 'ack' as const), token: tokenArb, at: timeArb }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('fail' as const),
      token: tokenArb,
      permanent: fc.boolean(),
      error: fc.constantFrom('boom', 'timeout'),
      at: timeArb,
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('tick' as const), at: timeArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('raw' as const), command: rawArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('restart' as const), swap: fc.boolean() }) },
);

/** Instants strictly after the clock that some unresolved job waits for, sorted (the far "never" ones left out). */
function pendingInstants(s: Snapshot): number[] {
  const set = new Set<number>();
  for (const job of Object.values(s.jobs)) {
    if (job.status === 'done' || job.status === 'dead') continue;
    set.add(job.payload.deadline);
    if (job.leaseUntil !== undefined) set.add(job.leaseUntil);
    if (job.notBefore !== undefined) set.add(job.notBefore);
  }
  return [...set].filter((t) => t > s.clock && t < NEVER).sort((a, b) => a - b);
}

/** Turns a generated op into a concrete command, against the (shared) current snapshot. */
function concrete(op: Exclude<Op, { op: 'raw' | 'restart' }>, s: Snapshot): unknown {
  const at = op.at;
  let now: number;
  if ('far' in at) {
    now = Math.max(s.clock, NEVER - 2);
  } else if ('delta' in at) {
    now = Math.max(0, s.clock + at.delta);
  } else {
    const instants = pendingInstants(s);
    const base = instants.length === 0 ? s.clock : (instants[at.instant % instants.length] as number);
    now = Math.max(0, base + at.off);
  }
  const delivery = (spec: TokenSpec): { worker: string; token: number } => {
    if ('literal' in spec) return { worker: spec.worker, token: spec.literal };
    const running = Object.values(s.jobs).filter((j) => j.status === 'running');
    const job = running[spec.running % Math.max(1, running.length)];
    return { worker: spec.owner ? (job?.owner ?? spec.worker) : spec.worker, token: job?.token ?? s.nextToken };
  };
  switch (op.op) {
    case 'submit':
      return {
        type: 'submit',
        id: op.id === FRESH ? `j${s.nextSeq}` : op.id,
        account: op.account,
        key: op.key,
        amount: op.amount,
        deadline: op.life < 0 ? NEVER : now + op.life,
        now,
      };
    case 'claim':
      return { type: 'claim', worker: op.worker, now };
    case 'commit':
    case 'ack':
      return { type: op.op, ...delivery(op.token), now };
    case 'fail':
      return {
        type: 'fail',
        ...delivery(op.token),
        kind: op.permanent ? 'permanent' : 'transient',
        error: op.error,
        now,
      };
    case 'tick':
      return { type: 'tick', now };
  }
}

/** Runs ops on the model and the store in lockstep; throws at the first difference, with context. */
function lockstep(config: Config, ops: readonly Op[]): void {
  let model: ModelState = initialState(config);
  let store: StoreInstance = Store.create(config);
  let expected = toSnapshot(model);
  const log: string[] = [];
  const fail = (what: string, want: unknown, got: unknown): never => {
    throw new Error(
      `${what}\n  model: ${JSON.stringify(want)}\n  store: ${JSON.stringify(got)}\n  after:\n    ${log.join('\n    ')}`,
    );
  };
  for (const op of ops) {
    if (op.op === 'restart') {
      const fromModel = viaJson(expected);
      const fromStore = viaJson(store.snapshot());
      model = fromSnapshot(op.swap ? fromStore : fromModel);
      store = Store.restore(op.swap ? fromModel : fromStore);
      log.push(op.swap ? 'restart (swapped: model <- store snapshot, store <- model snapshot)' : 'restart');
    } else {
      const command = op.op === 'raw' ? op.command : concrete(op, expected);
      log.push(JSON.stringify(command));
      const modelReply = step(model, command);
      model = modelReply.state;
      const storeReply = store.execute(command);
      const want = withoutMessage(modelReply.reply);
      const got = withoutMessage(storeReply);
      if (!isDeepStrictEqual(got, want)) fail(`reply differs for ${JSON.stringify(command)}`, want, got);
      if (!storeReply.ok && storeReply.message.length === 0)
        fail('rejection without message', modelReply.reply, storeReply);
    }
    expected = toSnapshot(model);
    const actual = store.snapshot();
    if (!isDeepStrictEqual(actual, expected)) fail('snapshot differs', expected, actual);
  }
}

describe('JobStore in lockstep with the model', () => {
  it('gives equal replies and equal snapshots after every command of random runs with restarts', () => {
    fc.assert(
      fc.property(configArb, fc.array(opArb, { minLength: 1, maxLength: STEPS, size: 'max' }), (config, ops) => {
        lockstep(config, ops);
      }),
      { numRuns: RUNS },
    );
  });
});

// ------------------------------------------------------------------------------------------------
// Restores across model and store

/** A fixed, hand-written history that leaves jobs in every status, a ledger entry and a lastError. */
const CONFIG: Config = { capacity: 10, maxAttempts: 2, leaseTicks: 3, backoffBase: 2, backoffCap: 4 };
const HISTORY: readonly unknown[] = [
  { type: 'submit', id: 'a', account: 'x', key: 'k1', amount: 5, deadline: 50, now: 0 },
  { type: 'submit', id: 'b', account: 'x', key: 'k2', amount: 7, deadline: 50, now: 0 },
  { type: 'submit', id: 'c', account: 'y', key: 'k1', amount: 1, deadline: 6, now: 1 },
  { type: 'submit', id: 'd', account: 'z', key: 'k1', amount: 2, deadline: 40, now: 1 },
  { type: 'submit', id: 'e', account: 'v', key: 'k1', amount: 3, deadline: 40, now: 1 },
  { type: 'claim', worker: 'w1', now: 2 }, // a, token 1
  { type: 'commit', worker: 'w1', token: 1, now: 2 },
  { type: 'fail', worker: 'w1', token: 1, kind: 'transient', error: 'flaky', now: 3 }, // a waits until 5
  { type: 'claim', worker: 'w2', now: 3 }, // c, token 2
  { type: 'claim', worker: 'w2', now: 3 }, // d, token 3
  { type: 'ack', worker: 'w2', token: 3, now: 3 }, // d done
]; // e stays ready, b queued behind a
const CONTINUATION: readonly unknown[] = [
  { type: 'claim', worker: 'w3', now: 4 }, // e, token 4 (a is waiting, c running)
  { type: 'claim', worker: 'w3', now: 5 }, // a is ready again at 5: token 5
  { type: 'commit', worker: 'w3', token: 5, now: 5 }, // the ledger holds (x, k1) already: not applied
  { type: 'tick', now: 6 }, // c: deadline 6 and lease end 6 at once; the deadline wins
  { type: 'ack', worker: 'w3', token: 5, now: 6 }, // a done
  { type: 'claim', worker: 'w1', now: 7 }, // e's lease ends at 7 (back to ready), but b has the smaller seq
  { type: 'ack', worker: 'w2', token: 2, now: 7 }, // stale: c is dead
  { type: 'submit', id: 'c', account: 'y', key: 'k1', amount: 1, deadline: 6, now: 7 }, // duplicate of a dead job
  { type: 'tick', now: 60 }, // b and e die by deadline
];

function modelAfter(commands: readonly unknown[]): ModelState {
  let state = initialState(CONFIG);
  for (const command of commands) state = step(state, command).state;
  return state;
}

function continueBoth(model: ModelState, store: StoreInstance): void {
  let state = model;
  for (const command of CONTINUATION) {
    const r = step(state, command);
    state = r.state;
    expect(withoutMessage(store.execute(command))).toEqual(withoutMessage(r.reply));
    expect(store.snapshot()).toEqual(toSnapshot(state));
  }
}

describe('restores across the model and JobStore', () => {
  it('continues identically after restoring a model snapshot into JobStore', () => {
    const model = modelAfter(HISTORY);
    const store = Store.restore(viaJson(toSnapshot(model)));
    expect(store.snapshot()).toEqual(toSnapshot(model));
    continueBoth(model, store);
  });

  it('continues identically after restoring a JobStore snapshot into the model', () => {
    const store = Store.create(CONFIG);
    for (const command of HISTORY) store.execute(command);
    const model = fromSnapshot(viaJson(store.snapshot()));
    expect(toSnapshot(model)).toEqual(store.snapshot());
    continueBoth(model, store);
  });
});
