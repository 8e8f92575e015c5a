/**
 * The whole check of one implementation, as data: the failure stories of model/fixtures replayed
 * against it, the path suite, and a random differential campaign, with merged coverage and, on
 * failure, the shortest story found. `jobcheck check` prints and writes this; tests call it
 * in-process.
 */
import type { Adapter, AdapterFactory } from '../conformance/adapter.ts';
import { isTimeLimit } from '../conformance/budget.ts';
import type { Budget } from '../conformance/budget.ts';
import { checkCampaignPlan } from '../conformance/campaign.ts';
import type { CampaignProgress, CampaignResult, CampaignShard } from '../conformance/campaign.ts';
import { checkConcurrentPath } from '../conformance/concurrent/pathCheck.ts';
import { runCheck as runEngineCheck } from '../conformance/check.ts';
import type { Coverage } from '../conformance/coverage.ts';
import type { PathSuiteResult } from '../conformance/pathSuite.ts';
import type { LockstepResult } from '../conformance/lockstep.ts';
import { inOrder } from '../conformance/parallel.ts';
import { CHECK_EXPLORATION, runExploration } from '../conformance/explore/index.ts';
import type { ExploreResult } from '../conformance/explore/index.ts';
import { mergeCoverage } from '../conformance/coverage.ts';
import type { RestartCounts } from '../conformance/protocol/index.ts';
import { runConcurrentCampaign } from '../conformance/concurrent/campaign.ts';
import type { ConcurrentCampaignResult } from '../conformance/concurrent/campaign.ts';
import type { ConcurrentFactory } from '../conformance/concurrent/adapter.ts';
import { requestCount } from '../conformance/concurrent/generate.ts';
import { loadFixtures, runFixture } from '../model/fixtures.ts';
import type { Fixture, FixtureDriver, FixtureResult } from '../model/fixtures.ts';

/** Where the check is: which phase, how far. */
export interface CheckProgress {
  readonly phase: 'fixtures' | 'paths' | 'campaign' | 'shrink' | 'explore' | 'concurrent';
  readonly done: number;
  readonly total: number;
}

/** The concurrent campaign of a check (`--workers`). */
export interface ConcurrentCheckOptions {
  readonly factory: ConcurrentFactory;
  /** Worker lanes (2 or more). */
  readonly workers: number;
  /** Scenarios to generate. */
  readonly runs: number;
  /** fast-check path of a known concurrent counterexample (with the check's seed): replays just that. */
  readonly path?: string;
  /** The reply timeout (`--timeout`): one time budget per request, as in every other phase (default 5000 ms). */
  readonly timeoutMs?: number;
}

/** Options of a check. */
export interface CheckOptions {
  readonly factory: AdapterFactory;
  /** Random runs of the campaign. */
  readonly runs: number;
  /** fast-check seed of the campaign. */
  readonly seed: number;
  /** Most commands per random run (default: the engine's). */
  readonly maxCommands?: number;
  /** fast-check path of a known counterexample (with its seed): the campaign replays just that. */
  readonly path?: string;
  readonly onProgress?: (progress: CheckProgress) => void;
  /** The check's time budget (`--time-limit`). */
  readonly budget?: Budget;
  /** Stores checked at once, each on its own implementation (default 1). */
  readonly parallel?: number;
  /**
   * The factory of the path suite's and the campaign's stores, when it differs from `factory`
   * (which the fixtures use): for a process target, one whose restarts carry the snapshot into
   * another process of the pool, reset by hello, instead of a newly started one. The fixtures'
   * restarts stay cold, so every check still sees an old process exit when its stdin closes and
   * a newly started one restore.
   */
  readonly warmFactory?: AdapterFactory;
  /** Restarts done so far by the target's adapters, when it counts them (a process target). */
  readonly restarts?: () => RestartCounts;
  /** Leave out the exploration phase (`--no-explore`). */
  readonly noExplore?: boolean;
  /**
   * The factory of the campaign's stores, when it differs from `warmFactory`: for a process
   * target, one that also crash-restarts an implementation whose hello reply says it is durable
   * (SIGKILL, a new process resuming the storage, no snapshot crossing).
   */
  readonly campaignFactory?: AdapterFactory;
  /**
   * Runs one of `count` parts of the check (`--shard i/n`): the campaign's runs of index `i - 1`
   * modulo `n`; the fixture stories, the path suite and the exploration run in shard 1 only, so
   * that the coverage of all shards adds up to that of one unsharded check.
   */
  readonly shard?: CampaignShard;
  /** Also run a concurrent campaign of competing workers, after the exploration (in shard 1 only). */
  readonly concurrent?: ConcurrentCheckOptions;
}

/** Where the time of a check went. Phases run one after the other; within each, runs may overlap. */
export interface CheckPhases {
  readonly fixturesMs: number;
  readonly pathsMs: number;
  /** The campaign's generation phase, up to the first failure (and the runs in flight then). */
  readonly campaignMs: number;
  readonly shrinkMs: number;
  /** The exploration of CHECK_EXPLORATION (conformance/explore/scope.ts). */
  readonly exploreMs: number;
  /** The concurrent campaign, shrinking included (0 when there was none). */
  readonly concurrentMs: number;
  /** Restarts over the whole check (a process target only): how many and their summed milliseconds. */
  readonly restarts: RestartCounts | null;
  /** Stores checked at once. */
  readonly parallel: number;
}

/** One fixture story replayed against the implementation. */
export interface FixtureOutcome {
  readonly fixture: Fixture;
  readonly result: FixtureResult;
  readonly durationMs: number;
}

/** The story shown for a failed check: the shortest failure found, from whichever phase. */
export interface CheckFailure {
  readonly source: 'campaign' | 'path' | 'fixture' | 'explore' | 'concurrent';
  /** The path's name, the fixture's name, or `random campaign`. */
  readonly name: string;
  /** Steps of the story. */
  readonly steps: number;
  /** The lockstep run (campaign and path failures), which can be written as an artifact. */
  readonly run?: LockstepResult;
  /** The fixture outcome (fixture failures). */
  readonly fixture?: FixtureOutcome;
  /** The story, when there is no run to tell it from (an exploration's divergence that did not repeat). */
  readonly story?: string;
  /** The concurrent campaign that failed (concurrent failures: its story is told from it). */
  readonly concurrent?: ConcurrentCampaignResult;
}

/** Everything a check found. */
export interface CheckReport {
  /**
   * `agree`: every phase ran in full and agreed; `diverge`: something diverged (the story is in
   * `failure`); `incomplete`: the time limit stopped the check first, and nothing that ran diverged.
   */
  readonly verdict: 'agree' | 'diverge' | 'incomplete';
  /** True when the time limit stopped some phase before it ran in full. */
  readonly stoppedByTimeLimit: boolean;
  /** The fixture stories that ran to the end. */
  readonly fixtures: readonly FixtureOutcome[];
  /** Names of the fixture stories the time limit kept from running to the end. */
  readonly fixturesNotRun: readonly string[];
  readonly paths: PathSuiteResult;
  /** Milliseconds each path took, in the order of `paths.outcomes`. */
  readonly pathMs: readonly number[];
  readonly campaign: CampaignResult;
  /** The small exhaustive exploration beside the path suite; null when left out or when the time limit came first. */
  readonly exploration: ExploreResult | null;
  /** True when the exploration was left out on purpose (`--no-explore`). */
  readonly explorationLeftOut: boolean;
  /** Path suite, campaign and exploration coverage, merged. */
  readonly coverage: Coverage;
  /** The shortest failure story, or null when everything agreed. */
  readonly failure: CheckFailure | null;
  readonly durationMs: number;
  readonly phases: CheckPhases;
  /** Milliseconds from the start of the check until the first divergence of any phase ended; null if none. */
  readonly firstDivergenceMs: number | null;
  /** The part of the check this was (`--shard`), or null for the whole check. */
  readonly shard: CampaignShard | null;
  /** The concurrent campaign (`--workers`), or null when there was none. */
  readonly concurrent: ConcurrentCampaignResult | null;
  /**
   * Why an `incomplete` check is not a pass when the time limit is not the reason: a path given to
   * replay a counterexample (`--path`, `--concurrent-path`) named runs that all agreed, so the
   * campaign it stands for did not run and nothing was established. Null otherwise.
   */
  readonly notAPass: string | null;
}

/**
 * A FixtureDriver over an Adapter. The Adapter interface has no "restore from this object"
 * (across a process boundary nothing can alias the caller's object anyway), so `restoreFrom` is a
 * real restart from the store's own snapshot, which the fixture runner hands over unchanged.
 */
function fixtureDriver(adapter: Adapter): FixtureDriver {
  return {
    execute: (command) => adapter.execute(command),
    snapshot: () => adapter.snapshot(),
    restart: () => adapter.restart(),
    restoreFrom: () => adapter.restart(),
  };
}

/**
 * Replays one fixture against a fresh implementation; a factory that throws is a mismatch, never
 * an exception. Returns undefined when the time limit cut it short (it did not run to the end).
 */
async function checkFixture(fixture: Fixture, factory: AdapterFactory): Promise<FixtureOutcome | undefined> {
  const started = performance.now();
  let adapter: Adapter | undefined;
  let result: FixtureResult;
  try {
    adapter = await factory(fixture.config);
    result = await runFixture(fixture, fixtureDriver(adapter));
  } catch (error) {
    if (isTimeLimit(error)) return undefined;
    const message = error instanceof Error ? error.message : String(error);
    result = { ok: false, fixture: fixture.name, step: 'final', check: 'error', expected: 'a store', actual: message, message: `${fixture.name}: ${message}` };
  } finally {
    await adapter?.close().catch(() => undefined);
  }
  if (!result.ok && result.check === 'error' && isTimeLimit(result.error)) return undefined;
  return { fixture, result, durationMs: performance.now() - started };
}

/** The shortest of the failures found (campaign, paths, fixtures) with at least one step; ties go to the campaign, whose story is shrunk. Pure. */
function shortestFailure(
  fixtures: readonly FixtureOutcome[],
  paths: PathSuiteResult,
  campaign: CampaignResult,
  exploration: ExploreResult | null,
  concurrent: ConcurrentCampaignResult | null,
): CheckFailure | null {
  const candidates: CheckFailure[] = [];
  const racing = concurrent?.failure;
  if (concurrent !== null && racing !== undefined && racing !== null) {
    const requests = racing.run === null ? 0 : requestCount(racing.run.rounds);
    candidates.push({ source: 'concurrent', name: 'concurrent campaign', steps: requests, concurrent });
  }
  for (const c of exploration?.configs ?? []) {
    const x = c.counterexample;
    if (x === null) continue;
    const name = `exploration ${c.part}/${c.name}`;
    // A divergence that a second run of its steps did not show again is told, not replayed: its
    // run agrees, so an artifact of it would replay as a pass.
    if (x.run !== undefined && x.run.divergence !== null) candidates.push({ source: 'explore', name, steps: x.run.steps.length, run: x.run });
    else candidates.push({ source: 'explore', name, steps: x.path.length, story: x.story });
  }
  if (campaign.counterexample !== null) {
    candidates.push({ source: 'campaign', name: 'random campaign', steps: campaign.counterexample.steps.length, run: campaign.counterexample });
  }
  for (const f of paths.failures) candidates.push({ source: 'path', name: f.path.name, steps: f.result.steps.length, run: f.result });
  for (const f of fixtures) {
    if (!f.result.ok) {
      const steps = f.result.step === 'final' ? f.fixture.steps.length : f.result.step;
      candidates.push({ source: 'fixture', name: f.fixture.name, steps, fixture: f });
    }
  }
  // A failure before the first step (a store that could not even be started) cannot be replayed
  // and shows less than any story with a step: it is shown only when it is the only kind found.
  // A story that did not repeat cannot be replayed either: it too is shown only when nothing else was found.
  const rank = (f: CheckFailure): number => (f.steps === 0 || f.story !== undefined ? Number.POSITIVE_INFINITY : f.steps);
  // A race is told only when no sequential story was found: one client's story is the simpler one.
  const sequential = candidates.filter((c) => c.source !== 'concurrent');
  if (sequential.length > 0 && candidates.length > sequential.length) candidates.splice(0, candidates.length, ...sequential);
  let best: CheckFailure | null = null;
  for (const c of candidates) if (best === null || rank(c) < rank(best)) best = c;
  return best;
}

/**
 * Runs fixtures, path suite and campaign against the implementation. Divergences are data; never
 * throws for them. Before any phase runs, throws ConformanceError `invalid_campaign` for a check
 * that would check nothing (a shard without runs) or `invalid_path` for a path that names nothing.
 */
export async function runCheck(options: CheckOptions): Promise<CheckReport> {
  // What the check will run is checked first, against what the seed generates: no phase has run yet.
  await checkCampaignPlan(options);
  const c = options.concurrent;
  if (c?.path !== undefined) {
    await checkConcurrentPath({ factory: c.factory, workers: c.workers, seed: options.seed, path: c.path });
  }
  const started = performance.now();
  const progress = options.onProgress ?? (() => undefined);
  // Fixtures, paths and exploration are not split: shard 1 runs them, the other shards only their runs.
  const restShard = options.shard !== undefined && options.shard.index > 1;
  const all = restShard ? [] : loadFixtures();
  const parallel = options.parallel ?? 1;
  let firstDivergenceMs: number | null = null;
  const diverged = (): void => {
    firstDivergenceMs ??= performance.now() - started;
  };
  let fixturesDone = 0;
  const ran = await inOrder(
    all.length,
    parallel,
    async (index) => {
      const fixture = all[index] as Fixture;
      const outcome = await checkFixture(fixture, options.factory);
      if (outcome !== undefined && !outcome.result.ok) diverged();
      fixturesDone += 1;
      progress({ phase: 'fixtures', done: fixturesDone, total: all.length });
      return outcome;
    },
    () => options.budget?.expired === true,
  );
  const fixtures = ran.filter((o): o is FixtureOutcome => o !== undefined);
  const fixturesNotRun = all.filter((_, i) => ran[i] === undefined).map((f) => f.name);
  const fixturesMs = performance.now() - started;
  const engine = await runEngineCheck({
    factory: options.warmFactory ?? options.factory,
    ...(options.campaignFactory === undefined ? {} : { campaignFactory: options.campaignFactory }),
    parallel,
    runs: options.runs,
    seed: options.seed,
    ...(options.maxCommands === undefined ? {} : { maxCommands: options.maxCommands }),
    ...(options.path === undefined ? {} : { path: options.path }),
    ...(options.budget === undefined ? {} : { budget: options.budget }),
    ...(options.shard === undefined ? {} : { shard: options.shard }),
    ...(restShard ? { paths: [] } : {}),
    // The campaign runs even after a failing path: its shrunk story is often the shortest.
    campaignAfterPathFailure: true,
    onPath: (done, total, outcome) => {
      if (outcome.result.divergence !== null) diverged();
      progress({ phase: 'paths', done, total });
    },
    onProgress: (p: CampaignProgress) =>
      progress(p.phase === 'generate' ? { phase: 'campaign', done: p.run, total: p.runs } : { phase: 'shrink', done: p.run, total: p.run }),
  });
  const campaign = engine.campaign;
  if (campaign === null) throw new Error('the engine skipped the campaign although it was asked to run it');
  // The campaign tells when its first failing run ended; phases run one after the other.
  if (campaign.firstFailureMs !== null) firstDivergenceMs ??= fixturesMs + engine.pathsMs + campaign.firstFailureMs;
  const explored = performance.now();
  const skipExploration = options.noExplore === true || restShard;
  const exploration =
    skipExploration || options.budget?.expired === true
      ? null
      : await runExploration({
          parts: CHECK_EXPLORATION,
          factory: options.warmFactory ?? options.factory,
          ...(options.budget === undefined ? {} : { budget: options.budget }),
          onProgress: (p) => progress({ phase: 'explore', done: p.states, total: 0 }),
        });
  // An invariant the model itself breaks is a defect of the specification, not of the implementation.
  const violation = exploration?.configs.find((c) => c.verdict === 'violation');
  if (violation !== undefined) throw new Error(`the model breaks an invariant in the exploration ${violation.part}/${violation.name}: ${violation.counterexample?.message ?? ''}`);
  if (exploration?.verdict === 'diverge') diverged();
  const exploreMs = performance.now() - explored;
  const racing = performance.now();
  const concurrent =
    options.concurrent === undefined || restShard || options.budget?.expired === true
      ? null
      : await runConcurrentCampaign({
          factory: options.concurrent.factory,
          workers: options.concurrent.workers,
          numRuns: options.concurrent.runs,
          seed: options.seed,
          ...(options.concurrent.path === undefined ? {} : { path: options.concurrent.path }),
          ...(options.concurrent.timeoutMs === undefined ? {} : { timeoutMs: options.concurrent.timeoutMs }),
          ...(options.budget === undefined ? {} : { budget: options.budget }),
        });
  if (concurrent?.verdict === 'failed') firstDivergenceMs ??= racing - started + concurrent.durationMs;
  progress({ phase: 'concurrent', done: concurrent?.runs ?? 0, total: concurrent?.runsPlanned ?? 0 });
  const concurrentMs = performance.now() - racing;
  const failure = shortestFailure(fixtures, engine.pathSuite, campaign, exploration, concurrent);
  const explorationComplete = skipExploration || (exploration !== null && exploration.verdict !== 'incomplete');
  // A concurrent campaign whose checker ran out of budget on some history (`unknown`) did not pass either.
  const concurrentComplete = options.concurrent === undefined || restShard || concurrent?.verdict === 'passed' || concurrent?.verdict === 'failed';
  const stoppedByTimeLimit =
    fixturesNotRun.length > 0 || engine.pathSuite.notRun.length > 0 || campaign.stoppedByTimeLimit || !explorationComplete || concurrent?.stoppedByTimeLimit === true || (options.concurrent !== undefined && !restShard && concurrent === null);
  // A replayed path stands in for a whole campaign: runs of it that all agree are not that campaign's pass.
  const replays = [
    options.path !== undefined && campaign.verdict === 'agree' ? `--path ${options.path}` : null,
    options.concurrent?.path !== undefined && concurrent?.verdict === 'passed' ? `--concurrent-path ${options.concurrent.path}` : null,
  ].filter((r): r is string => r !== null);
  const notAPass =
    replays.length === 0
      ? null
      : `the runs named by ${replays.join(' and ')} all agree, so the campaign they stand for did not run ` +
        '(a fixed bug, or a path that names another run); run without it for a full check';
  const complete =
    fixturesNotRun.length === 0 &&
    engine.pathSuite.notRun.length === 0 &&
    campaign.verdict !== 'incomplete' &&
    explorationComplete &&
    concurrentComplete &&
    notAPass === null;
  return {
    verdict: failure !== null ? 'diverge' : complete ? 'agree' : 'incomplete',
    notAPass: failure === null && !stoppedByTimeLimit ? notAPass : null,
    stoppedByTimeLimit,
    fixtures,
    fixturesNotRun,
    paths: engine.pathSuite,
    pathMs: engine.pathSuite.outcomes.map((o) => o.durationMs),
    campaign,
    exploration,
    explorationLeftOut: skipExploration,
    shard: options.shard ?? null,
    concurrent,
    coverage: exploration === null ? engine.coverage : mergeCoverage(engine.coverage, exploration.coverage),
    failure,
    durationMs: performance.now() - started,
    phases: {
      fixturesMs,
      pathsMs: engine.pathsMs,
      campaignMs: campaign.durationMs - campaign.shrinkMs,
      shrinkMs: campaign.shrinkMs,
      exploreMs,
      concurrentMs,
      restarts: options.restarts?.() ?? null,
      parallel,
    },
    firstDivergenceMs,
  };
}
