/**
 * The snapshot-round-trip invariant given the state its snapshot was written from: it then proves
 * the round trip by comparing the restored state with that state, field by field, instead of
 * writing the restored snapshot and comparing two JSON trees. That proof may only ever say
 * "holds" when the comparison would: here the restore is broken on purpose, one field at a time
 * (`fromSnapshot` wrapped through vi.mock), and the check given the state must report each break
 * exactly as the check without it does.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { ModelState } from './step.ts';

const broken = vi.hoisted(() => ({ restore: undefined as ((s: ModelState) => ModelState) | undefined }));
vi.mock('./step.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('./step.ts')>();
  return {
    ...real,
    fromSnapshot: (input: unknown): ModelState => {
      const restored = real.fromSnapshot(input);
      return broken.restore === undefined ? restored : broken.restore(restored);
    },
  };
});

// The quick part shares a process between files (vitest.config.ts): modules another file loaded
// are evaluated again here, so that invariants.ts imports the wrapped step.ts, and after it.
vi.resetModules();
afterAll(() => {
  vi.doUnmock('./step.ts');
  vi.resetModules();
});
const { STORE_INVARIANTS } = await import('./invariants.ts');
const { initialState, step, toSnapshot } = await import('./step.ts');

const roundTrip = STORE_INVARIANTS.find((i) => i.name === 'snapshot-round-trip');
if (roundTrip === undefined) throw new Error('no snapshot-round-trip invariant');

/** Every state along a path that reaches a running, a waiting (with its last error), a dead and a done job, and a ledger. */
function statesAlongAPath(): ModelState[] {
  let state = initialState({ capacity: 3, maxAttempts: 2, leaseTicks: 2, backoffBase: 1, backoffCap: 2 });
  const states = [state];
  for (const c of [
    { type: 'submit', id: 'a', account: 'x', key: 'k1', amount: 2, deadline: 20, now: 0 },
    { type: 'submit', id: 'b', account: 'y', key: 'k1', amount: 3, deadline: 20, now: 0 },
    { type: 'submit', id: 'c', account: 'x', key: 'k2', amount: 1, deadline: 20, now: 0 },
    { type: 'claim', worker: 'w1', now: 1 },
    { type: 'commit', worker: 'w1', token: 1, now: 1 },
    { type: 'claim', worker: 'w2', now: 1 },
    { type: 'fail', worker: 'w2', token: 2, kind: 'transient', error: 'e1', now: 2 },
    { type: 'ack', worker: 'w1', token: 1, now: 2 },
    { type: 'claim', worker: 'w1', now: 2 },
    { type: 'fail', worker: 'w1', token: 3, kind: 'permanent', error: 'e2', now: 3 },
    { type: 'claim', worker: 'w2', now: 4 },
  ]) {
    state = step(state, c).state;
    states.push(state);
  }
  return states;
}

type Jobs = ModelState['context']['jobs'];
type Job = Jobs extends ReadonlyMap<string, infer J> ? J : never;
const withContext = (s: ModelState, change: Partial<ModelState['context']>): ModelState => ({
  ...s,
  context: { ...s.context, ...change },
});
const eachJob = (s: ModelState, f: (j: Job) => Job): ModelState =>
  withContext(s, { jobs: new Map([...s.context.jobs].map(([id, j]) => [id, f(j)])) });
const jobContext = (s: ModelState, change: (c: Job['context']) => Partial<Job['context']>): ModelState =>
  eachJob(s, (j) => ({ ...j, context: { ...j.context, ...change(j.context) } }));

/** Ways to break the restore, each changing one thing toSnapshot writes. */
const BREAKS: Record<string, (s: ModelState) => ModelState> = {
  'drops lastError': (s) => jobContext(s, () => ({ lastError: undefined })),
  'moves notBefore': (s) =>
    jobContext(s, (c) => ({ notBefore: c.notBefore === undefined ? undefined : c.notBefore + 1 })),
  'changes the dead reason': (s) => jobContext(s, (c) => ({ reason: c.reason === undefined ? undefined : 'deadline' })),
  'changes the owner': (s) => jobContext(s, (c) => ({ owner: c.owner === undefined ? undefined : 'w9' })),
  'changes the token': (s) => jobContext(s, (c) => ({ token: c.token === undefined ? undefined : c.token + 1 })),
  'moves leaseUntil': (s) =>
    jobContext(s, (c) => ({ leaseUntil: c.leaseUntil === undefined ? undefined : c.leaseUntil + 1 })),
  'changes attempts': (s) => jobContext(s, (c) => ({ attempts: c.attempts + 1 })),
  'changes the seq': (s) => jobContext(s, (c) => ({ seq: c.seq + 10 })),
  'changes the amount': (s) => jobContext(s, (c) => ({ payload: { ...c.payload, amount: c.payload.amount + 1 } })),
  'changes the status': (s) => eachJob(s, (j) => ({ ...j, value: j.value === 'ready' ? 'done' : 'ready' })),
  'moves the clock': (s) => withContext(s, { clock: s.context.clock + 1 }),
  'changes nextToken': (s) => withContext(s, { nextToken: s.context.nextToken + 1 }),
  'changes nextSeq': (s) => withContext(s, { nextSeq: s.context.nextSeq + 1 }),
  'changes the capacity': (s) => withContext(s, { config: { ...s.context.config, capacity: 9 } }),
  'changes a balance': (s) =>
    withContext(s, { balances: new Map([...s.context.balances].map(([a, b]) => [a, b + 1])) }),
  'changes an effect token': (s) =>
    withContext(s, {
      effects: new Map(
        [...s.context.effects].map(([a, l]) => [a, new Map([...l].map(([k, e]) => [k, { ...e, token: e.token + 5 }]))]),
      ),
    }),
  'renames a ledger key': (s) =>
    withContext(s, {
      effects: new Map([...s.context.effects].map(([a, l]) => [a, new Map([...l].map(([k, e]) => [`${k}z`, e]))])),
    }),
};

describe('the snapshot-round-trip invariant, given the state its snapshot was written from', () => {
  it('holds on every state of the model, as it does without the state', () => {
    broken.restore = undefined;
    for (const state of statesAlongAPath()) {
      const s = toSnapshot(state);
      expect(roundTrip.check(s, state)).toBeUndefined();
      expect(roundTrip.check(s)).toBeUndefined();
    }
  });

  it('reports every break of the restore that changes the snapshot, with the words it uses without the state', () => {
    let seen = 0;
    try {
      for (const [name, restore] of Object.entries(BREAKS)) {
        let changed = 0;
        for (const state of statesAlongAPath()) {
          const s = toSnapshot(state);
          broken.restore = undefined;
          const text = JSON.stringify(s);
          broken.restore = restore;
          if (JSON.stringify(toSnapshot(restore(state))) === text) continue;
          changed++;
          const without = roundTrip.check(s);
          expect(without, `${name}: the check without the state`).toBeDefined();
          expect(roundTrip.check(s, state), `${name}, at clock ${state.context.clock}`).toBe(without);
        }
        expect(changed, `${name} changes some snapshot of the path`).toBeGreaterThan(0);
        seen += changed;
      }
    } finally {
      broken.restore = undefined;
    }
    expect(seen).toBeGreaterThan(0);
  });
});
