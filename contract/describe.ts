/**
 * Bounded renderings of untrusted values for messages and stories. JSON.stringify walks a value
 * recursively and copies it whole: a value nested 5,000 deep overflows the stack, and a 200 MB
 * string is copied to show 60 characters of it. Here the walk is iterative, stops as soon as the
 * excerpt is long enough, and never copies more of a string than it shows. `jsonDepth` measures
 * nesting the same way, for the limits that protect the recursive code behind it.
 */

/** The marker appended to an excerpt that was cut. */
export const CLIPPED = '...';

type Frame =
  | { readonly kind: 'array'; readonly value: readonly unknown[]; index: number }
  | {
      readonly kind: 'object';
      readonly value: Record<string, unknown>;
      readonly keys: readonly string[];
      index: number;
    };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

function scalar(value: unknown, room: number): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      // Only as much of the string as can be shown is ever quoted.
      return JSON.stringify(value.length > room ? value.slice(0, Math.max(room, 0)) : value).slice(
        0,
        value.length > room ? -1 : undefined,
      );
    case 'number':
      return Number.isNaN(value) ? 'NaN' : String(value);
    case 'boolean':
      return String(value);
    case 'bigint':
      return `${value}n`;
    case 'undefined':
      return 'undefined';
    case 'function':
      return '[function]';
    case 'symbol':
      return value.toString();
    default:
      return undefined;
  }
}

/**
 * JSON-like text of `value`, at most about `maxChars` characters, ending in `...` when cut. Never
 * throws and never recurses: cycles print as `[circular]`, `undefined`, NaN and bigints stay
 * visible, object keys are own enumerable ones. Pure.
 */
export function jsonExcerpt(value: unknown, maxChars: number): string {
  let out = '';
  const stack: Frame[] = [];
  const onPath = new Set<unknown>();
  const full = (): boolean => out.length > maxChars;
  const write = (v: unknown): void => {
    const text = scalar(v, maxChars - out.length + 1);
    if (text !== undefined) {
      out += text;
      return;
    }
    if (!isRecord(v)) return;
    if (onPath.has(v)) {
      out += '[circular]';
      return;
    }
    onPath.add(v);
    if (Array.isArray(v)) {
      out += '[';
      stack.push({ kind: 'array', value: v, index: 0 });
    } else {
      out += '{';
      let keys: string[];
      try {
        keys = Object.keys(v);
      } catch {
        keys = [];
      }
      stack.push({ kind: 'object', value: v, keys, index: 0 });
    }
  };
  write(value);
  while (stack.length > 0 && !full()) {
    const frame = stack[stack.length - 1] as Frame;
    const length = frame.kind === 'array' ? frame.value.length : frame.keys.length;
    if (frame.index >= length) {
      out += frame.kind === 'array' ? ']' : '}';
      onPath.delete(frame.value);
      stack.pop();
      continue;
    }
    if (frame.index > 0) out += ',';
    const i = frame.index;
    frame.index += 1;
    if (frame.kind === 'array') write(frame.value[i]);
    else {
      const key = frame.keys[i] as string;
      out += `${scalar(key, maxChars - out.length + 1) ?? '""'}:`;
      let v: unknown;
      try {
        v = frame.value[key];
      } catch {
        v = '[unreadable]';
      }
      write(v);
    }
  }
  return out.length > maxChars || stack.length > 0 ? `${out.slice(0, maxChars)}${CLIPPED}` : out;
}

/** A string cut to `maxChars` characters, with `...` when cut. Pure. */
export const clipText = (text: string, maxChars: number): string =>
  text.length > maxChars ? `${text.slice(0, maxChars)}${CLIPPED}` : text;

/** Renders a value for an error message, short and unambiguous (NaN, undefined and strings stay visible). Pure. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined (missing)';
  return jsonExcerpt(value, 57);
}

/**
 * The depth of the deepest array or object in a JSON value (a scalar is 0), counted without
 * recursion and giving up past `limit` (returns `limit + 1`). Pure.
 */
export function jsonDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (typeof v !== 'object' || v === null) continue;
    const d = depth + 1;
    if (d > limit) return limit + 1;
    if (d > deepest) deepest = d;
    for (const child of Array.isArray(v) ? v : Object.values(v))
      if (typeof child === 'object' && child !== null) stack.push([child, d]);
  }
  return deepest;
}
