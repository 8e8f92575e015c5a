import { describe, expect, it } from 'vitest';
import { jobStoreFactory } from '../stores/jobStore.ts';
import { brokenVariant } from '../broken/index.ts';
import { lockedJobStoreFactory, sequentialFactory } from '../concurrent/inProcess.ts';
import { ConformanceError } from '../errors.ts';
import { assertCheck, renderCheckFailure, runCheck } from './index.ts';
import type { CheckPhaseEnd, CheckProgress } from './index.ts';

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
    expect(report.restore?.verdict).toBe('agree');
    expect(report.concurrent?.verdict).toBe('passed');
    expect(report.concurrent?.overlap.pairs).toBeGreaterThan(0);
    expect(report.notExercised).toEqual([]);
    expect([...phases]).toEqual(
      expect.arrayContaining(['fixtures', 'restore', 'paths', 'campaign', 'explore', 'concurrent']),
    );
  }, 120_000);

  it('calls competing workers that never had two requests in flight not exercised, and the check incomplete, not a pass', async () => {
    const report = await runCheck(
      { factory: jobStoreFactory(), concurrentFactory: sequentialFactory(jobStoreFactory()) },
      { runs: 10, seed: 1, noExplore: true, concurrent: { workers: 4, runs: 10 } },
    );
    expect(report.concurrent?.verdict).toBe('not_exercised');
    expect(report.verdict).toBe('incomplete');
    expect(report.stoppedByTimeLimit).toBe(false);
    expect(report.failure).toBeNull();
    expect(report.notExercised).toEqual([{ phase: 'concurrent', reason: report.concurrent?.notExercised }]);
    expect(report.notAPass).toMatch(
      /^the competing workers exercised nothing: the implementation takes one request at a time/,
    );
  }, 60_000);

  it('calls a restore phase whose stores cannot be offered a snapshot not exercised, unless it is left out', async () => {
    const bare = async (config: Parameters<ReturnType<typeof jobStoreFactory>>[0]) => {
      const a = await jobStoreFactory()(config);
      return {
        name: 'bare',
        execute: a.execute.bind(a),
        snapshot: a.snapshot.bind(a),
        restart: a.restart.bind(a),
        close: a.close.bind(a),
      };
    };
    const report = await runCheck({ factory: bare }, { runs: 5, seed: 1, noExplore: true });
    expect(report.restore?.verdict).toBe('not_exercised');
    expect(report.verdict).toBe('incomplete');
    expect(report.notExercised.map((n) => n.phase)).toEqual(['restore']);
    const left = await runCheck({ factory: bare }, { runs: 5, seed: 1, noExplore: true, noRestore: true });
    expect(left.verdict).toBe('agree');
  }, 60_000);

  it('tells each phase as it ends, in the order of the summary, with what it ran', async () => {
    const ends: CheckPhaseEnd[] = [];
    const report = await runCheck(
      { factory: jobStoreFactory(), concurrentFactory: lockedJobStoreFactory() },
      {
        runs: 5,
        seed: 1,
        noExplore: true,
        concurrent: { workers: 2, runs: 2, when: 'first' },
        onPhaseEnd: (e) => ends.push(e),
      },
    );
    expect(ends.map((e) => e.phase)).toEqual(['concurrent', 'fixtures', 'restore', 'paths', 'campaign', 'explore']);
    expect(ends.find((e) => e.phase === 'explore')?.leftOut).toBe('option');
    const campaign = ends.find((e) => e.phase === 'campaign');
    expect(campaign?.phase === 'campaign' && campaign.campaign).toBe(report.campaign);
  }, 60_000);

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
