/**
 * Concurrent campaigns: fast-check generates concurrent scenarios (generate.ts), each runs against
 * a fresh implementation with competing workers (run.ts), and each recorded history is checked
 * for linearizability against the job model (linearizability.ts, jobModel.ts). The first history
 * no order explains is shrunk by fast-check, and the failing run with the fewest requests that
 * shrinking went through (the latest of equals) is told as a story (story.ts), with its own path:
 * fast-check's order of values can take a step to a scenario with more requests.
 *
 * In-process adapters that accept await points (inProcess.ts, SchedulableFactory) run under
 * `fc.scheduler()`: the interleaving is chosen by the property's own randomness, so the seed and
 * path replay it exactly and shrinking keeps it. Other adapters (a process, a database) run with
 * real concurrency: their interleavings are what the operating system makes, so a failure found
 * there may need several runs to come back, and is reported unshrunk if it does not fail again.
 *
 * Verdicts (result.ts): `passed` (every history linearizable, some requests in flight together),
 * `failed` (the shrunk run, its witness, seed and path), and never a pass: `unknown` (the checker's
 * budget ran out on a history), `time_limit`, `not_exercised` (no two requests were ever in flight
 * together: sequential histories show no race; a fixed `scenario` asks its own question instead).
 */
import { CodedError } from '../../contract/CodedError.ts';
import fc from 'fast-check';
import type { Config } from '../../contract/index.ts';
import type { Model } from '../../model/step.ts';
import type { Budget } from '../budget.ts';
import type { ConcurrentFactory, ConcurrentAdapter } from './adapter.ts';
import { concurrentScenarioArb, requestCount, sendDelay } from './generate.ts';
import { MAX_CONCURRENT_RUNS } from './pathCheck.ts';
import type { ConcurrentScenario } from './generate.ts';
import type { CheckBudget, CheckOutcome } from './history.ts';
import { isSchedulable } from './inProcess.ts';
import type { PauseMaker } from './inProcess.ts';
import { jobModel } from './jobModel.ts';
import { restrictedScenarioArb } from './restriction.ts';
import type { ScenarioRestriction } from './restriction.ts';
import { checkLinearizability } from './linearizability.ts';
import { DEFAULT_REPLY_TIMEOUT_MS } from '../adapter.ts';
import { DEFAULT_HANG_GRACE_MS, bounded, closeBounded, runScenario } from './run.ts';
import type { ConcurrentRun, Settle } from './run.ts';
import { NO_OVERLAP, addOverlap, overlapOf } from './overlap.ts';
import type { Overlap } from './overlap.ts';
import { couldNotBeCreated } from './result.ts';
import type { ConcurrentCampaignResult, ConcurrentFailure, NotLinearizable } from './result.ts';
import { renderConcurrentStory } from './story.ts';

/** Stable codes of a concurrent campaign's usage errors. */
export type ConcurrentCampaignErrorCode = 'invalid_option';

/** A campaign option that is not one; the message names the option and the value. */
export class ConcurrentCampaignError extends CodedError<ConcurrentCampaignErrorCode> {
  override name = 'ConcurrentCampaignError' as const;
  constructor(message: string) {
    super('invalid_option', message);
  }
}

/** Options of a concurrent campaign. */
export interface ConcurrentCampaignOptions {
  /** Creates a fresh implementation for a config and a number of lanes. */
  readonly factory: ConcurrentFactory;
  /** A fixed config (default: random small ones). */
  readonly config?: Config;
  /** Most worker lanes of a scenario (1 to 64); shrinking may use fewer. */
  readonly workers: number;
  /** Scenarios to generate (default 100); with `moreRunsWithinMs`, the least. */
  readonly numRuns?: number;
  /**
   * More scenarios when time allows: past `numRuns`, new scenarios are run (up to `maxRuns`) while
   * the campaign has run less than this many ms (and its budget lasts). Default: exactly `numRuns`.
   */
  readonly moreRunsWithinMs?: number;
  /** Most scenarios with `moreRunsWithinMs` (default MAX_CONCURRENT_RUNS). */
  readonly maxRuns?: number;
  /**
   * Most send-time perturbations of a scenario (generate.ts, `sendDelay`): each scenario runs as
   * generated, then once more for each perturbation drawn with it, every request written after a
   * delay it chooses, each on a fresh implementation. Default 0.
   */
  readonly perturbations?: number;
  /** fast-check seed (default: random); reported so that a campaign can be repeated. */
  readonly seed?: number;
  /** fast-check path of a known failure, with its seed: replays that counterexample directly. */
  readonly path?: string;
  /** The campaign's time budget; when it runs out the verdict is `time_limit` unless a run failed. */
  readonly budget?: Budget;
  /** The checker's budget for each history (default: checkLinearizability's). */
  readonly checkBudget?: CheckBudget;
  /**
   * The reply timeout of the implementation in ms: one time budget per request, the `--timeout`
   * of the check (default DEFAULT_REPLY_TIMEOUT_MS, 5000). The runner waits as long as the adapter
   * does, so a reply that comes is checked, never dropped.
   */
  readonly timeoutMs?: number;
  /** How long a fresh implementation may take to be created (its `hello`), in ms (default twice `timeoutMs`, as documented). */
  readonly startTimeoutMs?: number;
  /** See RunOptions.hangGraceMs. */
  readonly hangGraceMs?: number;
  /** Most rounds per scenario (default 8). */
  readonly maxRounds?: number;
  /**
   * The model histories are checked against (default the reference model): a profile passes the
   * composition of its declared variants (model/variants.ts, `checkedModelOf(target).model`).
   */
  readonly model?: Model;
  /** What the scenarios avoid (restriction.ts), and which fields the comparison leaves out (default nothing). */
  readonly restriction?: ScenarioRestriction;
  /**
   * With `path`: stop at that counterexample if it fails again, without shrinking it further
   * (a replay). Default false: a failure found at `path` is shrunk as usual.
   */
  readonly endOnFailure?: boolean;
  /**
   * Given a history no order explains, whether to let it pass as excused rather than fail: a
   * profile's search for races excuses a history whose requests, sent one at a time in the closest
   * order, depart just the same (the rules of the profile show those). Excused runs are counted
   * (`excusedRuns`) and are never a failure to shrink. Default: nothing is excused.
   */
  readonly excuse?: (failure: NotLinearizable) => Promise<boolean>;
  /**
   * One fixed scenario (e.g. staleAckScenario) instead of generated ones: run once, as given (the
   * restriction applied), never shrunk; `numRuns` and `path` are then ignored.
   */
  readonly scenario?: ConcurrentScenario;
}

type Evaluation =
  | { readonly status: 'ok' }
  | { readonly status: 'excused' }
  | { readonly status: 'interrupted' }
  | { readonly status: 'enough' }
  | { readonly status: 'unknown'; readonly run: ConcurrentRun; readonly reason: 'max_steps' | 'timeout' | 'memory' }
  | { readonly status: 'failed'; readonly failure: ConcurrentFailure };

function validate(o: ConcurrentCampaignOptions): void {
  const bad = (name: string, value: unknown, rule: string): never => {
    throw new ConcurrentCampaignError(`${name}: ${rule} (got ${JSON.stringify(value) ?? String(value)})`);
  };
  if (!Number.isSafeInteger(o.workers) || o.workers < 1 || o.workers > 64)
    bad('workers', o.workers, 'must be an integer from 1 to 64');
  if (o.numRuns !== undefined && (!Number.isSafeInteger(o.numRuns) || o.numRuns < 0))
    bad('numRuns', o.numRuns, 'must be an integer >= 0');
  for (const [name, v] of [
    ['timeoutMs', o.timeoutMs],
    ['startTimeoutMs', o.startTimeoutMs],
  ] as const) {
    if (v !== undefined && !(typeof v === 'number' && v > 0 && Number.isFinite(v)))
      bad(name, v, 'must be a number > 0');
  }
  if (
    o.hangGraceMs !== undefined &&
    !(typeof o.hangGraceMs === 'number' && o.hangGraceMs >= 0 && Number.isFinite(o.hangGraceMs))
  ) {
    bad('hangGraceMs', o.hangGraceMs, 'must be a number >= 0');
  }
  for (const [name, v] of [
    ['maxRuns', o.maxRuns],
    ['perturbations', o.perturbations],
  ] as const) {
    if (v !== undefined && (!Number.isSafeInteger(v) || v < 0)) bad(name, v, 'must be an integer >= 0');
  }
  if (o.moreRunsWithinMs !== undefined && !(o.moreRunsWithinMs >= 0 && Number.isFinite(o.moreRunsWithinMs)))
    bad('moreRunsWithinMs', o.moreRunsWithinMs, 'must be a number >= 0');
  if (o.maxRounds !== undefined && (!Number.isSafeInteger(o.maxRounds) || o.maxRounds < 1))
    bad('maxRounds', o.maxRounds, 'must be an integer >= 1');
  if (o.seed !== undefined && !Number.isSafeInteger(o.seed)) bad('seed', o.seed, 'must be an integer');
  if (o.path !== undefined && !/^\d+(:\d+)*$/.test(o.path))
    bad('path', o.path, 'must be a fast-check path such as 12:0:3');
}

/** What a campaign's steps read: its options and the settings worked out from them once. */
interface Settings {
  readonly options: ConcurrentCampaignOptions;
  readonly started: number;
  readonly seed: number;
  readonly timeoutMs: number;
  readonly graceMs: number;
  /** How long a fresh implementation may take to be created, the factory's own timer firing first. */
  readonly startMs: number;
  readonly scheduled: boolean;
  readonly comparison: { readonly ignoreFields?: readonly string[] };
  /** Runs asked for (1 for a fixed scenario), and the path asked for (none for a fixed scenario). */
  readonly numRunsAsked: number;
  /** Most runs fast-check is asked for: `numRunsAsked`, or more when runs may be added while time allows. */
  readonly numRunsMost: number;
  readonly pathAsked: string | undefined;
}

/** What the runs found so far: counted over the generation phase (before the first failure), the last failure kept. */
interface Tally {
  adapterName: string;
  runs: number;
  /** Histories checked (a scenario and each of its perturbations), over the generation phase. */
  histories: number;
  failedOnce: boolean;
  interrupted: boolean;
  unknownRuns: number;
  excusedRuns: number;
  firstUnknown: ConcurrentCampaignResult['firstUnknown'];
  lastFailure: ConcurrentFailure | null;
  /** Failing runs so far: the first, then one for each shrinking step fast-check took (a path segment each). */
  failures: number;
  /** The failing run with the fewest requests (the latest of equals), and its place among them. */
  smallest: { readonly failure: ConcurrentFailure; readonly index: number; readonly requests: number } | null;
  firstFailureRequests: number | null;
  /** When the first failing run ended, in ms from the campaign's start (null: none failed). */
  firstFailureMs: number | null;
  /** Requests in flight together over the generation phase's runs. */
  overlap: Overlap;
  /** Whether any store said it takes requests at once. */
  concurrentStore: boolean;
}

/**
 * Runs a concurrent campaign. Never throws for what the implementation does (a failure is the
 * `failed` verdict); throws ConcurrentCampaignError `invalid_option` for a bad option.
 */
export async function runConcurrentCampaign(options: ConcurrentCampaignOptions): Promise<ConcurrentCampaignResult> {
  validate(options);
  const settings = settingsOf(options);
  const tally: Tally = {
    adapterName: '(factory)',
    runs: 0,
    histories: 0,
    failedOnce: false,
    interrupted: false,
    unknownRuns: 0,
    excusedRuns: 0,
    firstUnknown: null,
    lastFailure: null,
    failures: 0,
    smallest: null,
    firstFailureRequests: null,
    firstFailureMs: null,
    overlap: NO_OVERLAP,
    concurrentStore: false,
  };
  const details = await search(settings, tally);
  return resultOf(settings, tally, details);
}

/** The settings of `options`, defaults filled in. Impure only for a seed not given. */
function settingsOf(options: ConcurrentCampaignOptions): Settings {
  const timeoutMs = options.timeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS;
  const graceMs = options.hangGraceMs ?? DEFAULT_HANG_GRACE_MS;
  const ignoreFields = options.restriction?.ignoreFields;
  const fixed = options.scenario !== undefined;
  const numRunsAsked = fixed ? 1 : (options.numRuns ?? 100);
  return {
    options,
    started: performance.now(),
    seed: options.seed ?? (Date.now() ^ (Math.random() * 0x100000000)) | 0,
    timeoutMs,
    graceMs,
    // A fresh implementation gets the documented hello limit, and the factory's own timer fires first.
    startMs: (options.startTimeoutMs ?? 2 * timeoutMs) + graceMs,
    scheduled: isSchedulable(options.factory),
    comparison: ignoreFields === undefined ? {} : { ignoreFields },
    numRunsAsked,
    numRunsMost:
      fixed || options.moreRunsWithinMs === undefined
        ? numRunsAsked
        : Math.max(numRunsAsked, options.maxRuns ?? MAX_CONCURRENT_RUNS),
    pathAsked: fixed ? undefined : options.path,
  };
}

/** Whether the campaign's budget has run out; asked again at each use (it runs out in between). */
const spent = (settings: Settings): boolean => settings.options.budget?.expired === true;

/** Generates, runs and shrinks the scenarios with fast-check; null when no time or no run was left for it. */
async function search(settings: Settings, tally: Tally): Promise<fc.RunDetails<unknown> | null> {
  const { options, seed, pathAsked } = settings;
  const restriction = options.restriction ?? {};
  const fixed = options.scenario;
  const arb = restrictedScenarioArb(
    fixed === undefined
      ? concurrentScenarioArb({
          workers: options.workers,
          ...(options.maxRounds === undefined ? {} : { maxRounds: options.maxRounds }),
          ...(options.config === undefined ? {} : { config: options.config }),
          ...(options.perturbations === undefined ? {} : { perturbations: options.perturbations }),
        })
      : fc.constant(fixed),
    restriction,
  );
  const predicate = (scenario: ConcurrentScenario, s: fc.Scheduler | null) => judged(settings, tally, scenario, s);
  const property = settings.scheduled
    ? fc.asyncProperty(arb, fc.scheduler(), (scenario, s) => predicate(scenario, s))
    : fc.asyncProperty(arb, (scenario) => predicate(scenario, null));
  const remaining = options.budget?.remainingMs() ?? Number.POSITIVE_INFINITY;
  if (!(remaining > 0 && (options.numRuns ?? 100) > 0)) {
    tally.interrupted = remaining <= 0;
    return null;
  }
  const details = await fc.check(property as fc.IAsyncProperty<unknown>, {
    numRuns: pathAsked === undefined ? settings.numRunsMost : 1,
    seed,
    ...(pathAsked === undefined ? {} : { path: pathAsked }),
    ...(pathAsked !== undefined && options.endOnFailure === true ? { endOnFailure: true } : {}),
    ...(Number.isFinite(remaining) ? { interruptAfterTimeLimit: Math.ceil(remaining) } : {}),
  });
  if (details.failed && tally.lastFailure === null && details.errorInstance !== null) throw details.errorInstance; // the engine itself failed
  return details;
}

/** The property's answer for one scenario, its outcome counted in `tally`. */
async function judged(
  settings: Settings,
  tally: Tally,
  scenario: ConcurrentScenario,
  s: fc.Scheduler | null,
): Promise<boolean> {
  // A failure to create the implementation came before its first request: a smaller scenario
  // would tell nothing more, and each one tried would create the implementation again (start
  // its processes, wait out its hello). The scenarios shrinking tries after it are skipped
  // (fast-check's precondition), so the failure is reported as it was found.
  if (couldNotBeCreated(tally.lastFailure)) fc.pre(false);
  if (!tally.failedOnce && enough(settings, tally)) return true; // not run: neither a pass nor counted
  let e: Evaluation = { status: 'ok' };
  // The scenario as generated, then once for each of its send-time perturbations, until one does not pass.
  for (const perturbation of [0, ...(scenario.perturbations ?? [])]) {
    // One request at a time makes every send time the same history: no rerun would tell more.
    if (perturbation !== 0 && !tally.concurrentStore) break;
    e = await evaluate(settings, tally, scenario, s, perturbation);
    if (!tally.failedOnce && e.status !== 'interrupted') tally.histories += 1;
    if (e.status !== 'ok' && e.status !== 'excused') break;
  }
  if (!tally.failedOnce && e.status !== 'interrupted') tally.runs += 1;
  switch (e.status) {
    case 'ok':
    case 'enough':
      return true;
    case 'excused':
      if (!tally.failedOnce) tally.excusedRuns += 1;
      return true;
    case 'interrupted':
      tally.interrupted = true;
      return true; // cut short: neither a pass nor a failure
    case 'unknown':
      if (!tally.failedOnce) {
        tally.unknownRuns += 1;
        tally.firstUnknown ??= { scenario, run: e.run, reason: e.reason };
      }
      return true; // undecided: not a failure to shrink, and counted so that it is never a pass
    case 'failed': {
      const requests = requestCount(scenario.rounds);
      if (!tally.failedOnce) {
        tally.firstFailureRequests = requests;
        tally.firstFailureMs = performance.now() - settings.started;
      }
      tally.failedOnce = true;
      // fast-check's final counterexample is the last value that failed, so this ends up holding it.
      tally.lastFailure = e.failure;
      if (tally.smallest === null || requests <= tally.smallest.requests)
        tally.smallest = { failure: e.failure, index: tally.failures, requests };
      tally.failures += 1;
      return false;
    }
  }
}

/**
 * Whether the campaign has run enough scenarios: the runs asked for, and, when more may be added
 * while time allows, its time is up.
 */
function enough(settings: Settings, tally: Tally): boolean {
  const within = settings.options.moreRunsWithinMs;
  if (within === undefined || tally.runs < settings.numRunsAsked) return false;
  return tally.runs >= settings.numRunsMost || performance.now() - settings.started >= within;
}

/**
 * The wait before request `id` is written in `perturbation` (sendDelay): the scheduler's await
 * points when it chooses the interleavings, else a timer of 2^(steps-1) ms; undefined for none.
 */
function delayOf(
  perturbation: number,
  s: fc.Scheduler | null,
): ((id: number) => Promise<void> | undefined) | undefined {
  if (perturbation === 0) return undefined;
  return (id) => {
    const steps = sendDelay(perturbation, id);
    if (steps === 0) return undefined;
    if (s === null) return new Promise<void>((resolve) => setTimeout(resolve, 2 ** (steps - 1)));
    let wait: Promise<void> = Promise.resolve();
    for (let i = 0; i < steps; i++) wait = wait.then(() => s.schedule(Promise.resolve(), `send #${id}`));
    return wait;
  };
}

/** Runs one scenario (with a send-time perturbation, 0 for none) on a fresh implementation and checks its history. */
async function evaluate(
  settings: Settings,
  tally: Tally,
  scenario: ConcurrentScenario,
  s: fc.Scheduler | null,
  perturbation: number,
): Promise<Evaluation> {
  if (spent(settings)) return { status: 'interrupted' };
  const { options, timeoutMs, graceMs } = settings;
  const budget = options.budget;
  const pause: PauseMaker | undefined = s === null ? undefined : (label) => s.schedule(Promise.resolve(), label);
  const settle: Settle | undefined = s === null ? undefined : (p) => s.waitFor(p);
  const factory = options.factory;
  const lanes = { workers: scenario.workers };
  const created = await bounded(
    pause !== undefined && isSchedulable(factory)
      ? factory.withPause(scenario.config, { ...lanes, pause })
      : factory(scenario.config, lanes),
    budget === undefined ? settings.startMs : budget.cap(settings.startMs),
  );
  if (!created.ok) {
    if (spent(settings)) return { status: 'interrupted' };
    const error = `the implementation could not be created: ${created.message}`;
    return { status: 'failed', failure: { kind: 'impl_error', scenario, run: null, witness: null, error } };
  }
  const adapter = created.value as ConcurrentAdapter;
  tally.adapterName = adapter.name;
  tally.concurrentStore ||= adapter.concurrent;
  let run: ConcurrentRun;
  const delay = delayOf(perturbation, s);
  try {
    run = await runScenario(scenario, adapter, {
      timeoutMs,
      hangGraceMs: graceMs,
      ...(delay === undefined ? {} : { delay, perturbation }),
      ...(settle === undefined ? {} : { settle }),
      ...(budget === undefined ? {} : { budget }),
    });
  } finally {
    await closeBounded(adapter, timeoutMs + graceMs);
  }
  if (run.interrupted) return { status: 'interrupted' };
  if (!tally.failedOnce) tally.overlap = addOverlap(tally.overlap, overlapOf(run.history, run.snapshotId));
  if (run.errors.length > 0 || run.snapshotMissing !== undefined) {
    // An adapter defect, or a final snapshot that never came (as in jobcheck/1, a divergence):
    // a history without its final state proves nothing, so it is never a pass.
    const missing = run.snapshotMissing === undefined ? [] : [run.snapshotMissing];
    const error = [...run.errors.map((e) => `request #${e.id}: ${e.message}`), ...missing].join('; ');
    return { status: 'failed', failure: { kind: 'impl_error', scenario, run, witness: null, error } };
  }
  return checkHistory(settings, scenario, run);
}

/** Checks a run's history for linearizability against the job model, within the checker's budget. */
async function checkHistory(settings: Settings, scenario: ConcurrentScenario, run: ConcurrentRun): Promise<Evaluation> {
  const { options } = settings;
  const budget = options.budget;
  const checkBudget: CheckBudget = {
    ...options.checkBudget,
    ...(budget === undefined
      ? {}
      : { timeoutMs: Math.min(options.checkBudget?.timeoutMs ?? Number.POSITIVE_INFINITY, budget.remainingMs()) }),
  };
  const outcome: CheckOutcome<unknown> = checkLinearizability(
    jobModel(scenario.config, options.model, settings.comparison),
    run.history,
    checkBudget,
  );
  switch (outcome.verdict) {
    case 'linearizable':
      return { status: 'ok' };
    case 'not_linearizable': {
      const failure: NotLinearizable = {
        kind: 'not_linearizable',
        scenario,
        run,
        witness: outcome.witness,
        error: null,
      };
      if (options.excuse !== undefined && (await options.excuse(failure))) return { status: 'excused' };
      return { status: 'failed', failure };
    }
    case 'unknown':
      if (spent(settings)) return { status: 'interrupted' };
      return { status: 'unknown', run, reason: outcome.reason };
  }
}

/**
 * The failing run to tell when fast-check reported a counterexample: the smallest of the failing
 * runs (Tally.smallest), with its path, the first segments of the counterexample's (the run's
 * index, or the path asked for, then one segment a shrinking step). Null for a fixed scenario, for
 * no counterexample, and when the segments do not count the failing runs (then the last is told).
 */
function toldFailure(
  settings: Settings,
  tally: Tally,
  details: fc.RunDetails<unknown> | null,
): { failure: ConcurrentFailure; path: string; shrinks: number } | null {
  const full = details?.failed === true ? details.counterexamplePath : null;
  if (settings.options.scenario !== undefined || full === null || full === undefined || tally.smallest === null)
    return null;
  const segments = full.split(':');
  const base = settings.pathAsked === undefined ? 1 : settings.pathAsked.split(':').length;
  if (segments.length !== base + tally.failures - 1) return null;
  const { failure, index } = tally.smallest;
  return { failure, path: segments.slice(0, base + index).join(':'), shrinks: index };
}

/** The campaign's result from what the runs found and what fast-check reported. */
function resultOf(settings: Settings, tally: Tally, details: fc.RunDetails<unknown> | null): ConcurrentCampaignResult {
  const { options, seed, comparison } = settings;
  const { overlap, unknownRuns, runs } = tally;
  const told = toldFailure(settings, tally, details);
  const failure = told?.failure ?? tally.lastFailure;
  const stoppedByTimeLimit = tally.interrupted || details?.interrupted === true;
  const common = {
    adapter: tally.adapterName,
    seed,
    workers: options.workers,
    runsPlanned: settings.pathAsked === undefined ? settings.numRunsAsked : 1,
    runs,
    histories: tally.histories,
    unknownRuns,
    excusedRuns: tally.excusedRuns,
    firstUnknown: tally.firstUnknown,
    stoppedByTimeLimit,
    firstFailureRequests: tally.firstFailureRequests,
    firstFailureMs: tally.firstFailureMs,
    overlap,
    durationMs: performance.now() - settings.started,
  };
  const fixed = options.scenario;
  if (failure !== null) {
    // A failure that did not fail again when replayed (real concurrency) keeps the path that found it.
    // A fixed scenario has no path: it is named, not drawn.
    const path =
      fixed !== undefined
        ? null
        : told !== null
          ? told.path
          : details?.failed === true && details.counterexamplePath !== null
            ? details.counterexamplePath
            : (options.path ?? null);
    const story = renderConcurrentStory(failure, {
      adapter: tally.adapterName,
      workers: options.workers,
      seed,
      path,
      ...(options.model === undefined ? {} : { model: options.model }),
      ...comparison,
    });
    return {
      ...common,
      verdict: 'failed',
      path,
      shrinks: told?.shrinks ?? details?.numShrinks ?? 0,
      failure,
      story,
      notExercised: null,
    };
  }
  // A fixed scenario asks its own question of the store (staleAck.ts: rounds one after another),
  // which no overlap is needed to answer; generated scenarios are there to make requests overlap.
  const idle = fixed === undefined && overlap.pairs === 0;
  const verdict = unknownRuns > 0 ? 'unknown' : stoppedByTimeLimit ? 'time_limit' : idle ? 'not_exercised' : 'passed';
  const notExercised = verdict === 'not_exercised' ? notExercisedWhy(overlap, runs, tally.concurrentStore) : null;
  return { ...common, verdict, path: null, shrinks: 0, failure: null, story: null, notExercised };
}

/** Why a campaign that ran `runs` runs never had two requests in flight together, in words. Pure. */
function notExercisedWhy(overlap: Overlap, runs: number, concurrentStore: boolean): string {
  if (overlap.requests === 0) return `no request was sent (${runs} runs)`;
  const sent = `${overlap.requests} request${overlap.requests === 1 ? '' : 's'} of ${runs} run${runs === 1 ? '' : 's'}`;
  return concurrentStore
    ? `no two of the ${sent} were in flight together`
    : `the implementation takes one request at a time (it did not say it accepts requests at once: docs/protocol.md, section 9), so none of the ${sent} was in flight with another`;
}
