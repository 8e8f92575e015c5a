/**
 * The conformance engine: holds any implementation of the contract against the reference model.
 * Entry points: `runCheck` (the whole check, as `jobcheck check` runs it: fixtures, paths,
 * campaign, exploration, competing workers), `runCampaign`, `runPathSuite`, `replayArtifact`;
 * results are data, told to people by `renderCheckFailure`, `renderStory` and the coverage
 * reports. `assertCheck` / `assertConforms` / `assertPathsConform` throw for test runners.
 */

// The check: one call runs every method against a target and returns the report as data.
export type {
  CheckFailure,
  CheckFailureSource,
  CheckOptions,
  CheckPhases,
  CheckProgress,
  CheckReport,
  CheckResult,
  CheckTarget,
  CheckVerdict,
  ConcurrentCheckOptions,
  DivergenceFailure,
  FixtureFailure,
  FixtureOutcome,
  RaceFailure,
  UnrepeatedFailure,
} from './check/index.ts';
export { assertCheck, runCheck } from './check/index.ts';

// Targets: the interface an implementation is driven through, and this project's stores behind it.
export type { Adapter, AdapterFactory } from './adapter.ts';
export type { JobStoreClass } from './stores/jobStore.ts';
export { jobStoreFactory } from './stores/jobStore.ts';
export { modelFactory } from './stores/model.ts';
export type { SqliteFactoryOptions, SqliteRestart } from './stores/sqlite.ts';
export { sqliteFactory } from './stores/sqlite.ts';
export type { AdapterErrorCode, GuardOptions } from './stores/guarded.ts';
export { AdapterError, guardedFactory } from './stores/guarded.ts';
export { DriverMissingError } from '../impl/DriverMissingError.ts';

// Targets for competing workers: lanes that take requests at once (the campaign is in jobcheck/concurrent).
export type { ConcurrentAdapter, ConcurrentFactory } from './concurrent/index.ts';
export { IndefiniteOutcome } from './concurrent/index.ts';
export type { SqliteConcurrentOptions } from './stores/sqliteConcurrent.ts';
export { sqliteConcurrentFactory } from './stores/sqliteConcurrent.ts';
export type { PostgresConcurrentOptions } from './stores/postgresConcurrent.ts';
export { postgresConcurrentFactory } from './stores/postgresConcurrent.ts';
export type { LaneAdapterErrorCode } from './stores/laneErrors.ts';
export { LaneAdapterError } from './stores/laneErrors.ts';

// One method at a time, for a finer check than runCheck: the path suite, the campaign, one run.
export type { PathOutcome, PathSuiteOptions, PathSuiteResult } from './paths/pathSuite.ts';
export { runPathSuite } from './paths/pathSuite.ts';
export type { CampaignOptions, CampaignProgress, CampaignResult } from './random/campaign.ts';
export { runCampaign } from './random/campaign.ts';
export type { Divergence, LockstepOptions, LockstepResult, LockstepStep, RunInput } from './lockstep/index.ts';
export { runLockstep } from './lockstep/index.ts';
export { assertConforms, assertPathsConform } from './assert.ts';

// Profiles: a queue checked rule by rule, each rule conforming, departing, unsupported or not reached.
export type {
  Departure,
  Profile,
  ProfileOptions,
  ProfileTarget,
  RuleDeclaration,
  RuleResult,
  RuleStatus,
} from './profile/index.ts';
export {
  PROFILE_FORMAT,
  ProfileError,
  profileSchema,
  renderProfileMarkdown,
  renderProfileText,
  runProfile,
} from './profile/index.ts';

// Stories: a failure told step by step, whichever method found it.
export type { FailureStoryHints } from './check/index.ts';
export { renderCheckFailure } from './check/index.ts';
export type { StoryContext } from './lockstep/story.ts';
export { renderStory } from './lockstep/story.ts';

// Artifacts: a failure as a portable file, checked against the model and replayed on any implementation.
export type { Artifact, ArtifactStep } from './lockstep/artifact.ts';
export {
  ARTIFACT_FORMAT,
  parseArtifact,
  readArtifact,
  replayArtifact,
  toArtifact,
  verifyArtifact,
  writeArtifact,
} from './lockstep/artifact.ts';

// Coverage: what a check exercised, merged across shards, written as JSON, Markdown and HTML.
export type { Coverage, CoverageCategory } from './coverage/coverage.ts';
export { COVERAGE_FORMAT, coverageOf, mergeCoverage } from './coverage/coverage.ts';
export type { CoverageFiles, CoverageReportOptions } from './coverage/coverageFiles.ts';
export { parseCoverage, readCoverage, writeCoverageReport } from './coverage/coverageFiles.ts';
export type {
  CheckReportContext,
  CoverageHtmlOptions,
  MergedReportContext,
  ReportContext,
} from './coverage/coverageReport.ts';
export { coverageHtml, coverageMarkdown } from './coverage/coverageReport.ts';

// Time and misuse: a check's budget, and the typed errors of the engine.
export { Budget, TimeLimitReached, isTimeLimit } from './budget.ts';
export type { ConformanceErrorCode } from './errors.ts';
export { ConformanceError } from './errors.ts';

// Other faces of the package: the protocol's harness (jobcheck/protocol), competing workers
// (jobcheck/concurrent), the crash campaign (jobcheck/crash); each sub-room's index.ts lists its own.
// Not exported: the broken variants (the engine's own test material, reached only through
// conformance/broken/index.ts by check/ and entry points), the generators, comparison and coverage
// internals the methods share, and the scripts that write reports (not a library).
