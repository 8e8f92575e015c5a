/**
 * The time arithmetic every store shares: saturating sums, the capped exponential retry delay,
 * and the instant at which an unresolved job next moves by itself. It lives here rather than in
 * one store's file so that the three stores (memory, SQLite, PostgreSQL) take it from one place;
 * the reference model has its own copy (model/jobMachine.ts), which conformance holds this against.
 */
import type { JobStatus } from '../../contract/index.ts';

/** Largest time value; sums of times saturate here rather than leave the safe-integer range. */
export const TIME_MAX = Number.MAX_SAFE_INTEGER;

/** `a + b` for non-negative times, saturating at TIME_MAX. Pure. */
export function addTime(a: number, b: number): number {
  return a > TIME_MAX - b ? TIME_MAX : a + b;
}

/** The retry delay after `attempts` deliveries: `min(base * 2^(attempts-1), cap)`, without overflow. Pure. */
export function retryDelay(base: number, cap: number, attempts: number): number {
  let delay = base;
  for (let i = 1; i < attempts && delay < cap; i++) delay *= 2;
  return Math.min(delay, cap);
}

/** What `dueOf` reads of a job; times that do not apply to its status may be null (or any number). */
export interface TimedJob {
  readonly status: JobStatus;
  readonly deadline: number;
  readonly leaseUntil: number | null;
  readonly notBefore: number | null;
}

/**
 * The next instant at which an unresolved job moves by itself (ready: its deadline; running: the
 * earlier of lease end and deadline; waiting: the earlier of backoff end and deadline), or null
 * once it is terminal. Pure.
 */
export function dueOf(job: TimedJob): number | null {
  switch (job.status) {
    case 'running':
      return Math.min(job.leaseUntil as number, job.deadline);
    case 'waiting':
      return Math.min(job.notBefore as number, job.deadline);
    case 'ready':
      return job.deadline;
    default:
      return null;
  }
}

/** Ready, waiting and running jobs are unresolved: they count against capacity and hold their account. Pure. */
export const isUnresolvedStatus = (status: JobStatus): boolean =>
  status === 'ready' || status === 'waiting' || status === 'running';
