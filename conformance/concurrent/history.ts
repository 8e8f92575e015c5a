/**
 * Concurrent histories and the models they are checked against. Nothing here knows about jobs:
 * a history is operations on lanes, each with the instant it was invoked and the instant its
 * reply came (or none: an indefinite outcome, as Jepsen's `:info`), and a model is any pure
 * state machine with a canonical key for its states.
 *
 * Instants are positions in one totally ordered event sequence (0, 1, 2, ...), not wall time:
 * an operation A precedes B in real time exactly when A's `returned` is below B's `invoked`.
 * A fault's start or end (`nemesis`) takes an instant of the same sequence, but is no operation:
 * no checker reads it; stories, timelines and exports show it.
 */
import type { NemesisEvent } from '../nemesis/fault.ts';

/** What every request of a history has, returned or not. */
interface OperationCall<I> {
  /** Unique within the history; the order of ids carries no meaning. */
  readonly id: number;
  /** The worker lane that sent it (for stories; the checker ignores lanes). */
  readonly lane: number;
  readonly input: I;
  /** The instant the request was sent. */
  readonly invoked: number;
}

/** A request whose reply arrived: the instant it did, and the reply. */
export interface ReturnedOperation<I, O> extends OperationCall<I> {
  readonly returned: number;
  readonly output: O;
}

/**
 * A request no reply came for (a timeout, a dead process): it may have taken effect at any instant
 * after `invoked`, or never.
 */
export interface IndefiniteOperation<I> extends OperationCall<I> {
  readonly returned?: undefined;
  readonly output?: undefined;
}

/** One request of a history; `returned !== undefined` tells the two kinds apart. */
export type Operation<I, O> = ReturnedOperation<I, O> | IndefiniteOperation<I>;

/** A history: every operation, in any order (the instants order them). */
export interface History<I, O> {
  readonly operations: readonly Operation<I, O>[];
  /** The faults a nemesis started and ended during the run, in instant order (absent: none). */
  readonly nemesis?: readonly NemesisEvent[];
}

/**
 * A pure sequential specification. `step` must not mutate `state`; `key` must return equal
 * strings exactly for states that behave the same from then on (the memoisation relies on it).
 */
export interface SequentialModel<S, I, O> {
  init(): S;
  step(state: S, input: I): { readonly state: S; readonly output: O };
  key(state: S): string;
  /** Whether the implementation's `observed` reply is the reply the model gave (`expected`). */
  equal(expected: O, observed: O): boolean;
}

/**
 * Limits on one check; when one runs out the result is `unknown`, never a pass. A history the
 * model partitions (SearchHints `partitionKey`) shares `maxSteps` and `timeoutMs` among its parts;
 * each part's search has the whole `maxMemoryBytes`, as one part's memory is let go before the next.
 */
export interface CheckBudget {
  /** Most model steps tried (default: 2,000,000). */
  readonly maxSteps?: number;
  /** Wall-clock limit in milliseconds (default: none). */
  readonly timeoutMs?: number;
  /**
   * Most bytes the search may hold: its memo (the sets of operations and the model keys it has
   * seen) and its stack of states, by the checker's own count (default: 512 MiB, or a quarter of
   * the JavaScript heap's limit when that is less). The search also gives up, whatever its count,
   * when the heap itself is nearly full.
   */
  readonly maxMemoryBytes?: number;
}

/**
 * Why a check ended `unknown`: its step budget, its time limit, or its memory ran out (its
 * `maxMemoryBytes`, or the heap nearly full).
 */
export type UnknownReason = 'max_steps' | 'timeout' | 'memory';

/** Where the search ended when no order explains the replies. */
export interface Witness<O> {
  /** The longest prefix of a linearization found: operation ids, in the order they were applied. */
  readonly longestOrder: readonly number[];
  /**
   * The operations that could come next after that prefix (minimal in real time), none of which
   * the model explains: for each, the reply the model would give there and the reply observed.
   */
  readonly stuck: readonly { readonly id: number; readonly expected: O; readonly observed: O | undefined }[];
}

/**
 * The checker's answer. `steps` counts model steps tried (over every part, for a partitioned
 * history); a `linearizable` order lists operation ids, and a witness names the original ids.
 */
export type CheckOutcome<O> =
  | { readonly verdict: 'linearizable'; readonly order: readonly number[]; readonly steps: number }
  | { readonly verdict: 'not_linearizable'; readonly witness: Witness<O>; readonly steps: number }
  | { readonly verdict: 'unknown'; readonly reason: UnknownReason; readonly steps: number };
