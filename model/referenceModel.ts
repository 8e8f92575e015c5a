/**
 * The reference step: the model's three steps with every transition, the store's and each job's,
 * taken by xstate's own `transition` (pureTransition.ts), xstate snapshots all the way down, and
 * commands validated by the zod schema alone. This is how the model's step worked before it ran
 * the machines' compiled tables (runMachine.ts); it stays as the yardstick the fast step is held
 * equal to (conformance/fastStepEqualsReference.test.ts) and measured against (bench/modelStep.ts).
 *
 * A plain state given to it (from the fast step) is turned into an xstate snapshot first, and so
 * is a plain job before xstate takes an event in it (newly admitted jobs are plain: admission is
 * part of the store machine's definition, shared by both steps).
 */
import { parseCommandBySchema, parseConfig } from '../contract/index.ts';
import { jobMachine } from './jobMachine.ts';
import { isActorSnapshot } from './machineState.ts';
import { referenceTransition } from './referenceTransition.ts';
import { restoredContext } from './restoredContext.ts';
import { withReferenceJobs } from './sendToJob.ts';
import type { Model, ModelMachines, ModelState, StepChoice, StepResult } from './step.ts';
import { emptyStore, storeMachine } from './storeMachine.ts';
import type { JobSnapshot, StoreContext, StoreEvent } from './storeMachine.ts';
import { threeSteps } from './threeSteps.ts';

/** A state as an xstate snapshot of its own machine (the same object when it already is one). Pure. */
function asSnapshot(state: ModelState): ModelState {
  if (isActorSnapshot(state)) return state;
  return state.machine.resolveState({ value: 'open', context: state.context }) as unknown as ModelState;
}

function takeEvent(state: ModelState, event: StoreEvent): ModelState {
  const snapshot = asSnapshot(state);
  return referenceTransition(snapshot.machine)(snapshot as never, event) as unknown as ModelState;
}

/**
 * The reference model over the given machines (default: the reference machines): states are
 * xstate snapshots, every transition is xstate's. Pure.
 */
export function buildReferenceModel(machines: ModelMachines = { store: storeMachine, job: jobMachine }): Model {
  const fromContext = (context: StoreContext): ModelState =>
    machines.store.resolveState({ value: 'open', context }) as unknown as ModelState;
  const jobOf = (status: JobSnapshot['value'], context: JobSnapshot['context']): JobSnapshot =>
    machines.job.resolveState({ value: status, context }) as unknown as JobSnapshot;
  return {
    initialState: (config) => fromContext(emptyStore(parseConfig(config))),
    step: (state, command, choice) =>
      withReferenceJobs(() => threeSteps(takeEvent, parseCommandBySchema, state, command, choice)),
    fromSnapshot: (input) => fromContext(restoredContext(input, jobOf)),
  };
}

const reference = buildReferenceModel();

/** The reference model's step (xstate's transitions, the zod schema alone); see `step` for the contract. Pure. */
export function referenceStep(state: ModelState, command: unknown, choice?: StepChoice): StepResult {
  return reference.step(state, command, choice);
}
