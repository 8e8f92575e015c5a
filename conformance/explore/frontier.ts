/**
 * The breadth-first frontier loop every exploration runs, sequential or parallel: the visited set
 * (fingerprints and the tree of first discoveries), the current and next levels' records, the
 * counts per level, the budgets, and the counterexample of an invariant broken. How a level's
 * states are expanded is the caller's (`expandLevel`): in this thread, state by state, with the
 * implementation alongside in differential mode (sequential.ts), or in chunks on worker threads
 * (parallel.ts). Whoever expands hands every successor to `admit` in the order of its source in
 * the frontier, so that states get the same indices, parents and counterexample either way:
 * breadth-first order reaches every state first by a shortest path.
 */
import type { Config } from '../../contract/index.ts';
import { initialState, violatedInvariant } from '../../model/index.ts';
import type { StoreInvariant } from '../../model/index.ts';
import type { Budget } from '../budget.ts';
import { fingerprintOut } from './canonical.ts';
import { Words } from './codec.ts';
import type { Expander, StepFunction } from './expander.ts';
import type { ExploreProgress } from './options.ts';
import { pathSteps } from './pathSteps.ts';
import type { Counterexample } from './result.ts';
import type { ExploreScope, NamedConfig, ScopeNames } from './scope.ts';
import { violationStory } from './violationStory.ts';
import { VisitedSet } from './visited.ts';

/**
 * A breadth-first level: the records of its states, where each starts in `words.data`, and their
 * indices in the visited set (views of buffers the search reuses: valid until the level after next).
 */
export interface Frontier {
  readonly words: Words;
  readonly offsets: Int32Array;
  readonly ids: Int32Array;
}

/** Why an exploration stopped before it was complete. */
export type StopReason = 'max-states' | 'time-limit';

/** How the expansion of a level ended. */
export type LevelEnd =
  | { readonly kind: 'done' }
  | { readonly kind: 'stopped'; readonly by: StopReason }
  /** A new state (visited index `index`) breaks an invariant: the loop finds its path and tells it. */
  | { readonly kind: 'broken'; readonly index: number; readonly name: string; readonly message: string }
  /** The expander found a counterexample of its own (the implementation disagreed). */
  | { readonly kind: 'counterexample'; readonly counterexample: Counterexample };

/** What the expansion of one level is given. */
export interface Level {
  readonly frontier: Frontier;
  /**
   * Takes a successor: its fingerprint (hi, lo), the visited index of the state it came from, the
   * alphabet step that led to it, and its record (`length` words of `record` from `at`), copied into
   * the next level when it is new. Returns its visited index, or -1 when it was reached before.
   */
  readonly admit: (
    source: number,
    step: number,
    hi: number,
    lo: number,
    record: Int32Array,
    at: number,
    length: number,
  ) => number;
  /** The budgets, asked where the expander can stop: max states first, then the time limit. */
  readonly stopReason: () => StopReason | undefined;
}

/** The search of one config. */
export interface FrontierSearch {
  readonly named: NamedConfig;
  readonly scope: ExploreScope;
  readonly names: ScopeNames;
  /** Encodes and fingerprints the initial state. */
  readonly expander: Expander;
  readonly stepFn: StepFunction;
  readonly invariants: readonly StoreInvariant[];
  readonly maxStates: number;
  readonly budget: Budget | undefined;
  readonly onProgress: ((progress: ExploreProgress) => void) | undefined;
  /** Transitions taken so far, for the progress (0 when only the workers know). */
  readonly transitions: () => number;
  /** Expands one level, handing each successor to `level.admit`. */
  readonly expandLevel: (level: Level) => Promise<LevelEnd>;
}

/** Where the search ended. */
export interface FrontierOutcome {
  readonly visited: VisitedSet;
  /** Distinct states first reached at each depth. */
  readonly levels: readonly number[];
  readonly frontierPeakBytes: number;
  readonly counterexample: Counterexample | null;
  readonly stoppedBy: StopReason | undefined;
}

/**
 * The buffer the next level's records (or offsets, or ids) are written to, the current level taking
 * `current` words: the spare one (the level before, done with) when it has room for half as much
 * again, else a new one of twice as much. Memory written for the first time is costly, the kernel
 * handing out each page on its first write: with a buffer for every level, the L scope of
 * bench/explore.ts took about 190,000 page faults, with the spare about 140,000, and with the
 * offsets and ids in reused Int32Arrays instead of arrays grown by push (each growth a new array,
 * written whole and copied into) about 125,000. Room never written costs nothing, and levels seldom
 * grow faster.
 */
function nextBuffer(spare: Words | undefined, current: number): Words {
  if (spare !== undefined && spare.data.length >= 1.5 * current) {
    spare.length = 0;
    return spare;
  }
  return new Words(2 * current);
}

/** Explores one config breadth-first from the empty store until done, a counterexample, or a budget. */
export async function searchFrontier(search: FrontierSearch): Promise<FrontierOutcome> {
  const { named, scope, names, expander, stepFn, invariants, maxStates, budget } = search;
  const config: Config = named.config;
  const visited = new VisitedSet();
  const levels: number[] = [1];
  let frontierPeakBytes = 0;
  let counterexample: Counterexample | null = null;
  let stoppedBy: StopReason | undefined;
  const invariantBroken = (path: Counterexample['path'], name: string, message: string): Counterexample => ({
    kind: 'invariant',
    invariant: name,
    message,
    path,
    story: violationStory(config, path, name, message, stepFn),
  });

  const root = initialState(config);
  const rootWords = new Words();
  expander.encode(root, rootWords);
  expander.fingerprintOf(rootWords.data, 0);
  visited.add(fingerprintOut[0] ?? 0, fingerprintOut[1] ?? 0, -1, 0);
  let frontier: Frontier = { words: rootWords, offsets: Int32Array.of(0), ids: Int32Array.of(0) };
  const rootBroken = violatedInvariant(root, invariants);
  if (rootBroken !== undefined) counterexample = invariantBroken([], rootBroken.name, rootBroken.message);
  const stopReason = (): StopReason | undefined => {
    if (visited.size >= maxStates) return 'max-states';
    return budget?.expired === true ? 'time-limit' : undefined;
  };

  // The buffers of the level before the current one, which the next level reuses when they have room.
  let spare: { words: Words; offsets: Words; ids: Words } | undefined;
  let current = { words: rootWords, offsets: new Words(), ids: new Words() };
  while (counterexample === null && frontier.ids.length > 0) {
    const next = nextBuffer(spare?.words, frontier.words.length);
    const offsets = nextBuffer(spare?.offsets, frontier.ids.length);
    const ids = nextBuffer(spare?.ids, frontier.ids.length);
    const admit = (
      source: number,
      step: number,
      hi: number,
      lo: number,
      record: Int32Array,
      at: number,
      length: number,
    ): number => {
      const index = visited.add(hi, lo, source, step);
      if (index < 0) return -1;
      offsets.push(next.length);
      next.reserve(length);
      const data = next.data;
      let o = next.length;
      for (let i = 0; i < length; i++) data[o++] = record[at + i] as number;
      next.length = o;
      ids.push(index);
      return index;
    };
    const end = await search.expandLevel({ frontier, admit, stopReason });
    if (end.kind === 'stopped') {
      stoppedBy = end.by;
      break;
    }
    if (end.kind === 'broken') {
      counterexample = invariantBroken(
        pathSteps(config, scope, names, visited.pathTo(end.index), stepFn),
        end.name,
        end.message,
      );
      break;
    }
    if (end.kind === 'counterexample') {
      counterexample = end.counterexample;
      break;
    }
    frontierPeakBytes = Math.max(
      frontierPeakBytes,
      4 * (frontier.words.length + next.length + 2 * (frontier.ids.length + ids.length)),
    );
    if (ids.length > 0) levels.push(ids.length);
    search.onProgress?.({
      config: named.name,
      depth: levels.length - 1,
      states: visited.size,
      transitions: search.transitions(),
    });
    // The next level would stop at its first state: stop here, without starting it.
    if (ids.length > 0 && visited.size >= maxStates) {
      stoppedBy = 'max-states';
      break;
    }
    spare = current;
    current = { words: next, offsets, ids };
    frontier = {
      words: next,
      offsets: offsets.data.subarray(0, offsets.length),
      ids: ids.data.subarray(0, ids.length),
    };
  }
  return { visited, levels, frontierPeakBytes, counterexample, stoppedBy };
}
