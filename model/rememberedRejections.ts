/**
 * A command parser that remembers the rejections it has worded. A malformed command goes to the
 * zod schema (contract/schema.ts), which finds the first bad field and words the rejection, at
 * about ten times the cost of a whole step; and the explorer asks the same malformed probes (a
 * submit whose deadline is its `now`) in state after state. So a rejection is kept at an exact
 * place for the command it answers, and the same command is answered from the memory next time.
 *
 * Exact means: a command is remembered only when it is a plain object (prototype Object.prototype)
 * whose keys are all own data properties holding strings, numbers, booleans, null or undefined;
 * it is found by every field in enumeration order (the order zod meets them) with its value's
 * type and value (-0 apart from 0). Two such commands found at one place are the same input to
 * the schema, so they get the same rejection. Anything else, and every accepted command, goes to
 * the parser each time. The memory holds at most MAX_REMEMBERED rejections and starts afresh
 * when full.
 */
import type { ParsedCommand, Rejection } from '../contract/index.ts';

/** How many rejections are kept at most. */
export const MAX_REMEMBERED = 4096;

/**
 * The memory: a tree with one level per field, in enumeration order, each node holding, by field
 * name and then by value, the node of the commands that go on with that field and value, and the
 * rejection of the command that ends there. Values are Map keys (SameValueZero: a string is not
 * its number, NaN is NaN) except -0, which has a key of its own. Finding a command allocates
 * nothing, where a key written out as text cost a string per field and a hash of the whole.
 */
interface Node {
  readonly next: Map<string, Map<unknown, Node>>;
  rejection: Rejection | undefined;
}
const newNode = (): Node => ({ next: new Map(), rejection: undefined });
/** The keys of the values a Map key cannot tell apart or would lose: -0 (a Map takes it for 0), undefined (a missing child). */
const NEGATIVE_ZERO = Symbol('-0');
const UNDEFINED = Symbol('undefined');

/** The value's key in a node, or undefined when the command is not one the memory holds (see above). */
function valueKey(input: object, field: string): unknown {
  const d = Object.getOwnPropertyDescriptor(input, field);
  if (d === undefined || !('value' in d)) return undefined;
  const v: unknown = d.value;
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'undefined':
      return UNDEFINED;
    case 'number':
      return Object.is(v, -0) ? NEGATIVE_ZERO : v;
    default:
      return v === null ? null : undefined;
  }
}
/** Whether the memory may hold `input`: a plain object (its fields are then checked one by one). */
const plain = (input: unknown): input is object =>
  typeof input === 'object' && input !== null && Object.getPrototypeOf(input) === Object.prototype;

/**
 * The node of `input` under `root`: followed as far as it exists, or, with `grow`, made as it
 * goes. Null when `input` is not a command the memory holds (a field that is not an own data
 * property holding a string, number, boolean, null or undefined); undefined when it is one the
 * memory has no node for (without `grow`).
 */
function nodeOf(root: Node, input: object, grow: boolean): Node | null | undefined {
  let node: Node | undefined = root;
  for (const field in input) {
    const key = valueKey(input, field);
    if (key === undefined) return null;
    if (node === undefined) continue;
    let byValue = node.next.get(field);
    if (byValue === undefined && grow) {
      byValue = new Map();
      node.next.set(field, byValue);
    }
    let child: Node | undefined = byValue?.get(key);
    if (child === undefined && grow && byValue !== undefined) {
      child = newNode();
      byValue.set(key, child);
    }
    node = child;
  }
  return node;
}

/**
 * `parse` with its rejections remembered, as described above. Pure when `parse` is (the memory
 * only ever answers what `parse` answered for the same input); each returned rejection is a fresh object.
 */
export function rememberRejections(parse: (input: unknown) => ParsedCommand): (input: unknown) => ParsedCommand {
  let root = newNode();
  let count = 0;
  return (input) => {
    if (!plain(input)) return parse(input);
    const node = nodeOf(root, input, false);
    if (node === null) return parse(input);
    const known = node?.rejection;
    if (known !== undefined) return { ok: false, rejection: { ...known } };
    const parsed = parse(input);
    if (parsed.ok) return parsed;
    if (count >= MAX_REMEMBERED) {
      root = newNode();
      count = 0;
    }
    const leaf = nodeOf(root, input, true);
    if (leaf !== null && leaf !== undefined) {
      leaf.rejection = { ...parsed.rejection };
      count++;
    }
    return parsed;
  };
}
