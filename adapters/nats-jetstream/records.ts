/**
 * What the adapter remembers of each job, and how a job reads back as the contract's record.
 *
 * JetStream keeps, per message, only whether it is still in the stream: a pull consumer's pending
 * list (which delivery holds a message, when its ack wait ends, whether a nak delay runs) is not
 * readable message by message. So the snapshot is the adapter's record of what the broker told
 * it (the deliveries it handed out, with their delivery counts and reply subjects; the naks, terms
 * and acks it sent and the broker confirmed), read at the contract's clock, plus the one fact the
 * broker answers per message: whether the stream still holds it. It keeps no failure text (a nak
 * or a term carries none in 2.9) and no record of a message the broker dropped: a message gone
 * from a work-queue stream reads as settled (`done`), whether it was acknowledged or terminated,
 * since the broker keeps nothing that tells them apart (docs/declarations.md). One still there
 * after its last delivery is dead, as the broker keeps it, of exhausted attempts whether that
 * delivery ended by a nak or by its ack wait (the broker's MAX_DELIVERIES says which no more than
 * the stream does). Where the broker departs in time (a
 * redelivery earlier or later than the lease), the replies show it: a claim gets the message, or
 * does not.
 */
import type { JobRecord } from '../../contract/index.ts';

/** The job's data as published (the message body). */
export interface JobData {
  readonly account: string;
  readonly key: string;
  readonly amount: number;
  readonly deadline: number;
}

/** One delivery the adapter handed out as a contract token. */
export interface DeliveryRecord {
  readonly token: number;
  /** The stream sequence of the message delivered. */
  readonly seq: number;
  /** The reply subject of this delivery (`$JS.ACK.<stream>.<consumer>.<count>.<seq>.…`): what an ack is sent to. */
  readonly reply: string;
  readonly worker: string;
  /** JetStream's delivery count of this delivery. */
  readonly count: number;
  /** The contract's lease end: the tick of the claim plus the lease. */
  readonly leaseUntil: number;
}

/** The last thing the broker confirmed for a job, as the adapter saw it. */
export type JobEvent =
  | { readonly kind: 'stored' }
  | { readonly kind: 'delivered'; readonly token: number }
  | { readonly kind: 'nak'; readonly notBefore: number }
  | { readonly kind: 'exhausted' }
  | { readonly kind: 'term' }
  | { readonly kind: 'ack' };

/** A job the stream stored. */
export interface JobEntry {
  readonly id: string;
  readonly seq: number;
  readonly data: JobData;
  attempts: number;
  last: JobEvent;
}

/**
 * The contract's record of a job at `clock`, given whether the stream still holds its message and
 * the consumer's `max_deliver`. Pure.
 */
export function jobRecord(
  job: JobEntry,
  inStream: boolean,
  clock: number,
  maxDeliver: number,
  delivery: (token: number) => DeliveryRecord | undefined,
): JobRecord {
  const base = { payload: { ...job.data }, seq: job.seq, attempts: job.attempts };
  // A work-queue stream drops a message once it is acknowledged or terminated, and keeps nothing of which.
  if (!inStream) return { ...base, status: 'done' };
  const last = job.last;
  switch (last.kind) {
    case 'stored':
    case 'ack': // acknowledged, yet still in the stream: read as the broker keeps it, deliverable
      return { ...base, status: 'ready' };
    case 'term': // terminated, yet still in the stream: as the broker keeps it, never delivered again
      return { ...base, status: 'dead', reason: 'permanent' };
    case 'exhausted':
      return { ...base, status: 'dead', reason: 'attempts_exhausted' };
    case 'nak':
      return clock < last.notBefore
        ? { ...base, status: 'waiting', notBefore: last.notBefore }
        : { ...base, status: 'ready' };
    case 'delivered': {
      const d = delivery(last.token);
      if (d !== undefined && clock < d.leaseUntil)
        return { ...base, status: 'running', token: d.token, owner: d.worker, leaseUntil: d.leaseUntil };
      return job.attempts >= maxDeliver
        ? { ...base, status: 'dead', reason: 'attempts_exhausted' }
        : { ...base, status: 'ready' };
    }
  }
}
