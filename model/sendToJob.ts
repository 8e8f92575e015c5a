/**
 * Sending one event to one job, as the store machine's actions do (and the variants' store
 * actions), and recording the step it took for traces and coverage.
 *
 * A job is stepped on its own machine (`job.machine`): the model's fast step runs that machine's
 * compiled tables (runMachine.ts); inside the reference step (referenceModel.ts, which wraps its
 * store transition in `withReferenceJobs`) xstate transitions the job instead, turning a plain job
 * into an xstate snapshot first. The switch is module state set around one synchronous store
 * transition and restored after it, so both steps stay pure functions to their callers.
 */
import type { DeadReason, JobStatus } from '../contract/index.ts';
import type { JobContext, JobEvent, jobMachine } from './jobMachine.ts';
import { isActorSnapshot } from './machineState.ts';
import type { MachineState } from './machineState.ts';
import { referenceTransition } from './referenceTransition.ts';
import { runMachine } from './runMachine.ts';

/** A job inside the model: a state of its own lifecycle machine (a plain state, or an xstate snapshot in the reference). */
export type JobSnapshot = MachineState<typeof jobMachine, JobContext, JobStatus>;

/** One transition a job took during a command, as recorded for traces and coverage. */
export interface JobStep {
  readonly job: string;
  readonly from: JobStatus;
  readonly event: JobEvent['type'];
  readonly to: JobStatus;
  /** Set when `to` is `dead`. */
  readonly reason?: DeadReason;
}

let byXstate = false;

/**
 * Runs `run` with every job event taken by xstate's own transition (the reference step's jobs).
 * Pure apart from calling `run`.
 */
export function withReferenceJobs<T>(run: () => T): T {
  const outer = byXstate;
  byXstate = true;
  try {
    return run();
  } finally {
    byXstate = outer;
  }
}

function stepJob(job: JobSnapshot, event: JobEvent): JobSnapshot {
  if (!byXstate) return runMachine(job, event);
  const machine = job.machine;
  const snapshot = isActorSnapshot(job) ? job : machine.resolveState({ value: job.value, context: job.context });
  return referenceTransition(machine)(snapshot as never, event) as unknown as JobSnapshot;
}

/** Sends one event to one job, purely, and records the step it took (if it moved, or committed). Pure. */
export function sendToJob(job: JobSnapshot, event: JobEvent): { job: JobSnapshot; step: JobStep | undefined } {
  const next = stepJob(job, event);
  const from = job.value;
  const to = next.value;
  // A commit moves nothing but is still a lifecycle transition (running -> running), so it is recorded.
  if (from === to && event.type !== 'COMMIT') return { job: next, step: undefined };
  const reason = to === 'dead' ? next.context.reason : undefined;
  // One literal for each shape, not `{ ...step, reason }`: V8 in Node 20 builds a new hidden class
  // for every object that spread makes, which leaves every reader of the steps megamorphic.
  const step: JobStep =
    reason === undefined
      ? { job: job.context.id, from, event: event.type, to }
      : { job: job.context.id, from, event: event.type, to, reason };
  return { job: next, step };
}
