/**
 * Competing workers: concurrent histories of any implementation, checked for linearizability
 * against the model. The checker (linearizability.ts) is generic: it knows a history and a pure
 * sequential model, nothing of jobs (kvRegister.ts is a second model it is tested with).
 */
export type { ConcurrentAdapter, ConcurrentFactory } from './adapter.ts';
export { IndefiniteOutcome } from './adapter.ts';
export type {
  CheckBudget,
  CheckOutcome,
  History,
  Operation,
  SequentialModel,
  UnknownReason,
  Witness,
} from './history.ts';
export type { HistoryErrorCode, SearchHints } from './linearizability.ts';
export {
  DEFAULT_MAX_MEMORY_BYTES,
  DEFAULT_MAX_STEPS,
  HistoryError,
  checkLinearizability,
  defaultMaxMemoryBytes,
} from './linearizability.ts';
export { mergeOrders, partitionHistory } from './partition.ts';
export type { KvInput, KvOutput, KvState } from './kvRegister.ts';
export { kvRegister } from './kvRegister.ts';
export type { SnapshotRequest } from './jobModel.ts';
export type { JobModelComparison } from './jobModel.ts';
export {
  SNAPSHOT_REQUEST,
  isSnapshotRequest,
  jobModel,
  modelStateKey,
  sameJobReply,
} from './jobModel.ts';
export { withoutFields } from '../lockstep/compare.ts';
export type { ScenarioRestriction } from './restriction.ts';
export {
  CAPACITY_OUT_OF_REACH,
  FAR_DEADLINE_IN,
  isUnrestricted,
  restrictScenario,
  restrictedScenarioArb,
  restrictionBroken,
} from './restriction.ts';
export type { ConcurrentCampaignErrorCode, ConcurrentCampaignOptions } from './campaign.ts';
export type { ConcurrentCampaignResult, ConcurrentFailure, ImplementationFailed, NotLinearizable } from './result.ts';
export { couldNotBeCreated } from './result.ts';
export { ConcurrentCampaignError, runConcurrentCampaign } from './campaign.ts';
export type {
  ConcurrentCommand,
  ConcurrentRequest,
  ConcurrentRound,
  ConcurrentScenario,
  ConcurrentScenarioOptions,
  DeliveryRef,
  RoundTime,
} from './generate.ts';
export { concurrentConfigArb, concurrentScenarioArb, laneWorker, requestCount } from './generate.ts';
export { STALE_ACK_CONFIG, staleAckScenario } from './staleAck.ts';
export type { ConcurrentRun, JobHistory, RunOptions, SentRequest, SentRound, Settle } from './run.ts';
export { DEFAULT_HANG_GRACE_MS, runScenario } from './run.ts';
export type { AsyncJobStoreClass, Pause, PauseMaker, SchedulableFactory } from './inProcess.ts';
export {
  AsyncJobStore,
  AsyncMutex,
  asyncJobStoreFactory,
  isSchedulable,
  lockedJobStoreFactory,
  sequentialFactory,
} from './inProcess.ts';
export type { ConcurrentStoryContext } from './story.ts';
export { renderConcurrentStory } from './story.ts';
export type { TimelineOptions } from './timeline.ts';
export { renderTimeline } from './timeline.ts';
export type { JepsenOptions, PorcupineOperation } from './export.ts';
export { porcupineOperations, toJepsen, toPorcupine } from './export.ts';
export type { ClosestOrder, ModelStateView, OrderPlace, OrderedRequest } from './closestOrder.ts';
export { closestOrder } from './closestOrder.ts';
