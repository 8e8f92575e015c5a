/**
 * Reading one reply line of the jobcheck/1 protocol: JSON, no deeper than MAX_REPLY_DEPTH, no key
 * twice in one object, and of the shape its request calls for (contract/protocol.ts). A line that
 * fails is described in a sentence, which the process adapter turns into a `protocol_error`; nothing past this file
 * trusts the implementation's text. A value that passes is returned exactly as parsed, every
 * field kept, so that the engine compares (or refuses) each field the implementation sent.
 */
import type { z } from 'zod';
import type { Reply, Snapshot } from '../../contract/index.ts';
import { describeIssue, describeValue, messageOf } from '../../contract/index.ts';
import { rejectionSchema, successSchemas } from '../../contract/protocol.ts';
import type { snapshotReplySchema } from '../../contract/protocol.ts';
import { depthAndColons, describeDuplicateKey, firstDuplicateKey } from './duplicateKeys.ts';
import { MAX_REPLY_DEPTH } from './limits.ts';

/** Result of reading one reply line: the value, or a sentence saying what is wrong with it. */
export type LineResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };

/** Parses a line as JSON no deeper than MAX_REPLY_DEPTH, with no key twice in one object (duplicateKeys.ts); pure. */
export function parseJsonLine(line: string): LineResult<unknown> {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { ok: false, problem: `not JSON (${messageOf(error)})` };
  }
  // One walk for the depth and the colon count that lets nearly every line skip the duplicate-key scan.
  const { depth, colons } = depthAndColons(value, MAX_REPLY_DEPTH);
  if (depth > MAX_REPLY_DEPTH)
    return { ok: false, problem: `nested deeper than the limit of ${MAX_REPLY_DEPTH} levels` };
  // A repeated key is read last-key-wins by JSON.parse: a line that means two things is refused.
  const duplicate = firstDuplicateKey(line, colons);
  if (duplicate !== undefined) return { ok: false, problem: describeDuplicateKey(duplicate) };
  return { ok: true, value };
}

/** Checks a parsed value against a schema and returns the value itself (not the schema's copy); pure. */
export function checkShape<T>(schema: z.ZodType<T>, value: unknown): LineResult<T> {
  const result = schema.safeParse(value);
  return result.success
    ? { ok: true, value: value as T }
    : { ok: false, problem: `wrong shape: ${describeIssue(result.error, value, 'reply').message}` };
}

/** Checks a command reply: a rejection with a contract code, or a success of one of the six command types. Pure. */
export function checkReply(value: unknown): LineResult<Reply> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, problem: `wrong shape: reply: must be an object (got ${describeValue(value)})` };
  }
  const v: { ok?: unknown; type?: unknown } = value;
  if (v.ok === false) return checkShape(rejectionSchema, value) as LineResult<Reply>;
  if (v.ok !== true)
    return { ok: false, problem: `wrong shape: ok: must be true or false (got ${describeValue(v.ok)})` };
  if (typeof v.type !== 'string' || !Object.hasOwn(successSchemas, v.type)) {
    return {
      ok: false,
      problem: `wrong shape: type: must be one of ${Object.keys(successSchemas).join(', ')} (got ${describeValue(v.type)})`,
    };
  }
  return checkShape(successSchemas[v.type as keyof typeof successSchemas] as z.ZodType<Reply>, value);
}

/**
 * Takes the snapshot out of the reply to a command from an implementation whose hello reply said
 * `replySnapshots`: the reply without its `snapshot` field (a copy, the other fields in their
 * order), and the snapshot, of which only its being an object is checked here, as in a snapshot
 * reply. Pure.
 */
export function splitCarriedSnapshot(
  value: unknown,
): LineResult<{ readonly reply: unknown; readonly snapshot: Snapshot }> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return checkReply(value) as LineResult<never>;
  if (!Object.hasOwn(value, 'snapshot'))
    return {
      ok: false,
      problem:
        "wrong shape: snapshot: missing (the hello reply said replySnapshots: every reply to a command carries the store's snapshot)",
    };
  const { snapshot, ...reply } = value as Record<string, unknown>;
  if (snapshot === null || typeof snapshot !== 'object' || Array.isArray(snapshot))
    return { ok: false, problem: `wrong shape: snapshot: must be an object (got ${describeValue(snapshot)})` };
  return { ok: true, value: { reply, snapshot: snapshot as Snapshot } };
}

/** The snapshot carried by a snapshot reply, typed for the engine (which compares it field by field). */
export const snapshotOf = (reply: z.infer<typeof snapshotReplySchema>): Snapshot =>
  reply.snapshot as unknown as Snapshot;

const MESSAGE_TYPES = new Set(['hello', 'snapshot', 'restore', ...Object.keys(successSchemas)]);

/**
 * A hint for a reply of another request's type (a `tick` reply to a `snapshot` request): such a
 * reply is almost always a line written unasked, or a second reply to an earlier request, read in
 * place of the reply that was due. Empty when the reply is of the type asked for. Pure.
 */
export function misplacedReplyHint(asked: string, value: unknown): string {
  const type = typeof value === 'object' && value !== null && 'type' in value ? value.type : undefined;
  if (typeof type !== 'string' || type === asked || !MESSAGE_TYPES.has(type)) return '';
  return ` (a ${type} reply to a ${asked} request: a line written unasked, or a second reply to an earlier request?)`;
}
