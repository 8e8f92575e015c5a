import { describe, expect, it } from 'vitest';
import { jobStoreFactory } from '../stores/jobStore.ts';
import { brokenVariant } from '../broken/index.ts';
import { lockedJobStoreFactory } from '../concurrent/inProcess.ts';
import { ConformanceError } from '../errors.ts';
import { assertCheck, renderCheckFailure, runCheck } from './index.ts';
import type { CheckProgress } from './index.ts';

const broken = (name: string) => {
  const v = brokenVariant(name);
  if (v === undefined) throw new Error(`no broken variant ${name}`);
  return v.factory;
};

describe('runCheck, the one check', () => {
  it('runs fixtures, paths, campaign, exploration and competing workers on one target, and agrees for impl/JobStore', async () => {
    const phases = new Set<CheckProgress['phase']>();
    const report = await runCheck(
      { factory: jobStoreFactory(), concurrentFactory: lockedJobStoreFactory() },
      { runs: 20, seed: 1, concurrent: { workers: 2, runs: 3 }, onProgress: (p) => phases.add(p.phase) },
    );
    expect(report.verdict).toBe('agree');
    expect(report.failure).toBeNull();
    expect(report.fixtures.length).toBeGreaterThan(0);
    expect(report.paths.outcomes.length).toBeGreaterThan(0);
    expect(report.campaign.runs).toBe(20);
    expect(report.exploration).not.toBeNull();
    expect(report.concurrent?.verdict).toBe('passed');
    expect([...phases]).toEqual(expect.arrayContaining(['fixtures', 'paths', 'campaign', 'explore', 'concurrent']));
  }, 120_000);

  it('tells the shortest failure of a broken store as a sequential divergence that replays', async () => {
    const report = await runCheck(
      { factory: broken('capacity-forgets-running') },
      { runs: 50, seed: 1, noExplore: true },
    );
    expect(report.verdict).toBe('diverge');
    const f = report.failure;
    expect(f?.kind === 'divergence' || f?.kind === 'fixture').toBe(true);
    if (f !== null) expect(renderCheckFailure(f)).not.toBe('');
  }, 120_000);

  it('leaves the exploration out when asked, and says so', async () => {
    const report = await runCheck({ factory: jobStoreFactory() }, { runs: 5, seed: 2, noExplore: true });
    expect(report.exploration).toBeNull();
    expect(report.explorationLeftOut).toBe(true);
    expect(report.verdict).toBe('agree');
  }, 60_000);
});

describe('assertCheck', () => {
  it('throws ConformanceError divergence, with the story, for a broken store', async () => {
    await expect(
      assertCheck({ factory: broken('retry-forgets-deadline') }, { runs: 50, seed: 1, noExplore: true }),
    ).rejects.toBeInstanceOf(ConformanceError);
  }, 120_000);

  it('returns the report of a check that agrees', async () => {
    const report = await assertCheck({ factory: jobStoreFactory() }, { runs: 5, seed: 3, noExplore: true });
    expect(report.verdict).toBe('agree');
  }, 60_000);
});
