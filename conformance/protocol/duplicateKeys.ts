/**
 * Finding a key that appears twice in one object of a JSON text. `JSON.parse` keeps the last
 * value of a repeated key and says nothing, so `{"ok":true,"ok":false}` would be read as a
 * refusal by the harness and as a success by a reader that keeps the first: a reply that means
 * two things is no reply, and the harness refuses it as a `protocol_error` naming the key.
 *
 * Two ways to tell, the cheap one first. The fast path needs no scan: the harness walks every
 * parsed reply anyway (for its depth), and the same walk counts the colons JSON.stringify would
 * write for the value (one per key kept, plus those inside strings); a text with no `\u` escape
 * has a key twice exactly when it holds more colons than that (surelyDistinctKeys). Only a line
 * that fails this (an escape, or a duplicate indeed) is scanned: the scan runs on text JSON.parse
 * has accepted, so it needs no grammar; it skips each string with `indexOf` (a backslash before a
 * quote is counted), decodes a key with `JSON.parse` only when it holds an escape (`"\u006fk"` is
 * `"ok"`), and keeps each object's keys in a small array, turned into a Set past a few keys.
 * Both are linear in the line. Measured on 100,000 reply lines (claims, ticks, snapshots of six
 * jobs), in CPU time: the check adds about 30% to JSON.parse and the depth walk (0.9 µs a line),
 * where scanning every line would add 110-180%.
 */
import { clipText } from '../../contract/index.ts';
import { outsideText } from '../outside/outsideText.ts';

/** A key found twice: the key, decoded, and the path of the object that holds it (`` for the top level). */
export interface DuplicateKey {
  readonly key: string;
  readonly path: string;
}

/** Keys an object holds before they move from an array to a Set. */
const SMALL = 8;

const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13;

/** How many times `char` occurs in `text` (a native search per occurrence). Pure. */
function count(text: string, char: string): number {
  let n = 0;
  for (let i = text.indexOf(char); i !== -1; i = text.indexOf(char, i + 1)) n += 1;
  return n;
}

/** How many times `char` occurs in `s`, with a quick exit for none. Pure. */
const colonsIn = (s: string): number => (s.indexOf(':') === -1 ? 0 : count(s, ':'));

/**
 * One walk over a parsed value for what reading a reply needs of it: its depth (as contract's
 * jsonDepth counts it, giving up past `limit` with `limit + 1`), and the colons JSON.stringify
 * would write for it: one per key, plus those inside its keys and strings. Iterative, so that a
 * value of any depth costs no stack. Pure.
 */
export function depthAndColons(value: unknown, limit: number): { readonly depth: number; readonly colons: number } {
  let deepest = 0;
  let colons = typeof value === 'string' ? colonsIn(value) : 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (typeof v !== 'object' || v === null) continue;
    const d = depth + 1;
    if (d > limit) return { depth: limit + 1, colons };
    if (d > deepest) deepest = d;
    if (Array.isArray(v)) {
      for (const child of v) {
        if (typeof child === 'string') colons += colonsIn(child);
        else if (typeof child === 'object' && child !== null) stack.push([child, d]);
      }
      continue;
    }
    const record = v as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      colons += 1 + colonsIn(key);
      const child = record[key];
      if (typeof child === 'string') colons += colonsIn(child);
      else if (typeof child === 'object' && child !== null) stack.push([child, d]);
    }
  }
  return { depth: deepest, colons };
}

/**
 * Whether `text`, which JSON.parse read as a value with `colons` colons (depthAndColons), surely
 * has no key twice in one object: the fast path. A colon of the text is a key's or one inside a
 * string, and the value keeps one per key it kept and every colon of its strings. With no `\u`
 * escape in the text (which could spell a colon that the text does not show), the counts are
 * equal exactly when nothing was dropped, i.e. when no key came twice. Pure.
 */
export const surelyDistinctKeys = (text: string, colons: number): boolean =>
  !text.includes('\\u') && count(text, ':') === colons;

/**
 * The first key that appears twice in one object of `text`, which must be JSON that `JSON.parse`
 * accepted; undefined when every object's keys are distinct. Pass the value's colon count
 * (depthAndColons) when the caller walked it anyway: the fast path then answers nearly every line
 * without the scan. Pure.
 */
export function firstDuplicateKey(text: string, colons?: number): DuplicateKey | undefined {
  if (colons !== undefined && surelyDistinctKeys(text, colons)) return undefined;
  return scan(text);
}

/** The scan of firstDuplicateKey (see the file comment). Pure. */
function scan(text: string): DuplicateKey | undefined {
  // One entry per open object or array: its keys so far (null for an array) and its name in the
  // path (the key it sits under, or `[]`). Key lists are reused as objects close and open.
  const keys: (string[] | Set<string> | null)[] = [];
  const names: string[] = [];
  const spare: string[][] = [];
  let depth = 0;
  let lastKey = '';
  let nextBackslash = text.indexOf('\\');
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // The closing quote: the next quote not escaped by an odd run of backslashes.
      let end = text.indexOf('"', i + 1);
      if (nextBackslash !== -1 && nextBackslash < i) nextBackslash = text.indexOf('\\', i);
      const escaped = nextBackslash !== -1 && nextBackslash < end;
      if (escaped) {
        for (;;) {
          let run = 0;
          while (text.charCodeAt(end - 1 - run) === 92) run += 1;
          if (run % 2 === 0) break;
          end = text.indexOf('"', end + 1);
        }
      }
      const start = i;
      i = end;
      const own = depth === 0 ? null : keys[depth - 1];
      if (own === null || own === undefined) continue;
      let after = end + 1;
      while (isSpace(text.charCodeAt(after))) after += 1;
      if (text.charCodeAt(after) !== 58) continue; // A string value, not a key.
      const key = escaped ? (JSON.parse(text.slice(start, end + 1)) as string) : text.slice(start + 1, end);
      if (Array.isArray(own)) {
        if (own.includes(key)) return { key, path: pathOf(names, depth) };
        own.push(key);
        if (own.length > SMALL) keys[depth - 1] = new Set(own);
      } else {
        if (own.has(key)) return { key, path: pathOf(names, depth) };
        own.add(key);
      }
      lastKey = key;
      i = after;
    } else if (c === 123 || c === 91) {
      names[depth] = depth === 0 ? '' : keys[depth - 1] === null ? '[]' : lastKey;
      keys[depth] = c === 123 ? (spare.pop() ?? []) : null;
      depth += 1;
    } else if (c === 125 || c === 93) {
      depth -= 1;
      const own = keys[depth];
      if (Array.isArray(own)) {
        own.length = 0;
        spare.push(own);
      }
    }
  }
  return undefined;
}

/** The path of the object open at `depth` (1 is the top level, whose path is empty), from the names of its ancestors. Pure. */
function pathOf(names: readonly string[], depth: number): string {
  let path = '';
  for (let d = 1; d < depth; d++) {
    const name = names[d] as string;
    path = path === '' ? name : name === '[]' ? `${path}[]` : `${path}.${name}`;
  }
  return path;
}

/** The sentence a protocol error gives for a duplicate key (after "the reply is"). Pure. */
export function describeDuplicateKey(found: DuplicateKey): string {
  const where = found.path === '' ? 'the top-level object' : `the object at ${outsideText(clipText(found.path, 80))}`;
  return `ambiguous: the key ${clipText(JSON.stringify(found.key), 80)} appears twice in ${where} (JSON readers disagree on which value counts)`;
}
