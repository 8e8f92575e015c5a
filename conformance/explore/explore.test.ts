/**
 * The explorer against the model alone: complete explorations find no violation, the codec and
 * the canonical key are faithful, symmetry reduction counts orbits, paths are shortest, budgets
 * make an exploration incomplete, and the configs reach the guard boundaries they are built for.
 * Each property is also seen to fail against a broken variant (a mutated key, a broken model, a
 * broken invariant).
 */
import { describe, expect, it } from 'vitest';
import type { Config } from '../../contract/index.ts';
import { fromSnapshot, initialState, modelStateOf, step, toSnapshot } from '../../model/index.ts';
import type { ModelState, StepResult, StoreInvariant } from '../../model/index.ts';
import {
  DEFAULT_EXPLORATION,
  EXPLORE_CONFIGS,
  Words,
  alphabet,
  canonicalKey,
  decodeState,
  encodeState,
  explore,
  exploreConfig,
  resolveScope,
  scopeNames,
} from './index.ts';
import type { ExploreScope, NamedConfig } from './index.ts';
import { Budget } from '../budget.ts';
import { CodecCache } from './codecCache.ts';

const TINY: Partial<ExploreScope> = {
  jobs: 2,
  accounts: 2,
  workers: 2,
  keys: 1,
  amounts: [1],
  lifetimes: [2],
  horizon: 1,
};
const named = (name: string): NamedConfig => exploreConfig(name) ?? (EXPLORE_CONFIGS[0] as NamedConfig);
const BASIC = named('basic');

const referenceCache = new Map<string, ReturnType<typeof referenceSearch>>();
/** Every state the model reaches in a scope, by a plain breadth-first search with snapshot JSON keys (the reference); computed once a scope. */
function referenceStates(config: Config, scope: ExploreScope): ReturnType<typeof referenceSearch> {
  const k = JSON.stringify([config, scope]);
  const have = referenceCache.get(k);
  if (have !== undefined) return have;
  const r = referenceSearch(config, scope);
  referenceCache.set(k, r);
  return r;
}

function referenceSearch(
  config: Config,
  scope: ExploreScope,
): { states: Map<string, ModelState>; depthOf: Map<string, number> } {
  const names = scopeNames(scope, config.maxAttempts);
  const key = (s: ModelState): string => JSON.stringify(toSnapshot(s));
  const root = initialState(config);
  const states = new Map([[key(root), root]]);
  const depthOf = new Map([[key(root), 0]]);
  let frontier = [root];
  for (let d = 1; frontier.length > 0; d++) {
    const next: ModelState[] = [];
    for (const s of frontier) {
      for (const a of alphabet(s.context, scope, names)) {
        const t = 'do' in a ? step(s, a.do).state : fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(s))));
        const k = key(t);
        if (states.has(k)) continue;
        states.set(k, t);
        depthOf.set(k, d);
        next.push(t);
      }
    }
    frontier = next;
  }
  return { states, depthOf };
}

/** The canonical key of a state as a string. */
function keyOf(
  state: ModelState,
  scope: ExploreScope,
  symmetry: boolean,
  mutate?: (key: Int32Array, n: number) => void,
): string {
  const names = scopeNames(scope, state.context.config.maxAttempts);
  const w = new Words();
  encodeState(state.context, names, () => 0, w);
  const out = new Int32Array(256);
  const n = canonicalKey(w.data, 0, symmetry, out);
  mutate?.(out, n);
  return out.subarray(0, n).join(',');
}

const orbitCache = new WeakMap<ModelState, string>();
/** Every renaming of a snapshot's ids, accounts, keys and workers (brute force), as sorted JSON: its orbit's smallest member. */
function orbitForm(state: ModelState, scope: ExploreScope): string {
  const have = orbitCache.get(state);
  if (have !== undefined) return have;
  const form = orbitSearch(state, scope);
  orbitCache.set(state, form);
  return form;
}

function orbitSearch(state: ModelState, scope: ExploreScope): string {
  const names = scopeNames(scope, state.context.config.maxAttempts);
  const perms = <T>(xs: readonly T[]): T[][] =>
    xs.length <= 1
      ? [[...xs]]
      : xs.flatMap((x, i) => perms([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
  let best: string | undefined;
  const snap = toSnapshot(state);
  for (const ids of perms(names.ids)) {
    for (const accounts of perms(names.accounts)) {
      for (const keys of perms(names.keys)) {
        for (const workers of perms(names.workers)) {
          const map = new Map<string, string>();
          names.ids.forEach((n, i) => {
            map.set(`id:${n}`, ids[i] ?? n);
          });
          names.accounts.forEach((n, i) => {
            map.set(`account:${n}`, accounts[i] ?? n);
          });
          names.keys.forEach((n, i) => {
            map.set(`key:${n}`, keys[i] ?? n);
          });
          names.workers.forEach((n, i) => {
            map.set(`worker:${n}`, workers[i] ?? n);
          });
          const r = (kind: string, n: string): string => map.get(`${kind}:${n}`) ?? n;
          const jobs = Object.entries(snap.jobs)
            .map(([id, j]) => ({
              ...j,
              id: r('id', id),
              payload: { ...j.payload, account: r('account', j.payload.account), key: r('key', j.payload.key) },
              ...(j.owner === undefined ? {} : { owner: r('worker', j.owner) }),
            }))
            .sort((a, b) => a.seq - b.seq);
          const effects = Object.entries(snap.effects)
            .flatMap(([account, ledger]) =>
              Object.entries(ledger).map(([key, e]) =>
                [r('account', account), r('key', key), e.amount, r('id', e.job), e.token].join('|'),
              ),
            )
            .sort();
          const balances = Object.entries(snap.balances)
            .map(([a, v]) => `${r('account', a)}=${v}`)
            .sort();
          const text = JSON.stringify([snap.clock, snap.nextToken, snap.nextSeq, jobs, effects, balances]);
          if (best === undefined || text < best) best = text;
        }
      }
    }
  }
  return best ?? '';
}

/** Pairs of states whose keys are equal but orbits differ, or the other way round. */
function keyFaults(
  states: readonly ModelState[],
  scope: ExploreScope,
  mutate?: (key: Int32Array, n: number) => void,
): number {
  const byKey = new Map<string, string>();
  const byOrbit = new Map<string, string>();
  let faults = 0;
  for (const s of states) {
    const k = keyOf(s, scope, true, mutate);
    const o = orbitForm(s, scope);
    if (byKey.has(k) && byKey.get(k) !== o) faults++;
    if (byOrbit.has(o) && byOrbit.get(o) !== k) faults++;
    byKey.set(k, o);
    byOrbit.set(o, k);
  }
  return faults;
}

describe('a complete exploration of the model', () => {
  it('reaches every state of a small scope and finds no invariant broken', async () => {
    const r = await explore({ scope: TINY });
    expect(r.verdict).toBe('complete');
    for (const c of r.configs) {
      expect(c.verdict).toBe('complete');
      expect(c.counterexample).toBeNull();
      expect(c.levels.reduce((a, b) => a + b, 0)).toBe(c.states);
      expect(c.collisionProbability).toBeLessThan(1e-9);
    }
    expect(r.coverage.steps).toBe(r.transitions);
  });

  it('reaches exactly the states of a plain breadth-first search when nothing is reduced', async () => {
    const scope = resolveScope({ ...TINY, symmetry: false });
    const r = await explore({ scope, configs: [BASIC] });
    expect(r.states).toBe(referenceStates(BASIC.config, scope).states.size);
  });

  it('counts, with symmetry, exactly the orbits of the unreduced states under renaming', async () => {
    const scope = resolveScope({ ...TINY, symmetry: false });
    const all = [...referenceStates(BASIC.config, scope).states.values()];
    const orbits = new Set(all.map((s) => orbitForm(s, scope)));
    const reduced = await explore({ scope: { ...TINY, symmetry: true }, configs: [BASIC] });
    expect(reduced.states).toBe(orbits.size);
    expect(reduced.states).toBeLessThan(all.length);
  });

  it('gives two states one canonical key exactly when a renaming maps one onto the other, and a mutated key is caught', () => {
    const scope = resolveScope({ ...TINY, symmetry: false });
    const all = [...referenceStates(BASIC.config, scope).states.values()];
    expect(keyFaults(all, scope)).toBe(0);
    // A key that forgets the clock merges states that no renaming relates.
    expect(keyFaults(all, scope, (key) => (key[0] = 0))).toBeGreaterThan(0);
  });

  it('decodes every frontier record into the state it was encoded from', async () => {
    const names = scopeNames(resolveScope(TINY), BASIC.config.maxAttempts);
    let checked = 0;
    const checking = (s: ModelState, c: unknown): StepResult => {
      const r = step(s, c);
      const w = new Words();
      encodeState(r.state.context, names, () => 0, w);
      expect(toSnapshot(decodeState(w.data, 0, BASIC.config, names))).toEqual(toSnapshot(r.state));
      checked++;
      return r;
    };
    await explore({ scope: TINY, configs: [BASIC], step: checking });
    expect(checked).toBeGreaterThan(1000);
  });
});

describe("the codec's cache", () => {
  it('encodes and decodes every state reached to the same words and states as the codec without it', async () => {
    const names = scopeNames(resolveScope(TINY), BASIC.config.maxAttempts);
    const cache = new CodecCache();
    let checked = 0;
    const checking = (s: ModelState, c: unknown): StepResult => {
      const r = step(s, c);
      const plain = new Words();
      const cached = new Words();
      encodeState(r.state.context, names, () => 0, plain);
      // Twice with the cache (which keeps the words of the parts it decoded only, not of these).
      encodeState(r.state.context, names, () => 0, cached, cache);
      cached.length = 0;
      encodeState(r.state.context, names, () => 0, cached, cache);
      expect([...cached.data.subarray(0, cached.length)]).toEqual([...plain.data.subarray(0, plain.length)]);
      const decoded = decodeState(plain.data, 0, BASIC.config, names, undefined, cache);
      expect(toSnapshot(decoded)).toEqual(toSnapshot(r.state));
      const again = new Words();
      encodeState(decoded.context, names, () => 0, again, cache);
      expect([...again.data.subarray(0, again.length)]).toEqual([...plain.data.subarray(0, plain.length)]);
      checked++;
      return r;
    };
    await explore({ scope: TINY, configs: [BASIC], step: checking });
    expect(checked).toBeGreaterThan(1000);
  });
});

describe('a counterexample', () => {
  it('is a shortest path to a state that breaks an invariant (a deliberately broken invariant)', async () => {
    const scope = resolveScope({ ...TINY, symmetry: false });
    const broken: StoreInvariant = {
      name: 'no-retry-waiting',
      says: 'no job ever waits for a retry (false: a test of the explorer)',
      check: (s) => (Object.values(s.jobs).some((j) => j.status === 'waiting') ? 'a job is waiting' : undefined),
    };
    const r = await explore({ scope, configs: [BASIC], invariants: [broken] });
    expect(r.verdict).toBe('violation');
    const ce = r.configs[0]?.counterexample;
    expect(ce?.invariant).toBe('no-retry-waiting');
    const ref = referenceStates(BASIC.config, scope);
    const shortest = Math.min(
      ...[...ref.states]
        .filter(([, s]) => broken.check(toSnapshot(s)) !== undefined)
        .map(([k]) => ref.depthOf.get(k) ?? Infinity),
    );
    expect(ce?.path.length).toBe(shortest);
    // Replaying the path reaches a state that breaks it.
    let s = initialState(BASIC.config);
    for (const p of ce?.path ?? []) if ('do' in p) s = step(s, p.do).state;
    expect(broken.check(toSnapshot(s))).toBeDefined();
    expect(ce?.story).toContain('no-retry-waiting');
  });

  it('catches a broken model whose commits raise the balance but forget the ledger, in three steps', async () => {
    const forgetful = (s: ModelState, c: unknown): StepResult => {
      const r = step(s, c);
      if (!r.reply.ok || r.reply.type !== 'commit' || !r.reply.applied) return r;
      return { ...r, state: modelStateOf({ ...r.state.context, effects: new Map() }) };
    };
    const r = await explore({ scope: TINY, configs: [BASIC], step: forgetful });
    expect(r.verdict).toBe('violation');
    expect(r.configs[0]?.counterexample?.invariant).toBe('balances');
    expect(
      r.configs[0]?.counterexample?.path.map((p) => ('do' in p ? (p.do as { type: string }).type : 'restart')),
    ).toEqual(['submit', 'claim', 'commit']);
  });
});

describe('budgets', () => {
  it('make an exploration that runs out of states incomplete, never complete', async () => {
    const r = await explore({ scope: TINY, configs: [BASIC], maxStates: 50 });
    expect(r.verdict).toBe('incomplete');
    expect(r.configs[0]?.stoppedBy).toBe('max-states');
  });

  it('make an exploration that runs out of time incomplete, and leave the other configs unexplored', async () => {
    const budget = new Budget(1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const r = await explore({ scope: TINY, budget });
    budget.dispose();
    expect(r.verdict).toBe('incomplete');
    expect(r.notRun.length + r.configs.filter((c) => c.stoppedBy === 'time-limit').length).toBe(EXPLORE_CONFIGS.length);
  });
});

describe('guard boundaries', () => {
  it('are all reached, equality and one either side, for every config of the default exploration', async () => {
    const r = await explore({ parts: [DEFAULT_EXPLORATION[0] ?? { name: 'one-job', scope: {}, configs: [] }] });
    expect(r.verdict).toBe('complete');
    expect(r.configs.map((c) => c.name)).toEqual(EXPLORE_CONFIGS.map((c) => c.name));
    for (const c of r.configs) expect(c.boundaries.missing, c.name).toEqual([]);
    const reached = (name: string): readonly string[] =>
      r.configs.find((c) => c.name === name)?.boundaries.reached ?? [];
    // The configs are built for these: backoff-cap reaches the cap from below, exactly and past it;
    // retry-on-deadline lands a retry one tick before, on, and one tick after the deadline.
    expect(reached('backoff-cap')).toEqual(
      expect.arrayContaining(['rawDelay-backoffCap<0', 'rawDelay-backoffCap=0', 'rawDelay-backoffCap>0']),
    );
    expect(reached('retry-on-deadline')).toEqual(
      expect.arrayContaining([
        'retry:notBefore-deadline=-1',
        'retry:notBefore-deadline=0',
        'retry:notBefore-deadline=+1',
      ]),
    );
    // A scope too short for them misses them, and says so.
    const short = await explore({ scope: { jobs: 1, horizon: 1, lifetimes: [3] }, configs: [named('backoff-cap')] });
    expect(short.configs[0]?.boundaries.missing).toContain('rawDelay-backoffCap>0');
  });
});

describe('a parallel exploration', () => {
  it('reaches the same states, level by level, as a single-threaded one', async () => {
    const one = await explore({ scope: TINY, configs: [BASIC] });
    const two = await explore({ scope: TINY, configs: [BASIC], threads: 2 });
    expect(two.configs[0]?.threads).toBe(2);
    expect(two.configs[0]?.levels).toEqual(one.configs[0]?.levels);
    expect(two.transitions).toBe(one.transitions);
    expect(two.coverage.items).toEqual(one.coverage.items);
  });
});
