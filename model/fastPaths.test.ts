/**
 * The model's fast paths held to the code they replaced, on valid snapshots (random walks of the
 * model) and on random snapshots that break every rule somewhere (statuses, tokens, sequence
 * numbers, instants around the clock, NaN where a number or a name belongs):
 *
 * - the invariant checks written as plain loops (capacity, one-running-per-account, tokens,
 *   pending-after-clock) give the verdict and message the originals (Set, Map, Object.entries) give;
 * - `fromSnapshot` (which builds the context in the pass that accepts the snapshot, acceptedContext)
 *   gives the state the original restore gives, Maps in the same order, or throws the same error,
 *   and shares no object with its input.
 */
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Config, EffectRecord, Snapshot } from '../contract/index.ts';
import { parseSnapshot } from '../contract/index.ts';
import { acceptedSnapshot } from './acceptedSnapshot.ts';
import { STORE_INVARIANTS } from './invariants.ts';
import { jobMachine, policyOf } from './jobMachine.ts';
import type { JobContext } from './jobMachine.ts';
import { machineState } from './machineState.ts';
import { fromSnapshot, initialState, step, toSnapshot } from './step.ts';
import type { ModelState } from './step.ts';
import { storeMachine } from './storeMachine.ts';
import type { JobSnapshot, StoreContext } from './storeMachine.ts';

// The original checks, as they were written before the plain loops.
const isUnresolved = (status: string): boolean => status === 'ready' || status === 'waiting' || status === 'running';
const ORIGINAL: Record<string, (s: Snapshot) => string | undefined> = {
  capacity: (s) => {
    const unresolved = Object.values(s.jobs).filter((j) => isUnresolved(j.status)).length;
    return unresolved > s.config.capacity
      ? `${unresolved} unresolved jobs exceed capacity ${s.config.capacity}`
      : undefined;
  },
  'one-running-per-account': (s) => {
    const running = new Set<string>();
    const heads = new Map<string, number>();
    for (const j of Object.values(s.jobs)) {
      if (!isUnresolved(j.status)) continue;
      const head = heads.get(j.payload.account);
      if (head === undefined || j.seq < head) heads.set(j.payload.account, j.seq);
    }
    for (const [id, j] of Object.entries(s.jobs)) {
      if (j.status === 'running') {
        if (running.has(j.payload.account)) return `two running jobs for account ${j.payload.account}`;
        running.add(j.payload.account);
      }
      if ((j.status === 'running' || j.status === 'waiting') && heads.get(j.payload.account) !== j.seq) {
        return `job ${id} is ${j.status} but is not the head of account ${j.payload.account}`;
      }
    }
    return undefined;
  },
  tokens: (s) => {
    const tokens = new Set<number>();
    for (const j of Object.values(s.jobs)) {
      if (j.status !== 'running') continue;
      if (j.token === undefined || j.token >= s.nextToken)
        return `running token ${j.token} not below nextToken ${s.nextToken}`;
      if (tokens.has(j.token)) return `token ${j.token} held by two running jobs`;
      tokens.add(j.token);
    }
    return undefined;
  },
  'pending-after-clock': (s) => {
    for (const [id, j] of Object.entries(s.jobs)) {
      if (!isUnresolved(j.status)) continue;
      for (const [field, t] of [
        ['deadline', j.payload.deadline],
        ['leaseUntil', j.leaseUntil],
        ['notBefore', j.notBefore],
      ] as const) {
        if (t !== undefined && t <= s.clock) return `job ${id}: ${field} ${t} is not after the clock ${s.clock}`;
      }
    }
    return undefined;
  },
};

/** The original restore: the fast acceptance (or the schema), then every object copied once more, jobs sorted by seq. */
const jobOf = (status: JobSnapshot['value'], context: JobSnapshot['context']): JobSnapshot =>
  machineState(jobMachine, status, context);
function originalFromSnapshot(input: unknown): ModelState {
  const s = acceptedSnapshot(input) ?? parseSnapshot(input);
  const policy = policyOf(s.config);
  const jobs = new Map<string, JobSnapshot>();
  for (const [id, r] of Object.entries(s.jobs).sort(([, a], [, b]) => a.seq - b.seq)) {
    const context: JobContext = {
      id,
      payload: { ...r.payload },
      seq: r.seq,
      policy,
      attempts: r.attempts,
      token: r.token,
      owner: r.owner,
      leaseUntil: r.leaseUntil,
      notBefore: r.notBefore,
      reason: r.reason,
      lastError: r.lastError,
    };
    jobs.set(id, jobOf(r.status, context));
  }
  const effects = new Map<string, ReadonlyMap<string, EffectRecord>>();
  for (const [account, ledger] of Object.entries(s.effects))
    effects.set(account, new Map(Object.entries(ledger).map(([key, e]) => [key, { ...e }])));
  const context: StoreContext = {
    config: { ...s.config },
    clock: s.clock,
    nextToken: s.nextToken,
    nextSeq: s.nextSeq,
    jobs,
    balances: new Map(Object.entries(s.balances)),
    effects,
    reply: undefined,
    trace: [],
  };
  return machineState(storeMachine, 'open', context);
}

/** A state as plain data, Maps as arrays of entries (so that their order counts), machines by name. */
function plainOf(v: unknown): unknown {
  if (v instanceof Map) return { map: [...v.entries()].map(([k, x]) => [plainOf(k), plainOf(x)]) };
  if (Array.isArray(v)) return v.map(plainOf);
  if (typeof v === 'object' && v !== null) {
    if (v === storeMachine || v === jobMachine) return `machine ${v === storeMachine ? 'store' : 'job'}`;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plainOf(x)]));
  }
  return v;
}

/** Every object reachable from `v`, machines left out. */
function objectsOf(v: unknown, out = new Set<unknown>()): Set<unknown> {
  if (typeof v !== 'object' || v === null || out.has(v) || v === storeMachine || v === jobMachine) return out;
  out.add(v);
  if (v instanceof Map) for (const [k, x] of v) objectsOf(x, objectsOf(k, out));
  else for (const x of Object.values(v)) objectsOf(x, out);
  return out;
}

function outcome(f: () => ModelState): { ok: true; state: ModelState } | { ok: false; error: string } {
  try {
    return { ok: true, state: f() };
  } catch (e) {
    return { ok: false, error: String(e) };
  }
}

const configArb: fc.Arbitrary<Config> = fc
  .record({
    capacity: fc.integer({ min: 1, max: 3 }),
    maxAttempts: fc.integer({ min: 1, max: 3 }),
    leaseTicks: fc.integer({ min: 1, max: 3 }),
    backoffBase: fc.integer({ min: 1, max: 2 }),
    capExtra: fc.integer({ min: 0, max: 2 }),
  })
  .map(({ capExtra, ...c }) => ({ ...c, backoffCap: c.backoffBase + capExtra }));

/** Snapshots of a random walk of the model: valid ones, with running, waiting, dead and done jobs and ledgers. */
const walkArb: fc.Arbitrary<Snapshot[]> = fc
  .tuple(
    configArb,
    fc.array(fc.tuple(fc.nat(5), fc.nat(7), fc.integer({ min: 0, max: 2 }), fc.integer({ min: 1, max: 6 })), {
      minLength: 3,
      maxLength: 20,
    }),
  )
  .map(([config, moves]) => {
    let state = initialState(config);
    const out = [toSnapshot(state)];
    for (const [op, pick, dt, life] of moves) {
      const now = state.context.clock + dt;
      const running = [...state.context.jobs.values()].filter((j) => j.context.token !== undefined);
      const d = running[pick % Math.max(1, running.length)]?.context;
      const worker = d?.owner ?? (pick % 2 === 0 ? 'w1' : 'w2');
      const token = d?.token ?? 1;
      const command = [
        {
          type: 'submit',
          id: 'abcd'[pick % 4],
          account: 'xy'[pick % 2],
          key: `k${pick % 3}`,
          amount: pick - 3,
          deadline: now + life,
          now,
        },
        { type: 'claim', worker, now },
        { type: 'commit', worker, token, now },
        { type: 'ack', worker, token, now },
        { type: 'fail', worker, token, kind: pick % 3 === 0 ? 'permanent' : 'transient', error: 'e', now },
        { type: 'tick', now },
      ][op];
      state = step(state, command).state;
      const s = toSnapshot(state);
      // The same snapshot with its jobs listed in reverse, out of admission order (still valid).
      const reversed = Object.fromEntries(Object.entries(s.jobs).reverse());
      out.push(s, { ...s, jobs: reversed });
    }
    return out;
  });

/** Random snapshots, most of them invalid somewhere: any status with any optional fields, numbers around each other. */
const small = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0, max: 6 }) },
  fc.constant(Number.NaN),
  fc.constant(-0),
);
const jobArb: fc.Arbitrary<Record<string, unknown>> = fc
  .record(
    {
      payload: fc.record({
        account: fc.oneof({ weight: 6, arbitrary: fc.constantFrom('x', 'y') }, fc.constant(Number.NaN)),
        key: fc.constantFrom('k0', 'k1'),
        amount: fc.integer({ min: -1, max: 2 }),
        deadline: small,
      }),
      seq: small,
      status: fc.constantFrom('ready', 'waiting', 'running', 'done', 'dead'),
      attempts: fc.integer({ min: 0, max: 3 }),
      token: fc.oneof({ weight: 6, arbitrary: small }, fc.constant(undefined)),
      owner: fc.constantFrom('w1', 'w2'),
      leaseUntil: small,
      notBefore: small,
      reason: fc.constantFrom('deadline', 'permanent'),
      lastError: fc.constantFrom('e'),
    },
    { requiredKeys: ['payload', 'seq', 'status', 'attempts'] },
  )
  .map((j) => j as Record<string, unknown>);
const randomSnapshotArb: fc.Arbitrary<Snapshot> = fc
  .record({
    config: configArb,
    clock: small,
    nextToken: small,
    nextSeq: small,
    jobs: fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', '1', '0'), jobArb, { maxKeys: 4 }),
    balances: fc.dictionary(fc.constantFrom('x', 'y'), fc.integer({ min: -1, max: 3 }), { maxKeys: 2 }),
    effects: fc.dictionary(
      fc.constantFrom('x', 'y'),
      fc.dictionary(
        fc.constantFrom('k0', 'k1'),
        fc.record({ amount: fc.integer({ min: -1, max: 2 }), job: fc.constantFrom('a', 'b', 'z'), token: small }),
        { maxKeys: 2 },
      ),
      { maxKeys: 2 },
    ),
  })
  .map((s) => ({ format: 'jobcheck.snapshot/1', ...s }) as unknown as Snapshot);

const snapshotsArb = fc.oneof(walkArb, fc.array(randomSnapshotArb, { minLength: 1, maxLength: 8 }));

describe("the model's fast paths, against the code they replaced", () => {
  it('the invariant checks give the verdicts and messages of the original checks', () => {
    let broken = 0;
    fc.assert(
      fc.property(snapshotsArb, (snapshots) => {
        for (const s of snapshots)
          for (const [name, original] of Object.entries(ORIGINAL)) {
            const check = STORE_INVARIANTS.find((i) => i.name === name)?.check;
            expect(check, name).toBeDefined();
            const want = original(s);
            if (want !== undefined) broken++;
            expect(check?.(s), `${name} on ${JSON.stringify(s)}`).toBe(want);
          }
      }),
      { numRuns: 1500 },
    );
    expect(broken).toBeGreaterThan(100);
  });

  it('fromSnapshot restores what the original restore does, Maps in the same order, sharing nothing with its input', () => {
    let restored = 0;
    fc.assert(
      fc.property(snapshotsArb, (snapshots) => {
        for (const s of snapshots) {
          const want = outcome(() => originalFromSnapshot(s));
          const got = outcome(() => fromSnapshot(s));
          expect(got.ok).toBe(want.ok);
          if (!got.ok || !want.ok) {
            expect(got).toEqual(want);
            continue;
          }
          restored++;
          const a = plainOf(got.state);
          const b = plainOf(want.state);
          expect(isDeepStrictEqual(a, b)).toBe(true);
          expect(JSON.stringify(a)).toBe(JSON.stringify(b));
          const inner = objectsOf(s);
          for (const o of objectsOf(got.state)) expect(inner.has(o)).toBe(false);
        }
      }),
      { numRuns: 600 },
    );
    expect(restored).toBeGreaterThan(500);
  });
});
