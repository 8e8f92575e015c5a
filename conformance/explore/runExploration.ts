/**
 * The exploration `jobcheck check` runs: the default exploration (DEFAULT_EXPLORATION, a second
 * or two in process) against an implementation, with the result in the terms of a check phase:
 * a verdict, counts, coverage, and on failure the story and the lockstep run an artifact is
 * written from.
 */
import type { AdapterFactory } from '../adapter.ts';
import type { Budget } from '../budget.ts';
import { explore } from './explore.ts';
import type { ExploreProgress } from './options.ts';
import type { ExploreResult } from './result.ts';
import { DEFAULT_EXPLORATION } from './scope.ts';
import type { ExplorePart } from './scope.ts';

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
}

/**
 * Explores the default scope (or `parts`) against the implementation. The result's `verdict` is
 * `complete` (every state and transition of the scope agreed), `diverge` / `violation` (the
 * counterexample is in the failing config's `counterexample`, its story in `story`, its lockstep
 * run in `counterexample.run`), or `incomplete` (the budget stopped it). Never throws for a
 * divergence.
 */
export function runExploration(options: RunExplorationOptions = {}): Promise<ExploreResult> {
  return explore({
    parts: options.parts ?? DEFAULT_EXPLORATION,
    ...(options.factory === undefined ? {} : { factory: options.factory }),
    ...(options.budget === undefined ? {} : { budget: options.budget }),
    ...(options.maxStates === undefined ? {} : { maxStates: options.maxStates }),
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
  });
}
