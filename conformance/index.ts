/**
 * The conformance engine: holds any implementation of the contract against the reference model.
 * Entry points: `runCheck` (path suite + campaign), `runCampaign`, `runPathSuite`,
 * `replayArtifact`; results are data, told to people by `renderStory` and the coverage reports.
 * `assertConforms` / `assertPathsConform` throw for test runners.
 */
export type { Adapter, AdapterFactory } from './adapter.ts';
export type { JobStoreClass } from './adapters/jobStore.ts';
export { JobStoreAdapter, jobStoreFactory } from './adapters/jobStore.ts';
export { ModelAdapter, modelFactory, modelStoreMaker } from './adapters/model.ts';
export type { SqliteFactoryOptions, SqliteRestart } from './adapters/sqlite.ts';
export { SqliteAdapter, sqliteFactory } from './adapters/sqlite.ts';
export { SqliteConcurrentAdapter, sqliteConcurrentFactory } from './adapters/sqliteConcurrent.ts';
export { PostgresConcurrentAdapter, postgresConcurrentFactory } from './adapters/postgresConcurrent.ts';
export { LaneAdapterError, STORE_ERROR, isStoreError, storeErrorReply } from './adapters/laneErrors.ts';
export type { AdapterErrorCode, GuardOptions } from './adapters/guarded.ts';
export { AdapterError, guardedFactory } from './adapters/guarded.ts';
export type { Scenario } from './arbitraries.ts';
export { ACCOUNTS, JOB_IDS, KEYS, configArb, scenarioArb, settleTimeArb, symbolicCommandArb, timeArb, tokenArb, workerRefArb } from './arbitraries.ts';
export type { Artifact, ArtifactStep } from './artifact.ts';
export { ARTIFACT_FORMAT, MAX_ARTIFACT_BYTES, parseArtifact, readArtifact, replayArtifact, toArtifact, verifyArtifact, writeArtifact } from './artifact.ts';
export { Budget, TimeLimitReached, isTimeLimit } from './budget.ts';
export { assertConforms, assertPathsConform } from './assert.ts';
export type { BrokenVariant } from './broken/index.ts';
export { BROKEN_VARIANTS, brokenVariant } from './broken/index.ts';
export type { CampaignOptions, CampaignProgress, CampaignResult } from './campaign.ts';
export { runCampaign } from './campaign.ts';
export type { CheckOptions, CheckResult } from './check.ts';
export { runCheck } from './check.ts';
export type { Difference } from './compare.ts';
export { allDifferences, comparableReply, describeDifference, firstDifference, replyDifference, showValue } from './compare.ts';
export type { Coverage, CoverageCategory } from './coverage.ts';
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
} from './coverage.ts';
export type { CoverageFiles, CoverageReportOptions } from './coverageFiles.ts';
export { parseCoverage, readCoverage, writeCoverageReport } from './coverageFiles.ts';
export type { CheckReportContext, CoverageHtmlOptions, MergedReportContext, ReportContext } from './coverageReport.ts';
export { coverageHtml, coverageMarkdown } from './coverageReport.ts';
export type { DiagramMark, DiagramOptions } from './lifecycleDiagram.ts';
export { heatColour, lifecycleDot, lifecycleSvg } from './lifecycleDiagram.ts';
export type { ConformanceErrorCode } from './errors.ts';
export { ConformanceError } from './errors.ts';
export type { LifecyclePath, PathEvent, Walk } from './lifecyclePaths.ts';
export { PATH_CONFIG, PATH_DEADLINE, PATH_TRAVERSAL_LIMIT, abstractState, lifecyclePaths, walkSize } from './lifecyclePaths.ts';
export { jsonValueProblem } from './jsonValue.ts';
export type { Divergence, LockstepOptions, LockstepResult, LockstepStep, RunInput } from './lockstep.ts';
export { aliasDifference, runLockstep } from './lockstep.ts';
export type { PathOutcome, PathSuiteOptions, PathSuiteResult } from './pathSuite.ts';
export { runPathSuite } from './pathSuite.ts';
export type { StoryContext } from './story.ts';
export { SHOWN_DIFFERENCES, describeCommand, describeConfig, describeReply, renderStory, stepRules } from './story.ts';
export type { Departure, Profile, ProfileOptions, ProfileTarget, RuleDeclaration, RuleResult, RuleStatus } from './profile/index.ts';
export { PROFILE_FORMAT, ProfileError, profileSchema, renderProfileMarkdown, renderProfileText, runProfile } from './profile/index.ts';
export type { ConcurrentAdapter, ConcurrentCampaignOptions, ConcurrentCampaignResult, ConcurrentFactory, History, Operation, SequentialModel } from './concurrent/index.ts';
export { CONCURRENT_BROKEN_VARIANTS, IndefiniteOutcome, checkLinearizability, jobModel, lockedJobStoreFactory, runConcurrentCampaign } from './concurrent/index.ts';
export type { ResolveMemory, ResubmitChange, ScriptStep, SymbolicCommand, TimeRef, TokenRef, WorkerRef } from './symbolic.ts';
export { MALFORMED_VARIANTS, WORKERS, describeSymbolic, newResolveMemory, resolveCommand, resolveTime } from './symbolic.ts';
// The process adapter of the protocol has its own index (conformance/protocol/index.ts), and so
// do competing workers (conformance/concurrent/index.ts), the crash campaign (conformance/crash/index.ts) and the broken SQLite variants
// (conformance/broken/sqlite/index.ts, conformance/broken/postgres/index.ts).
// Not exported here: the broken variants' classes (reach them through BROKEN_VARIANTS, or import
// conformance/broken/index.ts to subclass further), and the coverage command's entry point
// (conformance/coverageMain.ts, a script, not a library).
