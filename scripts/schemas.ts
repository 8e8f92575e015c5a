/**
 * `npm run schemas`: writes schemas/<message>.schema.json, a JSON Schema (draft 2020-12) of every
 * message of the protocol (docs/protocol.md), generated with zod 4's `z.toJSONSchema` from the zod
 * schemas both ends already validate with (contract/schema.ts, contract/protocol.ts), so that the
 * files cannot say something the harness does not check. A test holds the committed files equal to
 * what this script makes (scripts/schemas.test.ts).
 *
 * What JSON Schema cannot say, and how it is handled:
 * - The refinements across fields (a config's `backoffCap >= backoffBase`, a submit's
 *   `deadline > now`, a snapshot's counters, per-account order, ledger and balances agreeing) are
 *   zod `refine`s, which `toJSONSchema` leaves out; each schema's description says which rules
 *   only the contract states.
 * - The snapshot's dictionaries (`jobs`, `balances`, `effects`) are zod maps behind a transform, so
 *   that a key named `__proto__` survives; a map has no JSON Schema, so the `override` below writes
 *   each one as the JSON object it is on the wire: any non-empty key, each value of the map's value
 *   schema. Schemas are generated from the input side (`io: 'input'`), which skips the transforms.
 * - The harness's own schemas keep `protocol`, `config`, `snapshot` and an envelope's `command` or
 *   `reply` as `unknown` (checked next, in the order of the refusals); the files give them their
 *   real shape (`extend`), since a message that a peer sends must have it.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import {
  FAIL_DEAD_REASONS,
  PROTOCOL_VERSIONS,
  helloReplySchema,
  helloReplyV2Schema,
  helloRequestSchema,
  protocolRejectionSchema,
  rejectionSchema,
  replyEnvelopeSchema,
  requestEnvelopeSchema,
  restoreReplySchema,
  restoreRequestSchema,
  snapshotReplySchema,
  snapshotRequestSchema,
  successSchemas,
} from '../contract/protocol.ts';
import { commandSchemas, configSchema, snapshotSchema } from '../contract/schema.ts';
import { HISTORY_FORMAT, historyLineSchema } from '../contract/history.ts';

/** The folder the files are written to, at the root of the repository. */
export const SCHEMAS_DIR = fileURLToPath(new URL('../schemas/', import.meta.url));

const CONFIG_RULE = 'a config also needs backoffCap >= backoffBase (docs/contract.md, section 2)';
/** Said by each schema that a `replySnapshots` session changes (docs/protocol.md, "Snapshots in replies"). */
const CARRIED =
  'When a jobcheck/1 hello reply says replySnapshots, each reply to a command also carries `snapshot` (snapshot.schema.json): validate the reply without that field.';
const SNAPSHOT_RULES =
  'the rules across fields (status-dependent fields, counters, capacity, per-account order, ledger and balances agreeing) are in docs/contract.md, section 10';

const { submit, claim, commit, ack, fail, tick } = commandSchemas;
const anyCommand = z.union([submit, claim, commit, ack, fail, tick]);
const replies = successSchemas;
const anyReply = z.union([
  replies.submit,
  replies.claim,
  replies.commit,
  replies.ack,
  replies.fail,
  replies.tick,
  rejectionSchema,
]);

/** One message: its file name (without `.schema.json`), zod schema, title and description. */
interface Message {
  readonly name: string;
  readonly schema: z.ZodType;
  readonly title: string;
  readonly description: string;
}

const COMMAND_NOTES: Partial<Record<string, string>> = { submit: '; the contract also requires deadline > now' };

/** Every message of the protocol, in the order of docs/protocol.md. */
export const MESSAGES: readonly Message[] = [
  {
    name: 'hello-request',
    schema: helloRequestSchema.extend({
      protocol: z.enum(PROTOCOL_VERSIONS),
      config: configSchema,
      resume: z.string().min(1).optional(),
    }),
    title: 'hello (request)',
    description: `The harness's first line, and its reset: start an empty store with this config (docs/protocol.md, section 4); ${CONFIG_RULE}.`,
  },
  {
    name: 'hello-reply',
    schema: helloReplySchema,
    title: 'hello (reply, jobcheck/1)',
    description: `The answer to a hello that the implementation accepts in jobcheck/1. ${CARRIED}`,
  },
  {
    name: 'hello-reply-v2',
    schema: helloReplyV2Schema,
    title: 'hello (reply, jobcheck/2)',
    description:
      'The answer to a hello offering jobcheck/2 (docs/protocol.md, section 9), from an implementation that speaks it.',
  },
  {
    name: 'protocol-rejection',
    schema: protocolRejectionSchema,
    title: 'refusal of hello, snapshot or restore',
    description: 'A refused hello, snapshot or restore; `path` may name the bad field of a config or snapshot.',
  },
  ...Object.entries(commandSchemas).map(([type, schema]) => ({
    name: `command-${type}`,
    schema,
    title: `${type} (command)`,
    description: `The contract's ${type} command (docs/contract.md, section 7)${COMMAND_NOTES[type] ?? ''}.`,
  })),
  ...Object.entries(successSchemas).map(([type, schema]) => ({
    name: `reply-${type}`,
    schema: schema as z.ZodType,
    title: `${type} (success reply)`,
    description:
      type === 'fail'
        ? `The success reply to fail: waiting with notBefore, or dead with one of ${FAIL_DEAD_REASONS.join(', ')}. ${CARRIED}`
        : `The success reply to ${type} (docs/protocol.md, section 4). ${CARRIED}`,
  })),
  {
    name: 'rejection',
    schema: rejectionSchema,
    title: 'refused command',
    description: `A refused command, with one of the contract's codes; the harness compares the code, never the message. ${CARRIED}`,
  },
  {
    name: 'snapshot-request',
    schema: snapshotRequestSchema,
    title: 'snapshot (request)',
    description: "Asks for the store's canonical snapshot.",
  },
  {
    name: 'snapshot-reply',
    schema: snapshotReplySchema.extend({ snapshot: snapshotSchema }),
    title: 'snapshot (reply)',
    description: `The store's canonical snapshot; ${SNAPSHOT_RULES}.`,
  },
  {
    name: 'snapshot',
    schema: snapshotSchema,
    title: 'jobcheck.snapshot/1',
    description: `The canonical snapshot of a store (docs/contract.md, section 9), as snapshot replies and restore requests carry it; ${SNAPSHOT_RULES}; ${CONFIG_RULE}.`,
  },
  {
    name: 'restore-request',
    schema: restoreRequestSchema.extend({ snapshot: snapshotSchema }),
    title: 'restore (request)',
    description: `Replaces the whole state of the store by this snapshot; ${SNAPSHOT_RULES}.`,
  },
  {
    name: 'restore-reply',
    schema: restoreReplySchema,
    title: 'restore (reply)',
    description: 'The answer to an accepted restore.',
  },
  {
    name: 'request-envelope',
    schema: requestEnvelopeSchema.extend({ command: anyCommand }),
    title: 'request envelope (jobcheck/2)',
    description:
      "A command of a jobcheck/2 session: id names the request, lane the lane that sends it, command is the contract's command, unchanged.",
  },
  {
    name: 'reply-envelope',
    schema: replyEnvelopeSchema.extend({ reply: anyReply }),
    title: 'reply envelope (jobcheck/2)',
    description:
      "The reply to a request envelope: the request's id, and the command's reply, exactly as in jobcheck/1.",
  },
  {
    name: 'history-line',
    schema: historyLineSchema,
    title: `One line of a ${HISTORY_FORMAT} history`,
    description:
      'A recorded history of a real queue, one event a line (docs/history-format.md): a header first, invokes and returns (or one op line with both), broker transitions, an end line last that counts the lines before it. Not a protocol message: `jobcheck audit` reads it.',
  },
];

type JsonSchema = Record<string, unknown>;

/**
 * Where JSON Schema needs help. A zod map becomes the JSON object it is on the wire: non-empty keys,
 * each value of the map's value schema. A snapshot's dictionaries are required: the preprocessing
 * that reads them accepts any input, so zod calls them optional on the input side, but a snapshot
 * without one is refused.
 */
function override(ctx: { zodSchema: z.core.$ZodTypes; jsonSchema: z.core.JSONSchema.BaseSchema }): void {
  const def = ctx.zodSchema._zod.def;
  if (ctx.zodSchema === snapshotSchema) ctx.jsonSchema.required = Object.keys(snapshotSchema.shape);
  if (def.type !== 'map') return;
  const { $schema: _, ...value } = toJson(def.valueType as z.ZodType);
  for (const key of Object.keys(ctx.jsonSchema)) delete (ctx.jsonSchema as JsonSchema)[key];
  Object.assign(ctx.jsonSchema, { type: 'object', propertyNames: { minLength: 1 }, additionalProperties: value });
}

/**
 * `unrepresentable: 'any'` lets the maps through (as `{}`) to `overrideMaps`; anything else that
 * JSON Schema cannot say would also become `{}`, which accepts every value, so none may remain.
 */
function toJson(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io: 'input',
    target: 'draft-2020-12',
    unrepresentable: 'any',
    override,
  }) as JsonSchema;
  const open = anything(json);
  if (open !== undefined) throw new Error(`${open}: the JSON Schema accepts any value here`);
  return json;
}

/** The path of the first subschema that accepts anything (`{}`), if any. Pure. */
function anything(json: unknown, path = '#'): string | undefined {
  if (json === null || typeof json !== 'object') return undefined;
  if (!Array.isArray(json) && Object.keys(json).length === 0) return path;
  for (const [key, value] of Object.entries(json)) {
    if (key === 'const' || key === 'enum' || key === 'required') continue;
    const found = anything(value, `${path}/${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The JSON Schema of one message, with `$id`, `title` and `description` first. Pure. */
export function messageSchema(message: Message): JsonSchema {
  const { $schema, ...body } = toJson(message.schema);
  return {
    $schema,
    $id: `${message.name}.schema.json`,
    title: message.title,
    description: message.description,
    ...body,
  };
}

/** Every file of schemas/ as it should be: file name to text. Pure. */
export function schemaFiles(): Map<string, string> {
  return new Map(MESSAGES.map((m) => [`${m.name}.schema.json`, `${JSON.stringify(messageSchema(m), null, 2)}\n`]));
}

/** Writes schemas/ afresh: every file of schemaFiles(), and no other. */
export function writeSchemas(dir: string = SCHEMAS_DIR): string[] {
  mkdirSync(dir, { recursive: true });
  const files = schemaFiles();
  for (const old of readdirSync(dir)) if (!files.has(old)) rmSync(join(dir, old));
  for (const [name, text] of files) writeFileSync(join(dir, name), text);
  return [...files.keys()];
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const written = writeSchemas();
  console.log(`wrote ${written.length} schemas to schemas/`);
}
