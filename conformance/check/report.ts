/**
 * What a check found, as data: the outcome of every phase, the merged coverage, the verdict and,
 * on failure, the shortest story. Nothing here is rendered; cli/output/ tells it to people.
 */
import type { CampaignResult, CampaignShard } from '../random/campaign.ts';
import type { ConcurrentCampaignResult } from '../concurrent/result.ts';
import type { Coverage } from '../coverage/coverage.ts';
import type { ExploreResult } from '../explore/index.ts';
import type { PathSuiteResult } from '../paths/pathSuite.ts';
import type { RestartCounts } from '../protocol/index.ts';
import type { CheckFailure } from './failure.ts';
import type { FixtureOutcome } from './fixturePhase.ts';
import type { ConcurrentWhen } from './options.ts';
import type { PhaseStop } from './phaseStop.ts';
import type { RestorePhaseResult } from '../restore/index.ts';
import type { CheckVerdict, PhaseNotExercised } from './verdict.ts';

/** Where the time of a check went. Phases run one after the other; within each, runs may overlap. */
export interface CheckPhases {
  readonly fixturesMs: number;
  /** The restore phase (0 when it did not run). */
  readonly restoreMs: number;
  readonly pathsMs: number;
  /** The campaign's generation phase, up to the first failure (and the runs in flight then). */
  readonly campaignMs: number;
  readonly shrinkMs: number;
  /** The exploration of CHECK_EXPLORATION (conformance/explore/scope.ts). */
  readonly exploreMs: number;
  /** The concurrent campaign, shrinking included (0 when there was none). */
  readonly concurrentMs: number;
  /** Restarts over the whole check (a target that counts them): how many and their summed milliseconds. */
  readonly restarts: RestartCounts | null;
  /** Stores checked at once. */
  readonly parallel: number;
}

/** Everything a check found. */
export interface CheckReport {
  /**
   * `agree`: every phase ran in full, exercised something and agreed; `diverge`: something diverged
   * (the story is in `failure`); `incomplete`: the time limit stopped the check first, or a phase
   * exercised nothing (`notExercised`), and nothing that ran diverged.
   */
  readonly verdict: CheckVerdict;
  /** True when the time limit stopped some phase before it ran in full. */
  readonly stoppedByTimeLimit: boolean;
  /** True when `failFast` stopped the check at its first divergence, with items or phases after it not run. */
  readonly stoppedByFailFast: boolean;
  /**
   * The phases that left items not run on purpose, before the time limit, and why: after a timeout
   * of the implementation in the phase (its later items given up), or by `failFast`. The items
   * themselves are where the time limit's are: `fixturesNotRun`, `paths.notRun`, the campaign's
   * `runs` below `runsPlanned`, a null `exploration` or `concurrent`. Empty when nothing was given up.
   */
  readonly stops: readonly PhaseStop[];
  /**
   * The phases that ran and exercised nothing, with why: competing workers whose requests were
   * never in flight together, a restore phase that could offer no snapshot. Each makes the check
   * `incomplete` (conformance/check/verdict.ts). Empty otherwise.
   */
  readonly notExercised: readonly PhaseNotExercised[];
  /** The fixture stories that ran to the end. */
  readonly fixtures: readonly FixtureOutcome[];
  /** Names of the fixture stories that did not run to the end (the time limit, or a stop in `stops`). */
  readonly fixturesNotRun: readonly string[];
  /**
   * The restore phase (invalid snapshots offered, each to be refused); null when left out
   * (`noRestore`, shards after the first, competing workers alone) or when the time limit came first.
   */
  readonly restore: RestorePhaseResult | null;
  /** True when the restore phase was left out on purpose (`noRestore`). */
  readonly restoreLeftOut: boolean;
  readonly paths: PathSuiteResult;
  /** Milliseconds each path took, in the order of `paths.outcomes`. */
  readonly pathMs: readonly number[];
  readonly campaign: CampaignResult;
  /** The small exhaustive exploration beside the path suite; null when left out or when the time limit came first. */
  readonly exploration: ExploreResult | null;
  /** True when the exploration was left out on purpose (`noExplore`). */
  readonly explorationLeftOut: boolean;
  /** Path suite, campaign and exploration coverage, merged (the restore phase counts its own: `restore`). */
  readonly coverage: Coverage;
  /** The shortest failure story, or null when everything agreed. */
  readonly failure: CheckFailure | null;
  readonly durationMs: number;
  readonly phases: CheckPhases;
  /** Milliseconds from the start of the check until the first divergence of any phase ended; null if none. */
  readonly firstDivergenceMs: number | null;
  /** The part of the check this was (`shard`), or null for the whole check. */
  readonly shard: CampaignShard | null;
  /** The concurrent campaign (`concurrent`), or null when there was none. */
  readonly concurrent: ConcurrentCampaignResult | null;
  /**
   * When the competing workers ran (`concurrent.when`), null without them. With `only`, the fixture
   * stories, paths, campaign and exploration were left out on purpose (no outcomes, no runs planned).
   */
  readonly concurrentWhen: ConcurrentWhen | null;
  /**
   * Why an `incomplete` check is not a pass when the time limit is not the reason: a path given to
   * replay a counterexample (`path`, `concurrent.path`) named runs that all agreed, so the
   * campaign it stands for did not run and nothing was established. Null otherwise.
   */
  readonly notAPass: string | null;
}

/**
 * The outcome of a check, under the name the engine's former path-suite-and-campaign check gave it.
 * @deprecated Use CheckReport: there is one check, and this is its report.
 */
export type CheckResult = CheckReport;
