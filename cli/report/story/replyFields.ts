/**
 * A reply shown field by field, each differing field marked: the step table's reply cells.
 *
 * Replies are compared as the lockstep runner compares them (a rejection's `message` is for
 * people and is left out), but every differing field is found, not only the first. Nested
 * objects are opened one level (`job.token`, `job.leaseUntil`), deeper ones are shown as compact
 * JSON, so that a claim's delivery reads as a few short fields that wrap.
 */
import { allDifferences, comparableReply, showValue } from '../../../conformance/lockstep/compare.ts';
import type { Difference } from '../../../conformance/lockstep/compare.ts';

/** One shown field of a reply. */
export interface ReplyField {
  /** Path inside the reply, e.g. `status` or `job.token` (`` for a reply that is not an object). */
  readonly path: string;
  /** The value as shown (JSON, cut when long), or `absent` for a field only the other side has. */
  readonly value: string;
  /** True when this field differs from the other side's. */
  readonly differs: boolean;
  /** True for a field this side lacks and the other side has. */
  readonly absent?: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A nested value on few characters that still wraps between its fields: `{account: "x", key: "k1"}`
 * (keys bare, a space after each comma), cut like showValue. Pure.
 */
export function compactValue(value: unknown): string {
  if (!isObject(value) && !Array.isArray(value)) return showValue(value);
  const text = showValue(value);
  // showValue's JSON, respaced: only outside strings, so that no value's own text is changed.
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? '';
    if (inString) {
      out += c;
      if (c === '\\') {
        out += text[i + 1] ?? '';
        i += 1;
      } else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      const key = /^"([A-Za-z_$][\w$]*)":/.exec(text.slice(i));
      if (key !== null) {
        out += `${key[1]}: `;
        i += key[0].length - 1;
        continue;
      }
      inString = true;
      out += c;
    } else out += c === ',' ? ', ' : c;
  }
  return out;
}

/** Every differing field of two replies, paths starting with `reply.`, ignoring a rejection's message. Pure. */
export function replyDifferences(model: unknown, impl: unknown): readonly Difference[] {
  return allDifferences(comparableReply(model), comparableReply(impl), 'reply').differences;
}

/** The path of a difference inside the reply (`reply.job.token` → `job.token`). Pure. */
const inside = (d: Difference): string => (d.path === 'reply' ? '' : d.path.replace(/^reply\./, ''));

/** True when a field at `path` and a difference at `diff` touch (one is the other or inside it). */
const touches = (path: string, diff: string): boolean =>
  path === diff || path === '' || diff === '' || diff.startsWith(`${path}.`) || path.startsWith(`${diff}.`);

/**
 * The fields of one side's reply to show, in its own order, each marked when it differs; then
 * the fields only the other side has, as `absent`. `side` says which value of each difference is
 * this reply's. Pure.
 */
export function replyFields(reply: unknown, differences: readonly Difference[], side: 'model' | 'impl'): ReplyField[] {
  const shown = comparableReply(reply);
  const diffPaths = differences.map(inside);
  const differs = (path: string): boolean => diffPaths.some((d) => touches(path, d));
  const fields: ReplyField[] = [];
  if (!isObject(shown)) return [{ path: '', value: showValue(shown), differs: differences.length > 0 }];
  for (const [key, value] of Object.entries(shown)) {
    if (isObject(value) && Object.keys(value).length > 0)
      for (const [inner, v] of Object.entries(value))
        fields.push({ path: `${key}.${inner}`, value: compactValue(v), differs: differs(`${key}.${inner}`) });
    else fields.push({ path: key, value: showValue(value), differs: differs(key) });
  }
  for (const d of differences) {
    const mine = side === 'model' ? d.model : d.impl;
    const path = inside(d);
    if (mine === undefined && path !== '' && !fields.some((f) => f.path === path))
      fields.push({ path, value: 'absent', differs: true, absent: true });
  }
  return fields;
}

/** A rejection's message (shown apart, in words), or undefined. Pure. */
export function replyMessage(reply: unknown): string | undefined {
  const message = isObject(reply) && reply.ok === false ? reply.message : undefined;
  return typeof message === 'string' ? message : undefined;
}
