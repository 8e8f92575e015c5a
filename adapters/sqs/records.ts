/**
 * What the adapter remembers of each message, and how a job reads back as the contract's record.
 * SQS cannot be read message by message (GetQueueAttributes gives counts only, and a receive is a
 * delivery), so, as for JetStream, the snapshot is the adapter's record of what SQS answered: the
 * sends it confirmed, the deliveries it handed out with their receive counts, the deletes and
 * visibility changes it confirmed, and the dead letters the adapter received from the dead-letter
 * queue, read at the contract's clock. A message SQS dropped leaves no record: a deleted message
 * reads as `done` whether the worker acknowledged it or gave up on it. Where SQS departs in time or
 * in what it delivers, the replies show it: a claim gets the message, or does not.
 */
import type { JobRecord } from '../../contract/index.ts';

/** The job's data, as the message body carries it (with the job's id, which SQS does not keep). */
export interface JobData {
  readonly id: string;
  readonly account: string;
  readonly key: string;
  readonly amount: number;
  readonly deadline: number;
}

/** One delivery the adapter handed out as a contract token. */
export interface Delivery {
  readonly token: number;
  readonly messageId: string;
  /** The receipt handle SQS gave this receive: what a delete or a visibility change names. */
  readonly handle: string;
  readonly worker: string;
  /** SQS's ApproximateReceiveCount of this receive. */
  readonly count: number;
  /** The contract's lease end: the tick of the claim plus the lease. */
  readonly leaseUntil: number;
}

/** The last thing SQS confirmed for a message, as the adapter saw it. */
export type MessageEvent =
  | { readonly kind: 'sent' }
  | { readonly kind: 'delivered'; readonly token: number }
  | { readonly kind: 'delayed'; readonly notBefore: number }
  | { readonly kind: 'exhausted' }
  | { readonly kind: 'deleted' }
  | { readonly kind: 'dead-lettered' };

/** A message SQS accepted, under the contract's name. */
export interface MessageEntry {
  readonly messageId: string;
  readonly seq: number;
  readonly data: JobData;
  attempts: number;
  last: MessageEvent;
}

/** The contract's record of a message at `clock`, given the redrive policy's maxReceiveCount. Pure. */
export function jobRecord(
  entry: MessageEntry,
  clock: number,
  maxReceiveCount: number,
  delivery: (token: number) => Delivery | undefined,
): JobRecord {
  const { id: _id, ...payload } = entry.data;
  const base = { payload, seq: entry.seq, attempts: entry.attempts };
  const last = entry.last;
  switch (last.kind) {
    case 'sent':
      return { ...base, status: 'ready' };
    case 'deleted':
      return { ...base, status: 'done' };
    case 'exhausted':
    case 'dead-lettered':
      // SQS writes no reason on a dead letter: it moved after maxReceiveCount receives, however they ended.
      return { ...base, status: 'dead', reason: 'attempts_exhausted' };
    case 'delayed':
      return clock < last.notBefore
        ? { ...base, status: 'waiting', notBefore: last.notBefore }
        : { ...base, status: 'ready' };
    case 'delivered': {
      const d = delivery(last.token);
      if (d !== undefined && clock < d.leaseUntil)
        return { ...base, status: 'running', token: d.token, owner: d.worker, leaseUntil: d.leaseUntil };
      return entry.attempts >= maxReceiveCount
        ? { ...base, status: 'dead', reason: 'attempts_exhausted' }
        : { ...base, status: 'ready' };
    }
  }
}
