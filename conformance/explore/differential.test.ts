/**
 * Differential exploration: every transition of the default exploration run against an
 * implementation. The built-in store agrees; every broken variant of the catalogue is caught
 * with a short story; the Python example agrees over the protocol on a small scope, and spread
 * over lanes (differentialLanes.ts) explores the same states with the same result, broken
 * variants included.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { PYTHON_BROKEN, findPython, pythonCommand } from '../../examples/python/interpreter.ts';
import type { Reply, Snapshot } from '../../contract/index.ts';
import { JobStore } from '../../impl/index.ts';
import type { AdapterFactory } from '../adapter.ts';
import { JobStoreAdapter, jobStoreFactory } from '../stores/jobStore.ts';
import { CATALOGUE } from '../broken/index.ts';
import { Peer, processAdapterFactory } from '../protocol/index.ts';
import type { ProcessAdapterFactory } from '../protocol/index.ts';
import { CHECK_EXPLORATION, DEFAULT_EXPLORATION, explore, runExploration } from './index.ts';
import type { ExplorePart, ExploreResult } from './index.ts';

/**
 * Variants whose only bug is what they do with a snapshot no store could have written. Exploration
 * restores only snapshots the model's own runs wrote, so it cannot reach them: the restore phase
 * (conformance/restore/) does, and the test below holds that exploration finds nothing there.
 */
const RESTORE_ONLY = new Set<string>(['restore-accepts-anything', 'restore_half_applied']);

describe('the default exploration against an implementation', () => {
  it('finds the built-in store agreeing on every transition', async () => {
    const r = await runExploration({ factory: jobStoreFactory() });
    expect(r.verdict).toBe('complete');
    expect(r.adapter).toBe('impl/JobStore');
    for (const c of r.configs) expect(c.differential?.commands).toBeGreaterThan(c.transitions);
    expect(r.coverage.sources.every((s) => s.endsWith('impl/JobStore'))).toBe(true);
  });

  it.each(CATALOGUE.filter((v) => !RESTORE_ONLY.has(v.name)).map((v) => [v.name, v] as const))(
    'catches broken/%s with a story of at most 7 steps',
    async (_, variant) => {
      const r = await explore({ parts: DEFAULT_EXPLORATION, factory: variant.factory });
      expect(r.verdict).toBe('diverge');
      const ce = r.configs.find((c) => c.counterexample !== null)?.counterexample;
      expect(ce?.kind).toBe('divergence');
      expect(ce?.run?.divergence).not.toBeNull();
      expect(ce?.path.length).toBeLessThanOrEqual(7);
      expect(r.story).toContain(`broken/${variant.name} disagrees with the model`);
    },
  );

  it.each(CATALOGUE.filter((v) => RESTORE_ONLY.has(v.name)).map((v) => [v.name, v] as const))(
    'cannot reach broken/%s, whose bug is the restore phase to find',
    async (_, variant) => {
      const r = await explore({ parts: DEFAULT_EXPLORATION, factory: variant.factory });
      expect(r.verdict).toBe('complete');
    },
  );
});

describe('the Python example over the protocol', () => {
  const factory = processAdapterFactory('python3 -S examples/python/jobstore.py', { restarts: 'warm' });
  afterAll(() => factory.close());

  it('agrees on every transition of a small scope, restarts included', async () => {
    const r = await explore({
      parts: [
        {
          name: 'python',
          scope: { jobs: 1, accounts: 1, lifetimes: [3], horizon: 3 },
          configs: ['basic', 'retry-on-deadline'],
        },
      ],
      factory,
    });
    expect(r.verdict).toBe('complete');
    expect(r.adapter).toBe('python3 -S examples/python/jobstore.py');
    expect(r.states).toBeGreaterThan(100);
  });
});

/** What must not depend on how the implementation's side was run: everything but times and work counts. */
const outcomeOf = (r: ExploreResult) => ({
  verdict: r.verdict,
  states: r.states,
  transitions: r.transitions,
  notRun: r.notRun,
  adapter: r.adapter,
  story: r.story,
  coverage: r.coverage,
  configs: r.configs.map((c) => ({
    name: c.name,
    verdict: c.verdict,
    levels: c.levels,
    boundaries: c.boundaries,
    path: c.counterexample?.path ?? null,
    story: c.counterexample?.story ?? null,
  })),
});

/**
 * Stores whose snapshot shows one token too many after a refused command, until the next command
 * or restart wipes the mark: only a comparison right after the refusal sees it. Resettable in
 * place, as a process adapter is.
 */
function refusalLeavesAMark(): AdapterFactory {
  return (config) => {
    const inner = new JobStoreAdapter(JobStore.create(config), JobStore, 'refusal-leaves-a-mark');
    const empty = JobStore.create(config).snapshot();
    let marked = false;
    const adapter = {
      name: inner.name,
      execute: async (command: unknown): Promise<Reply> => {
        const reply = await inner.execute(command);
        marked = !reply.ok;
        return reply;
      },
      snapshot: async (): Promise<Snapshot> => {
        const s = await inner.snapshot();
        return marked ? { ...s, nextToken: s.nextToken + 1 } : s;
      },
      restart: (): Promise<void> => {
        marked = false;
        return inner.restart();
      },
      resetTo: (s: Snapshot | undefined): Promise<void> => {
        marked = false;
        return inner.restoreFrom(s ?? empty);
      },
      close: (): Promise<void> => inner.close(),
    };
    return Promise.resolve(adapter);
  };
}

const python = findPython();
describe.skipIf(python === undefined)('the exploration spread over lanes of the Python example', () => {
  const factories: ProcessAdapterFactory[] = [];
  const pool = (script: string): ProcessAdapterFactory => {
    const f = processAdapterFactory(pythonCommand(python as string, script), { spares: 2 });
    factories.push(f);
    return f;
  };
  afterAll(() => Promise.all(factories.map((f) => f.close())));
  const SMALL: readonly ExplorePart[] = [
    { name: 'python', scope: { jobs: 1, accounts: 1, lifetimes: [3], horizon: 3 }, configs: ['basic', 'backoff-cap'] },
  ];

  it('explores over four lanes the states, transitions and coverage of the one-store exploration, each transition sent once', async () => {
    const f = pool('examples/python/jobstore.py');
    const lanes = await runExploration({ parts: SMALL, factory: f.warm, lanes: 4 });
    const one = await runExploration({ parts: SMALL, factory: f.warm });
    expect(lanes.verdict).toBe('complete');
    expect(outcomeOf(lanes)).toEqual(outcomeOf(one));
    for (const c of lanes.configs) {
      expect(c.differential?.lanes).toBe(4);
      expect(c.differential?.commands).toBe(c.transitions);
    }
    const requests = (r: ExploreResult): number =>
      r.configs.reduce((n, c) => n + (c.differential?.commands ?? 0) + (c.differential?.snapshots ?? 0), 0);
    expect(requests(lanes)).toBeLessThan(requests(one));
  });

  it('asks each lane store for its snapshot only to compare it: a restart carries across the snapshot just compared', async () => {
    // Every snapshot by request (no replySnapshots), so that each read of one is a line counted here.
    const f = processAdapterFactory(
      `${pythonCommand(python as string, 'examples/python/jobstore.py')} --no-reply-snapshots`,
      { spares: 2 },
    );
    factories.push(f);
    // Every request goes through requestAll (request() is requestAll of one line), written ahead or not.
    const asked = vi.spyOn(Peer.prototype, 'requestAll');
    try {
      const lanes = await runExploration({ parts: SMALL, factory: f.warm, lanes: 4 });
      expect(lanes.verdict).toBe('complete');
      const snapshotRequests = asked.mock.calls
        .flatMap(([lines]) => lines)
        .filter((line) => line === '{"type":"snapshot"}').length;
      const compared = lanes.configs.reduce((n, c) => n + (c.differential?.snapshots ?? 0), 0);
      expect(snapshotRequests).toBe(compared);
    } finally {
      asked.mockRestore();
    }
  });

  it('restarts into a state from the successor its first state-changing step left the store in: the outcome of restarts taken in the state, one reset fewer per such state', async () => {
    const f = pool('examples/python/jobstore.py');
    // The same stores, but restarts are taken only in the state (as for an adapter that cannot say its restart carries a snapshot).
    const inState: AdapterFactory = async (config) =>
      new Proxy(await f.warm(config), {
        get: (target, key) => (key === 'restartCarriesTaken' ? false : Reflect.get(target, key, target)),
      });
    const carried = await runExploration({ parts: SMALL, factory: f.warm, lanes: 4 });
    const notCarried = await runExploration({ parts: SMALL, factory: inState, lanes: 4 });
    expect(carried.verdict).toBe('complete');
    expect(outcomeOf(carried)).toEqual(outcomeOf(notCarried));
    const sum = (r: ExploreResult, k: 'resets' | 'commands' | 'snapshots'): number =>
      r.configs.reduce((n, c) => n + (c.differential?.[k] ?? 0), 0);
    for (const c of carried.configs) expect(c.differential?.lanes).toBe(4);
    expect(sum(carried, 'commands')).toBe(sum(notCarried, 'commands'));
    expect(sum(carried, 'snapshots')).toBe(sum(notCarried, 'snapshots'));
    expect(sum(carried, 'resets')).toBeLessThan(sum(notCarried, 'resets'));
  });

  it('compares the store after every step that stays in a state, so a refusal that leaves a mark the next step wipes is caught', async () => {
    const lanes = await runExploration({ parts: SMALL, factory: refusalLeavesAMark(), lanes: 4 });
    const one = await runExploration({ parts: SMALL, factory: refusalLeavesAMark() });
    expect(lanes.verdict).toBe('diverge');
    expect(outcomeOf(lanes)).toEqual(outcomeOf(one));
  });

  it.each(PYTHON_BROKEN.filter((b) => !RESTORE_ONLY.has(b.name)).map((b) => [b.name] as const))(
    'reports broken/%s.py with the verdict, path and story of the one-store exploration',
    async (name) => {
      const f = pool(`examples/python/broken/${name}.py`);
      const lanes = await runExploration({ parts: CHECK_EXPLORATION, factory: f.warm, lanes: 4 });
      const one = await runExploration({ parts: CHECK_EXPLORATION, factory: f.warm });
      expect(lanes.verdict).toBe('diverge');
      expect(outcomeOf(lanes)).toEqual(outcomeOf(one));
    },
  );

  it('replays paths on one store for an implementation whose stores cannot be reset in place', async () => {
    const r = await runExploration({ parts: SMALL, factory: jobStoreFactory(), lanes: 4 });
    expect(r.verdict).toBe('complete');
    for (const c of r.configs) {
      expect(c.differential?.lanes).toBeUndefined();
      expect(c.differential?.replays).toBeGreaterThan(0);
    }
  });
});
