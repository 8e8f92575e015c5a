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
import type { AdapterFactory } from '../adapter.ts';
import { checkCampaignPlan } from '../random/campaign.ts';
import { sequentialFactory } from '../concurrent/inProcess.ts';
import { runConcurrentCampaign } from '../concurrent/campaign.ts';
import { checkConcurrentPath } from '../concurrent/pathCheck.ts';
import { mergeCoverage } from '../coverage/coverage.ts';
import { CHECK_EXPLORATION, runExploration } from '../explore/index.ts';
import type { ExploreResult } from '../explore/index.ts';
import type { ConcurrentCampaignResult } from '../concurrent/result.ts';
import { loadFixtures } from '../../model/fixtures.ts';
import { runRestorePhase } from '../restore/index.ts';
import type { RestorePhaseResult } from '../restore/index.ts';
import { runFixturePhase } from './fixturePhase.ts';
import { leftOutCampaign } from './leftOutCampaign.ts';
import type { CheckOptions, CheckPhaseEnd, CheckProgress } from './options.ts';
import { runPathsAndCampaign } from './pathsAndCampaign.ts';
import { CheckBudget } from './checkBudget.ts';
import { PhaseGate } from './phaseGate.ts';
import { phaseStop, timedOutFixture, timedOutPath } from './phaseStop.ts';
import type { PhaseStop } from './phaseStop.ts';
import type { CheckReport } from './report.ts';
import { shortestFailure } from './shortestFailure.ts';
import type { CheckTarget } from './target.ts';
import { mergeVerdict } from './verdict.ts';
import { ConformanceError } from '../errors.ts';

/** A seed for a check that was given none. Impure: reads the clock and Math.random. */
const randomSeed = (): number => (Date.now() ^ (Math.random() * 0x100000000)) | 0;

/**
 * Checks the target against the model: fixtures, paths, campaign, exploration and (with
 * `options.concurrent`) competing workers, then merges the verdict. Divergences are data; never
 * throws for them. Before any phase runs, throws ConformanceError `invalid_campaign` for a check
 * that would check nothing (a shard without runs) or `invalid_path` for a path that names nothing.
 * Also throws `invalid_campaign` for competing workers alone (`concurrent.when: 'only'`) in a shard after the first.
 * Throws Error if the model itself breaks an invariant in the exploration (a defect of the specification).
 */
export async function runCheck(target: CheckTarget, options: CheckOptions = {}): Promise<CheckReport> {
  const seed = options.seed ?? randomSeed();
  const budget = options.budget;
  const warm: AdapterFactory = target.warmFactory ?? target.factory;
  const c = options.concurrent;
  const when = c === undefined ? null : (c.when ?? 'last');
  const concurrentFactory =
    c === undefined ? undefined : (target.concurrentFactory ?? sequentialFactory(target.factory));
  // What the check will run is checked first, against what the seed generates: no phase has run yet.
  await checkCampaignPlan({ ...options, seed });
  // Competing workers alone, in a shard that does not run them, would check nothing and call that a pass.
  if (when === 'only' && options.shard !== undefined && options.shard.index > 1)
    throw new ConformanceError(
      'invalid_campaign',
      `competing workers alone (concurrent.when "only") run in shard 1 only: shard ${options.shard.index}/${options.shard.count} would check nothing`,
    );
  if (c?.path !== undefined && concurrentFactory !== undefined) {
    await checkConcurrentPath({ factory: concurrentFactory, workers: c.workers, seed, path: c.path });
  }
  const started = performance.now();
  const progress = options.onProgress ?? ((_: CheckProgress) => undefined);
  const restShard = options.shard !== undefined && options.shard.index > 1;
  // With `when: 'only'` the sequential phases are left out, as a shard after the first leaves them out.
  const sequential = when !== 'only';
  const parallel = options.parallel ?? target.parallel ?? 1;
  const failFast = options.failFast === true;
  let firstDivergenceMs: number | null = null;
  let failed = false;
  const gates: PhaseGate[] = [];
  // A target whose waits listen to a CheckBudget has them cut when the phase under way gives up.
  const phaseStart = (g: PhaseGate): void => {
    if (budget instanceof CheckBudget) budget.startPhase(g);
  };
  const stops: PhaseStop[] = [];
  /** Tells onPhaseEnd that a phase ended, with the stop recorded for it, if any. */
  const ended = (end: CheckPhaseEnd extends infer E ? (E extends unknown ? Omit<E, 'stop'> : never) : never): void =>
    options.onPhaseEnd?.({ ...end, stop: stops.find((s) => s.phase === end.phase) } as CheckPhaseEnd);
  // Why this part of the check leaves the sequential phases out, if it does.
  const sequentialOut = restShard ? ('shard' as const) : !sequential ? ('concurrent_only' as const) : null;
  /** A gate for a phase; closed from the start when --fail-fast has already seen a divergence. */
  const gate = (): PhaseGate => {
    const g = new PhaseGate();
    if (failFast && failed) g.close('fail_fast');
    gates.push(g);
    return g;
  };
  const diverged = (atMs: number = performance.now() - started): void => {
    firstDivergenceMs ??= atMs;
    failed = true;
    if (failFast) for (const g of gates) g.close('fail_fast');
  };
  /** Whether --fail-fast keeps a phase from starting at all. */
  const failFastStops = (): boolean => failFast && failed;

  // Competing workers, when asked: before the sequential phases (`first`, `only`) or after them.
  let concurrent = null as ConcurrentCampaignResult | null;
  let concurrentMs = 0;
  const concurrentAsked = c !== undefined && !restShard;
  const runConcurrent = async (): Promise<void> => {
    if (c === undefined || concurrentFactory === undefined || restShard || budget?.expired === true) return;
    if (failFastStops()) {
      stops.push(phaseStop('concurrent', 'fail_fast'));
      return;
    }
    const racing = performance.now();
    // Competing workers are not given up on a timeout (their lanes report it as an indefinite outcome).
    phaseStart(new PhaseGate());
    concurrent = await runConcurrentCampaign({
      factory: concurrentFactory,
      workers: c.workers,
      numRuns: c.runs,
      seed,
      ...(c.path === undefined ? {} : { path: c.path }),
      ...(c.timeoutMs === undefined ? {} : { timeoutMs: c.timeoutMs }),
      ...(budget === undefined ? {} : { budget }),
    });
    if (concurrent.verdict === 'failed') diverged(racing - started + concurrent.durationMs);
    progress({ phase: 'concurrent', done: concurrent.runs, total: concurrent.runsPlanned });
    concurrentMs = performance.now() - racing;
    ended({ phase: 'concurrent', concurrent, ms: concurrentMs, leftOut: null });
  };
  if (when === 'first' || when === 'only') await runConcurrent();

  const fixtureStart = performance.now();
  const all = restShard || !sequential ? [] : loadFixtures();
  const fixtureGate = gate();
  phaseStart(fixtureGate);
  const fixtures = await runFixturePhase(all, fixtureGate.factory(target.factory), {
    parallel,
    budget,
    onOutcome: (outcome, done) => {
      if (outcome !== undefined && !outcome.result.ok) diverged();
      progress({ phase: 'fixtures', done, total: all.length });
    },
  });
  if (fixtureGate.closed !== null && fixtures.notRun.length > 0)
    stops.push(phaseStop('fixtures', fixtureGate.closed, timedOutFixture(fixtures.outcomes)));
  const fixturesMs = performance.now() - fixtureStart;
  ended({ phase: 'fixtures', fixtures, ms: fixturesMs, leftOut: sequentialOut });

  // The restore phase: one store, offered every invalid snapshot (conformance/restore/).
  const restoreStart = performance.now();
  const skipRestore = options.noRestore === true || restShard || !sequential;
  let restore: RestorePhaseResult | null = null;
  if (!skipRestore && budget?.expired !== true) {
    if (failFastStops()) stops.push(phaseStop('restore', 'fail_fast'));
    else {
      const restoreGate = gate();
      phaseStart(restoreGate);
      restore = await runRestorePhase(restoreGate.factory(target.factory), {
        budget,
        onCase: (done, total) => progress({ phase: 'restore', done, total }),
      });
      if (restore.verdict === 'diverge') diverged();
      if (restoreGate.closed !== null && restore.notRun.length > 0)
        stops.push(phaseStop('restore', restoreGate.closed));
    }
  }
  const restoreMs = performance.now() - restoreStart;
  ended({
    phase: 'restore',
    restore,
    ms: restoreMs,
    leftOut: sequentialOut ?? (options.noRestore === true ? 'option' : null),
  });

  const pathGate = gate();
  const campaignGate = gate();
  const middleStart = performance.now();
  phaseStart(pathGate);
  const middle = await runPathsAndCampaign({
    pathFactory: pathGate.factory(warm),
    campaignFactory: sequential ? campaignGate.factory(target.campaignFactory ?? warm) : warm,
    seed,
    parallel,
    runs: options.runs,
    maxCommands: options.maxCommands,
    path: options.path,
    budget,
    shard: options.shard,
    ...(restShard || !sequential ? { paths: [] } : {}),
    ...(sequential ? {} : { campaign: leftOutCampaign(seed) }),
    onCampaignStart: (paths, pathsMs) => {
      if (pathGate.closed !== null && paths.notRun.length > 0)
        stops.push(phaseStop('paths', pathGate.closed, timedOutPath(paths)));
      ended({ phase: 'paths', paths, ms: pathsMs, leftOut: sequentialOut });
      phaseStart(campaignGate);
    },
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
  if (campaignGate.closed !== null && campaign.stoppedByTimeLimit)
    stops.push(phaseStop('campaign', campaignGate.closed));
  ended({ phase: 'campaign', campaign, ms: campaign.durationMs, leftOut: sequential ? null : 'concurrent_only' });
  // The campaign tells when its first failing run ended; phases run one after the other.
  if (campaign.firstFailureMs !== null) diverged(middleStart - started + middle.pathsMs + campaign.firstFailureMs);

  const explored = performance.now();
  const skipExploration = options.noExplore === true || restShard || !sequential;
  let exploration: ExploreResult | null = null;
  if (!skipExploration && budget?.expired !== true) {
    if (failFastStops()) stops.push(phaseStop('explore', 'fail_fast'));
    else {
      const exploreGate = gate();
      phaseStart(exploreGate);
      exploration = await runExploration({
        parts: CHECK_EXPLORATION,
        factory: exploreGate.factory(warm),
        // As many stores at once as the other phases check (a process target's are reset in place).
        lanes: parallel,
        ...(budget === undefined ? {} : { budget }),
        onProgress: (p) => progress({ phase: 'explore', done: p.states, total: 0 }),
      });
      if (exploreGate.closed !== null && exploration.verdict === 'incomplete')
        stops.push(phaseStop('explore', exploreGate.closed));
    }
  }
  // An invariant the model itself breaks is a defect of the specification, not of the implementation.
  const violation = exploration?.configs.find((x) => x.verdict === 'violation');
  if (violation !== undefined) {
    throw new Error(
      `the model breaks an invariant in the exploration ${violation.part}/${violation.name}: ${violation.counterexample?.message ?? ''}`,
    );
  }
  if (exploration?.verdict === 'diverge') diverged();
  const exploreMs = performance.now() - explored;
  ended({
    phase: 'explore',
    exploration,
    ms: exploreMs,
    leftOut: sequentialOut ?? (options.noExplore === true ? 'option' : null),
  });

  if (when === 'last') await runConcurrent();
  if (concurrent === null) progress({ phase: 'concurrent', done: 0, total: 0 });
  if (concurrent === null && concurrentAsked) ended({ phase: 'concurrent', concurrent, ms: 0, leftOut: null });

  const failure = shortestFailure({
    fixtures: fixtures.outcomes,
    paths: middle.pathSuite,
    campaign,
    exploration,
    concurrent,
    restore,
  });
  const merged = mergeVerdict({
    fixturesNotRun: fixtures.notRun.length,
    pathsNotRun: middle.pathSuite.notRun.length,
    campaign,
    exploration,
    explorationSkipped: skipExploration,
    restore,
    restoreSkipped: skipRestore,
    concurrentAsked,
    concurrent,
    path: options.path,
    concurrentPath: c?.path,
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
    paths: middle.pathSuite,
    pathMs: middle.pathSuite.outcomes.map((o) => o.durationMs),
    campaign,
    exploration,
    explorationLeftOut: skipExploration,
    shard: options.shard ?? null,
    concurrent,
    concurrentWhen: when,
    coverage: exploration === null ? middle.coverage : mergeCoverage(middle.coverage, exploration.coverage),
    failure,
    durationMs: performance.now() - started,
    phases: {
      fixturesMs,
      restoreMs,
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
