/**
 * The canonical record of a job (contract section 9), built from a store's own fields: the
 * memory store's JobEntry and the durable stores' rows alike. One function, so that the three
 * snapshots cannot differ in which fields a status has, or in their order.
 */
import type { DeadReason, JobRecord, JobStatus, Payload } from '../../contract/index.ts';

/** What a record is built from; fields a status does not have are ignored (sentinels or null). */
export interface RecordFields {
  readonly seq: number;
  readonly account: string;
  readonly key: string;
  readonly amount: number;
  readonly deadline: number;
  readonly status: JobStatus;
  readonly attempts: number;
  readonly token: number | null;
  readonly owner: string | null | undefined;
  readonly leaseUntil: number | null;
  readonly notBefore: number | null;
  readonly reason: DeadReason | null | undefined;
  readonly lastError: string | null | undefined;
}

/** The canonical record of a job: a fresh plain object with only the fields its status has. Pure. */
export function jobRecord(job: RecordFields): JobRecord {
  const payload: Payload = { account: job.account, key: job.key, amount: job.amount, deadline: job.deadline };
  const { seq, attempts } = job;
  let record: JobRecord;
  switch (job.status) {
    case 'running':
      record = {
        payload,
        seq,
        status: 'running',
        attempts,
        token: job.token as number,
        owner: job.owner as string,
        leaseUntil: job.leaseUntil as number,
      };
      break;
    case 'waiting':
      record = { payload, seq, status: 'waiting', attempts, notBefore: job.notBefore as number };
      break;
    case 'dead':
      record = { payload, seq, status: 'dead', attempts, reason: job.reason as DeadReason };
      break;
    default:
      // ready or done; or, in the rows of a damaged store file, any other text, which the snapshot schema then refuses.
      record = { payload, seq, status: job.status as 'ready' | 'done', attempts };
      break;
  }
  const lastError = job.lastError;
  // Assigned, not `{ ...record, lastError }`: V8 in Node 20 gives every object made by a spread
  // followed by a new key a hidden class of its own.
  if (lastError !== null && lastError !== undefined) (record as { lastError?: string }).lastError = lastError;
  return record;
}
