/**
 * Random differential campaigns: fast-check generates scenarios (a config and a sequence of
 * symbolic commands), each is run in lockstep against the model, and the first failing scenario
 * is shrunk to a minimal one. The result is data: a verdict, the shrunk run, the seed and
 * fast-check path that reproduce it, and the coverage of the generated (unshrunk) runs.
 */
import fc from 'fast-check';
import type { Config } from '../../contract/index.ts';
import type { AdapterFactory } from '../adapter.ts';
import type { Budget } from '../budget.ts';
import { scenarioArb } from './arbitraries.ts';
import type { Scenario } from './arbitraries.ts';
import { CoverageRecorder } from '../coverage/coverage.ts';
import type { Coverage } from '../coverage/coverage.ts';
import { ConformanceError } from '../errors.ts';
import { runLockstep } from '../lockstep/index.ts';
import type { LockstepResult } from '../lockstep/index.ts';
import { inOrder } from '../parallel.ts';
import { renderStory } from '../lockstep/story.ts';

/** Progress of a campaign, reported after every run. */
export interface CampaignProgress {
  /** `generate` while searching, `shrink` once a failure is being minimised. */
  readonly phase: 'generate' | 'shrink';
  /** Runs done in this phase. */
  readonly run: number;
  /** Runs planned (generation phase). */
  readonly runs: number;
  /** Commands checked so far, all phases. */
  readonly commands: number;
}

/** Options of a campaign. */
export interface CampaignOptions {
  /** Creates a fresh implementation for a config. */
  readonly factory: AdapterFactory;
  /** Number of random scenarios (default 100). */
  readonly runs?: number;
  /** fast-check seed (default: random); reported in the result so a run can be repeated. */
  readonly seed?: number;
  /** fast-check path of a known failure, with its seed: replays that counterexample directly. */
  readonly path?: string;
  /** Most commands per scenario (default 40). */
  readonly maxCommands?: number;
  /** Fixed configs to draw from instead of random small ones. */
  readonly configs?: readonly Config[];
  /**
   * The check's time budget. Once it is spent no new scenario starts and a running one stops where
   * it is; the campaign then reports `stoppedByTimeLimit` (verdict `incomplete` unless it had
   * already diverged), never `agree`.
   */
  readonly budget?: Budget;
  /** Called after every run. */
  readonly onProgress?: (progress: CampaignProgress) => void;
  /**
   * Runs in flight at once, each on its own implementation (default 1). The outcome does not
   * depend on it: the failure reported is the one of lowest index, shrunk as a sequential run
   * would shrink it.
   */
  readonly parallel?: number;
  /**
   * Runs only one part of the campaign: the runs whose index is `index - 1` modulo `count` (`index`
   * from 1 to `count`). The runs are generated from the seed by index, so the parts of one seed are
   * disjoint, together are the whole campaign, and a failure's path names its run by its index in
   * the whole campaign: `{ seed, path }` repeats it without the shard.
   */
  readonly shard?: CampaignShard;
}

/** One of `count` disjoint parts of a campaign, `index` from 1 to `count`. */
export interface CampaignShard {
  readonly index: number;
  readonly count: number;
}

/**
 * Most runs a campaign plans (`--runs`). The runs are generated from the seed by index, so a
 * campaign of more runs than this would take hours and a path naming a run beyond it would make
 * fast-check skip that many values synchronously, deaf to the time limit and to signals.
 */
export const MAX_RUNS = 100_000;
/** Most commands per random run (`--max-commands`): every step keeps the model's snapshot, so a run's memory grows with its square. */
export const MAX_COMMANDS = 1000;
/**
 * Largest sum of the shrink steps of a path. Each step is the index of a value in one shrink
 * stream, and walking to it builds every value before it (tens of microseconds each for a run of
 * 1000 commands), synchronously: this bounds the walk to a second or two. A printed path's steps
 * sum to hundreds.
 */
export const MAX_SHRINK_STEP = 100_000;
/** Most shrink steps in a path (a shrunk counterexample's path has tens). */
export const MAX_PATH_STEPS = 2000;

/** Quotes a value from outside for an error message, clipped. Pure. */
const quoted = (value: string): string => JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}...` : value);

/**
 * Reads a fast-check path (`12:0:3`: the run's index, then one index per shrink step), checking its
 * shape and bounds without generating anything: the run index below `runs`, the shrink steps
 * adding up to at most MAX_SHRINK_STEP, at most MAX_PATH_STEPS of them. Returns its numbers; throws
 * ConformanceError `invalid_path` naming the value. Pure.
 */
export function parsePath(path: string, runs: number, what = 'path'): number[] {
  const bad = (rule: string): never => {
    throw new ConformanceError('invalid_path', `${what} ${quoted(path)}: ${rule}`);
  };
  if (!/^\d+(:\d+)*$/.test(path)) bad('must be numbers separated by colons, such as 12:0:3');
  const parts = path.split(':');
  if (parts.length - 1 > MAX_PATH_STEPS) bad(`has ${parts.length - 1} shrink steps, more than ${MAX_PATH_STEPS}`);
  // Compared as text first: a number of 20 digits is no safe integer.
  const numbers = parts.map((p) => (p.length > 15 ? Number.POSITIVE_INFINITY : Number(p)));
  const index = numbers[0] as number;
  const campaign = runs === MAX_RUNS ? 'the largest campaign' : 'the campaign';
  if (index >= runs)
    bad(`names run ${parts[0] as string}, beyond the ${runs} runs of ${campaign} (run indexes start at 0)`);
  const walk = numbers.slice(1).reduce((sum, n) => sum + n, 0);
  if (walk > MAX_SHRINK_STEP) bad(`its shrink steps add up to more than ${MAX_SHRINK_STEP}`);
  return numbers;
}

/**
 * True when `path` names a value of `arb` for `seed`: walks the path as fast-check replays it
 * (the run's value, then a shrink stream per step) with a property that runs nothing. A path one
 * step too long, or a shrink step past the end of its stream, names nothing: fast-check would run
 * no value at all, and a check that runs nothing must not be told as a pass. Check the path with
 * parsePath first: the walk is as long as its numbers.
 */
export async function pathNamesValue<Ts>(
  property: (probe: () => Promise<boolean>) => fc.IAsyncProperty<Ts>,
  seed: number,
  path: string,
): Promise<boolean> {
  let seen = false;
  try {
    await fc.check(
      property(() => {
        seen = true;
        return Promise.resolve(true);
      }),
      { numRuns: 1, seed, path },
    );
  } catch {
    // fast-check throws "Unable to replay" for a step into a stream that has already ended.
    return false;
  }
  return seen;
}

/**
 * Checks a campaign's path against what its seed generates, before any run: bounded (parsePath)
 * and naming a scenario (pathNamesValue). Throws ConformanceError `invalid_path` naming the path.
 */
export async function checkCampaignPath(options: {
  readonly seed: number;
  readonly path: string;
  readonly maxCommands?: number;
  readonly runs?: number;
  /** What to call the path in an error (default `path`). */
  readonly what?: string;
}): Promise<void> {
  const what = options.what ?? 'path';
  parsePath(options.path, options.runs ?? MAX_RUNS, what);
  const arb = scenarioArb(options.maxCommands === undefined ? {} : { maxCommands: options.maxCommands });
  const named = await pathNamesValue((probe) => fc.asyncProperty(arb, () => probe()), options.seed, options.path);
  if (!named) {
    throw new ConformanceError(
      'invalid_path',
      `${what} ${quoted(options.path)} names no scenario of seed ${options.seed}${options.maxCommands === undefined ? '' : ` with at most ${options.maxCommands} commands`}: ` +
        'a shrink step goes past the end of its stream (was the path edited, or found with another seed or --max-commands?)',
    );
  }
}

/**
 * Checks, before any run, that a campaign would check something and fits its bounds: runs from 1 to
 * MAX_RUNS, maxCommands from 1 to MAX_COMMANDS, a shard that holds at least one run, and a path
 * that names a scenario of the seed (checkCampaignPath). Throws ConformanceError `invalid_campaign`
 * or `invalid_path`, naming the value. Bounded in time: no run, no implementation.
 */
export async function checkCampaignPlan(
  options: Pick<CampaignOptions, 'runs' | 'maxCommands' | 'shard' | 'path'> & {
    readonly seed: number;
    readonly what?: string;
  },
): Promise<void> {
  const bad = (rule: string): never => {
    throw new ConformanceError('invalid_campaign', rule);
  };
  const allRuns = options.runs ?? 100;
  if (!Number.isSafeInteger(allRuns) || allRuns < 1 || allRuns > MAX_RUNS) {
    bad(`runs must be a whole number from 1 to ${MAX_RUNS} (got ${allRuns})`);
  }
  const most = options.maxCommands;
  if (most !== undefined && !(Number.isSafeInteger(most) && most >= 1 && most <= MAX_COMMANDS)) {
    bad(`maxCommands must be a whole number from 1 to ${MAX_COMMANDS} (got ${most})`);
  }
  const shard = options.shard;
  // A shard that holds no run would check nothing, and say so as a pass.
  if (options.path === undefined && shard !== undefined && shardRuns(allRuns, shard) === 0) {
    bad(
      `shard ${shard.index}/${shard.count} of a campaign of ${allRuns} runs holds no run (shard i needs at least i runs)`,
    );
  }
  // A path that names nothing would run nothing.
  if (options.path !== undefined) {
    const named = {
      ...(most === undefined ? {} : { maxCommands: most }),
      ...(options.what === undefined ? {} : { what: options.what }),
    };
    await checkCampaignPath({ seed: options.seed, path: options.path, ...named });
  }
}

/** How many of `runs` runs fall to a shard (all of them without one). Pure. */
export function shardRuns(runs: number, shard?: CampaignShard): number {
  return shard === undefined ? runs : Math.max(0, Math.ceil((runs - (shard.index - 1)) / shard.count));
}

/** The outcome of a campaign. */
export interface CampaignResult {
  /**
   * `agree`: every planned scenario ran and none diverged; `diverge`: `counterexample` holds the
   * (shrunk) failing run; `incomplete`: the time limit stopped the campaign before all its
   * scenarios ran, and none of those that ran diverged.
   */
  readonly verdict: 'agree' | 'diverge' | 'incomplete';
  /** Scenarios planned (`runs` of the options; of a shard, its part of them). */
  readonly runsPlanned: number;
  /** True when the time limit stopped generation or shrinking early. */
  readonly stoppedByTimeLimit: boolean;
  /** The adapter's name. */
  readonly adapter: string;
  readonly seed: number;
  /** fast-check path of the shrunk counterexample (with `seed`, reproduces it); null when agreeing. */
  readonly path: string | null;
  /** Scenarios run to the end in the generation phase. */
  readonly runs: number;
  /** Shrinking steps that succeeded. */
  readonly shrinks: number;
  /** Commands checked, all phases: of the runs a sequential campaign runs, then of shrinking. */
  readonly commands: number;
  /**
   * Commands of parallel runs that were under way when a run of lower index failed: checked, but
   * not counted in `commands` or coverage, since how many there are depends on timing.
   */
  readonly commandsDiscarded: number;
  /** Commands of the generated runs up to and including the first failing one: what finding it cost. */
  readonly commandsToFirstFailure: number | null;
  /** Milliseconds from the start of the campaign until the first failing run ended. */
  readonly firstFailureMs: number | null;
  readonly durationMs: number;
  /** Milliseconds spent shrinking after the first failure. */
  readonly shrinkMs: number;
  /** The shrunk failing run with its divergence; null when agreeing. */
  readonly counterexample: LockstepResult | null;
  /** The first failing run as generated, before shrinking (its length shows what shrinking did). */
  readonly firstFailureLength: number | null;
  /** Coverage of the generated runs (shrinking runs are not counted). */
  readonly coverage: Coverage;
  /** The shrunk counterexample told as a story (renderStory with seed and path); null when agreeing. */
  readonly story: string | null;
}

/** The first failing run of the generation phase: its index in the whole campaign, its length, its result and when it ended. */
interface FirstFailure {
  readonly index: number;
  readonly length: number;
  readonly result: LockstepResult;
  readonly at: number;
}

/** A campaign under way: its settings, worked out once, and what its runs found so far. */
interface CampaignRun {
  readonly options: CampaignOptions;
  readonly seed: number;
  /** Runs of the whole campaign. */
  readonly allRuns: number;
  /** Runs this campaign (its shard, without a path) runs. */
  readonly runs: number;
  /** The campaign's index of this campaign's k-th run. */
  readonly indexOf: (k: number) => number;
  readonly arb: fc.Arbitrary<Scenario>;
  readonly recorder: CoverageRecorder;
  readonly started: number;
  adapter: string;
  /** Commands of the runs that count: those a sequential campaign would run, then shrinking's. */
  commands: number;
  /** Commands of parallel runs past the first failure, checked but not counted (they vary with timing). */
  discarded: number;
  /** Commands of every run started, for progress. */
  underway: number;
  interrupted: boolean;
  /** Runs of the generation phase folded in (counted and covered). */
  generated: number;
  firstFailure: FirstFailure | null;
  commandsToFirstFailure: number | null;
  shrinkRuns: number;
  replayedLength: number | null;
  lastFailure: LockstepResult | null;
}

/**
 * Runs a random differential campaign against the implementation made by `factory`. Never throws
 * for a divergence (it is the `diverge` verdict); rethrows only an error of the engine itself
 * (e.g. the model throwing), never one of the implementation (that is an `impl_error` divergence).
 * Throws ConformanceError `invalid_campaign` or `invalid_path` before any run for a campaign that
 * would check nothing or does not fit its bounds (checkCampaignPlan).
 */
export async function runCampaign(options: CampaignOptions): Promise<CampaignResult> {
  checkShard(options.shard);
  const seed = options.seed ?? (Date.now() ^ (Math.random() * 0x100000000)) | 0;
  await checkCampaignPlan({ ...options, seed });
  const run = campaignRunOf(options, seed);
  // 1. Generation, spread over parallel lanes; 2. shrinking (or the replay of a given path).
  if (options.path === undefined && run.runs > 0 && (options.budget?.remainingMs() ?? 1) > 0) await generate(run);
  const replayPath = options.path ?? (run.firstFailure === null ? undefined : String(run.firstFailure.index));
  const details = await shrinkOrReplay(run, replayPath);
  return resultOf(run, replayPath, details);
}

/** Throws RangeError for a shard that is not i/n with 1 <= i <= n. */
function checkShard(shard: CampaignShard | undefined): void {
  if (shard === undefined) return;
  const { index, count } = shard;
  if (Number.isSafeInteger(index) && Number.isSafeInteger(count) && index >= 1 && index <= count) return;
  throw new RangeError(`a shard is i/n with 1 <= i <= n (got ${index}/${count})`);
}

/** A campaign of `options` about to start. Pure but for the clock. */
function campaignRunOf(options: CampaignOptions, seed: number): CampaignRun {
  const shard = options.shard;
  const allRuns = options.runs ?? 100;
  const configs =
    options.configs === undefined || options.configs.length === 0 ? undefined : fc.constantFrom(...options.configs);
  const sharded = shard === undefined || options.path !== undefined ? '' : ` shard=${shard.index}/${shard.count}`;
  return {
    options,
    seed,
    allRuns,
    // Without a path, a shard runs its part of the campaign: its k-th run is the campaign's run indexOf(k).
    runs: options.path === undefined ? shardRuns(allRuns, shard) : allRuns,
    indexOf: (k) => (shard === undefined ? k : shard.index - 1 + k * shard.count),
    arb: scenarioArb({
      ...(options.maxCommands === undefined ? {} : { maxCommands: options.maxCommands }),
      ...(configs === undefined ? {} : { configs }),
    }),
    recorder: new CoverageRecorder(`campaign seed=${seed}${sharded}`),
    started: performance.now(),
    adapter: '(unknown)',
    commands: 0,
    discarded: 0,
    underway: 0,
    interrupted: false,
    generated: 0,
    firstFailure: null,
    commandsToFirstFailure: null,
    shrinkRuns: 0,
    replayedLength: null,
    lastFailure: null,
  };
}

/** Runs one scenario in lockstep; a run the time limit cut short is neither a pass nor a failure, and not counted as a run. */
async function lockstep(run: CampaignRun, scenario: Scenario): Promise<LockstepResult> {
  const budget = run.options.budget;
  const result = await runLockstep(
    scenario.config,
    scenario.commands,
    run.options.factory,
    budget === undefined ? {} : { budget },
  );
  if (result.adapter !== '(factory)') run.adapter = result.adapter;
  run.underway += result.steps.length;
  if (result.interrupted === true) {
    run.interrupted = true;
    run.commands += result.steps.length;
  }
  return result;
}

/**
 * The scenario of each index, generated as needed a window at a time: fast-check's values from
 * index i on are those of fc.sample with `path: "i"`, so only the window in use is kept, not every
 * scenario up to the last. A window holds about 40,000 commands; a shard whose runs lie far apart
 * takes them one by one.
 */
function windowedScenarios(run: CampaignRun): (index: number) => Scenario {
  const { options, arb, seed, allRuns } = run;
  const size = Math.max(1, Math.floor(40_000 / (options.maxCommands ?? 40)));
  const width = options.shard !== undefined && options.shard.count > 8 ? 1 : size;
  const windows = new Map<number, Scenario[]>();
  return (index) => {
    const start = index - (index % width);
    let window = windows.get(start);
    if (window === undefined) {
      window = fc.sample(arb, { numRuns: Math.min(width, allRuns - start), seed, path: String(start) });
      // The lanes in flight are close together: two windows cover them.
      if (windows.size >= 2) windows.delete(Math.min(...windows.keys()));
      windows.set(start, window);
    }
    return window[index - start] as Scenario;
  };
}

/** A generated run's outcome; undefined for one the time limit cut short. */
type Outcome = { readonly result: LockstepResult; readonly length: number; readonly at: number } | undefined;

/**
 * Counts and covers the run `i` if a sequential campaign would have run it (those before the first
 * failure, and it), in the order of the indexes; no run's steps are kept past that.
 */
function fold(run: CampaignRun, i: number, r: Outcome): void {
  if (r === undefined) return;
  if (run.generated < i || run.firstFailure !== null) {
    run.discarded += r.result.steps.length;
    return;
  }
  run.generated += 1;
  run.commands += r.result.steps.length;
  run.recorder.recordRun(r.result);
  if (r.result.divergence !== null) {
    run.firstFailure = { index: run.indexOf(i), length: r.length, result: r.result, at: r.at };
    run.commandsToFirstFailure = run.commands;
  }
}

/**
 * 1. Generation. fast-check's n-th generated value for a seed is the n-th of fc.sample with that
 * seed, and `path: "n"` replays it, so the runs are spread over parallel lanes and the first
 * failure (the one of lowest index, as a sequential fc.check would meet it) shrunk after.
 */
async function generate(run: CampaignRun): Promise<void> {
  const { options, runs } = run;
  const scenarioAt = windowedScenarios(run);
  const waiting = new Map<number, Outcome>();
  let folded = 0;
  let lowestFailure = Number.POSITIVE_INFINITY;
  let done = 0;
  await inOrder(
    runs,
    options.parallel ?? 1,
    async (index) => {
      const scenario = scenarioAt(run.indexOf(index));
      const result = await lockstep(run, scenario);
      let outcome: Outcome;
      if (result.interrupted !== true) {
        if (result.divergence !== null && index < lowestFailure) lowestFailure = index;
        done += 1;
        options.onProgress?.({ phase: 'generate', run: done, runs, commands: run.underway });
        outcome = { result, length: scenario.commands.length, at: performance.now() };
      }
      waiting.set(index, outcome);
      for (; waiting.has(folded); folded++) {
        fold(run, folded, waiting.get(folded));
        waiting.delete(folded);
      }
      return undefined;
    },
    (index) => index > lowestFailure || run.interrupted || options.budget?.expired === true,
  );
  // Runs past one that never started (the time limit) are folded last, as they are: discarded.
  for (const i of [...waiting.keys()].sort((a, b) => a - b)) fold(run, i, waiting.get(i));
}

/** 2. Shrinking (or the replay of a given path), sequential: each step depends on the last. Null when it did not run. */
async function shrinkOrReplay(
  run: CampaignRun,
  replayPath: string | undefined,
): Promise<fc.RunDetails<[Scenario]> | null> {
  const { options, seed } = run;
  const remaining = options.budget?.remainingMs() ?? Number.POSITIVE_INFINITY;
  if (replayPath === undefined || remaining <= 0) return null;
  const replaying = options.path !== undefined;
  const property = fc.asyncProperty(run.arb, async (scenario: Scenario) => {
    const result = await lockstep(run, scenario);
    if (result.interrupted === true) return true;
    run.commands += result.steps.length;
    if (replaying && run.shrinkRuns === 0 && run.lastFailure === null) {
      run.generated += 1;
      run.recorder.recordRun(result);
    } else run.shrinkRuns += 1;
    if (replaying && run.lastFailure === null && result.divergence !== null) {
      run.commandsToFirstFailure = result.steps.length;
      run.replayedLength = scenario.commands.length;
    }
    if (run.lastFailure !== null || !replaying)
      options.onProgress?.({ phase: 'shrink', run: run.shrinkRuns, runs: run.runs, commands: run.commands });
    // fast-check's final counterexample is the last value that failed, so this ends up holding it.
    if (result.divergence !== null) run.lastFailure = result;
    return result.divergence === null;
  });
  const details = await fc.check(property, {
    numRuns: 1,
    seed,
    path: replayPath,
    ...(Number.isFinite(remaining) ? { interruptAfterTimeLimit: Math.ceil(remaining) } : {}),
  });
  if (details.failed && run.lastFailure === null && details.errorInstance !== null) throw details.errorInstance; // the engine itself failed
  return details;
}

/** The campaign's result from what its runs found. */
function resultOf(
  run: CampaignRun,
  replayPath: string | undefined,
  details: fc.RunDetails<[Scenario]> | null,
): CampaignResult {
  const { options, seed, firstFailure, lastFailure, generated, runs } = run;
  const ended = performance.now();
  const budget = options.budget;
  const budgetOut = budget !== undefined && budget.remainingMs() <= 0;
  const cutShort =
    (firstFailure === null && options.path === undefined && generated < runs) ||
    (replayPath !== undefined && details === null);
  const stoppedByTimeLimit = run.interrupted || details?.interrupted === true || (budgetOut && cutShort);
  const common = {
    adapter: run.adapter,
    seed,
    runs: generated,
    runsPlanned: runs,
    stoppedByTimeLimit,
    commands: run.commands,
    commandsDiscarded: run.discarded,
    commandsToFirstFailure: run.commandsToFirstFailure,
    durationMs: ended - run.started,
    firstFailureMs:
      firstFailure === null ? (lastFailure === null ? null : ended - run.started) : firstFailure.at - run.started,
    coverage: run.recorder.toCoverage(),
  };
  const failure: LockstepResult | null = lastFailure ?? firstFailure?.result ?? null;
  if (failure === null) {
    // A replay of one path is complete once that path ran; otherwise every planned run must have run.
    const complete = !stoppedByTimeLimit && (options.path !== undefined ? generated > 0 : generated >= runs);
    const none = { path: null, shrinks: 0, shrinkMs: 0, counterexample: null, firstFailureLength: null, story: null };
    return { ...common, verdict: complete ? 'agree' : 'incomplete', ...none };
  }
  // A failure that did not fail again when replayed (an implementation that is not deterministic)
  // is kept as it was generated, unshrunk, with the path that generated it.
  const path =
    details?.failed && details.counterexamplePath !== null ? details.counterexamplePath : (replayPath ?? null);
  return {
    ...common,
    verdict: 'diverge',
    path,
    shrinks: details?.failed === true ? details.numShrinks : 0,
    shrinkMs: firstFailure === null ? 0 : ended - firstFailure.at,
    counterexample: failure,
    firstFailureLength: firstFailure?.length ?? run.replayedLength,
    story: renderStory(failure, { seed, path }),
  };
}
