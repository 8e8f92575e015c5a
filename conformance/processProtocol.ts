/**
 * The jobcheck/1 line protocol as schemas: every reply an implementation may write on its stdout,
 * checked with zod at the process boundary (docs/protocol.md is the prose version). A line that
 * does not parse, or parses to something of the wrong shape, is described here and turned into a
 * `protocol_error` by the process adapter; nothing past this file trusts the implementation's text.
 */
import { z } from 'zod';
import type { Reply, Snapshot } from '../contract/index.ts';
import { REJECTION_CODES, describeValue } from '../contract/index.ts';

/** The protocol version this harness speaks, sent in `hello` and expected back. */
export const PROTOCOL_VERSION = 'jobcheck/1' as const;

/** Message types the protocol reserves for itself; a command may not use them. */
export const PROTOCOL_MESSAGE_TYPES = ['hello', 'snapshot', 'restore'] as const;

const text = z.string().min(1, 'must be a non-empty string');
const int = z.int();
const time = z.int().min(0, 'must be >= 0');
const positive = z.int().min(1, 'must be >= 1');

/** Codes an implementation may use to refuse `hello` or `restore` (commands use the contract's codes). */
export const PROTOCOL_REJECTION_CODES = ['invalid_config', 'unsupported_protocol', 'invalid_snapshot', 'invalid_argument'] as const;

const rejectionSchema = z.strictObject({ ok: z.literal(false), code: z.enum(REJECTION_CODES as [string, ...string[]]), message: z.string() });
const payloadSchema = z.strictObject({ account: text, key: text, amount: int, deadline: time });
const deliverySchema = z.strictObject({ id: text, token: positive, attempt: positive, leaseUntil: time, payload: payloadSchema });
const deadReason = z.enum(['deadline', 'lease_expired', 'permanent', 'attempts_exhausted', 'no_time_for_retry']);

/** Success replies by command type; a success is dispatched on `type` so that errors name the right field. */
const successSchemas = {
  submit: z.strictObject({ ok: z.literal(true), type: z.literal('submit'), id: text, seq: positive, duplicate: z.boolean() }),
  claim: z.strictObject({ ok: z.literal(true), type: z.literal('claim'), job: deliverySchema.nullable() }),
  commit: z.strictObject({ ok: z.literal(true), type: z.literal('commit'), id: text, applied: z.boolean(), balance: int }),
  ack: z.strictObject({ ok: z.literal(true), type: z.literal('ack'), id: text }),
  fail: z.discriminatedUnion('status', [
    z.strictObject({ ok: z.literal(true), type: z.literal('fail'), id: text, status: z.literal('waiting'), notBefore: time }),
    z.strictObject({ ok: z.literal(true), type: z.literal('fail'), id: text, status: z.literal('dead'), reason: deadReason }),
  ]),
  tick: z.strictObject({ ok: z.literal(true), type: z.literal('tick'), clock: time }),
} as const;

/** Reply to `hello`. */
export const helloReplySchema = z.strictObject({
  ok: z.literal(true),
  type: z.literal('hello'),
  protocol: z.literal(PROTOCOL_VERSION),
  implementation: text,
});
/** Reply to `snapshot`: the snapshot itself is compared field by field by the engine, so only its being an object is checked here. */
export const snapshotReplySchema = z.strictObject({
  ok: z.literal(true),
  type: z.literal('snapshot'),
  snapshot: z.record(z.string(), z.unknown()),
});
/** Reply to `restore`. */
export const restoreReplySchema = z.strictObject({ ok: z.literal(true), type: z.literal('restore') });
/** A refusal of `hello` or `restore`. */
export const protocolRejectionSchema = z.strictObject({
  ok: z.literal(false),
  code: z.enum(PROTOCOL_REJECTION_CODES),
  message: z.string(),
});

/** Result of reading one reply line: the value, or a sentence saying what is wrong with it. */
export type LineResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };

function describeIssues(error: z.ZodError, input: unknown): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'wrong shape';
  if (issue.code === 'unrecognized_keys') return `${[...issue.path, issue.keys[0] ?? ''].map(String).join('.')}: unknown field`;
  let value: unknown = input;
  for (const key of issue.path) value = value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  const path = issue.path.map(String).join('.');
  return `${path === '' ? 'reply' : path}: ${issue.message} (got ${describeValue(value)})`;
}

/** Parses a line as JSON; pure. */
export function parseJsonLine(line: string): LineResult<unknown> {
  try {
    return { ok: true, value: JSON.parse(line) as unknown };
  } catch (error) {
    return { ok: false, problem: `not JSON (${(error as Error).message})` };
  }
}

/** Checks a parsed value against a schema; pure. */
export function checkShape<T>(schema: z.ZodType<T>, value: unknown): LineResult<T> {
  const result = schema.safeParse(value);
  return result.success ? { ok: true, value: result.data } : { ok: false, problem: `wrong shape: ${describeIssues(result.error, value)}` };
}

/** Checks a command reply: a rejection with a contract code, or a success of one of the six command types. Pure. */
export function checkReply(value: unknown): LineResult<Reply> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, problem: `wrong shape: reply: must be an object (got ${describeValue(value)})` };
  }
  const v = value as { ok?: unknown; type?: unknown };
  if (v.ok === false) return checkShape(rejectionSchema, value) as LineResult<Reply>;
  if (v.ok !== true) return { ok: false, problem: `wrong shape: ok: must be true or false (got ${describeValue(v.ok)})` };
  if (typeof v.type !== 'string' || !Object.hasOwn(successSchemas, v.type)) {
    return { ok: false, problem: `wrong shape: type: must be one of ${Object.keys(successSchemas).join(', ')} (got ${describeValue(v.type)})` };
  }
  return checkShape(successSchemas[v.type as keyof typeof successSchemas] as z.ZodType<Reply>, value);
}

/** The snapshot carried by a snapshot reply, typed for the engine (which compares it field by field). */
export const snapshotOf = (reply: z.infer<typeof snapshotReplySchema>): Snapshot => reply.snapshot as unknown as Snapshot;
