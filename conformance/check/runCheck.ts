/**
 * The whole check of one implementation, as data: what `jobcheck check` runs, and what a library
 * user gets from `runCheck`. In order: the fixture stories of model/fixtures, the path suite, a
 * random differential campaign (run even after a failing path: its shrunk story is often the
 * shortest), a small exhaustive exploration, and competing workers when asked; then the verdict
 * merge (verdict.ts) and, on failure, the shortest story (shortestFailure.ts).
 *
 * The exploration spreads its states over as many stores as the other phases use (`parallel`),
 * when the target's stores can be reset in place (a program behind the protocol); its result is
 * the one-store exploration's all the same (conformance/explore/differentialLanes.ts).
 *
 * Fixtures, paths, exploration and competing workers are not split by a shard: shard 1 runs them,
 * the other shards only their part of the campaign.
 */
import type { AdapterFactory } from '../adapter.ts';
import { checkCampaignPlan } from '../random/campaign.ts';
import { sequentialFactory } from '../concurrent/inProcess.ts';
import { runConcurrentCampaign } from '../concurrent/campaign.ts';
import { checkConcurrentPath } from '../concurrent/pathCheck.ts';
import { mergeCoverage } from '../coverage/coverage.ts';
import { CHECK_EXPLORATION, runExploration } from '../explore/index.ts';
import { loadFixtures } from '../../model/fixtures.ts';
import { runFixturePhase } from './fixturePhase.ts';
import type { CheckOptions, CheckProgress } from './options.ts';
import { runPathsAndCampaign } from './pathsAndCampaign.ts';
import type { CheckReport } from './report.ts';
import { shortestFailure } from './shortestFailure.ts';
import type { CheckTarget } from './target.ts';
import { mergeVerdict } from './verdict.ts';

/** A seed for a check that was given none. Impure: reads the clock and Math.random. */
const randomSeed = (): number => (Date.now() ^ (Math.random() * 0x100000000)) | 0;

/**
 * Checks the target against the model: fixtures, paths, campaign, exploration and (with
 * `options.concurrent`) competing workers, then merges the verdict. Divergences are data; never
 * throws for them. Before any phase runs, throws ConformanceError `invalid_campaign` for a check
 * that would check nothing (a shard without runs) or `invalid_path` for a path that names nothing.
 * Throws Error if the model itself breaks an invariant in the exploration (a defect of the specification).
 */
export async function runCheck(target: CheckTarget, options: CheckOptions = {}): Promise<CheckReport> {
  const seed = options.seed ?? randomSeed();
  const budget = options.budget;
  const warm: AdapterFactory = target.warmFactory ?? target.factory;
  const c = options.concurrent;
  const concurrentFactory =
    c === undefined ? undefined : (target.concurrentFactory ?? sequentialFactory(target.factory));
  // What the check will run is checked first, against what the seed generates: no phase has run yet.
  await checkCampaignPlan({ ...options, seed });
  if (c?.path !== undefined && concurrentFactory !== undefined) {
    await checkConcurrentPath({ factory: concurrentFactory, workers: c.workers, seed, path: c.path });
  }
  const started = performance.now();
  const progress = options.onProgress ?? ((_: CheckProgress) => undefined);
  const restShard = options.shard !== undefined && options.shard.index > 1;
  const parallel = options.parallel ?? target.parallel ?? 1;
  let firstDivergenceMs: number | null = null;
  const diverged = (): void => {
    firstDivergenceMs ??= performance.now() - started;
  };

  const all = restShard ? [] : loadFixtures();
  const fixtures = await runFixturePhase(all, target.factory, {
    parallel,
    budget,
    onOutcome: (outcome, done) => {
      if (outcome !== undefined && !outcome.result.ok) diverged();
      progress({ phase: 'fixtures', done, total: all.length });
    },
  });
  const fixturesMs = performance.now() - started;

  const middle = await runPathsAndCampaign({
    pathFactory: warm,
    campaignFactory: target.campaignFactory ?? warm,
    seed,
    parallel,
    runs: options.runs,
    maxCommands: options.maxCommands,
    path: options.path,
    budget,
    shard: options.shard,
    ...(restShard ? { paths: [] } : {}),
    onPath: (done, total, outcome) => {
      if (outcome.result.divergence !== null) diverged();
      progress({ phase: 'paths', done, total });
    },
    onCampaign: (p) =>
      progress(
        p.phase === 'generate'
          ? { phase: 'campaign', done: p.run, total: p.runs }
          : { phase: 'shrink', done: p.run, total: p.run },
      ),
  });
  const campaign = middle.campaign;
  // The campaign tells when its first failing run ended; phases run one after the other.
  if (campaign.firstFailureMs !== null) firstDivergenceMs ??= fixturesMs + middle.pathsMs + campaign.firstFailureMs;

  const explored = performance.now();
  const skipExploration = options.noExplore === true || restShard;
  const exploration =
    skipExploration || budget?.expired === true
      ? null
      : await runExploration({
          parts: CHECK_EXPLORATION,
          factory: warm,
          // As many stores at once as the other phases check (a process target's are reset in place).
          lanes: parallel,
          ...(budget === undefined ? {} : { budget }),
          onProgress: (p) => progress({ phase: 'explore', done: p.states, total: 0 }),
        });
  // An invariant the model itself breaks is a defect of the specification, not of the implementation.
  const violation = exploration?.configs.find((x) => x.verdict === 'violation');
  if (violation !== undefined) {
    throw new Error(
      `the model breaks an invariant in the exploration ${violation.part}/${violation.name}: ${violation.counterexample?.message ?? ''}`,
    );
  }
  if (exploration?.verdict === 'diverge') diverged();
  const exploreMs = performance.now() - explored;

  const racing = performance.now();
  const concurrentAsked = c !== undefined && !restShard;
  const concurrent =
    c === undefined || concurrentFactory === undefined || restShard || budget?.expired === true
      ? null
      : await runConcurrentCampaign({
          factory: concurrentFactory,
          workers: c.workers,
          numRuns: c.runs,
          seed,
          ...(c.path === undefined ? {} : { path: c.path }),
          ...(c.timeoutMs === undefined ? {} : { timeoutMs: c.timeoutMs }),
          ...(budget === undefined ? {} : { budget }),
        });
  if (concurrent?.verdict === 'failed') firstDivergenceMs ??= racing - started + concurrent.durationMs;
  progress({ phase: 'concurrent', done: concurrent?.runs ?? 0, total: concurrent?.runsPlanned ?? 0 });
  const concurrentMs = performance.now() - racing;

  const failure = shortestFailure({
    fixtures: fixtures.outcomes,
    paths: middle.pathSuite,
    campaign,
    exploration,
    concurrent,
  });
  const merged = mergeVerdict({
    fixturesNotRun: fixtures.notRun.length,
    pathsNotRun: middle.pathSuite.notRun.length,
    campaign,
    exploration,
    explorationSkipped: skipExploration,
    concurrentAsked,
    concurrent,
    path: options.path,
    concurrentPath: c?.path,
    failure,
  });
  return {
    verdict: merged.verdict,
    notAPass: merged.notAPass,
    stoppedByTimeLimit: merged.stoppedByTimeLimit,
    fixtures: fixtures.outcomes,
    fixturesNotRun: fixtures.notRun,
    paths: middle.pathSuite,
    pathMs: middle.pathSuite.outcomes.map((o) => o.durationMs),
    campaign,
    exploration,
    explorationLeftOut: skipExploration,
    shard: options.shard ?? null,
    concurrent,
    coverage: exploration === null ? middle.coverage : mergeCoverage(middle.coverage, exploration.coverage),
    failure,
    durationMs: performance.now() - started,
    phases: {
      fixturesMs,
      pathsMs: middle.pathsMs,
      campaignMs: campaign.durationMs - campaign.shrinkMs,
      shrinkMs: campaign.shrinkMs,
      exploreMs,
      concurrentMs,
      restarts: target.restarts?.() ?? null,
      parallel,
    },
    firstDivergenceMs,
  };
}
