import { describe, expect, it } from 'vitest';
import { jobStoreFactory } from '../stores/jobStore.ts';
import { modelFactory } from '../stores/model.ts';
import { runCampaign } from './campaign.ts';
import { categorySummary } from '../coverage/coverage.ts';
import type { Adapter, AdapterFactory } from '../adapter.ts';
import { assertConforms } from '../assert.ts';
import { ConformanceError } from '../errors.ts';

/** Random runs against impl/: JOBCHECK_RUNS (default 300) scenarios of up to 40 commands. */
const RUNS = Number(process.env['JOBCHECK_RUNS'] ?? 300);
const SEED = process.env['JOBCHECK_SEED'] === undefined ? undefined : Number(process.env['JOBCHECK_SEED']);

describe('random differential campaigns', () => {
  it(`find no divergence between impl/JobStore and the model in ${RUNS} random runs`, async () => {
    const result = await runCampaign({
      factory: jobStoreFactory(),
      runs: RUNS,
      ...(SEED === undefined ? {} : { seed: SEED }),
    });
    expect(result.counterexample?.divergence ?? null, `seed ${result.seed}`).toBeNull();
    expect(result.verdict).toBe('agree');
    expect(result.runs).toBe(RUNS);
    // The generator must actually reach the lifecycle: every state and transition is exercised.
    expect(categorySummary(result.coverage, 'states')).toEqual({ hit: 5, total: 5 });
    expect(categorySummary(result.coverage, 'transitions').hit).toBeGreaterThanOrEqual(12);
  });

  it('is repeatable: the same seed generates the same runs and the same coverage', async () => {
    const a = await runCampaign({ factory: modelFactory, runs: 20, seed: 7 });
    const b = await runCampaign({ factory: modelFactory, runs: 20, seed: 7 });
    expect(a.commands).toBe(b.commands);
    expect(a.coverage.items).toEqual(b.coverage.items);
  });

  it('reports an implementation that throws as an impl_error divergence, not as an exception', async () => {
    const throwing: AdapterFactory = async (config) => {
      const inner = await jobStoreFactory()(config);
      const adapter: Adapter = {
        name: 'throws-on-claim',
        execute: (c) =>
          (c as { type?: string } | null)?.type === 'claim' ? Promise.reject(new Error('boom')) : inner.execute(c),
        snapshot: () => inner.snapshot(),
        restart: () => inner.restart(),
        close: () => inner.close(),
      };
      return adapter;
    };
    const result = await runCampaign({ factory: throwing, runs: 50, seed: 1 });
    expect(result.verdict).toBe('diverge');
    expect(result.counterexample?.divergence?.kind).toBe('impl_error');
    expect(result.counterexample?.divergence?.error).toContain('boom');
  });

  it("reports a snapshot that is a live alias of the implementation's state (kind alias), shrunk to one step", async () => {
    const aliasing: AdapterFactory = async (config) => {
      const inner = await jobStoreFactory()(config);
      let cached: Awaited<ReturnType<Adapter['snapshot']>> | undefined;
      return {
        name: 'snapshot-alias',
        execute: (c) => {
          cached = undefined;
          return inner.execute(c);
        },
        snapshot: async () => (cached ??= await inner.snapshot()),
        restart: () => {
          cached = undefined;
          return inner.restart();
        },
        close: () => inner.close(),
      };
    };
    const result = await runCampaign({ factory: aliasing, runs: 20, seed: 11 });
    expect(result.counterexample?.divergence?.kind).toBe('alias');
    expect(result.counterexample?.steps).toHaveLength(1);
    expect(result.story).toContain('the caller then changed the snapshot it was given');
  });

  it('assertConforms throws a ConformanceError whose message is the story', async () => {
    const lying: AdapterFactory = async (config) => {
      const inner = await jobStoreFactory()(config);
      return {
        ...inner,
        name: 'tick-lies',
        execute: async (c) => {
          const r = await inner.execute(c);
          return r.ok && r.type === 'tick' ? { ...r, clock: r.clock + 1 } : r;
        },
        snapshot: () => inner.snapshot(),
        restart: () => inner.restart(),
        close: () => inner.close(),
      };
    };
    const error = await assertConforms({ factory: lying, runs: 50, seed: 3 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConformanceError);
    expect((error as ConformanceError).code).toBe('divergence');
    expect((error as ConformanceError).message).toMatch(/reply differs at reply\.clock: model \d+, impl \d+/);
  });
});
