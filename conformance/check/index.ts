/**
 * The one check: `runCheck(target, options)` runs fixtures, restore, paths, campaign, exploration
 * and competing workers against a target and returns a CheckReport; `assertCheck` throws for test
 * runners. `jobcheck check` is a command line around it.
 */
export type { CheckOptions, CheckPhaseEnd, CheckProgress, ConcurrentCheckOptions, ConcurrentWhen } from './options.ts';
export { CONCURRENT_WHEN, DEFAULT_CONCURRENT_PERTURBATIONS } from './options.ts';
export type { CheckPhase, PhaseStop } from './phaseStop.ts';
export type { GateReason } from './phaseGate.ts';
export { GivenUp, PhaseGate } from './phaseGate.ts';
export { CheckBudget } from './checkBudget.ts';
export type { CheckTarget } from './target.ts';
export type { CheckPhases, CheckReport, CheckResult } from './report.ts';
export type {
  CheckFailure,
  CheckFailureSource,
  DivergenceFailure,
  FixtureFailure,
  RaceFailure,
  RestoreFailure,
  UnrepeatedFailure,
} from './failure.ts';
export { unknownFailure } from './failure.ts';
export type { FixtureOutcome, FixturePhaseResult } from './fixturePhase.ts';
export { runFixturePhase } from './fixturePhase.ts';
export type { CheckVerdict, MergedVerdict, PhaseNotExercised, PhaseOutcomes } from './verdict.ts';
export { mergeVerdict, phasesNotExercised } from './verdict.ts';
export type { FailureCandidates } from './shortestFailure.ts';
export { failureCandidates, shortestFailure } from './shortestFailure.ts';
export { runCheck } from './runCheck.ts';
export { assertCheck } from './assertCheck.ts';
export type { FailureStoryHints } from './failureStory.ts';
export { renderCheckFailure, renderFixtureStory } from './failureStory.ts';
// Not exported: runPathsAndCampaign (pathsAndCampaign.ts), a step of runCheck; runPathSuite and
// runCampaign are the public ways to run either phase alone.
