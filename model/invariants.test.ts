/**
 * Random valid command sequences never break the store's invariants. Commands are drawn as
 * abstract moves and made concrete against the current state (so that commits, acks and fails
 * often hit a running delivery), which keeps every command well-formed: a validation rejection
 * here would be a generator bug, and is reported as one. `JOBCHECK_RUNS` raises the run count.
 */
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Config, Snapshot } from '../contract/index.ts';
import { STORE_INVARIANTS, brokenInvariant, isJsonValue, sameJsonValue } from './invariants.ts';
import { initialState, step, toSnapshot } from './step.ts';

const MAX = Number.MAX_SAFE_INTEGER;
const RUNS = Number(process.env['JOBCHECK_RUNS'] ?? 300);

/** Configs: small numbers so that limits are hit, plus the largest values for saturation. */
const configArb: fc.Arbitrary<Config> = fc
  .record({
    capacity: fc.integer({ min: 1, max: 4 }),
    maxAttempts: fc.integer({ min: 1, max: 4 }),
    leaseTicks: fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: 1, max: 6 }) },
      { weight: 1, arbitrary: fc.constant(MAX) },
    ),
    backoffBase: fc.integer({ min: 1, max: 4 }),
    capExtra: fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: 0, max: 10 }) },
      { weight: 1, arbitrary: fc.constant(MAX) },
    ),
  })
  .map(({ capExtra, ...c }) => ({ ...c, backoffCap: Math.min(MAX, c.backoffBase + capExtra) }));

const dt = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0, max: 3 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 12 }) },
);
const worker = fc.constantFrom('w1', 'w2');

type Move =
  | {
      op: 'submit';
      id: string;
      repeat: boolean;
      account: string;
      key: string;
      amount: number;
      life: number;
      dt: number;
    }
  | { op: 'claim'; worker: string; dt: number }
  | {
      op: 'commit' | 'ack' | 'fail';
      current: boolean;
      asOwner: boolean;
      pick: number;
      token: number;
      worker: string;
      kind: 'transient' | 'permanent';
      error: string;
      dt: number;
    }
  | { op: 'tick'; dt: number };

const moveArb: fc.Arbitrary<Move> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('submit' as const),
      id: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'),
      repeat: fc.boolean(),
      account: fc.constantFrom('alice', 'bob'),
      key: fc.constantFrom('k1', 'k2', 'k3'),
      amount: fc.oneof(
        { weight: 8, arbitrary: fc.integer({ min: -3, max: 9 }) },
        { weight: 3, arbitrary: fc.constantFrom(MAX, MAX - 1, -MAX) },
      ),
      life: fc.oneof(
        { weight: 8, arbitrary: fc.integer({ min: 1, max: 30 }) },
        { weight: 1, arbitrary: fc.constant(MAX) },
      ),
      dt,
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('claim' as const), worker, dt }) },
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constantFrom('commit' as const, 'ack' as const, 'fail' as const),
      current: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
      asOwner: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
      pick: fc.nat(3),
      token: fc.integer({ min: 1, max: 8 }),
      worker,
      kind: fc.constantFrom('transient' as const, 'permanent' as const),
      error: fc.constantFrom('e1', 'e2'),
      dt,
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('tick' as const), dt }) },
);

/** Turns an abstract move into a well-formed command for the given state. */
function concretize(move: Move, snap: Snapshot): Record<string, unknown> {
  const now = Math.min(snap.clock + move.dt, MAX - 1);
  switch (move.op) {
    case 'submit': {
      const { id, account, key, amount, life } = move;
      // Half the submits of a known id repeat its payload exactly (a duplicate), when still allowed.
      const known = snap.jobs[id];
      if (move.repeat && known !== undefined && known.payload.deadline > now)
        return { type: 'submit', id, ...known.payload, now };
      return { type: 'submit', id, account, key, amount, deadline: Math.min(now + life, MAX), now };
    }
    case 'claim':
      return { type: 'claim', worker: move.worker, now };
    case 'tick':
      return { type: 'tick', now };
    default: {
      const running = Object.values(snap.jobs).filter((j) => j.status === 'running');
      const target = running[move.pick % Math.max(1, running.length)];
      // A move meant for a current delivery when none is running claims one instead.
      if (move.current && target === undefined) return { type: 'claim', worker: move.worker, now };
      const useCurrent = move.current && target !== undefined;
      const token = useCurrent ? (target.token ?? 1) : move.token;
      const who = useCurrent && move.asOwner ? (target.owner ?? move.worker) : move.worker;
      const base = { type: move.op, worker: who, token, now };
      return move.op === 'fail' ? { ...base, kind: move.kind, error: move.error } : base;
    }
  }
}

describe('the store invariants', () => {
  it('hold after every command of any random valid command sequence', () => {
    fc.assert(
      fc.property(configArb, fc.array(moveArb, { minLength: 1, maxLength: 40 }), (config, moves) => {
        let state = initialState(config);
        for (const move of moves) {
          const command = concretize(move, toSnapshot(state));
          const { state: next, reply } = step(state, command);
          if (!reply.ok && (reply.code === 'invalid_argument' || reply.code === 'clock_regressed')) {
            throw new Error(`generator bug: ${JSON.stringify(command)} was refused: ${reply.message}`);
          }
          const broken = brokenInvariant(next);
          if (broken !== undefined) throw new Error(`after ${JSON.stringify(command)}: ${broken}`);
          state = next;
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('are reached with interesting states, not only empty ones', () => {
    // Guards against a generator that never gets far: some runs must apply effects and kill jobs.
    const seen = new Set<string>();
    fc.assert(
      fc.property(configArb, fc.array(moveArb, { minLength: 20, maxLength: 40 }), (config, moves) => {
        let state = initialState(config);
        for (const move of moves) {
          const { state: next, reply } = step(state, concretize(move, toSnapshot(state)));
          seen.add(reply.ok ? `${reply.type}${reply.type === 'commit' ? String(reply.applied) : ''}` : reply.code);
          for (const j of Object.values(toSnapshot(next).jobs))
            seen.add(j.status === 'dead' ? `dead:${j.reason}` : j.status);
          state = next;
        }
      }),
      { numRuns: Number(process.env['SEEN_RUNS'] ?? 200), seed: 42 },
    );
    for (const wanted of [
      'committrue',
      'commitfalse',
      'conflict',
      'not_owner',
      'stale_token',
      'capacity_exceeded',
      'waiting',
      'done',
      'dead:lease_expired',
      'dead:deadline',
      'dead:permanent',
      'dead:attempts_exhausted',
      'dead:no_time_for_retry',
      'out_of_range',
    ]) {
      expect(seen).toContain(wanted);
    }
  });
});

/**
 * Freezes the data of a model state at every depth. The machine definitions a snapshot points to
 * (`machine`, `_nodes`) are shared, immutable code, not state, and are left alone.
 */
function deepFreeze<T>(value: T, seen = new Set<unknown>()): T {
  if (value === null || typeof value !== 'object' || seen.has(value)) return value;
  seen.add(value);
  for (const [k, v] of Object.entries(value)) {
    if (k === 'machine' || k === '_nodes') continue;
    deepFreeze(v, seen);
  }
  return Object.freeze(value);
}

describe('step', () => {
  it('never mutates the state it is given, and gives the same answer twice', () => {
    fc.assert(
      fc.property(configArb, fc.array(moveArb, { minLength: 1, maxLength: 30 }), (config, moves) => {
        let state = deepFreeze(initialState(config));
        for (const move of moves) {
          const before = toSnapshot(state);
          const command = concretize(move, before);
          const first = step(state, command);
          const second = step(state, command);
          expect(toSnapshot(state)).toEqual(before);
          expect(second.reply).toEqual(first.reply);
          expect(toSnapshot(second.state)).toEqual(toSnapshot(first.state));
          state = deepFreeze(first.state);
        }
      }),
      { numRuns: Math.ceil(RUNS / 4) },
    );
  });
});

/** Values near JSON: plain objects and arrays of strings, numbers (with -0, NaN, infinities), booleans, null, undefined, symbols as keys and values, a `__proto__` key, a Map. */
const nearJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  leaf: fc.oneof(
    fc.constantFrom(
      '',
      'a',
      '__proto__',
      -0,
      0,
      1,
      0.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      true,
      false,
      null,
      undefined,
    ),
    fc.integer({ min: -3, max: 3 }),
    fc.constant(Symbol.for('s')),
  ),
  object: fc
    .array(fc.tuple(fc.constantFrom('a', 'b', '__proto__', 'c', 'toJSON'), tie('value')), { maxLength: 3 })
    .chain((entries) =>
      fc.constantFrom('plain', 'symbol', 'null-proto', 'map').map((kind) => {
        const o: Record<string, unknown> = kind === 'null-proto' ? Object.create(null) : {};
        for (const [k, v] of entries)
          Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
        if (kind === 'symbol') (o as Record<symbol, unknown>)[Symbol.for('k')] = 1;
        return kind === 'map' ? new Map(Object.entries(o)) : o;
      }),
    ),
  array: fc.array(tie('value'), { maxLength: 2 }),
  value: fc.oneof({ depthSize: 'small' }, tie('leaf'), tie('object'), tie('array')),
})).value;

describe('the proofs behind the fast invariant checks', () => {
  it('call a value unchanged by a JSON round trip only when isDeepStrictEqual agrees', () => {
    fc.assert(
      fc.property(nearJson, (v) => {
        let text: string | undefined;
        try {
          text = JSON.stringify(v);
        } catch {
          text = undefined;
        }
        const survives = text !== undefined && isDeepStrictEqual(JSON.parse(text), v);
        if (isJsonValue(v)) expect(survives).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('call two values equal only when isDeepStrictEqual agrees', () => {
    fc.assert(
      fc.property(nearJson, nearJson, fc.constantFrom('copy', 'extra', 'other'), (a, other, how) => {
        // Pairs: a value against a JSON copy of itself (key order kept), which must be proven equal;
        // against a copy with one more key at some depth, which must not; against another value.
        const copy = isJsonValue(a) ? JSON.parse(JSON.stringify(a)) : undefined;
        const grow = (v: unknown): unknown => {
          if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
          const o = v as Record<string, unknown>;
          const inner = Object.keys(o).find((k) => o[k] !== null && typeof o[k] === 'object');
          if (inner !== undefined) o[inner] = grow(o[inner]);
          else o['added'] = 1;
          return o;
        };
        const b = how === 'copy' ? copy : how === 'extra' ? grow(copy) : other;
        if (b === undefined || !isJsonValue(b)) return;
        if (sameJsonValue(a, b)) expect(isDeepStrictEqual(a, b)).toBe(true);
        if (how === 'copy') expect(sameJsonValue(a, b)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('leave the verdicts of balances and snapshot-round-trip as the original comparisons give them', () => {
    const check = (name: string, s: unknown): string | undefined =>
      STORE_INVARIANTS.find((i) => i.name === name)?.check(s as Snapshot);
    let state = initialState({ capacity: 2, maxAttempts: 2, leaseTicks: 2, backoffBase: 1, backoffCap: 2 });
    for (const c of [
      { type: 'submit', id: 'a', account: 'x', key: 'k', amount: 2, deadline: 9, now: 0 },
      { type: 'claim', worker: 'w', now: 0 },
      { type: 'commit', worker: 'w', token: 1, now: 0 },
    ])
      state = step(state, c).state;
    const good = toSnapshot(state);
    expect(check('balances', good)).toBeUndefined();
    expect(check('snapshot-round-trip', good)).toBeUndefined();
    // A balance one off, a balance without a ledger, a balance of -0 where the ledger sums to 0.
    expect(check('balances', { ...good, balances: { x: 3 } })).toMatch(/differ from ledger sums/);
    expect(check('balances', { ...good, balances: { x: 2, y: 0 } })).toMatch(/differ from ledger sums/);
    const zero = { ...good, effects: { x: { k: { amount: 0, job: 'a', token: 1 } } }, balances: { x: -0 } };
    expect(check('balances', zero)).toMatch(/differ from ledger sums/);
    // Values JSON does not keep: -0, a symbol-keyed field.
    expect(check('snapshot-round-trip', { ...good, balances: { x: -0 } })).toBe('snapshot does not survive JSON');
    expect(check('snapshot-round-trip', { ...good, [Symbol.for('extra')]: 1 })).toBe('snapshot does not survive JSON');
  });
});
