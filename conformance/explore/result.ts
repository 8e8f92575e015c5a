/**
 * What an exploration returns: per config, counts per level, coverage, guard boundaries reached,
 * and either `complete`, a counterexample (the path from the empty store, shortest by
 * construction), or `incomplete` when a budget ran out first. Sequential and parallel exploration
 * return the same shapes.
 */
import type { Config } from '../../contract/index.ts';
import { mergeCoverage } from '../coverage/coverage.ts';
import type { Coverage } from '../coverage/coverage.ts';
import type { LockstepResult } from '../lockstep/index.ts';
import type { ScriptStep } from '../lockstep/symbolic.ts';
import type { Boundary } from './boundaries.ts';
import type { DifferentialCounts } from './differential.ts';
import type { ExploreScope } from './scope.ts';
import type { Stopwatch } from './stopwatch.ts';

/** A path from the empty store that breaks an invariant or shows a divergence. */
export interface Counterexample {
  readonly kind: 'invariant' | 'divergence';
  /** The invariant broken (kind `invariant`). */
  readonly invariant?: string;
  /** What is wrong, in one line. */
  readonly message: string;
  /** The steps from the empty store: the last one breaks the invariant or diverges. */
  readonly path: readonly ScriptStep[];
  /** The story of the path, for people. */
  readonly story: string;
  /** The lockstep run of the path against the implementation (kind `divergence`): an artifact can be written from it. */
  readonly run?: LockstepResult;
}

/** The verdict of an exploration. */
export type ExploreVerdict = 'complete' | 'violation' | 'diverge' | 'incomplete';

/** The exploration of one config. */
export interface ConfigExploration {
  /** The part of the exploration (its scope) this config was explored in. */
  readonly part: string;
  readonly name: string;
  readonly config: Config;
  /**
   * `complete`: every state of the scope was reached and held (and, with an implementation, every
   * transition agreed); `violation`: an invariant broke; `diverge`: the implementation disagreed;
   * `incomplete`: a budget stopped it first.
   */
  readonly verdict: ExploreVerdict;
  readonly stoppedBy?: 'max-states' | 'time-limit';
  /** Distinct states reached (up to symmetry when the scope reduces by it). */
  readonly states: number;
  /** Transitions taken (alphabet steps from every state expanded). */
  readonly transitions: number;
  /** The deepest level reached. */
  readonly depth: number;
  /** Distinct states first reached at each depth. */
  readonly levels: readonly number[];
  readonly durationMs: number;
  /** CPU time of the process (user + system, all threads) while exploring. */
  readonly cpuMs: number;
  /** Bytes of the visited set (fingerprints and the tree of first discoveries). */
  readonly visitedBytes: number;
  /** Bytes of the two widest consecutive frontiers held at once. */
  readonly frontierPeakBytes: number;
  /** (visitedBytes + frontierPeakBytes) / states. */
  readonly bytesPerState: number;
  /** The chance that two distinct states shared a fingerprint (collisionProbability). */
  readonly collisionProbability: number;
  readonly boundaries: {
    readonly reached: readonly Boundary[];
    readonly expected: readonly Boundary[];
    readonly missing: readonly Boundary[];
  };
  readonly counterexample: Counterexample | null;
  /** Differential mode: the implementation's name and the work done against it. */
  readonly differential?: DifferentialCounts & { readonly adapter: string };
  /** Worker threads used. */
  readonly threads: number;
  readonly coverage: Coverage;
}

/** The exploration of a scope over its configs. */
export interface ExploreResult {
  /** The worst of the configs' verdicts (a config not run makes it `incomplete`). */
  readonly verdict: ExploreVerdict;
  /** The scopes explored, by part. */
  readonly parts: ReadonlyArray<{ readonly name: string; readonly scope: ExploreScope }>;
  readonly configs: readonly ConfigExploration[];
  /** Configs not explored (a counterexample or the time limit came first). */
  readonly notRun: readonly string[];
  /** The implementation, in differential mode. */
  readonly adapter: string | null;
  readonly states: number;
  readonly transitions: number;
  readonly durationMs: number;
  readonly cpuMs: number;
  readonly coverage: Coverage;
  /** The first counterexample's story, or null. */
  readonly story: string | null;
}

/**
 * The result of a whole exploration from its configs' results: the first config with a
 * counterexample gives the verdict and the story; otherwise a config left incomplete or not run
 * makes it incomplete. Pure (reads the stopwatch).
 */
export function exploreResultOf(
  parts: ReadonlyArray<{ readonly name: string; readonly scope: ExploreScope }>,
  results: readonly ConfigExploration[],
  notRun: readonly string[],
  clock: Stopwatch,
): ExploreResult {
  const failed = results.find((r) => r.counterexample !== null);
  const verdict: ExploreVerdict =
    failed !== undefined
      ? failed.verdict
      : results.some((r) => r.verdict === 'incomplete') || notRun.length > 0
        ? 'incomplete'
        : 'complete';
  return {
    verdict,
    parts: parts.map((p) => ({ name: p.name, scope: p.scope })),
    configs: results,
    notRun,
    adapter: results.find((r) => r.differential !== undefined)?.differential?.adapter ?? null,
    states: results.reduce((n, r) => n + r.states, 0),
    transitions: results.reduce((n, r) => n + r.transitions, 0),
    durationMs: clock.durationMs(),
    cpuMs: clock.cpuMs(),
    coverage: mergeCoverage(...results.map((r) => r.coverage)),
    story: failed?.counterexample?.story ?? null,
  };
}
