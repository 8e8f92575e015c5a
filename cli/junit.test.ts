/**
 * The JUnit file lists the same test cases whether the check is green or red: a case the check
 * did not reach is kept and marked skipped, with the reason, so that a CI system's history of a
 * test does not lose it on the run that matters.
 */
import { describe, expect, it } from 'vitest';
import { catalogueVariant } from '../conformance/broken/index.ts';
import { runCheck } from '../conformance/check/index.ts';
import type { CheckReport } from '../conformance/check/index.ts';
import { runConcurrentCampaign } from '../conformance/concurrent/campaign.ts';
import { CONCURRENT_BROKEN_VARIANTS } from '../conformance/broken/index.ts';
import { jobStoreFactory } from '../conformance/stores/jobStore.ts';
import { sequentialFactory } from '../conformance/concurrent/inProcess.ts';
import { REFUSAL_KINDS } from '../conformance/restore/index.ts';
import { checkJunit, notRunReason } from './junit.ts';
import type { CheckContext } from './output/index.ts';

const OPTIONS = { seed: 1, runs: 10 } as const;
const ctx: CheckContext = { target: 'x', flags: '--builtin', seed: OPTIONS.seed, runs: OPTIONS.runs };
const at = new Date('2025-01-31T12:00:00Z');

/** The `suite name` of every test case, in order. */
const caseNames = (xml: string): string[] =>
  [...xml.matchAll(/<testcase classname="([^"]*)" name="([^"]*)"/g)].map((m) => `${m[1]} ${m[2]}`);

const green = await runCheck({ factory: jobStoreFactory() }, OPTIONS);
const red = await runCheck({ factory: catalogueVariant('dead-job-blocks')!.factory }, OPTIONS);

describe('JUnit test cases', () => {
  it('are the same for a red run as for a green run of the same options', () => {
    expect(green.verdict).toBe('agree');
    expect(red.verdict).toBe('diverge');
    const names = caseNames(checkJunit(green, ctx, at));
    expect(names.length).toBeGreaterThan(50);
    expect(caseNames(checkJunit(red, ctx, at))).toEqual(names);
  });

  it('are the same for a red run stopped at its first divergence (failFast) as for a green run, the rest marked skipped', async () => {
    const stopped = await runCheck(
      { factory: catalogueVariant('dead-job-blocks')!.factory },
      { ...OPTIONS, failFast: true },
    );
    const xml = checkJunit(stopped, ctx, at);
    expect(caseNames(xml)).toEqual(caseNames(checkJunit(green, ctx, at)));
    expect(xml).toMatch(/<skipped message="not run: --fail-fast stopped the check at its first divergence"\/>/);
  });

  it('keep the cases a check stopped at its first divergence never reached, each marked skipped with the reason', () => {
    // A check that stopped after its first fixture: what --fail-fast leaves, however the phases record it.
    const stopped: CheckReport = {
      ...red,
      fixtures: red.fixtures.slice(0, 1),
      fixturesNotRun: [],
      paths: { ...red.paths, outcomes: [], notRun: [] },
      pathMs: [],
      exploration: null,
    };
    const xml = checkJunit(stopped, ctx, at);
    expect(caseNames(xml)).toEqual(caseNames(checkJunit(green, ctx, at)));
    const skipped = xml.match(/<skipped message="not run: the check stopped at a divergence first"\/>/g) ?? [];
    const expected = green.fixtures.length - 1 + green.paths.outcomes.length + (green.exploration?.configs.length ?? 0);
    expect(skipped).toHaveLength(expected);
    expect(xml).toMatch(new RegExp(`<testsuites [^>]*skipped="${expected}"`));
  });

  it('fail the concurrent campaign as not linearizable only for a history, else as the implementation failing', async () => {
    const messageOf = (xml: string): string | undefined =>
      /name="concurrent campaign"[^>]*>\s*<failure message="([^"]*)"/.exec(xml)?.[1];
    const uncreated = await runConcurrentCampaign({
      factory: () => Promise.reject(new Error('no store today')),
      workers: 2,
      numRuns: 5,
      seed: 3,
    });
    const variant = CONCURRENT_BROKEN_VARIANTS[0];
    if (variant === undefined) throw new Error('no concurrent broken variant');
    const race = await runConcurrentCampaign({ factory: variant.factory, workers: 4, numRuns: 2000, seed: 3 });
    const withWorkers = { ...ctx, workers: 2 };
    expect(messageOf(checkJunit({ ...green, concurrent: uncreated }, withWorkers, at))).toBe(
      'implementation failed: 1 run of 2 workers, seed 3: the implementation could not be created',
    );
    expect(messageOf(checkJunit({ ...green, concurrent: race }, withWorkers, at))).toMatch(
      /^not linearizable: \d+ runs? of 4 workers, seed 3: a history no order of the model explains/,
    );
  });

  it('hold one restore case for the valid snapshot and one per kind of refusal, failing the kinds a store gets wrong', async () => {
    const restoreCases = (xml: string): string[] => caseNames(xml).filter((n) => n.startsWith('jobcheck.restore '));
    const names = restoreCases(checkJunit(green, ctx, at));
    expect(names).toEqual([
      'jobcheck.restore restore: a valid snapshot, as it is',
      ...REFUSAL_KINDS.map((k) => `jobcheck.restore restore refuses: ${k}`),
    ]);
    const accepting = await runCheck(
      { factory: catalogueVariant('restore-accepts-anything')!.factory },
      {
        ...OPTIONS,
        noExplore: true,
      },
    );
    const xml = checkJunit(accepting, ctx, at);
    expect(restoreCases(xml)).toEqual(names);
    expect(xml).toMatch(
      new RegExp(`<testsuite name="jobcheck.restore" tests="${names.length}" failures="${REFUSAL_KINDS.length}"`),
    );
    expect(xml).toMatch(
      /name="restore refuses: tokens" time="[\d.]+">\n +<failure message="3 of 3 snapshots not refused as the model refuses them; first: jobs.b.token = 5" type="divergence">[^<]*took a snapshot the contract refuses/,
    );
  });

  it('skip the competing workers that never had two requests in flight, saying so, never pass them', async () => {
    const sequential = await runConcurrentCampaign({
      factory: sequentialFactory(jobStoreFactory()),
      workers: 4,
      numRuns: 5,
      seed: 3,
    });
    expect(sequential.verdict).toBe('not_exercised');
    const xml = checkJunit({ ...green, concurrent: sequential }, { ...ctx, workers: 4 }, at);
    expect(xml).toMatch(
      /name="concurrent campaign" time="[\d.]+">\n +<skipped message="not exercised: the implementation takes one request at a time/,
    );
  });

  it('keep the cases the time limit kept from running, marked skipped because of it', () => {
    const timedOut: CheckReport = { ...green, stoppedByTimeLimit: true, verdict: 'incomplete', exploration: null };
    const xml = checkJunit(timedOut, ctx, at);
    expect(caseNames(xml)).toEqual(caseNames(checkJunit(green, ctx, at)));
    expect(xml).toContain(
      'name="exploration one-job/basic" time="0.000">\n      <skipped message="not run: the time limit of the check was reached first"/>',
    );
  });

  it('says why a case did not run: the time limit first, then a divergence', () => {
    expect(notRunReason({ stoppedByTimeLimit: true, verdict: 'diverge' })).toMatch(/time limit/);
    expect(notRunReason({ stoppedByTimeLimit: false, verdict: 'diverge' })).toMatch(/divergence/);
  });
});
