/**
 * Model states built straight from their parts, without validation: for tools that store states
 * in a compact form of their own and turn them back into model states (the explorer of
 * conformance/explore/ keeps its frontier as integers). The result is what `fromSnapshot` builds
 * from the equivalent snapshot, minus the schema check, so it must only be given parts that came
 * out of a model state. Pure.
 */
import type { JobStatus } from '../contract/index.ts';
import { jobMachine } from './jobMachine.ts';
import type { JobContext } from './jobMachine.ts';
import { machineState } from './machineState.ts';
import { storeMachine } from './storeMachine.ts';
import type { JobSnapshot, StoreContext } from './storeMachine.ts';
import type { ModelState } from './step.ts';

/** A job in the given lifecycle state with the given context, as `fromSnapshot` builds one. Pure. */
export function jobSnapshotOf(status: JobStatus, context: JobContext): JobSnapshot {
  return machineState(jobMachine, status, context);
}

/**
 * The model state of a store context (its `reply` and `trace` are those of the last command and
 * are carried as given). Jobs must be in admission order. Pure.
 */
export function modelStateOf(context: StoreContext): ModelState {
  return machineState(storeMachine, 'open', context);
}
