/**
 * The conformance engine: holds any implementation of the contract against the reference model.
 * Entry points: `runCheck` (the whole check, as `jobcheck check` runs it: fixtures, paths,
 * campaign, exploration, competing workers), `runCampaign`, `runPathSuite`, `replayArtifact`;
 * results are data, told to people by `renderCheckFailure`, `renderStory` and the coverage
 * reports. `assertCheck` / `assertConforms` / `assertPathsConform` throw for test runners.
 */
export type { Adapter, AdapterFactory } from './adapter.ts';
export type { JobStoreClass } from './stores/jobStore.ts';
export { JobStoreAdapter, jobStoreFactory } from './stores/jobStore.ts';
export { ModelAdapter, modelFactory, modelStoreMaker } from './stores/model.ts';
export type { SqliteFactoryOptions, SqliteRestart } from './stores/sqlite.ts';
export { SqliteAdapter, sqliteFactory } from './stores/sqlite.ts';
export { SqliteConcurrentAdapter, sqliteConcurrentFactory } from './stores/sqliteConcurrent.ts';
export { PostgresConcurrentAdapter, postgresConcurrentFactory } from './stores/postgresConcurrent.ts';
export { LaneAdapterError, STORE_ERROR, isStoreError, storeErrorReply } from './stores/laneErrors.ts';
export type { AdapterErrorCode, GuardOptions } from './stores/guarded.ts';
export { AdapterError, guardedFactory } from './stores/guarded.ts';
export { DriverMissingError } from '../impl/DriverMissingError.ts';
export type { Scenario } from './random/arbitraries.ts';
export {
  ACCOUNTS,
  JOB_IDS,
  KEYS,
  configArb,
  scenarioArb,
  settleTimeArb,
  symbolicCommandArb,
  timeArb,
  tokenArb,
  workerRefArb,
} from './random/arbitraries.ts';
export type { Artifact, ArtifactStep } from './lockstep/artifact.ts';
export {
  ARTIFACT_FORMAT,
  MAX_ARTIFACT_BYTES,
  parseArtifact,
  readArtifact,
  replayArtifact,
  toArtifact,
  verifyArtifact,
  writeArtifact,
} from './lockstep/artifact.ts';
export { Budget, TimeLimitReached, isTimeLimit } from './budget.ts';
export { assertConforms, assertPathsConform } from './assert.ts';
export type { BrokenVariant } from './broken/index.ts';
export { BROKEN_VARIANTS, brokenVariant } from './broken/index.ts';
export type { CampaignOptions, CampaignProgress, CampaignResult } from './random/campaign.ts';
export { runCampaign } from './random/campaign.ts';
// CheckResult is a deprecated alias of CheckReport (the former path-suite-and-campaign check's result).
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
  FailureStoryHints,
  FixtureFailure,
  FixtureOutcome,
  RaceFailure,
  UnrepeatedFailure,
} from './check/index.ts';
export { assertCheck, renderCheckFailure, renderFixtureStory, runCheck } from './check/index.ts';
export type { Difference } from './lockstep/compare.ts';
export {
  allDifferences,
  comparableReply,
  describeDifference,
  firstDifference,
  replyDifference,
  showValue,
} from './lockstep/compare.ts';
export type { Coverage, CoverageCategory } from './coverage/coverage.ts';
export {
  ADMITTED_ONLY,
  COVERAGE_CATEGORIES,
  COVERAGE_FORMAT,
  CoverageRecorder,
  PATH_BOUND,
  categorySummary,
  coverageOf,
  coverageUniverse,
  emptyCoverage,
  mergeCoverage,
  neverHit,
  shortName,
} from './coverage/coverage.ts';
export type { CoverageFiles, CoverageReportOptions } from './coverage/coverageFiles.ts';
export { parseCoverage, readCoverage, writeCoverageReport } from './coverage/coverageFiles.ts';
export type {
  CheckReportContext,
  CoverageHtmlOptions,
  MergedReportContext,
  ReportContext,
} from './coverage/coverageReport.ts';
export { coverageHtml, coverageMarkdown } from './coverage/coverageReport.ts';
export type { DiagramMark, DiagramOptions } from './coverage/lifecycleDiagram.ts';
export { heatColour, lifecycleDot, lifecycleSvg } from './coverage/lifecycleDiagram.ts';
export type { ConformanceErrorCode } from './errors.ts';
export { ConformanceError } from './errors.ts';
export type { LifecyclePath, PathEvent, Walk } from './paths/lifecyclePaths.ts';
export {
  PATH_CONFIG,
  PATH_DEADLINE,
  PATH_TRAVERSAL_LIMIT,
  abstractState,
  lifecyclePaths,
  walkSize,
} from './paths/lifecyclePaths.ts';
export { jsonValueProblem } from './outside/jsonValue.ts';
export type { Divergence, LockstepOptions, LockstepResult, LockstepStep, RunInput } from './lockstep/index.ts';
export { aliasDifference, runLockstep } from './lockstep/index.ts';
export type { PathOutcome, PathSuiteOptions, PathSuiteResult } from './paths/pathSuite.ts';
export { runPathSuite } from './paths/pathSuite.ts';
export type { StoryContext } from './lockstep/story.ts';
export {
  SHOWN_DIFFERENCES,
  describeCommand,
  describeConfig,
  describeReply,
  renderStory,
  stepRules,
} from './lockstep/story.ts';
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
export type {
  ConcurrentAdapter,
  ConcurrentCampaignOptions,
  ConcurrentCampaignResult,
  ConcurrentFactory,
  History,
  Operation,
  SequentialModel,
} from './concurrent/index.ts';
export {
  CONCURRENT_BROKEN_VARIANTS,
  IndefiniteOutcome,
  checkLinearizability,
  jobModel,
  lockedJobStoreFactory,
  runConcurrentCampaign,
} from './concurrent/index.ts';
export type {
  ResolveMemory,
  ResubmitChange,
  ScriptStep,
  SymbolicCommand,
  TimeRef,
  TokenRef,
  WorkerRef,
} from './lockstep/symbolic.ts';
export {
  MALFORMED_VARIANTS,
  WORKERS,
  describeSymbolic,
  newResolveMemory,
  resolveCommand,
  resolveTime,
} from './lockstep/symbolic.ts';
// The process adapter of the protocol has its own index (conformance/protocol/index.ts), and so
// do competing workers (conformance/concurrent/index.ts), the crash campaign (conformance/crash/index.ts) and the broken SQLite variants
// (conformance/broken/sqlite/index.ts, conformance/broken/postgres/index.ts).
// Not exported here: the broken variants' classes (reach them through BROKEN_VARIANTS, or import
// conformance/broken/index.ts to subclass further), and the coverage script
// (scripts/coverage.ts, not a library).
