/** What an exploration may be asked for, and where it tells its progress. */
import type { StoreInvariant } from '../../model/index.ts';
import type { AdapterFactory } from '../adapter.ts';
import type { Budget } from '../budget.ts';
import type { StepFunction } from './expander.ts';
import type { ExplorePart, ExploreScope, NamedConfig } from './scope.ts';

/** Options of an exploration. */
export interface ExploreOptions {
  /** The scope; missing fields are those of DEFAULT_SCOPE. */
  readonly scope?: Partial<ExploreScope>;
  /** The configs to explore, one after the other (default: EXPLORE_CONFIGS). */
  readonly configs?: readonly NamedConfig[];
  /** Several scopes, each with its configs, explored in turn (instead of `scope` and `configs`). */
  readonly parts?: readonly ExplorePart[];
  /** Most distinct states per config (default DEFAULT_MAX_STATES): beyond, the exploration is incomplete. */
  readonly maxStates?: number;
  /** The time budget of the whole exploration. */
  readonly budget?: Budget;
  /** An implementation: every explored transition is also run against it (differential mode). */
  readonly factory?: AdapterFactory;
  /** Threads for a model-only exploration with the model's own step (default 1). */
  readonly threads?: number;
  /** The step function (default: the model's); tests pass broken variants. */
  readonly step?: StepFunction;
  /** The invariants checked at every state (default: STORE_INVARIANTS). */
  readonly invariants?: readonly StoreInvariant[];
  /** Called after each breadth-first level. */
  readonly onProgress?: (progress: ExploreProgress) => void;
}

/** Where an exploration is. */
export interface ExploreProgress {
  readonly config: string;
  readonly depth: number;
  readonly states: number;
  readonly transitions: number;
}

/** Default most states per config. */
export const DEFAULT_MAX_STATES = 5_000_000;
