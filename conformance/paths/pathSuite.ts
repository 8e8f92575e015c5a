/**
 * Runs the path suite (lifecyclePaths.ts) against an implementation: each enumerated path is a
 * concrete script, executed in lockstep with the model, reply by reply and snapshot by snapshot.
 * The result is data: per-path outcomes, the verdict and the coverage of all paths.
 */
import type { AdapterFactory } from '../adapter.ts';
import type { Budget } from '../budget.ts';
import { coverageOf } from '../coverage/coverage.ts';
import type { Coverage } from '../coverage/coverage.ts';
import { lifecyclePaths } from './lifecyclePaths.ts';
import type { LifecyclePath } from './lifecyclePaths.ts';
import { runLockstep } from '../lockstep/index.ts';
import type { LockstepResult } from '../lockstep/index.ts';
import { transitionOf } from '../../model/index.ts';
import { inOrder } from '../parallel.ts';
import { renderStory } from '../lockstep/story.ts';

/** The outcome of one path. */
export interface PathOutcome {
  readonly path: LifecyclePath;
  readonly result: LockstepResult;
  /** Milliseconds the path took, the creation of its store included. */
  readonly durationMs: number;
}

/** The outcome of the path suite. */
export interface PathSuiteResult {
  /**
   * `agree` when every path ran and agreed with the model; `diverge` when one diverged;
   * `incomplete` when the time limit stopped the suite before every path ran, none diverging.
   */
  readonly verdict: 'agree' | 'diverge' | 'incomplete';
  readonly adapter: string;
  /** The paths that ran to the end (agreeing or diverging), in order. */
  readonly outcomes: readonly PathOutcome[];
  /** The paths the time limit kept from running to the end. */
  readonly notRun: readonly LifecyclePath[];
  /** The outcomes that diverged (a subset of `outcomes`). */
  readonly failures: readonly PathOutcome[];
  /** Coverage of all paths (counted from the model's traces). */
  readonly coverage: Coverage;
  readonly durationMs: number;
  /** The first failing path told as a story; null when every path agreed. */
  readonly story: string | null;
}

/** Options of the path suite. */
export interface PathSuiteOptions {
  readonly factory: AdapterFactory;
  /** Paths to run (default: all of lifecyclePaths()). */
  readonly paths?: readonly LifecyclePath[];
  /** Called after each path. */
  readonly onProgress?: (done: number, total: number, outcome: PathOutcome) => void;
  /** The check's time budget: paths not run to the end when it is spent are reported in `notRun`. */
  readonly budget?: Budget;
  /** Paths run at once, each on its own implementation (default 1); outcomes keep the paths' order. */
  readonly parallel?: number;
}

/**
 * Runs every path against the implementation made by `factory`. Divergences are data; throws only
 * if the model's own trace contradicts the enumerated path (a defect of the engine, not of the
 * implementation).
 */
export async function runPathSuite(options: PathSuiteOptions): Promise<PathSuiteResult> {
  const started = performance.now();
  const paths = options.paths ?? lifecyclePaths();
  let adapter = '(unknown)';
  let done = 0;
  const ran = await inOrder(paths.length, options.parallel ?? 1, async (index) => {
    const path = paths[index] as LifecyclePath;
    const pathStarted = performance.now();
    const result = await runLockstep(
      path.config,
      path.script,
      options.factory,
      options.budget === undefined ? {} : { budget: options.budget },
    );
    if (result.adapter !== '(factory)') adapter = result.adapter;
    if (result.interrupted === true) return undefined;
    if (result.divergence === null) {
      const taken = result.steps
        .slice(0, path.walkSteps)
        .flatMap((s) => s.trace.filter((t) => t.job === 'a').map((t) => transitionOf(t).id));
      if (taken.join('\n') !== path.transitions.join('\n')) {
        throw new Error(
          `path suite: the model took [${taken.join(', ')}] on path "${path.name}", expected [${path.transitions.join(', ')}]`,
        );
      }
    }
    const outcome = { path, result, durationMs: performance.now() - pathStarted };
    done += 1;
    options.onProgress?.(done, paths.length, outcome);
    return outcome;
  });
  const outcomes = ran.filter((o): o is PathOutcome => o !== undefined);
  const notRun = paths.filter((_, i) => ran[i] === undefined);
  const failures = outcomes.filter((o) => o.result.divergence !== null);
  return {
    verdict: failures.length > 0 ? 'diverge' : notRun.length > 0 ? 'incomplete' : 'agree',
    adapter,
    outcomes,
    notRun,
    failures,
    // A suite that ran no path (a shard after the first) is no source of counts.
    coverage: coverageOf(
      outcomes.map((o) => o.result),
      paths.length === 0 ? undefined : `path suite ${adapter}`,
    ),
    durationMs: performance.now() - started,
    story:
      failures[0] === undefined
        ? null
        : `path "${failures[0].path.name}" (${failures.length} of ${outcomes.length} paths diverge)\n${renderStory(failures[0].result)}`,
  };
}
