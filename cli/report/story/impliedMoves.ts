/**
 * The move an implementation's answer implies, drawn against the model's at the diverging step.
 *
 * The model records the lifecycle transitions it took (its trace). The implementation records
 * nothing, so its move is inferred: where it says a job is after the step (its snapshot, or
 * failing that its reply: a claim hands out a running job, an ack settles it, a fail names the
 * status) against where the model had the job before the step. Only jobs whose place differs
 * from the model's are moves of their own; a job the model did not have before "enters" (from
 * null).
 */
import type { JobStatus } from '../../../contract/index.ts';
import type { JobStatuses } from './jobStatuses.ts';
import { isJobStatus, jobStatuses } from './jobStatuses.ts';

/** One job going from one state to another (from null: admitted in this step). */
export interface JobMove {
  readonly job: string;
  readonly from: JobStatus | null;
  readonly to: JobStatus;
}

const field = (v: unknown, key: string): unknown =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>)[key] : undefined;

/** Where a reply says a job went: claim → running, ack → done, fail → its status, a new submit → ready. Pure. */
export function statusesFromReply(reply: unknown): JobStatuses {
  if (field(reply, 'ok') !== true) return {};
  const type = field(reply, 'type');
  const id = field(reply, 'id');
  if (type === 'claim') {
    const job = field(field(reply, 'job'), 'id');
    return typeof job === 'string' ? { [job]: 'running' } : {};
  }
  if (typeof id !== 'string') return {};
  if (type === 'ack') return { [id]: 'done' };
  if (type === 'submit' && field(reply, 'duplicate') === false) return { [id]: 'ready' };
  const status = field(reply, 'status');
  if (type === 'fail' && isJobStatus(status)) return { [id]: status };
  return {};
}

/**
 * Where the implementation has each job after the step: its snapshot's statuses when it gave a
 * snapshot with jobs, else what its reply implies. Pure.
 */
export function implStatuses(implSnapshot: unknown, implReply: unknown): JobStatuses {
  const fromSnapshot = jobStatuses(implSnapshot);
  return Object.keys(fromSnapshot).length > 0 ? fromSnapshot : statusesFromReply(implReply);
}

/**
 * The moves the implementation's answer implies that differ from the model's: for each job the
 * implementation places elsewhere than the model does after the step, from where the model had
 * it before the step to where the implementation has it. Pure.
 */
export function impliedMoves(before: JobStatuses, modelAfter: JobStatuses, implAfter: JobStatuses): JobMove[] {
  const moves: JobMove[] = [];
  for (const [job, to] of Object.entries(implAfter)) {
    if (modelAfter[job] === to) continue;
    moves.push({ job, from: before[job] ?? null, to });
  }
  return moves;
}
