/**
 * `jobcheck-history/1`: a recorded history of a real queue, as JSON lines, one event a line
 * (docs/history-format.md). The first line is a `header`, the last an `end` that counts the lines
 * before it (a file without one may be truncated). Between them, each operation is an `invoke`
 * and its `return` (matched by `id`), or one `op` line with both times; `broker` lines record the
 * transitions a client never sees (a lease's expiry, a redelivery, a dead letter).
 *
 * Times are numbers on one scale per file (milliseconds by default); `outcome` is `ok`, `unknown`
 * (the reply was lost: the operation may or may not have taken effect) or a refusal code. Every
 * object is strict: an unknown field is refused, so nothing a recorder wrote is silently dropped.
 * Schemas only; the reader (conformance/audit/read.ts) validates each line through them, once.
 */
import { z } from 'zod';

/** The format's name, as the header carries it. */
export const HISTORY_FORMAT = 'jobcheck-history/1' as const;

/** The operations a worker or producer records. */
export const HISTORY_OPS = ['submit', 'claim', 'commit', 'ack', 'fail', 'extend'] as const;
export type HistoryOp = (typeof HISTORY_OPS)[number];

/** The broker-side transitions a history may carry. */
export const BROKER_EVENTS = ['expired', 'redelivered', 'dead_lettered'] as const;
export type BrokerEvent = (typeof BROKER_EVENTS)[number];

const text = z.string().min(1, 'must be a non-empty string').max(1024, 'must be at most 1024 characters');
const time = z.number().min(0, 'must be >= 0').max(Number.MAX_SAFE_INTEGER, 'must be a safe number');
const outcome = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,63}$/, 'must be ok, unknown or a refusal code (lower-case letters, digits, _)');

/** What a line may say of the job and its delivery (each optional: a recorder writes what it knows). */
const jobFields = {
  /** The job's id. */
  job: text.optional(),
  /** The idempotency key of the job's effect. */
  key: text.optional(),
  /** A hash of the payload (its identity: a second submit of an id with another hash is a conflict). */
  payloadHash: text.optional(),
  /** The account (ordering group) the job belongs to. */
  account: text.optional(),
  /** The delivery token: the name of one handing-out of the job. */
  token: text.optional(),
  /** The attempt number of a delivery (1 for the first). */
  attempt: z.int().min(1, 'must be >= 1').optional(),
  /** The first instant at which the delivery's lease has expired. */
  leaseUntil: time.optional(),
  /** The instant at which the job dies if it is still unresolved. */
  deadline: time.optional(),
  /** A commit's reply: whether the effect was applied (false: the ledger held it already). */
  applied: z.boolean().optional(),
  /** A fail's reply: whether the job will be retried or is dead. */
  next: z.enum(['retry', 'dead']).optional(),
  worker: text.optional(),
  host: text.optional(),
};

/** The first line. */
export const historyHeaderSchema = z.strictObject({
  type: z.literal('header'),
  format: z.literal(HISTORY_FORMAT),
  /** The queue or recorder that wrote the history (`bullmq-redis`, `jobcheck-jobstore`). */
  source: text.optional(),
  /** The unit of every time (default `ms`). */
  timeUnit: z.enum(['ms', 'tick']).optional(),
  /** Most unresolved jobs at once; the capacity check runs only when it is known. */
  capacity: z.int().min(1, 'must be >= 1').optional(),
  /** Whether each account's jobs are delivered in submission order (default true). */
  accountOrder: z.boolean().optional(),
});

/** An operation's request, sent at `at`. */
export const historyInvokeSchema = z.strictObject({
  type: z.literal('invoke'),
  id: text,
  op: z.enum(HISTORY_OPS),
  at: time,
  ...jobFields,
});

/** An operation's completion at `at`, with what the reply said. */
export const historyReturnSchema = z.strictObject({
  type: z.literal('return'),
  id: text,
  at: time,
  outcome,
  ...jobFields,
});

/** An operation in one line: both times and the reply. */
export const historyOperationSchema = z.strictObject({
  type: z.literal('op'),
  id: text,
  op: z.enum(HISTORY_OPS),
  invokedAt: time,
  returnedAt: time,
  outcome,
  ...jobFields,
});

/** A transition the broker reported and no client saw. */
export const historyBrokerSchema = z.strictObject({
  type: z.literal('broker'),
  event: z.enum(BROKER_EVENTS),
  job: text,
  token: text.optional(),
  at: time,
  host: text.optional(),
});

/** The last line: how many lines came before it (the header included). */
export const historyEndSchema = z.strictObject({
  type: z.literal('end'),
  lines: z.int().min(1, 'must be >= 1'),
});

/** Any line of a history. */
export const historyLineSchema = z.discriminatedUnion('type', [
  historyHeaderSchema,
  historyInvokeSchema,
  historyReturnSchema,
  historyOperationSchema,
  historyBrokerSchema,
  historyEndSchema,
]);

export type HistoryHeader = z.infer<typeof historyHeaderSchema>;
export type HistoryInvoke = z.infer<typeof historyInvokeSchema>;
export type HistoryReturn = z.infer<typeof historyReturnSchema>;
export type HistoryOperationLine = z.infer<typeof historyOperationSchema>;
export type HistoryBrokerLine = z.infer<typeof historyBrokerSchema>;
export type HistoryEnd = z.infer<typeof historyEndSchema>;
export type HistoryLine = z.infer<typeof historyLineSchema>;
