/**
 * Where each job is, read off a snapshot: the lit states of the failure story's diagram. A
 * snapshot from an implementation is untrusted (it diverged from the model, it may be malformed),
 * so anything that is not a job record with a known status is left out rather than guessed.
 */
import type { JobStatus } from '../../../contract/index.ts';
import { JOB_STATES } from '../../../model/index.ts';

/** Each job's lifecycle status, by job id. */
export type JobStatuses = Readonly<Record<string, JobStatus>>;

const isStatus = (v: unknown): v is JobStatus => typeof v === 'string' && (JOB_STATES as readonly string[]).includes(v);

/** The status of every job of a snapshot whose record has a known status (malformed records are left out). Pure. */
export function jobStatuses(snapshot: unknown): JobStatuses {
  const out: Record<string, JobStatus> = {};
  const jobs = (snapshot as { jobs?: unknown } | null | undefined)?.jobs;
  if (typeof jobs !== 'object' || jobs === null || Array.isArray(jobs)) return out;
  for (const [id, record] of Object.entries(jobs)) {
    const status = (record as { status?: unknown } | null)?.status;
    if (isStatus(status)) out[id] = status;
  }
  return out;
}

/** True when `value` names one of the lifecycle's states. Pure. */
export const isJobStatus = isStatus;
