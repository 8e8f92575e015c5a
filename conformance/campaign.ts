/**
 * Random differential campaigns: fast-check generates scenarios (a config and a sequence of
 * symbolic commands), each is run in lockstep against the model, and the first failing scenario
 * is shrunk to a minimal one. The result is data: a verdict, the shrunk run, the seed and
 * fast-check path that reproduce it, and the coverage of the generated (unshrunk) runs.
 */
import fc from 'fast-check';
import type { Config } from '../contract/index.ts';
import type { AdapterFactory } from './adapter.ts';
import type { Budget } from './budget.ts';
import { scenarioArb } from './arbitraries.ts';
import type { Scenario } from './arbitraries.ts';
import { CoverageRecorder } from './coverage.ts';
import type { Coverage } from './coverage.ts';
import { runLockstep } from './lockstep.ts';
import type { LockstepResult } from './lockstep.ts';
import { renderStory } from './story.ts';

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
}

/** The outcome of a campaign. */
export interface CampaignResult {
  /**
   * `agree`: every planned scenario ran and none diverged; `diverge`: `counterexample` holds the
   * (shrunk) failing run; `incomplete`: the time limit stopped the campaign before all its
   * scenarios ran, and none of those that ran diverged.
   */
  readonly verdict: 'agree' | 'diverge' | 'incomplete';
  /** Scenarios planned (`runs` of the options). */
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
  /** Commands checked, all phases. */
  readonly commands: number;
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

/**
 * Runs a random differential campaign against the implementation made by `factory`. Never throws
 * for a divergence (it is the `diverge` verdict); rethrows only an error of the engine itself
 * (e.g. the model throwing), never one of the implementation (that is an `impl_error` divergence).
 */
export async function runCampaign(options: CampaignOptions): Promise<CampaignResult> {
  const runs = options.runs ?? 100;
  const seed = options.seed ?? (Date.now() ^ (Math.random() * 0x100000000)) | 0;
  const configs = options.configs === undefined || options.configs.length === 0 ? undefined : fc.constantFrom(...options.configs);
  const arb = scenarioArb({ ...(options.maxCommands === undefined ? {} : { maxCommands: options.maxCommands }), ...(configs === undefined ? {} : { configs }) });
  const recorder = new CoverageRecorder(`campaign seed=${seed}`);
  let adapter = '(unknown)';
  let commands = 0;
  let generated = 0;
  let shrinkRuns = 0;
  let firstFailureLength: number | null = null;
  let firstFailureAt = 0;
  let lastFailure: LockstepResult | null = null;
  let interrupted = false;
  const budget = options.budget;
  const started = performance.now();
  const property = fc.asyncProperty(arb, async (scenario: Scenario) => {
    const result = await runLockstep(scenario.config, scenario.commands, options.factory, budget === undefined ? {} : { budget });
    if (result.adapter !== '(factory)') adapter = result.adapter;
    commands += result.steps.length;
    if (result.interrupted === true) {
      // Cut short by the time limit: neither a pass nor a failure, and not counted as a run.
      interrupted = true;
      return true;
    }
    const shrinking = firstFailureLength !== null;
    if (shrinking) shrinkRuns += 1;
    else {
      generated += 1;
      recorder.recordRun(result);
    }
    options.onProgress?.({ phase: shrinking ? 'shrink' : 'generate', run: shrinking ? shrinkRuns : generated, runs, commands });
    if (result.divergence !== null) {
      // fast-check's final counterexample is the last value that failed, so this ends up holding it.
      lastFailure = result;
      if (firstFailureLength === null) {
        firstFailureLength = scenario.commands.length;
        firstFailureAt = performance.now();
      }
    }
    return result.divergence === null;
  });
  const remaining = budget?.remainingMs() ?? Number.POSITIVE_INFINITY;
  const details =
    remaining <= 0
      ? null
      : await fc.check(property, {
          numRuns: runs,
          seed,
          ...(options.path === undefined ? {} : { path: options.path }),
          ...(Number.isFinite(remaining) ? { interruptAfterTimeLimit: Math.ceil(remaining) } : {}),
        });
  const ended = performance.now();
  const coverage = recorder.toCoverage();
  const stoppedByTimeLimit = details === null || details.interrupted || interrupted;
  const common = { adapter, seed, runs: generated, runsPlanned: runs, stoppedByTimeLimit, commands, durationMs: ended - started, coverage };
  if (details === null || !details.failed || lastFailure === null) {
    if (details !== null && details.failed && details.errorInstance !== null) throw details.errorInstance; // the engine itself failed
    // A replay of one path is complete once that path ran; otherwise every planned run must have run.
    const complete = !stoppedByTimeLimit && (options.path !== undefined || generated >= runs);
    return { ...common, verdict: complete ? 'agree' : 'incomplete', path: null, shrinks: 0, shrinkMs: 0, counterexample: null, firstFailureLength: null, story: null };
  }
  const counterexample: LockstepResult = lastFailure;
  return {
    ...common,
    verdict: 'diverge',
    path: details.counterexamplePath,
    shrinks: details.numShrinks,
    shrinkMs: ended - firstFailureAt,
    counterexample,
    firstFailureLength,
    story: renderStory(counterexample, { seed, path: details.counterexamplePath }),
  };
}
