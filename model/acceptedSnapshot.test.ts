/**
 * The fast snapshot acceptance against the zod schema: whatever it accepts, the schema accepts,
 * with the same output (fields in the same order); every snapshot the model writes is accepted.
 * Inputs: snapshots of states reached by random walks of the model, and the same snapshots with
 * one value replaced, one key removed or one key added, anywhere in them. The one-pass
 * `acceptedContext` is held to the two passes it replaces (the acceptance, then the context built
 * from its copy) on the same inputs.
 */
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Config, Snapshot } from '../contract/index.ts';
import { parseSnapshot } from '../contract/index.ts';
import { acceptedContext, acceptedSnapshot } from './acceptedSnapshot.ts';
import { jobMachine } from './jobMachine.ts';
import { machineState } from './machineState.ts';
import { snapshotContext } from './restoredContext.ts';
import { initialState, step, toSnapshot } from './step.ts';
import type { ModelState } from './step.ts';
import type { JobSnapshot } from './storeMachine.ts';

const configArb: fc.Arbitrary<Config> = fc
  .record({
    capacity: fc.integer({ min: 1, max: 3 }),
    maxAttempts: fc.integer({ min: 1, max: 3 }),
    leaseTicks: fc.integer({ min: 1, max: 3 }),
    backoffBase: fc.integer({ min: 1, max: 2 }),
    capExtra: fc.integer({ min: 0, max: 2 }),
  })
  .map(({ capExtra, ...c }) => ({ ...c, backoffCap: c.backoffBase + capExtra }));

/** One move of a walk, made concrete against the state it is taken in. */
const moveArb = fc.record({
  op: fc.constantFrom(
    'submit',
    'submit',
    'submit',
    'claim',
    'claim',
    'commit',
    'commit',
    'ack',
    'fail',
    'fail',
    'tick',
  ),
  pick: fc.nat(5),
  worker: fc.constantFrom('w1', 'w2'),
  dt: fc.integer({ min: 0, max: 2 }),
  life: fc.integer({ min: 1, max: 5 }),
  permanent: fc.boolean(),
});
type Move = typeof moveArb extends fc.Arbitrary<infer T> ? T : never;

function commandOf(state: ModelState, m: Move): Record<string, unknown> {
  const now = state.context.clock + m.dt;
  const running = [...state.context.jobs.values()].filter((j) => j.context.token !== undefined);
  const delivery = running[m.pick % Math.max(1, running.length)]?.context;
  const worker = delivery?.owner ?? m.worker;
  const token = delivery?.token ?? 1;
  switch (m.op) {
    case 'submit':
      return {
        type: 'submit',
        id: 'abcd'[m.pick % 4] ?? 'a',
        account: 'xy'[m.pick % 2] ?? 'x',
        key: m.pick < 3 ? 'k1' : 'k2',
        amount: m.pick - 2,
        deadline: now + m.life,
        now,
      };
    case 'claim':
      return { type: 'claim', worker: m.worker, now };
    case 'commit':
    case 'ack':
      return { type: m.op, worker, token, now };
    case 'fail':
      return { type: 'fail', worker, token, kind: m.permanent ? 'permanent' : 'transient', error: 'e', now };
    default:
      return { type: 'tick', now };
  }
}

/** Snapshots of the states a random walk of the model passes through. */
const snapshotsArb: fc.Arbitrary<Snapshot[]> = fc
  .tuple(configArb, fc.array(moveArb, { minLength: 4, maxLength: 24 }))
  .map(([config, moves]) => {
    let state = initialState(config);
    const out = [toSnapshot(state)];
    for (const m of moves) {
      state = step(state, commandOf(state, m)).state;
      out.push(toSnapshot(state));
    }
    return out;
  });

/** Values at and around every boundary the schema draws. */
const edgeValue: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      '',
      'a',
      'x',
      'k1',
      0,
      -0,
      1,
      -1,
      2,
      1.5,
      Number.NaN,
      Number.MAX_SAFE_INTEGER,
      Number.MAX_SAFE_INTEGER + 1,
      'ready',
      'waiting',
      'running',
      'done',
      'dead',
      'deadline',
      null,
      undefined,
      true,
      {},
      [],
    ),
  },
  fc.integer({ min: -2, max: 12 }),
  fc.anything({ maxDepth: 1 }),
);
const keyArb = fc.constantFrom(
  'token',
  'owner',
  'leaseUntil',
  'notBefore',
  'reason',
  'lastError',
  'extra',
  '',
  '__proto__',
  'a',
  'x',
  'k1',
);

/** Every object inside `value` with its own path, the value itself first. */
function objectsOf(value: unknown, out: Record<string, unknown>[] = []): Record<string, unknown>[] {
  if (typeof value === 'object' && value !== null) {
    out.push(value as Record<string, unknown>);
    for (const v of Object.values(value)) objectsOf(v, out);
  }
  return out;
}

/** Every value inside `value` that is not an object. */
function leavesOf(value: unknown, out: unknown[] = []): unknown[] {
  if (typeof value === 'object' && value !== null) for (const v of Object.values(value)) leavesOf(v, out);
  else out.push(value);
  return out;
}

/**
 * A change: a field set to an edge value, to a value found elsewhere in the snapshot (a clock, a
 * token, an id, a status) or nudged by a little (the cross-field rules draw their lines between a
 * snapshot's own values), a field removed, or a key added.
 */
type Mutation = {
  kind: 'set' | 'copy' | 'nudge' | 'delete' | 'add';
  at: number;
  field: number;
  key: string;
  value: unknown;
  from: number;
  by: number;
};
const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom('set', 'copy', 'copy', 'nudge', 'nudge', 'nudge', 'nudge', 'delete', 'add'),
  at: fc.nat(),
  field: fc.nat(),
  key: keyArb,
  value: edgeValue,
  from: fc.nat(),
  by: fc.constantFrom(-2, -1, 1, 2),
});

/** A deep copy of `snapshot` with one mutation applied somewhere inside it. */
function mutated(snapshot: Snapshot, m: Mutation): unknown {
  const copy = structuredClone(snapshot) as unknown;
  const objects = objectsOf(copy);
  const target = objects[m.at % objects.length] as Record<string, unknown>;
  // Numbers first: the cross-field rules compare them.
  const all = Object.keys(target);
  const numeric = all.filter((k) => typeof target[k] === 'number');
  const keys = m.kind === 'nudge' && numeric.length > 0 ? numeric : all;
  const field = keys.length === 0 ? m.key : (keys[m.field % keys.length] ?? m.key);
  const leaves = leavesOf(copy);
  const current = target[field];
  const value =
    m.kind === 'copy'
      ? leaves[m.from % leaves.length]
      : m.kind === 'nudge'
        ? typeof current === 'number'
          ? current + m.by
          : m.value
        : m.value;
  if (m.kind === 'delete') delete target[field];
  else
    Object.defineProperty(target, m.kind === 'add' ? m.key : field, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return copy;
}

/** The schema's verdict: its output, or undefined when it refuses. */
function bySchema(input: unknown): Snapshot | undefined {
  try {
    return parseSnapshot(input);
  } catch {
    return undefined;
  }
}

/** Fails unless the fast path's answer is the schema's own (when it gives one). */
function agrees(input: unknown): void {
  const fast = acceptedSnapshot(input);
  if (fast === undefined) return;
  const schema = bySchema(input);
  expect(schema).toBeDefined();
  expect(isDeepStrictEqual(fast, schema)).toBe(true);
  expect(JSON.stringify(fast)).toBe(JSON.stringify(schema));
}

// Rules that tie several fields together, which one random change seldom breaks: each case
// below breaks exactly one, and is checked to be refused by the schema as well.
const base = {
  format: 'jobcheck.snapshot/1',
  config: { capacity: 2, maxAttempts: 3, leaseTicks: 2, backoffBase: 1, backoffCap: 2 },
  clock: 1,
  nextToken: 3,
  nextSeq: 4,
  jobs: {
    a: { payload: { account: 'x', key: 'k1', amount: 2, deadline: 9 }, seq: 1, status: 'done', attempts: 1 },
    b: {
      payload: { account: 'x', key: 'k2', amount: 1, deadline: 9 },
      seq: 2,
      status: 'running',
      attempts: 1,
      token: 2,
      owner: 'w1',
      leaseUntil: 3,
    },
    c: { payload: { account: 'y', key: 'k1', amount: 1, deadline: 9 }, seq: 3, status: 'ready', attempts: 0 },
  },
  balances: { x: 2 },
  effects: { x: { k1: { amount: 2, job: 'a', token: 1 } } },
};
const withJob = (id: string, job: object, more: object = {}) => ({
  ...base,
  jobs: { ...base.jobs, [id]: job },
  ...more,
});
const waiting = {
  payload: { account: 'x', key: 'k3', amount: 1, deadline: 9 },
  seq: 3,
  status: 'waiting',
  attempts: 1,
};
const cases: Array<[string, unknown]> = [
  ['more unresolved jobs than capacity', { ...base, config: { ...base.config, capacity: 1 } }],
  ["a waiting job behind its account's earlier unresolved job", withJob('c', { ...waiting, notBefore: 4 })],
  [
    'a waiting job whose notBefore is its deadline',
    withJob('c', { ...waiting, payload: { ...waiting.payload, account: 'y' }, notBefore: 9 }),
  ],
  [
    'two running jobs with one token',
    withJob('c', {
      payload: { account: 'y', key: 'k1', amount: 1, deadline: 9 },
      seq: 3,
      status: 'running',
      attempts: 1,
      token: 2,
      owner: 'w2',
      leaseUntil: 3,
    }),
  ],
  ['two jobs with one sequence number', withJob('c', { ...base.jobs.c, seq: 2 })],
  [
    "an effect whose amount is not its job's",
    { ...base, balances: { x: 3 }, effects: { x: { k1: { amount: 3, job: 'a', token: 1 } } } },
  ],
  [
    'an effect whose token is not below nextToken',
    { ...base, effects: { x: { k1: { amount: 2, job: 'a', token: 3 } } } },
  ],
  ['a running job whose lease has ended', withJob('b', { ...base.jobs.b, leaseUntil: 1 })],
];

describe('acceptedSnapshot', () => {
  it("accepts every snapshot the model writes, with the schema's own output", () => {
    fc.assert(
      fc.property(snapshotsArb, (snapshots) => {
        for (const s of snapshots) {
          const fast = acceptedSnapshot(s);
          expect(fast).toBeDefined();
          expect(isDeepStrictEqual(fast, parseSnapshot(s))).toBe(true);
          expect(JSON.stringify(fast)).toBe(JSON.stringify(parseSnapshot(s)));
        }
      }),
      { numRuns: 150 },
    );
  });

  it('accepts nothing the schema refuses, and gives what the schema gives, for snapshots with one change anywhere', () => {
    fc.assert(
      fc.property(snapshotsArb, fc.array(mutationArb, { minLength: 1, maxLength: 40 }), (snapshots, mutations) => {
        for (const [i, m] of mutations.entries()) agrees(mutated(snapshots[i % snapshots.length] as Snapshot, m));
      }),
      { numRuns: 500 },
    );
  });

  it('returns a copy that shares no object with its input', () => {
    const state = step(initialState({ capacity: 2, maxAttempts: 2, leaseTicks: 2, backoffBase: 1, backoffCap: 2 }), {
      type: 'submit',
      id: 'a',
      account: 'x',
      key: 'k1',
      amount: 1,
      deadline: 5,
      now: 0,
    }).state;
    const input = toSnapshot(state);
    const inner = new Set(objectsOf(input));
    for (const o of objectsOf(acceptedSnapshot(input))) expect(inner.has(o)).toBe(false);
  });

  it('leaves what it cannot prove to the schema: a Map of jobs, an inherited field, an optional field set to undefined', () => {
    const input = toSnapshot(
      initialState({ capacity: 1, maxAttempts: 1, leaseTicks: 1, backoffBase: 1, backoffCap: 1 }),
    );
    expect(acceptedSnapshot({ ...input, jobs: new Map() })).toBeUndefined();
    expect(acceptedSnapshot(Object.assign(Object.create({ extra: 1 }), input))).toBeUndefined();
    const running = toSnapshot(
      step(
        step(initialState({ capacity: 1, maxAttempts: 1, leaseTicks: 1, backoffBase: 1, backoffCap: 1 }), {
          type: 'submit',
          id: 'a',
          account: 'x',
          key: 'k1',
          amount: 1,
          deadline: 5,
          now: 0,
        }).state,
        { type: 'claim', worker: 'w1', now: 0 },
      ).state,
    );
    expect(acceptedSnapshot(running)).toBeDefined();
    const job = running.jobs['a'];
    expect(acceptedSnapshot({ ...running, jobs: { a: { ...job, lastError: undefined } } })).toBeUndefined();
  });

  it('accepts the well-formed snapshot the cases below start from', () => {
    expect(acceptedSnapshot(base)).toBeDefined();
    agrees(base);
  });
  it.each(cases)('leaves to the schema, which refuses it, %s', (_, input) => {
    expect(bySchema(input)).toBeUndefined();
    expect(acceptedSnapshot(input)).toBeUndefined();
  });
});

const jobOf = (status: JobSnapshot['value'], context: JobSnapshot['context']): JobSnapshot =>
  machineState(jobMachine, status, context);

/** A value as plain data, Maps as arrays of entries (so that their order counts), the job machine by name. */
function plainOf(v: unknown): unknown {
  if (v instanceof Map) return { map: [...v.entries()].map(([k, x]) => [plainOf(k), plainOf(x)]) };
  if (Array.isArray(v)) return v.map(plainOf);
  if (typeof v === 'object' && v !== null) {
    if (v === jobMachine) return 'machine job';
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plainOf(x)]));
  }
  return v;
}

/** Every object reachable from `v` (Maps' keys and values included), the job machine left out. */
function reachable(v: unknown, out = new Set<unknown>()): Set<unknown> {
  if (typeof v !== 'object' || v === null || out.has(v) || v === jobMachine) return out;
  out.add(v);
  if (v instanceof Map) for (const [k, x] of v) reachable(x, reachable(k, out));
  else for (const x of Object.values(v)) reachable(x, out);
  return out;
}

/** Fails unless the one pass answers as the two passes do: undefined together, or the same context (Maps in the same order), sharing nothing with the input. */
function sameAsTwoPasses(input: unknown): boolean {
  const accepted = acceptedSnapshot(input);
  const want = accepted === undefined ? undefined : snapshotContext(accepted, jobOf, true);
  const got = acceptedContext(input, jobOf);
  expect(got === undefined).toBe(want === undefined);
  if (got === undefined) return false;
  const a = plainOf(got);
  const b = plainOf(want);
  expect(isDeepStrictEqual(a, b)).toBe(true);
  expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  const inner = reachable(input);
  for (const o of reachable(got)) expect(inner.has(o)).toBe(false);
  return true;
}

describe('acceptedContext', () => {
  it('builds what the acceptance and the context of its copy build, for every snapshot the model writes', () => {
    fc.assert(
      fc.property(snapshotsArb, (snapshots) => {
        for (const s of snapshots) {
          expect(sameAsTwoPasses(s)).toBe(true);
          // The same snapshot with its jobs listed in reverse, out of admission order (still valid).
          expect(sameAsTwoPasses({ ...s, jobs: Object.fromEntries(Object.entries(s.jobs).reverse()) })).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('accepts and refuses what the two passes do, with the same context, for snapshots with one change anywhere', () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(snapshotsArb, fc.array(mutationArb, { minLength: 1, maxLength: 40 }), (snapshots, mutations) => {
        for (const [i, m] of mutations.entries()) {
          if (sameAsTwoPasses(mutated(snapshots[i % snapshots.length] as Snapshot, m))) accepted++;
          else refused++;
        }
      }),
      { numRuns: 500 },
    );
    expect(accepted).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(100);
  });

  it.each(cases)('refuses, as the two passes do, %s', (_, input) => {
    expect(acceptedContext(input, jobOf)).toBeUndefined();
  });
  it('accepts the well-formed snapshot the cases start from', () => {
    expect(sameAsTwoPasses(base)).toBe(true);
  });
});
