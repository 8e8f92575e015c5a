/**
 * What a concurrent campaign returns (campaign.ts), and its failure, which story.ts tells. Apart
 * from the campaign so that the story can be told of a failure without importing the campaign.
 */
import type { ConcurrentScenario } from './generate.ts';
import type { Witness } from './history.ts';
import type { Overlap } from './overlap.ts';
import type { ConcurrentRun } from './run.ts';

/**
 * A run whose history no order of the model explains, or whose adapter failed outright: one
 * variant per kind, so that a `switch` over `kind` is checked. Each variant still carries the
 * other's fields as null (`witness`, `error`), so that the JSON of a failure keeps its shape and a
 * reader that asks `failure.witness === null` needs no narrowing.
 */
export type ConcurrentFailure = NotLinearizable | ImplementationFailed;

/** The checker's verdict: no order of the model explains the replies of `run`. */
export interface NotLinearizable {
  readonly kind: 'not_linearizable';
  readonly scenario: ConcurrentScenario;
  readonly run: ConcurrentRun;
  /** Where the checker's search ended. */
  readonly witness: Witness<unknown>;
  readonly error: null;
}

/** The adapter threw (not an IndefiniteOutcome), never gave its final snapshot, or could not be created. */
export interface ImplementationFailed {
  readonly kind: 'impl_error';
  readonly scenario: ConcurrentScenario;
  /** The run (null when the adapter could not be created). */
  readonly run: ConcurrentRun | null;
  readonly witness: null;
  /** What went wrong. */
  readonly error: string;
}

/** Whether the failure came before any request: the implementation could not be created. Pure. */
export const couldNotBeCreated = (failure: ConcurrentFailure | null | undefined): boolean =>
  failure?.kind === 'impl_error' && failure.run === null;

/**
 * The outcome of a concurrent campaign. `passed` only when some requests were in flight together
 * (`overlap`): a campaign of generated scenarios whose every history was sequential (an
 * implementation that takes one request at a time) is `not_exercised`, with why in
 * `notExercised`, and never a pass.
 */
export interface ConcurrentCampaignResult {
  readonly verdict: 'passed' | 'failed' | 'unknown' | 'time_limit' | 'not_exercised';
  readonly adapter: string;
  readonly seed: number;
  /** fast-check path of the shrunk failure (with `seed`, replays it); null unless failed. */
  readonly path: string | null;
  readonly workers: number;
  /** Runs planned. */
  readonly runsPlanned: number;
  /** Runs that ran to the end in the generation phase (the failing one included). */
  readonly runs: number;
  /** Histories checked in the generation phase: each run's, and one more for each of its send-time perturbations. */
  readonly histories: number;
  /** Shrinking steps that succeeded. */
  readonly shrinks: number;
  /** Requests of the first failing run as generated, before shrinking (null unless failed). */
  readonly firstFailureRequests: number | null;
  /** When the first failing run ended, in ms from the campaign's start, before shrinking (null unless failed). */
  readonly firstFailureMs: number | null;
  /** Runs whose check ran out of its budget (`unknown`); never counted as passes. */
  /** Runs whose history no order explains but that the campaign's `excuse` let pass (0 without one). */
  readonly excusedRuns: number;
  readonly unknownRuns: number;
  /** The first such run, to look at. */
  readonly firstUnknown: {
    readonly scenario: ConcurrentScenario;
    readonly run: ConcurrentRun;
    readonly reason: 'max_steps' | 'timeout' | 'memory';
  } | null;
  /** True when the budget stopped the campaign before it ran in full. */
  readonly stoppedByTimeLimit: boolean;
  /** The shrunk failure; null unless failed. */
  readonly failure: ConcurrentFailure | null;
  /** The shrunk failure told as a story; null unless failed. */
  readonly story: string | null;
  /** Requests in flight together, over the runs of the generation phase (shrinking left out). */
  readonly overlap: Overlap;
  /** Why no two requests were ever in flight together, when the verdict is `not_exercised`; null otherwise. */
  readonly notExercised: string | null;
  readonly durationMs: number;
}
