/**
 * Differential exploration: every transition of the default exploration run against an
 * implementation. The built-in store agrees; every broken variant of the catalogue is caught
 * with a short story; the Python example agrees over the protocol on a small scope.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { jobStoreFactory } from '../stores/jobStore.ts';
import { CATALOGUE } from '../broken/catalogue.ts';
import { processAdapterFactory } from '../protocol/index.ts';
import { DEFAULT_EXPLORATION, explore, runExploration } from './index.ts';

describe('the default exploration against an implementation', () => {
  it('finds the built-in store agreeing on every transition', async () => {
    const r = await runExploration({ factory: jobStoreFactory() });
    expect(r.verdict).toBe('complete');
    expect(r.adapter).toBe('impl/JobStore');
    for (const c of r.configs) expect(c.differential?.commands).toBeGreaterThan(c.transitions);
    expect(r.coverage.sources.every((s) => s.endsWith('impl/JobStore'))).toBe(true);
  });

  it.each(CATALOGUE.map((v) => [v.name, v] as const))(
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
