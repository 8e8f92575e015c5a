/**
 * Random valid command sequences never break the store's invariants. Commands are drawn as
 * abstract moves and made concrete against the current state (so that commits, acks and fails
 * often hit a running delivery), which keeps every command well-formed: a validation rejection
 * here would be a generator bug, and is reported as one. `JOBCHECK_RUNS` raises the run count.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Config, Snapshot } from '../contract/index.ts';
import { brokenInvariant } from './invariants.ts';
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
