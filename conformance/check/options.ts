/**
 * The options of a check: how much to run (runs, seed, shard, time budget), what to leave out, and
 * a progress callback. What is checked, and through which stores, is the target's (target.ts).
 */
import type { Budget } from '../budget.ts';
import type { CampaignResult, CampaignShard } from '../random/campaign.ts';
import type { ConcurrentCampaignResult } from '../concurrent/result.ts';
import type { ExploreResult } from '../explore/index.ts';
import type { PathSuiteResult } from '../paths/pathSuite.ts';
import type { RestorePhaseResult } from '../restore/index.ts';
import type { FixturePhaseResult } from './fixturePhase.ts';
import type { PhaseStop } from './phaseStop.ts';

/** Where the check is: which phase, how far. */
export interface CheckProgress {
  readonly phase: 'fixtures' | 'restore' | 'paths' | 'campaign' | 'shrink' | 'explore' | 'concurrent';
  readonly done: number;
  readonly total: number;
}

/**
 * A phase of the check that has ended, with its outcome (null when it did not run: the time limit,
 * --fail-fast), the stop that cut it short, if any, and, for a phase this part of the check leaves
 * out on purpose, why (`shard`: a shard after the first; `concurrent_only`: competing workers
 * alone; `option`: noExplore or noRestore). Told once per phase, in the order the summary lists
 * them (fixtures, restore, paths, campaign, explore), except the competing workers, told when they
 * end (first or last) and only when they were asked for.
 */
export type CheckPhaseEnd = {
  readonly ms: number;
  readonly stop: PhaseStop | undefined;
  readonly leftOut: 'shard' | 'concurrent_only' | 'option' | null;
} & (
  | { readonly phase: 'fixtures'; readonly fixtures: FixturePhaseResult }
  | { readonly phase: 'restore'; readonly restore: RestorePhaseResult | null }
  | { readonly phase: 'paths'; readonly paths: PathSuiteResult }
  | { readonly phase: 'campaign'; readonly campaign: CampaignResult }
  | { readonly phase: 'explore'; readonly exploration: ExploreResult | null }
  | { readonly phase: 'concurrent'; readonly concurrent: ConcurrentCampaignResult | null }
);

/** Most send-time perturbations of a check's concurrent scenario, unless its options say otherwise (docs/concurrency-bench.md). */
export const DEFAULT_CONCURRENT_PERTURBATIONS = 2;

/** The competing workers of a check (`--workers`), on the target's `concurrentFactory`. */
export interface ConcurrentCheckOptions {
  /** Worker lanes (2 or more). */
  readonly workers: number;
  /** Scenarios to generate; with `moreRunsWithinMs`, the least. */
  readonly runs: number;
  /** More scenarios while the campaign has run less than this many ms (runConcurrentCampaign's option). */
  readonly moreRunsWithinMs?: number;
  /**
   * Most send-time perturbations of a scenario (runConcurrentCampaign's option; a path's meaning
   * depends on it, so `jobcheck check` always gives the default: DEFAULT_CONCURRENT_PERTURBATIONS).
   */
  readonly perturbations?: number;
  /** fast-check path of a known concurrent counterexample (with the check's seed): replays just that. */
  readonly path?: string;
  /** The reply timeout (`--timeout`): one time budget per request, as in every other phase (default 5000 ms). */
  readonly timeoutMs?: number;
  /**
   * When the competing workers run: `last` (default, after the exploration), `first` (before the
   * fixture stories, so that a race is told without waiting for the sequential phases), or `only`
   * (the sequential phases are left out, as a shard after the first leaves them out).
   */
  readonly when?: ConcurrentWhen;
}

/** When a check's competing workers run (ConcurrentCheckOptions.when). */
export type ConcurrentWhen = 'last' | 'first' | 'only';

/** Every value of ConcurrentWhen, in the order the command line lists them. */
export const CONCURRENT_WHEN: readonly ConcurrentWhen[] = ['last', 'first', 'only'];

/** Options of a check. Every one may be left out. */
export interface CheckOptions {
  /** Random runs of the campaign (default 100). */
  readonly runs?: number;
  /** fast-check seed of the campaign and of the competing workers (default: random; the report's campaign says which). */
  readonly seed?: number;
  /** Most commands per random run (default: the engine's). */
  readonly maxCommands?: number;
  /** fast-check path of a known counterexample (with its seed): the campaign replays just that. */
  readonly path?: string;
  /** Called once the plan is checked, before the first phase runs (a command line starts its log). */
  readonly onStart?: () => void;
  /** Called as each phase advances (a command line draws it). */
  readonly onProgress?: (progress: CheckProgress) => void;
  /** The check's time budget: what ran by then is reported, and the verdict says `incomplete`. */
  readonly budget?: Budget;
  /** Stores checked at once, each on its own implementation (default: the target's, else 1). */
  readonly parallel?: number;
  /** Leave out the exploration phase (for an implementation too slow for it). */
  readonly noExplore?: boolean;
  /**
   * Leave out the restore phase (the invalid snapshots of conformance/restore/): for stores that
   * cannot be offered a snapshot, which otherwise make the phase, and the check, not exercised.
   */
  readonly noRestore?: boolean;
  /** Called as each phase ends, with what it ran (a log line for each: a CI log without a terminal). */
  readonly onPhaseEnd?: (end: CheckPhaseEnd) => void;
  /**
   * Runs one of `count` parts of the check: the campaign's runs of index `i - 1` modulo `n`; the
   * fixture stories, the path suite, the exploration and the competing workers run in shard 1
   * only, so that the coverage of all shards adds up to that of one unsharded check.
   */
  readonly shard?: CampaignShard;
  /** Also run a concurrent campaign of competing workers, after the exploration unless `when` says otherwise (in shard 1 only). */
  readonly concurrent?: ConcurrentCheckOptions;
  /**
   * Stop at the first divergence of any phase (`--fail-fast`): the items and phases after it are
   * not run and the report says so (`stops`, `stoppedByFailFast`). A campaign that finds the first
   * divergence still shrinks it (each try is one run; an implementation that times out gives up at
   * once); within the exploration and the concurrent campaign, which stop at their own first
   * failure, the check stops once they end. The verdict is that of what ran: `diverge`.
   */
  readonly failFast?: boolean;
  /**
   * What the plan's errors call the paths (default `path` and `concurrent path`): a command line
   * names its flags (`--path`, `--concurrent-path`).
   */
  readonly names?: { readonly path?: string; readonly concurrentPath?: string };
}
