/**
 * Comparison of replies and snapshots between the model and an implementation. Snapshots are
 * plain JSON values whose key order carries no meaning, so equality is structural; the first
 * difference is named by a dotted path (`jobs.a.attempts`) so that a person can find it at once.
 */
import { hasOwnKey, jsonExcerpt } from '../../contract/index.ts';
import type { Reply } from '../../contract/index.ts';
import { outsideText } from '../outside/outsideText.ts';

/** One place where two JSON values differ: the dotted path, and the value on each side (`undefined` = absent). */
export interface Difference {
  readonly path: string;
  readonly model: unknown;
  readonly impl: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const join = (path: string, key: string | number): string => (path === '' ? String(key) : `${path}.${key}`);

/**
 * The first difference between two JSON values, walking the model's keys in order and then any
 * keys only the implementation has; `undefined` when they are equal. Object key order is ignored.
 * Pure.
 */
export function firstDifference(model: unknown, impl: unknown, path = ''): Difference | undefined {
  if (model === impl) return undefined;
  if (Array.isArray(model) && Array.isArray(impl)) {
    const n = Math.max(model.length, impl.length);
    for (let i = 0; i < n; i++) {
      const d = firstDifference(model[i], impl[i], join(path, i));
      if (d !== undefined) return d;
    }
    return undefined;
  }
  if (isObject(model) && isObject(impl)) {
    for (const key of Object.keys(model)) {
      const d = firstDifference(model[key], hasOwnKey(impl, key) ? impl[key] : undefined, join(path, key));
      if (d !== undefined) return d;
    }
    for (const key of Object.keys(impl)) {
      if (!hasOwnKey(model, key) && impl[key] !== undefined)
        return { path: join(path, key), model: undefined, impl: impl[key] };
    }
    return undefined;
  }
  return { path, model, impl };
}

/**
 * A JSON value without the named fields, at any depth (e.g. `lastError`, the field of a rule a
 * target declares unsupported). Pure.
 */
export function withoutFields(value: unknown, fields: ReadonlySet<string>): unknown {
  if (fields.size === 0 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => withoutFields(v, fields));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!fields.has(k)) out[k] = withoutFields(v, fields);
  return out;
}

/** Most characters of one value shown in a story or message (anything longer is cut, ending in `...`). */
export const SHOWN_CHARS = 400;

/**
 * Renders a value for people: `absent` for a missing field, JSON otherwise, cut to SHOWN_CHARS
 * (a value from an implementation can be a megabyte long, or nested too deep for
 * JSON.stringify). Pure.
 */
export function showValue(value: unknown): string {
  if (value === undefined) return 'absent';
  return jsonExcerpt(value, SHOWN_CHARS);
}

/** A difference's path for people: `(value)` for the whole, escaped (its keys may be the implementation's, a job id of its snapshot). Pure. */
export const describePath = (path: string): string => (path === '' ? '(value)' : outsideText(path));

/** `jobs.a.attempts: model 2, impl 1`. Pure. */
export function describeDifference(d: Difference): string {
  return `${describePath(d.path)}: model ${showValue(d.model)}, impl ${showValue(d.impl)}`;
}

/**
 * A reply as it is compared: a rejection keeps only `ok` and `code` (messages are for people and
 * may differ between implementations); anything else is returned unchanged. Pure.
 */
export function comparableReply(reply: unknown): unknown {
  if (isObject(reply) && reply.ok === false) {
    const { message: _message, ...rest } = reply;
    return rest;
  }
  return reply;
}

/** The first difference between the model's reply and the implementation's, ignoring `message`. Pure. */
export function replyDifference(model: Reply, impl: unknown): Difference | undefined {
  return firstDifference(comparableReply(model), comparableReply(impl), 'reply');
}

/**
 * Every difference between two JSON values, in the order firstDifference would find them one
 * after the other (the model's keys in order, then keys only the implementation has); at most
 * `limit` are collected, and `total` counts them all. Object key order is ignored. Pure.
 */
export function allDifferences(
  model: unknown,
  impl: unknown,
  path = '',
  limit = Number.POSITIVE_INFINITY,
): { readonly differences: readonly Difference[]; readonly total: number } {
  const differences: Difference[] = [];
  let total = 0;
  const add = (d: Difference): void => {
    total += 1;
    if (differences.length < limit) differences.push(d);
  };
  // An explicit stack, not recursion: an implementation's value may be nested very deep.
  const stack: Array<{ readonly model: unknown; readonly impl: unknown; readonly path: string }> = [
    { model, impl, path },
  ];
  while (stack.length > 0) {
    const top = stack.pop();
    if (top === undefined || top.model === top.impl) continue;
    const children: Array<{ readonly model: unknown; readonly impl: unknown; readonly path: string }> = [];
    if (Array.isArray(top.model) && Array.isArray(top.impl)) {
      const n = Math.max(top.model.length, top.impl.length);
      for (let i = 0; i < n; i++) children.push({ model: top.model[i], impl: top.impl[i], path: join(top.path, i) });
    } else if (isObject(top.model) && isObject(top.impl)) {
      const m = top.model;
      const im = top.impl;
      for (const key of Object.keys(m))
        children.push({ model: m[key], impl: hasOwnKey(im, key) ? im[key] : undefined, path: join(top.path, key) });
      for (const key of Object.keys(im))
        if (!hasOwnKey(m, key) && im[key] !== undefined)
          children.push({ model: undefined, impl: im[key], path: join(top.path, key) });
    } else {
      add({ path: top.path, model: top.model, impl: top.impl });
      continue;
    }
    for (let i = children.length - 1; i >= 0; i--) {
      const c = children[i];
      if (c !== undefined) stack.push(c);
    }
  }
  return { differences, total };
}
