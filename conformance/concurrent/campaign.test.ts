import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONCURRENT_BROKEN_VARIANTS } from '../broken/index.ts';
import { CapacityForgetsRunning } from '../broken/index.ts';
import { jobStoreFactory } from '../stores/jobStore.ts';
import { Budget } from '../budget.ts';
import { ConcurrentCampaignError, runConcurrentCampaign } from './campaign.ts';
import type { ConcurrentCampaignResult } from './result.ts';
import type { ConcurrentFactory } from './adapter.ts';
import { asyncJobStoreFactory, lockedJobStoreFactory, sequentialFactory } from './inProcess.ts';
import { requestCount } from './generate.ts';

const envSeed = process.env.JOBCHECK_SEED;
const SEED = envSeed === undefined ? (Date.now() ^ (Math.random() * 0x100000000)) | 0 : Number(envSeed);
const RUNS = Number(process.env.JOBCHECK_CONCURRENT_RUNS ?? 100);

const requestsOf = (r: ConcurrentCampaignResult): number =>
  r.failure?.run == null ? 0 : requestCount(r.failure.run.rounds);

describe('runConcurrentCampaign', () => {
  for (const workers of [2, 4, 8]) {
    it(`finds every history of impl/JobStore behind a mutex linearizable with ${workers} workers (seed ${SEED})`, async () => {
      const r = await runConcurrentCampaign({ factory: lockedJobStoreFactory(), workers, numRuns: RUNS, seed: SEED });
      expect(r.story).toBeNull();
      expect(r.verdict).toBe('passed');
      expect(r.runs).toBe(RUNS);
      expect(r.unknownRuns).toBe(0);
    }, 60_000);
  }

  it('finds the atomic AsyncJobStore linearizable without any lock of the harness', async () => {
    const r = await runConcurrentCampaign({ factory: asyncJobStoreFactory(), workers: 4, numRuns: 50, seed: SEED });
    expect(r.verdict).toBe('passed');
  }, 60_000);

  for (const v of CONCURRENT_BROKEN_VARIANTS) {
    describe(v.name, () => {
      let caught: ConcurrentCampaignResult | undefined;

      it(`is caught with a shrunk story (seed ${SEED})`, async () => {
        caught = await runConcurrentCampaign({ factory: v.factory, workers: 4, numRuns: 2000, seed: SEED });
        expect(caught.verdict, `not caught in ${caught.runs} runs`).toBe('failed');
        expect(caught.failure?.kind).toBe('not_linearizable');
        expect(caught.path).not.toBeNull();
        expect(caught.story).toContain(`broken/${v.name}: no order of the model explains the replies.`);
        // Where the search stopped: after the longest order it found, or before any request when
        // none can come first (a shrunk race may need its very first request to be explained).
        expect(caught.story).toMatch(/The longest order found: #|No request can come first:/);
        expect(caught.story).toContain("The model's replies in the closest order");
        expect(caught.story).toContain(`seed: ${SEED}  path: ${caught.path}`);
        // The run told is the smallest failing run (never more requests than the first: shrinking
        // alone may add some), and the witness names a request of it.
        expect(requestsOf(caught)).toBeLessThanOrEqual(caught.firstFailureRequests ?? 0);
        const ids = new Set(caught.failure?.run?.history.operations.map((o) => o.id));
        expect((caught.failure?.witness?.stuck ?? []).length).toBeGreaterThan(0);
        for (const s of caught.failure?.witness?.stuck ?? []) expect(ids.has(s.id)).toBe(true);
      }, 120_000);

      it('replays the failure from its seed and path, and the same run passes behind a mutex', async () => {
        if (caught?.path === null || caught?.path === undefined) throw new Error('the variant was not caught');
        const again = await runConcurrentCampaign({ factory: v.factory, workers: 4, seed: SEED, path: caught.path });
        expect(again.verdict).toBe('failed');
        expect(again.failure?.run?.history).toEqual(caught.failure?.run?.history);
        const fixed = await runConcurrentCampaign({
          factory: lockedJobStoreFactory(),
          workers: 4,
          seed: SEED,
          path: caught.path,
        });
        expect(fixed.verdict).toBe('passed');
      }, 120_000);
    });
  }

  it('runs a factory that is not schedulable with real concurrency, and still catches a race', async () => {
    const plain =
      (f: ConcurrentFactory): ConcurrentFactory =>
      (config, o) =>
        f(config, o);
    const ok = await runConcurrentCampaign({
      factory: plain(lockedJobStoreFactory()),
      workers: 4,
      numRuns: 50,
      seed: SEED,
    });
    expect(ok.verdict).toBe('passed');
    const racy = CONCURRENT_BROKEN_VARIANTS.find((v) => v.name === 'claim-reads-then-writes');
    if (racy === undefined) throw new Error('variant missing');
    const bad = await runConcurrentCampaign({ factory: plain(racy.factory), workers: 4, numRuns: 2000, seed: SEED });
    expect(bad.verdict).toBe('failed');
    expect(bad.failure?.kind).toBe('not_linearizable');
  }, 120_000);

  it('calls a sequential adapter not exercised, never passed, and still catches a sequential bug through it', async () => {
    const ok = await runConcurrentCampaign({
      factory: sequentialFactory(jobStoreFactory()),
      workers: 4,
      numRuns: RUNS,
      seed: SEED,
    });
    expect(ok.verdict).toBe('not_exercised');
    expect(ok.overlap.pairs).toBe(0);
    const bad = await runConcurrentCampaign({
      factory: sequentialFactory(jobStoreFactory(CapacityForgetsRunning, 'broken/capacity-forgets-running')),
      workers: 4,
      numRuns: 2000,
      seed: SEED,
    });
    expect(bad.verdict).toBe('failed');
    expect(bad.story).toContain('broken/capacity-forgets-running');
  }, 120_000);

  it('fails with impl_error, and says so in the story, when the adapter throws', async () => {
    const thrower: ConcurrentFactory = async (config, o) => {
      const inner = await lockedJobStoreFactory()(config, o);
      return {
        ...inner,
        name: 'thrower',
        concurrent: true,
        execute: () => Promise.reject(new Error('store exploded')),
        snapshot: () => inner.snapshot(),
        close: () => inner.close(),
      };
    };
    const r = await runConcurrentCampaign({ factory: thrower, workers: 2, numRuns: 10, seed: SEED });
    expect(r.verdict).toBe('failed');
    expect(r.failure?.kind).toBe('impl_error');
    expect(r.story).toContain('thrower: the implementation failed: request #1: store exploded');
  });

  it('creates an implementation that cannot be created once: its failure came before any request, so nothing is shrunk', async () => {
    let created = 0;
    const failing: ConcurrentFactory = async () => {
      created++;
      throw new Error('no store today');
    };
    const r = await runConcurrentCampaign({ factory: failing, workers: 2, numRuns: 10, seed: SEED });
    expect(r.verdict).toBe('failed');
    expect(r.failure?.kind).toBe('impl_error');
    expect(r.failure?.run).toBeNull();
    expect(r.failure?.error).toContain('the implementation could not be created: ');
    expect(r.failure?.error).toContain('no store today');
    expect({ created, runs: r.runs, shrinks: r.shrinks }).toEqual({ created: 1, runs: 1, shrinks: 0 });
    // The path of the run as found: replaying it creates the implementation once more, and fails the same way.
    const again = await runConcurrentCampaign({ factory: failing, workers: 2, seed: SEED, path: r.path ?? '' });
    expect(again.failure?.error).toBe(r.failure?.error);
    expect(created).toBe(2);
  });

  it('reports unknown, never passed, when the checker runs out of steps', async () => {
    const r = await runConcurrentCampaign({
      factory: lockedJobStoreFactory(),
      workers: 2,
      numRuns: 5,
      seed: SEED,
      checkBudget: { maxSteps: 1 },
    });
    expect(r.verdict).toBe('unknown');
    expect(r.unknownRuns).toBe(5);
    expect(r.firstUnknown?.reason).toBe('max_steps');
  });

  it('reports the time limit, never passed, when the budget runs out', async () => {
    const budget = new Budget(1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const r = await runConcurrentCampaign({
      factory: lockedJobStoreFactory(),
      workers: 2,
      numRuns: 50,
      seed: SEED,
      budget,
    });
    expect(r.verdict).toBe('time_limit');
    expect(r.stoppedByTimeLimit).toBe(true);
    budget.dispose();
  });

  it('refuses bad options with a typed error naming the value', async () => {
    const factory = lockedJobStoreFactory();
    await expect(runConcurrentCampaign({ factory, workers: 0 })).rejects.toThrow(ConcurrentCampaignError);
    await expect(runConcurrentCampaign({ factory, workers: 0 })).rejects.toMatchObject({
      code: 'invalid_option',
      message: 'workers: must be an integer from 1 to 64 (got 0)',
    });
    await expect(runConcurrentCampaign({ factory, workers: 2, timeoutMs: -1 })).rejects.toMatchObject({
      code: 'invalid_option',
      message: expect.stringContaining('timeoutMs'),
    });
    await expect(runConcurrentCampaign({ factory, workers: 2, path: 'x' })).rejects.toMatchObject({
      code: 'invalid_option',
      message: expect.stringContaining('"x"'),
    });
  });
});

describe('the example story of docs/conformance.md', () => {
  it('is the story the campaign prints for the seed and path it names', async () => {
    const doc = readFileSync(new URL('../../docs/conformance.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## Competing workers'));
    const block = /```text\n([\s\S]*?)\n```/.exec(section)?.[1];
    if (block === undefined) throw new Error('no example story in the section');
    const name = /^broken\/([\w-]+):/.exec(block)?.[1];
    const found = /^seed: (-?\d+) {2}path: ([\d:]+)$/m.exec(block);
    const workers = /workers: (\d+), seed/.exec(block)?.[1];
    const variant = CONCURRENT_BROKEN_VARIANTS.find((v) => v.name === name);
    if (variant === undefined || found === null || workers === undefined)
      throw new Error('the example story names no variant, seed, path or workers');
    const r = await runConcurrentCampaign({
      factory: variant.factory,
      workers: Number(workers),
      seed: Number(found[1]),
      path: found[2] as string,
    });
    expect(r.story).toBe(block);
  }, 60_000);
});

describe('runConcurrentCampaign: perturbations and more runs while time allows', () => {
  const ack = CONCURRENT_BROKEN_VARIANTS.find((v) => v.name === 'ack-checks-then-settles');

  it('reruns scenarios with perturbed send times, and replays a failure so found from its seed and path', async () => {
    if (ack === undefined) throw new Error('no ack-checks-then-settles in the catalogue');
    const passed = await runConcurrentCampaign({
      factory: lockedJobStoreFactory(),
      workers: 4,
      numRuns: 30,
      perturbations: 2,
      seed: 7,
    });
    expect(passed.verdict).toBe('passed');
    expect(passed.runs).toBe(30);
    expect(passed.histories).toBeGreaterThan(passed.runs);
    const found = await runConcurrentCampaign({
      factory: ack.factory,
      workers: 4,
      numRuns: 300,
      perturbations: 2,
      seed: SEED,
    });
    expect(found.verdict, `seed ${SEED}`).toBe('failed');
    const again = await runConcurrentCampaign({
      factory: ack.factory,
      workers: 4,
      perturbations: 2,
      seed: SEED,
      path: found.path ?? '',
      endOnFailure: true,
    });
    expect(again.verdict).toBe('failed');
    expect(again.story).toBe(found.story);
  }, 60_000);

  it('runs more scenarios than asked while time allows, and exactly those asked without it', async () => {
    const exact = await runConcurrentCampaign({ factory: lockedJobStoreFactory(), workers: 2, numRuns: 5, seed: 3 });
    expect(exact.runs).toBe(5);
    const more = await runConcurrentCampaign({
      factory: lockedJobStoreFactory(),
      workers: 2,
      numRuns: 5,
      moreRunsWithinMs: 400,
      maxRuns: 200,
      seed: 3,
    });
    expect(more.verdict).toBe('passed');
    expect(more.runsPlanned).toBe(5);
    expect(more.runs).toBeGreaterThan(5);
    expect(more.runs).toBeLessThanOrEqual(200);
    const capped = await runConcurrentCampaign({
      factory: lockedJobStoreFactory(),
      workers: 2,
      numRuns: 5,
      moreRunsWithinMs: 60_000,
      maxRuns: 12,
      seed: 3,
    });
    expect(capped.runs).toBe(12);
  }, 60_000);
});
