/**
 * What a durable store works on during one command, whatever its database: the clock and
 * counters of its `meta` row, and a job as its row, strings decoded. The SQLite and PostgreSQL
 * stores read these from their rows and write them back.
 */
import type { DeadReason, JobStatus } from '../../contract/index.ts';

/** The clock and the counters, as one command reads and changes them (the `meta` row). */
export interface Counters {
  clock: number;
  nextToken: number;
  nextSeq: number;
  unresolved: number;
}

/** A job as one command works on it: its row, strings decoded. */
export interface Job {
  readonly seq: number;
  readonly id: string;
  readonly account: string;
  readonly key: string;
  readonly amount: number;
  readonly deadline: number;
  status: JobStatus;
  attempts: number;
  token: number | null;
  owner: string | null;
  leaseUntil: number | null;
  notBefore: number | null;
  reason: DeadReason | null;
  lastError: string | null;
  /** Ready and the head of its account. */
  claimable: boolean;
}
