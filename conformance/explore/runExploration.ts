/**
 * The exploration `jobcheck check` runs: the default exploration (DEFAULT_EXPLORATION, a second
 * or two in process) against an implementation, with the result in the terms of a check phase:
 * a verdict, counts, coverage, and on failure the story and the lockstep run an artifact is
 * written from.
 *
 * With `lanes`, the implementation's side is spread over that many stores at once, each brought to
 * a state by a reset and a restore instead of a replay (differentialLanes.ts), for an implementation
 * whose stores allow it (a program behind the protocol); the result is the one-store exploration's
 * (the same states, transitions, coverage, verdict and story), found sooner.
 */
import type { AdapterFactory } from '../adapter.ts';
import type { Budget } from '../budget.ts';
import { exploreOverLanes } from './differentialLanes.ts';
import { explore, resolveParts } from './explore.ts';
import type { ExploreProgress } from './options.ts';
import { exploreResultOf } from './result.ts';
import type { ConfigExploration, ExploreResult } from './result.ts';
import { DEFAULT_EXPLORATION } from './scope.ts';
import type { ExplorePart } from './scope.ts';
import { startStopwatch } from './stopwatch.ts';

/** Options of runExploration. */
export interface RunExplorationOptions {
  /** The implementation; none: the model alone. */
  readonly factory?: AdapterFactory;
  readonly budget?: Budget;
  /** The parts to explore (default DEFAULT_EXPLORATION). */
  readonly parts?: readonly ExplorePart[];
  /** Most states per config (default: the explorer's). */
  readonly maxStates?: number;
  readonly onProgress?: (progress: ExploreProgress) => void;
  /**
   * Stores of the implementation checked at once (differentialLanes.ts), when its stores can be
   * reset in place; otherwise, and by default, one store replaying each state's path.
   */
  readonly lanes?: number;
}

/**
 * Explores the default scope (or `parts`) against the implementation. The result's `verdict` is
 * `complete` (every state and transition of the scope agreed), `diverge` / `violation` (the
 * counterexample is in the failing config's `counterexample`, its story in `story`, its lockstep
 * run in `counterexample.run`), or `incomplete` (the budget stopped it). Never throws for a
 * divergence.
 */
export function runExploration(options: RunExplorationOptions = {}): Promise<ExploreResult> {
  const common = {
    ...(options.budget === undefined ? {} : { budget: options.budget }),
    ...(options.maxStates === undefined ? {} : { maxStates: options.maxStates }),
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
  };
  const parts = options.parts ?? DEFAULT_EXPLORATION;
  if (options.factory !== undefined && options.lanes !== undefined)
    return exploreLanes(parts, { ...common, factory: options.factory }, options.lanes);
  return explore({ parts, ...(options.factory === undefined ? {} : { factory: options.factory }), ...common });
}

/** explore()'s loop over the configs (stop at the first counterexample or the budget), each config over lanes. */
async function exploreLanes(
  partsAsked: readonly ExplorePart[],
  options: Parameters<typeof exploreOverLanes>[3],
  lanes: number,
): Promise<ExploreResult> {
  const clock = startStopwatch();
  const parts = resolveParts({ parts: partsAsked });
  const results: ConfigExploration[] = [];
  const notRun: string[] = [];
  for (const part of parts) {
    for (const named of part.configs) {
      if (
        results.some((r) => r.verdict === 'violation' || r.verdict === 'diverge') ||
        options.budget?.expired === true
      ) {
        notRun.push(`${part.name}/${named.name}`);
        continue;
      }
      results.push(await exploreOverLanes(part.name, named, part.scope, options, lanes));
    }
  }
  return exploreResultOf(parts, results, notRun, clock);
}
