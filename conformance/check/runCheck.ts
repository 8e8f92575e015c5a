/**
 * The whole check of one implementation, as data: what `jobcheck check` runs, and what a library
 * user gets from `runCheck`. In order: the fixture stories, the restore phase (conformance/restore/),
 * the path suite, a random campaign (run even after a failing path: its shrunk story is often the
 * shortest), a small exhaustive exploration, and competing workers when asked; then the verdict
 * merge (verdict.ts) and the shortest story (shortestFailure.ts). Each phase is told to
 * `onPhaseEnd` as it ends. The exploration spreads its states over `parallel` stores when they can
 * be reset in place (conformance/explore/differentialLanes.ts), with the one-store result all the
 * same. A shard after the first runs only its part of the campaign.
 *
 * Each sequential phase reaches the target's stores through a gate of its own (phaseGate.ts): a
 * reply timeout in a phase gives up that phase's later items at once instead of letting each wait
 * out its own timeout, and with `failFast` the first divergence closes every gate. What was given
 * up is reported as not run, with why (`stops`), never as the time limit and never as a pass.
 * Competing workers may run first, or alone (`concurrent.when`).
 */
import { checkCampaignPlan } from '../random/campaign.ts';
import { runConcurrentCampaign } from '../concurrent/campaign.ts';
import { checkConcurrentPath } from '../concurrent/pathCheck.ts';
import { mergeCoverage } from '../coverage/coverage.ts';
import { CHECK_EXPLORATION, runExploration } from '../explore/index.ts';
import type { ExploreResult } from '../explore/index.ts';
import type { ConcurrentCampaignResult } from '../concurrent/result.ts';
import { loadFixtures } from '../../model/fixtures.ts';
import { runRestorePhase } from '../restore/index.ts';
import type { RestorePhaseResult } from '../restore/index.ts';
import { CheckRun, planOf } from './checkRun.ts';
import type { CheckPlan } from './checkRun.ts';
import { runFixturePhase } from './fixturePhase.ts';
import type { FixturePhaseResult } from './fixturePhase.ts';
import { leftOutCampaign } from './leftOutCampaign.ts';
import type { CheckOptions } from './options.ts';
import { DEFAULT_CONCURRENT_PERTURBATIONS } from './options.ts';
import { runPathsAndCampaign } from './pathsAndCampaign.ts';
import type { PathsAndCampaign } from './pathsAndCampaign.ts';
import { PhaseGate } from './phaseGate.ts';
import { phaseStop, timedOutFixture, timedOutPath } from './phaseStop.ts';
import type { CheckReport } from './report.ts';
import { shortestFailure } from './shortestFailure.ts';
import type { CheckTarget } from './target.ts';
import { mergeVerdict } from './verdict.ts';
import { ConformanceError } from '../errors.ts';

/**
 * Checks the target against the model: fixtures, paths, campaign, exploration and (with
 * `options.concurrent`) competing workers, then merges the verdict. Divergences are data; never
 * throws for them. Before any phase runs, throws ConformanceError `invalid_campaign` for a check
 * that would check nothing (a shard without runs) or `invalid_path` for a path that names nothing.
 * Also throws `invalid_campaign` for competing workers alone (`concurrent.when: 'only'`) in a shard after the first.
 * Throws Error if the model itself breaks an invariant in the exploration (a defect of the specification).
 */
export async function runCheck(target: CheckTarget, options: CheckOptions = {}): Promise<CheckReport> {
  const plan = planOf(target, options);
  await checkPlan(plan, options);
  options.onStart?.();
  const run = new CheckRun(target, options, plan);
  const first = plan.when === 'first' || plan.when === 'only' ? await concurrentPhase(run) : null;
  const fixtures = await fixturePhase(run);
  const restore = await restorePhase(run);
  const middle = await pathsAndCampaignPhase(run);
  const exploration = await explorePhase(run);
  const concurrent = plan.when === 'last' ? await concurrentPhase(run) : first;
  if (concurrent?.result == null) noConcurrent(run);
  return reportOf(run, { fixtures, restore, middle, exploration, concurrent });
}

/**
 * Checks what the check will run against what the seed generates, before any phase: the campaign's
 * plan (checkCampaignPlan), competing workers alone in a shard that does not run them, and the
 * concurrent path. Throws ConformanceError `invalid_campaign` or `invalid_path`.
 */
async function checkPlan(plan: CheckPlan, options: CheckOptions): Promise<void> {
  const { seed, when, concurrentFactory } = plan;
  const what = options.names?.path;
  await checkCampaignPlan({ ...options, seed, ...(what === undefined ? {} : { what }) });
  // Competing workers alone, in a shard that does not run them, would check nothing and call that a pass.
  if (when === 'only' && options.shard !== undefined && options.shard.index > 1)
    throw new ConformanceError(
      'invalid_campaign',
      `competing workers alone (concurrent.when "only") run in shard 1 only: shard ${options.shard.index}/${options.shard.count} would check nothing`,
    );
  const c = options.concurrent;
  if (c?.path === undefined || concurrentFactory === undefined) return;
  const named = options.names?.concurrentPath;
  await checkConcurrentPath({
    factory: concurrentFactory,
    workers: c.workers,
    seed,
    path: c.path,
    perturbations: c.perturbations ?? DEFAULT_CONCURRENT_PERTURBATIONS,
    ...(named === undefined ? {} : { what: named }),
  });
}

/** A phase's outcome and its milliseconds. */
interface Timed<T> {
  readonly result: T;
  readonly ms: number;
}

/** Competing workers, when asked and this part of the check runs them; null when it does not. */
async function concurrentPhase(run: CheckRun): Promise<Timed<ConcurrentCampaignResult | null> | null> {
  const c = run.options.concurrent;
  const factory = run.plan.concurrentFactory;
  if (c === undefined || factory === undefined || run.restShard || run.expired) return null;
  if (run.failFastStops()) {
    run.stops.push(phaseStop('concurrent', 'fail_fast'));
    return null;
  }
  const racing = performance.now();
  // Competing workers are not given up on a timeout (their lanes report it as an indefinite outcome).
  run.phaseStart(new PhaseGate());
  const budget = run.budget;
  const concurrent = await runConcurrentCampaign({
    factory,
    workers: c.workers,
    numRuns: c.runs,
    ...(c.moreRunsWithinMs === undefined ? {} : { moreRunsWithinMs: c.moreRunsWithinMs }),
    perturbations: c.perturbations ?? DEFAULT_CONCURRENT_PERTURBATIONS,
    seed: run.seed,
    ...(c.path === undefined ? {} : { path: c.path }),
    ...(c.timeoutMs === undefined ? {} : { timeoutMs: c.timeoutMs }),
    ...(budget === undefined ? {} : { budget }),
  });
  if (concurrent.verdict === 'failed') run.diverged(racing - run.started + concurrent.durationMs);
  run.progress({ phase: 'concurrent', done: concurrent.runs, total: concurrent.runsPlanned });
  const ms = performance.now() - racing;
  run.ended({ phase: 'concurrent', concurrent, ms, leftOut: null });
  return { result: concurrent, ms };
}

/** Competing workers that did not run: progress says so, and their end is told when they were asked. */
function noConcurrent(run: CheckRun): void {
  run.progress({ phase: 'concurrent', done: 0, total: 0 });
  if (run.options.concurrent !== undefined && !run.restShard)
    run.ended({ phase: 'concurrent', concurrent: null, ms: 0, leftOut: null });
}

/** The fixture stories (none in a shard after the first or with competing workers alone). */
async function fixturePhase(run: CheckRun): Promise<Timed<FixturePhaseResult>> {
  const start = performance.now();
  const all = run.restShard || !run.sequential ? [] : loadFixtures();
  const gate = run.gate();
  run.phaseStart(gate);
  const fixtures = await runFixturePhase(all, gate.factory(run.target.factory), {
    parallel: run.parallel,
    budget: run.budget,
    onOutcome: (outcome, done) => {
      if (outcome !== undefined && !outcome.result.ok) run.diverged();
      run.progress({ phase: 'fixtures', done, total: all.length });
    },
  });
  if (gate.closed !== null && fixtures.notRun.length > 0)
    run.stops.push(phaseStop('fixtures', gate.closed, timedOutFixture(fixtures.outcomes)));
  const ms = performance.now() - start;
  run.ended({ phase: 'fixtures', fixtures, ms, leftOut: run.sequentialOut });
  return { result: fixtures, ms };
}

/** The restore phase: one store, offered every invalid snapshot (conformance/restore/). */
async function restorePhase(run: CheckRun): Promise<Timed<RestorePhaseResult | null> & { skipped: boolean }> {
  const start = performance.now();
  const leftOut = run.options.noRestore === true;
  const skipped = leftOut || run.restShard || !run.sequential;
  let restore: RestorePhaseResult | null = null;
  if (!skipped && !run.expired) {
    if (run.failFastStops()) run.stops.push(phaseStop('restore', 'fail_fast'));
    else {
      const gate = run.gate();
      run.phaseStart(gate);
      restore = await runRestorePhase(gate.factory(run.target.factory), {
        budget: run.budget,
        onCase: (done, total) => run.progress({ phase: 'restore', done, total }),
      });
      if (restore.verdict === 'diverge') run.diverged();
      if (gate.closed !== null && restore.notRun.length > 0) run.stops.push(phaseStop('restore', gate.closed));
    }
  }
  const ms = performance.now() - start;
  run.ended({ phase: 'restore', restore, ms, leftOut: run.sequentialOut ?? (leftOut ? 'option' : null) });
  return { result: restore, ms, skipped };
}

/** The path suite, then the campaign (left out with competing workers alone). */
async function pathsAndCampaignPhase(run: CheckRun): Promise<PathsAndCampaign> {
  const { options, seed, sequential } = run;
  const pathGate = run.gate();
  const campaignGate = run.gate();
  const start = performance.now();
  run.phaseStart(pathGate);
  const middle = await runPathsAndCampaign({
    pathFactory: pathGate.factory(run.warm),
    campaignFactory: sequential ? campaignGate.factory(run.target.campaignFactory ?? run.warm) : run.warm,
    seed,
    parallel: run.parallel,
    runs: options.runs,
    maxCommands: options.maxCommands,
    path: options.path,
    budget: run.budget,
    shard: options.shard,
    ...(run.restShard || !sequential ? { paths: [] } : {}),
    ...(sequential ? {} : { campaign: leftOutCampaign(seed) }),
    onCampaignStart: (paths, pathsMs) => {
      if (pathGate.closed !== null && paths.notRun.length > 0)
        run.stops.push(phaseStop('paths', pathGate.closed, timedOutPath(paths)));
      run.ended({ phase: 'paths', paths, ms: pathsMs, leftOut: run.sequentialOut });
      run.phaseStart(campaignGate);
    },
    onPath: (done, total, outcome) => {
      if (outcome.result.divergence !== null) run.diverged();
      run.progress({ phase: 'paths', done, total });
    },
    onCampaign: (p) =>
      run.progress(
        p.phase === 'generate'
          ? { phase: 'campaign', done: p.run, total: p.runs }
          : { phase: 'shrink', done: p.run, total: p.run },
      ),
  });
  const campaign = middle.campaign;
  if (campaignGate.closed !== null && campaign.stoppedByTimeLimit)
    run.stops.push(phaseStop('campaign', campaignGate.closed));
  run.ended({ phase: 'campaign', campaign, ms: campaign.durationMs, leftOut: sequential ? null : 'concurrent_only' });
  // The campaign tells when its first failing run ended; phases run one after the other.
  if (campaign.firstFailureMs !== null) run.diverged(start - run.started + middle.pathsMs + campaign.firstFailureMs);
  return middle;
}

/** The small exhaustive exploration, over as many stores at once as the other phases check. */
async function explorePhase(run: CheckRun): Promise<Timed<ExploreResult | null> & { skipped: boolean }> {
  const start = performance.now();
  const leftOut = run.options.noExplore === true;
  const skipped = leftOut || run.restShard || !run.sequential;
  let exploration: ExploreResult | null = null;
  if (!skipped && !run.expired) {
    if (run.failFastStops()) run.stops.push(phaseStop('explore', 'fail_fast'));
    else {
      const gate = run.gate();
      run.phaseStart(gate);
      const budget = run.budget;
      exploration = await runExploration({
        parts: CHECK_EXPLORATION,
        factory: gate.factory(run.warm),
        // A process target's stores are reset in place.
        lanes: run.parallel,
        ...(budget === undefined ? {} : { budget }),
        onProgress: (p) => run.progress({ phase: 'explore', done: p.states, total: 0 }),
      });
      if (gate.closed !== null && exploration.verdict === 'incomplete')
        run.stops.push(phaseStop('explore', gate.closed));
    }
  }
  // An invariant the model itself breaks is a defect of the specification, not of the implementation.
  const violation = exploration?.configs.find((x) => x.verdict === 'violation');
  if (violation !== undefined) {
    throw new Error(
      `the model breaks an invariant in the exploration ${violation.part}/${violation.name}: ${violation.counterexample?.message ?? ''}`,
    );
  }
  if (exploration?.verdict === 'diverge') run.diverged();
  const ms = performance.now() - start;
  run.ended({ phase: 'explore', exploration, ms, leftOut: run.sequentialOut ?? (leftOut ? 'option' : null) });
  return { result: exploration, ms, skipped };
}

/** What the phases found. */
interface PhaseResults {
  readonly fixtures: Timed<FixturePhaseResult>;
  readonly restore: Timed<RestorePhaseResult | null> & { skipped: boolean };
  readonly middle: PathsAndCampaign;
  readonly exploration: Timed<ExploreResult | null> & { skipped: boolean };
  readonly concurrent: Timed<ConcurrentCampaignResult | null> | null;
}

/** The report of the run: the shortest story, the merged verdict, every phase's outcome and time. */
function reportOf(run: CheckRun, found: PhaseResults): CheckReport {
  const { options, budget, stops } = run;
  const { middle } = found;
  const [fixtures, restore, exploration] = [found.fixtures.result, found.restore.result, found.exploration.result];
  const concurrent = found.concurrent?.result ?? null;
  const campaign = middle.campaign;
  const paths = middle.pathSuite;
  const failure = shortestFailure({ fixtures: fixtures.outcomes, paths, campaign, exploration, concurrent, restore });
  const merged = mergeVerdict({
    fixturesNotRun: fixtures.notRun.length,
    pathsNotRun: paths.notRun.length,
    campaign,
    exploration,
    explorationSkipped: found.exploration.skipped,
    restore,
    restoreSkipped: found.restore.skipped,
    concurrentAsked: options.concurrent !== undefined && !run.restShard,
    concurrent,
    path: options.path,
    concurrentPath: options.concurrent?.path,
    failure,
  });
  return {
    verdict: merged.verdict,
    notAPass: merged.notAPass,
    notExercised: merged.notExercised,
    // What a gate gave up is not the time limit's: only a budget that ran out stops a check by time.
    stoppedByTimeLimit: merged.stoppedByTimeLimit && (stops.length === 0 || budget?.expired === true),
    stoppedByFailFast: stops.some((s) => s.reason === 'fail_fast'),
    stops,
    fixtures: fixtures.outcomes,
    fixturesNotRun: fixtures.notRun,
    restore,
    restoreLeftOut: options.noRestore === true,
    paths,
    pathMs: paths.outcomes.map((o) => o.durationMs),
    campaign,
    exploration,
    explorationLeftOut: found.exploration.skipped,
    shard: options.shard ?? null,
    concurrent,
    concurrentWhen: run.plan.when,
    coverage: exploration === null ? middle.coverage : mergeCoverage(middle.coverage, exploration.coverage),
    failure,
    durationMs: performance.now() - run.started,
    phases: {
      fixturesMs: found.fixtures.ms,
      restoreMs: found.restore.ms,
      pathsMs: middle.pathsMs,
      campaignMs: campaign.durationMs - campaign.shrinkMs,
      shrinkMs: campaign.shrinkMs,
      exploreMs: found.exploration.ms,
      concurrentMs: found.concurrent?.ms ?? 0,
      restarts: run.target.restarts?.() ?? null,
      parallel: run.parallel,
    },
    firstDivergenceMs: run.firstDivergenceMs,
  };
}
