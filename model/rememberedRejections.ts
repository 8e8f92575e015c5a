/**
 * A command parser that remembers the rejections it has worded. A malformed command goes to the
 * zod schema (contract/schema.ts), which finds the first bad field and words the rejection, at
 * about ten times the cost of a whole step; and the explorer asks the same malformed probes (a
 * submit whose deadline is its `now`) in state after state. So a rejection is kept under an exact
 * key of the command it answers, and the same command is answered from the memory next time.
 *
 * Exact means: a command is remembered only when it is a plain object (prototype Object.prototype)
 * whose keys are all own data properties holding strings, numbers, booleans, null or undefined;
 * the key lists every field in enumeration order (the order zod meets them) with its value's type
 * and value (-0 apart from 0), each name and string prefixed by its length so that no two
 * commands share a key. Two such commands with one key are the same input to the schema,
 * so they get the same rejection. Anything else, and every accepted command, goes to the parser
 * each time. The memory holds at most MAX_REMEMBERED rejections and starts afresh when full.
 */
import type { ParsedCommand, Rejection } from '../contract/index.ts';

/** How many rejections are kept at most. */
export const MAX_REMEMBERED = 4096;

/** The exact key of a command as described above, or undefined when it has none. */
function keyOf(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null || Object.getPrototypeOf(input) !== Object.prototype)
    return undefined;
  let key = '';
  for (const field in input) {
    const d = Object.getOwnPropertyDescriptor(input, field);
    if (d === undefined || !('value' in d)) return undefined;
    const v: unknown = d.value;
    let text: string;
    switch (typeof v) {
      case 'string':
        text = `s${v.length}:${v}`;
        break;
      case 'number':
        text = Object.is(v, -0) ? 'n-0' : `n${v}`;
        break;
      case 'boolean':
        text = `b${v}`;
        break;
      case 'undefined':
        text = 'u';
        break;
      default:
        if (v !== null) return undefined;
        text = 'z';
    }
    key += `${field.length}:${field}${text},`;
  }
  return key;
}

/**
 * `parse` with its rejections remembered, as described above. Pure when `parse` is (the memory
 * only ever answers what `parse` answered for the same input); each returned rejection is a fresh object.
 */
export function rememberRejections(parse: (input: unknown) => ParsedCommand): (input: unknown) => ParsedCommand {
  let remembered = new Map<string, Rejection>();
  return (input) => {
    const key = keyOf(input);
    if (key === undefined) return parse(input);
    const known = remembered.get(key);
    if (known !== undefined) return { ok: false, rejection: { ...known } };
    const parsed = parse(input);
    if (parsed.ok) return parsed;
    if (remembered.size >= MAX_REMEMBERED) remembered = new Map();
    remembered.set(key, { ...parsed.rejection });
    return parsed;
  };
}
