/**
 * A fast acceptance path for well-formed commands. Validating every command with the zod schema
 * (schema.ts) is a large part of a model step's cost, yet almost every command a checker sends is
 * well formed. `fastCommand` accepts exactly the inputs that the schema would accept with the same
 * fields, and returns the same command the schema would (a fresh object, fields in the schema's
 * order); for anything else it returns undefined and `parseCommand` asks the schema, so every
 * rejection, and its message, stays the schema's own.
 *
 * The rules are the schema's, read field by field: an object whose enumerable keys (own or
 * inherited, as zod's strict objects enumerate them with `for...in`) are exactly the command's
 * fields; `type` one of the six; ids, accounts, keys, workers and errors non-empty strings;
 * amounts safe integers; times safe integers >= 0; tokens safe integers >= 1; `kind` transient or
 * permanent; a submit's deadline after its `now`. contract/fastCommand.test.ts holds it to the schema.
 */
import { countFields, fieldNames } from './keys.ts';
import type { FieldNames } from './keys.ts';
import type { Command } from './types.ts';

const text = (v: unknown): v is string => typeof v === 'string' && v.length >= 1;
const int = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
const time = (v: unknown): v is number => int(v) && v >= 0;
const positive = (v: unknown): v is number => int(v) && v >= 1;

const FIELDS: ReadonlyMap<string, FieldNames> = new Map([
  ['submit', fieldNames('type', 'id', 'account', 'key', 'amount', 'deadline', 'now')],
  ['claim', fieldNames('type', 'worker', 'now')],
  ['commit', fieldNames('type', 'worker', 'token', 'now')],
  ['ack', fieldNames('type', 'worker', 'token', 'now')],
  ['fail', fieldNames('type', 'worker', 'token', 'kind', 'error', 'now')],
  ['tick', fieldNames('type', 'now')],
]);

/** Whether the enumerable keys of `o` are exactly `fields`. */
const hasExactly = (o: object, fields: FieldNames): boolean => countFields(o, fields, false) === fields.order.length;

/**
 * The command the zod schema would parse from `input`, when `input` is a well-formed command;
 * undefined otherwise (the schema then decides, and words the rejection). Pure.
 */
export function fastCommand(input: unknown): Command | undefined {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return undefined;
  const o = input as Record<string, unknown>;
  const type = o.type;
  if (typeof type !== 'string') return undefined;
  const fields = FIELDS.get(type);
  if (fields === undefined || !hasExactly(o, fields)) return undefined;
  const now = o.now;
  if (!time(now)) return undefined;
  switch (type) {
    case 'submit': {
      const { id, account, key, amount, deadline } = o;
      if (!text(id) || !text(account) || !text(key) || !int(amount) || !time(deadline) || !(deadline > now))
        return undefined;
      return { type, id, account, key, amount, deadline, now };
    }
    case 'claim': {
      const worker = o.worker;
      return text(worker) ? { type, worker, now } : undefined;
    }
    case 'commit':
    case 'ack': {
      const { worker, token } = o;
      return text(worker) && positive(token) ? { type, worker, token, now } : undefined;
    }
    case 'fail': {
      const { worker, token, kind, error } = o;
      if (!text(worker) || !positive(token) || (kind !== 'transient' && kind !== 'permanent') || !text(error))
        return undefined;
      return { type, worker, token, kind, error, now };
    }
    case 'tick':
      return { type, now };
    default:
      return undefined;
  }
}
