/**
 * The jobcheck/1 and jobcheck/2 line protocols as schemas: the requests the harness sends besides the contract's
 * commands (`hello`, `snapshot`, `restore`) and every reply an implementation may write. Both ends
 * use them: the harness checks each reply line against them, a protocol server checks each request
 * (docs/protocol.md is the prose version). Schemas only: reading lines, limits and timeouts belong
 * to whoever holds the pipe.
 *
 * Schemas that accept a reply keep no copy of it: callers validate with them and keep the value
 * they parsed, so that no field is dropped on the way (zod's `record` skips a key named
 * `__proto__`, which an implementation may well send).
 */
import { z } from 'zod';
import { REJECTION_CODES } from './types.ts';

/** The protocol version this contract describes, sent in `hello` and expected back. */
export const PROTOCOL_VERSION = 'jobcheck/1' as const;
/**
 * The backwards-compatible revision for concurrent requests (docs/protocol.md, section 9): the
 * harness offers it in `hello` and falls back to PROTOCOL_VERSION when the implementation refuses
 * it with `unsupported_protocol`. Commands then travel in request envelopes, replies in reply
 * envelopes, matched by id and in any order.
 */
export const PROTOCOL_VERSION_2 = 'jobcheck/2' as const;
/** Every protocol version there is, oldest first. */
export const PROTOCOL_VERSIONS = [PROTOCOL_VERSION, PROTOCOL_VERSION_2] as const;
/** One of PROTOCOL_VERSIONS. */
export type ProtocolVersion = (typeof PROTOCOL_VERSIONS)[number];

/** Message types the protocol reserves for itself; a command may not use them. */
export const PROTOCOL_MESSAGE_TYPES = ['hello', 'snapshot', 'restore'] as const;
/** Whether a request's `type` is one of the protocol's own (any other request is answered as a command). Pure. */
export const isProtocolMessageType = (type: unknown): boolean =>
  (PROTOCOL_MESSAGE_TYPES as readonly unknown[]).includes(type);

/** Codes an implementation may use to refuse `hello`, `snapshot` or `restore` (commands use the contract's codes). */
export const PROTOCOL_REJECTION_CODES = [
  'invalid_argument',
  'unsupported_protocol',
  'invalid_config',
  'invalid_snapshot',
  'storage_unavailable',
] as const;
/** One of PROTOCOL_REJECTION_CODES. */
export type ProtocolRejectionCode = (typeof PROTOCOL_REJECTION_CODES)[number];

/** Dead reasons a `fail` reply can give: the others (`deadline`, `lease_expired`) come only from the clock. */
export const FAIL_DEAD_REASONS = ['permanent', 'attempts_exhausted', 'no_time_for_retry'] as const;

const text = z.string().min(1, 'must be a non-empty string');
const int = z.int();
const time = z.int().min(0, 'must be >= 0');
const positive = z.int().min(1, 'must be >= 1');
const plainObject = z.custom<Record<string, unknown>>(
  (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  'must be an object',
);

/**
 * `hello` as a request: exactly these three fields (the protocol and config are checked next, in
 * that order), and `resume` only towards a durable implementation: the storage named by a hello
 * reply's `durable`, which a new process opens instead of starting empty (a crash restart).
 */
export const helloRequestSchema = z.strictObject({
  type: z.literal('hello'),
  protocol: z.unknown(),
  config: z.unknown(),
  resume: z.unknown().optional(),
});
/** `snapshot` as a request. */
export const snapshotRequestSchema = z.strictObject({ type: z.literal('snapshot') });
/** `restore` as a request: the snapshot itself is checked by the store (`invalid_snapshot`). */
export const restoreRequestSchema = z.strictObject({ type: z.literal('restore'), snapshot: z.unknown() });

/** A refused command: one of the contract's codes. */
export const rejectionSchema = z.strictObject({
  ok: z.literal(false),
  code: z.enum(REJECTION_CODES as [string, ...string[]]),
  message: z.string(),
});
const payloadSchema = z.strictObject({ account: text, key: text, amount: int, deadline: time });
const deliverySchema = z.strictObject({
  id: text,
  token: positive,
  attempt: positive,
  leaseUntil: time,
  payload: payloadSchema,
});

/** Success replies by command type; a success is dispatched on `type` so that errors name the right field. */
export const successSchemas = {
  submit: z.strictObject({
    ok: z.literal(true),
    type: z.literal('submit'),
    id: text,
    seq: positive,
    duplicate: z.boolean(),
  }),
  claim: z.strictObject({ ok: z.literal(true), type: z.literal('claim'), job: deliverySchema.nullable() }),
  commit: z.strictObject({
    ok: z.literal(true),
    type: z.literal('commit'),
    id: text,
    applied: z.boolean(),
    balance: int,
  }),
  ack: z.strictObject({ ok: z.literal(true), type: z.literal('ack'), id: text }),
  fail: z.discriminatedUnion('status', [
    z.strictObject({
      ok: z.literal(true),
      type: z.literal('fail'),
      id: text,
      status: z.literal('waiting'),
      notBefore: time,
    }),
    z.strictObject({
      ok: z.literal(true),
      type: z.literal('fail'),
      id: text,
      status: z.literal('dead'),
      reason: z.enum(FAIL_DEAD_REASONS),
    }),
  ]),
  tick: z.strictObject({ ok: z.literal(true), type: z.literal('tick'), clock: time }),
} as const;

/** What a durable store says in the reply to a request that made it (hello, restore): where it lives, for a later hello's `resume`. */
const durableSchema = z.strictObject({ storage: text });

/** Reply to `hello`. */
export const helloReplySchema = z.strictObject({
  ok: z.literal(true),
  type: z.literal('hello'),
  protocol: z.literal(PROTOCOL_VERSION),
  implementation: text,
  /** Present when the store survives the death of its process: `storage` names where it lives, for a later hello's `resume`. */
  durable: durableSchema.optional(),
  /**
   * Present when every reply to a command (any request but hello, snapshot and restore) carries
   * the store's snapshot after it, as a field `snapshot`: the harness then reads that snapshot
   * instead of asking for it in a request of its own (docs/protocol.md, "Snapshots in replies").
   */
  replySnapshots: z.literal(true).optional(),
  /**
   * Present when the implementation reads its requests as lines and answers each in turn without
   * waiting for its reply to be read: the harness may then write several commands, `snapshot`
   * and `restore` requests at once and read their replies after (docs/protocol.md, "Requests
   * written ahead").
   */
  pipelining: z.literal(true).optional(),
});
/** Reply to `snapshot`: the snapshot itself is compared field by field by the harness, so only its being an object is checked. */
export const snapshotReplySchema = z.strictObject({
  ok: z.literal(true),
  type: z.literal('snapshot'),
  snapshot: plainObject,
});
/** Reply to `restore`. */
export const restoreReplySchema = z.strictObject({
  ok: z.literal(true),
  type: z.literal('restore'),
  durable: durableSchema.optional(),
});
/** A refusal of `hello`, `snapshot` or `restore`; `path` may name the bad field of a config or snapshot. */
export const protocolRejectionSchema = z.strictObject({
  ok: z.literal(false),
  code: z.enum(PROTOCOL_REJECTION_CODES),
  message: z.string(),
  path: z.string().optional(),
});

// ---------------------------------------------------------------------------------------------
// jobcheck/2: envelopes around the contract's commands and replies.

/** A request id or a lane number: a safe integer >= 0. */
const wireNumber = z.int().min(0, 'must be >= 0');

/**
 * A command in a jobcheck/2 session: `id` names the request (unique in the process's life, chosen
 * by the harness), `lane` the worker lane that sends it (at most one request per lane is in
 * flight), `command` is the contract's command, unchanged (a malformed one is the store's
 * `invalid_argument`, answered in a reply envelope). An envelope that does not match this exactly
 * is answered by a bare `invalid_argument` refusal and its command is not executed.
 */
export const requestEnvelopeSchema = z.strictObject({
  type: z.literal('request'),
  id: wireNumber,
  lane: wireNumber,
  command: z.unknown(),
});
/** A request envelope as parsed. */
export type RequestEnvelope = z.infer<typeof requestEnvelopeSchema>;

/**
 * The reply to a request envelope: the same `id`, and the command's reply (checked by the harness
 * as a jobcheck/1 command reply is). Exactly one per request id, in any order.
 */
export const replyEnvelopeSchema = z.strictObject({ type: z.literal('reply'), id: wireNumber, reply: z.unknown() });
/** A reply envelope as parsed. */
export type ReplyEnvelope = z.infer<typeof replyEnvelopeSchema>;

/**
 * Reply to a `hello` that offered jobcheck/2, from an implementation that speaks it: `concurrent`
 * says whether it accepts several requests in flight at once (when false the harness keeps at most
 * one in flight, still in envelopes).
 */
export const helloReplyV2Schema = z.strictObject({
  ok: z.literal(true),
  type: z.literal('hello'),
  protocol: z.literal(PROTOCOL_VERSION_2),
  implementation: text,
  concurrent: z.boolean(),
  durable: durableSchema.optional(),
});
