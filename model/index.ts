/**
 * The reference model: the xstate machines that specify the job lifecycle and the store policy,
 * and the pure step function over them. Imports only the neutral wire format (contract/).
 */
export type { JobContext, JobEvent, JobInput, JobPolicy } from './jobMachine.ts';
export {
  JOB_STATES,
  TIME_MAX,
  addTime,
  admittedContext,
  admittedJob,
  admittedJobState,
  backoffDelay,
  jobMachine,
  policyOf,
} from './jobMachine.ts';
export type { JobSnapshot, JobStep, StoreContext, StoreEvent } from './storeMachine.ts';
export { claimableHead, emptyStore, isUnresolved, jobByToken, statusOf, storeMachine } from './storeMachine.ts';
export type { ModelState, StepResult } from './step.ts';
export { configOf, fromSnapshot, initialState, step, toSnapshot } from './step.ts';
export type { StoreInvariant } from './invariants.ts';
export { STORE_INVARIANTS, brokenInvariant, violatedInvariant } from './invariants.ts';
export { jobSnapshotOf, modelStateOf } from './stateOf.ts';
export type { LifecycleTransition } from './lifecycle.ts';
export { lifecycleTransitions, transitionOf } from './lifecycle.ts';
export type {
  Fixture,
  FixtureDriver,
  FixtureErrorCode,
  FixtureMismatch,
  FixtureResult,
  FixtureStep,
  PartialJobs,
} from './fixtures.ts';
export {
  FixtureError,
  assertFixture,
  fixtureSchema,
  isSubset,
  listFixtures,
  loadFixture,
  loadFixtures,
  modelDriver,
  parseFixture,
  runFixture,
  scribble,
} from './fixtures.ts';
export type { RuleCarrier, StoreTransition } from './rules.ts';
export {
  RESTART_RULES,
  RULE_CARRIERS,
  carrierOf,
  describeTransition,
  machineGuards,
  rulesExercised,
  storeTransitions,
} from './rules.ts';
export type { Model, ModelMachines, StepChoice } from './step.ts';
export { buildModel } from './step.ts';
export { buildReferenceModel, referenceStep } from './referenceModel.ts';
export type { ExecutedAction } from './actionLog.ts';
export { recordActions } from './actionLog.ts';
export type { MachineState } from './machineState.ts';
export { UnsupportedMachineError, compileMachine } from './compileMachine.ts';
export type { CompiledMachine, CompiledTransition } from './compileMachine.ts';
export type { ModelVariant, VariantName } from './variants.ts';
export { MODEL_VARIANTS, VARIANT_NAMES, composeVariants, modelVariant, uncappedDelay } from './variants.ts';
export type { ExplainOptions, Explanation } from './explain.ts';
export { explainRestart, explainSnapshotCopy, explainStep } from './explain.ts';
