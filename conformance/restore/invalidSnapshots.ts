/**
 * The snapshots the restore phase offers an implementation, every one of which it must refuse
 * (docs/contract.md, section 10): a valid snapshot of a store with a job of every status, an
 * effect and a balance (BASE_SNAPSHOT, reached by the model from commands), changed in one place.
 * Some changes are generated, field by field (each number made negative, fractional, too large for
 * a safe integer, or a string; each string emptied or made a number; each field left out; an
 * unknown field, `__proto__` among them, added; an empty key in each map); the rest are written out,
 * one for each cross-field rule of section 10, each breaking only that rule.
 *
 * The model is the judge: a change is kept only when the model's restore refuses the result, and
 * the refusal it gives (its code, the field it names, its message) is what the implementation is
 * held to (its code only, as the protocol says). A change the model accepts is dropped. Each
 * snapshot travels as JSON text, so that every target gets the same bytes, numbers that no
 * JavaScript number holds exactly (`1e400`, 2^53 + 1) included. Pure and deterministic: the same
 * list in every check.
 */
import type { Config, Snapshot } from '../../contract/index.ts';
import { isJobcheckError, putOwn } from '../../contract/index.ts';
import { fromSnapshot, initialState, step, toSnapshot } from '../../model/index.ts';

/** The kinds of refusal of docs/contract.md section 10: shape first (section 9), then its cross-field rules. */
export const REFUSAL_KINDS = [
  'shape',
  'format',
  'missing_field',
  'unknown_field',
  'integer',
  'enum',
  'empty_string',
  'config',
  'seq',
  'attempts',
  'status_fields',
  'clock',
  'tokens',
  'capacity',
  'account_order',
  'ledger',
] as const;

/** One of REFUSAL_KINDS. */
export type RefusalKind = (typeof REFUSAL_KINDS)[number];

/** Each kind of refusal in words, as the contract states the rule. */
export const REFUSAL_WORDS: Record<RefusalKind, string> = {
  shape: 'a value of the wrong type (not an object, a string for a number)',
  format: 'a format other than jobcheck.snapshot/1',
  missing_field: 'a field left out',
  unknown_field: 'a field the snapshot does not have',
  integer: 'a number that is no safe integer in range (negative, fractional, too large)',
  enum: 'a status or dead reason that does not exist',
  empty_string: 'an empty string as an id, account, key, owner or error, or as a key of a map',
  config: 'a config that breaks its rules',
  seq: 'a seq that is not unique or not below nextSeq',
  attempts: 'attempts out of the bounds of its status or maxAttempts',
  status_fields: "a status without its own fields, or with another status's",
  clock: 'a deadline, lease or retry time that does not lie after the clock',
  tokens: 'a running token not below nextToken, or shared by two running jobs',
  capacity: 'more unresolved jobs than capacity',
  account_order: "a running or waiting job that is not its account's head",
  ledger: "an effect that matches no job, a balance that is not its ledger's sum",
};

/** What the model answers to a snapshot it refuses: the code, the field it names and its words. */
export interface ModelRefusal {
  readonly code: string;
  readonly path?: string;
  readonly message: string;
}

/** One snapshot the implementation must refuse. */
export interface InvalidSnapshot {
  /** Stable, unique: `<kind>: <change>`. */
  readonly name: string;
  readonly kind: RefusalKind;
  /** How it differs from BASE_SNAPSHOT, in words: `jobs.b.token = 5`; or what it is instead (`null`). */
  readonly change: string;
  /** True when it is no change of the base but another value altogether (`null`, `[]`). */
  readonly replaces: boolean;
  /** The snapshot as the JSON text offered. */
  readonly text: string;
  /** The model's refusal of it. */
  readonly expected: ModelRefusal;
}

/** The config of the base store. */
export const BASE_CONFIG: Config = { capacity: 4, maxAttempts: 3, leaseTicks: 5, backoffBase: 2, backoffCap: 8 };

/**
 * The commands that bring an empty store of BASE_CONFIG to the base: job a done (with its effect
 * and balance), c waiting, d dead, b running and e ready behind it in b's account.
 */
export const BASE_COMMANDS: readonly unknown[] = [
  { type: 'submit', id: 'a', account: 'acme', key: 'invoice-1', amount: 5, deadline: 100, now: 1 },
  { type: 'claim', worker: 'w1', now: 1 },
  { type: 'commit', worker: 'w1', token: 1, now: 2 },
  { type: 'ack', worker: 'w1', token: 1, now: 2 },
  { type: 'submit', id: 'c', account: 'globex', key: 'invoice-2', amount: 3, deadline: 100, now: 3 },
  { type: 'submit', id: 'd', account: 'initech', key: 'invoice-3', amount: 2, deadline: 100, now: 3 },
  { type: 'claim', worker: 'w2', now: 3 },
  { type: 'fail', worker: 'w2', token: 2, kind: 'transient', error: 'timeout', now: 4 },
  { type: 'claim', worker: 'w3', now: 4 },
  { type: 'fail', worker: 'w3', token: 3, kind: 'permanent', error: 'card declined', now: 4 },
  { type: 'submit', id: 'b', account: 'acme', key: 'invoice-4', amount: 7, deadline: 100, now: 5 },
  { type: 'submit', id: 'e', account: 'acme', key: 'invoice-5', amount: 1, deadline: 100, now: 5 },
  { type: 'claim', worker: 'w1', now: 5 },
];

/** The base snapshot, as the model reaches it from BASE_COMMANDS. Pure. */
function baseSnapshot(): Snapshot {
  let state = initialState(BASE_CONFIG);
  for (const command of BASE_COMMANDS) state = step(state, command).state;
  return toSnapshot(state);
}

/** The valid snapshot every invalid one is a change of; the restore phase restores it first. */
export const BASE_SNAPSHOT: Snapshot = baseSnapshot();

/** The model's refusal of a snapshot given as JSON text, or undefined when the model accepts it. Pure. */
export function modelRefusal(text: string): ModelRefusal | undefined {
  try {
    fromSnapshot(JSON.parse(text));
    return undefined;
  } catch (error) {
    if (!isJobcheckError(error)) throw error;
    return { code: error.code, ...(error.path === undefined ? {} : { path: error.path }), message: error.message };
  }
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** A number written as it stands in the JSON text (one no JavaScript number holds exactly). */
const RAW = '\u0000raw:';

/** A deep copy of the base as plain JSON. */
const copyOfBase = (): { [key: string]: Json } => JSON.parse(JSON.stringify(BASE_SNAPSHOT));

/** The object at `path` (every step an object). */
function objectAt(root: { [key: string]: Json }, path: readonly string[]): { [key: string]: Json } {
  let at: Json = root;
  for (const key of path) at = (at as { [key: string]: Json })[key] as Json;
  return at as { [key: string]: Json };
}

/** The JSON text of `value`, raw numbers written as they are. Pure. */
function textOf(value: Json): string {
  return JSON.stringify(value).replace(/"\\u0000raw:([^"]*)"/g, '$1');
}

/** A change of the base: a function that edits a fresh copy (or returns another value to offer instead). */
interface Change {
  readonly kind: RefusalKind;
  readonly change: string;
  readonly edit: (snapshot: { [key: string]: Json }) => Json | undefined;
}

/** `path` = `value`, in words and as an edit. */
function setTo(kind: RefusalKind, path: readonly string[], value: Json, shown?: string): Change {
  const last = path[path.length - 1] as string;
  const text = shown ?? (typeof value === 'string' && value.startsWith(RAW) ? value.slice(RAW.length) : textOf(value));
  return {
    kind,
    change: `${path.join('.')} = ${text}`,
    edit: (s) => {
      putOwn(objectAt(s, path.slice(0, -1)), last, value);
      return undefined;
    },
  };
}

/** The field at `path` left out. */
const without = (kind: RefusalKind, path: readonly string[]): Change => ({
  kind,
  change: `${path.join('.')} left out`,
  edit: (s) => {
    delete objectAt(s, path.slice(0, -1))[path[path.length - 1] as string];
    return undefined;
  },
});

/** Several fields set at once (a change that must keep every other rule). */
const setAll = (
  kind: RefusalKind,
  change: string,
  fields: readonly [readonly string[], Json | undefined][],
): Change => ({
  kind,
  change,
  edit: (s) => {
    for (const [path, value] of fields) {
      const o = objectAt(s, path.slice(0, -1));
      const key = path[path.length - 1] as string;
      if (value === undefined) delete o[key];
      else putOwn(o, key, value);
    }
    return undefined;
  },
});

/** Every leaf of `value` below `path`, with its path. */
function leaves(value: Json, path: readonly string[] = []): [string[], Json][] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [[[...path], value]];
  return Object.entries(value).flatMap(([k, v]) => leaves(v, [...path, k]));
}

/** Every object of `value` below `path` (itself included) with its path; `maps` says which are maps (jobs, balances, effects). */
function objects(value: Json, path: readonly string[] = []): string[][] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return [[...path], ...Object.entries(value).flatMap(([k, v]) => objects(v, [...path, k]))];
}

/** Whether the object at `path` is a map (its keys are ids, accounts or operation keys, not fields). */
const isMap = (path: readonly string[]): boolean =>
  (path.length === 1 && ['jobs', 'balances', 'effects'].includes(path[0] as string)) ||
  (path.length === 2 && path[0] === 'effects');

/** The changes generated field by field. */
function generated(): Change[] {
  const base = copyOfBase();
  const out: Change[] = [];
  for (const [path, value] of leaves(base)) {
    const last = path[path.length - 1] as string;
    if (typeof value === 'number') {
      out.push(
        setTo('integer', path, -1),
        setTo('integer', path, value + 0.5),
        setTo('integer', path, `${RAW}1e400`),
        setTo('integer', path, `${RAW}9007199254740993`),
        setTo('shape', path, String(value)),
      );
    } else if (typeof value === 'string') {
      if (last === 'format') out.push(setTo('format', path, 'jobcheck.snapshot/2'));
      else if (last === 'status') out.push(setTo('enum', path, 'paused'));
      else if (last === 'reason') out.push(setTo('enum', path, 'cancelled'));
      else out.push(setTo('empty_string', path, ''));
      out.push(setTo('shape', path, 7));
    }
  }
  for (const path of objects(base)) {
    if (isMap(path)) {
      const entries = Object.entries(objectAt(base, path));
      const first = entries[0];
      if (first !== undefined)
        out.push({
          kind: 'empty_string',
          change: `${path.join('.')} with an empty key`,
          edit: (s) => {
            putOwn(objectAt(s, path), '', first[1]);
            return undefined;
          },
        });
      continue;
    }
    for (const key of Object.keys(objectAt(base, path))) out.push(without('missing_field', [...path, key]));
    for (const unknown of ['priority', '__proto__'])
      out.push(setTo('unknown_field', [...path, unknown], unknown === '__proto__' ? { status: 'done' } : 1));
  }
  return out;
}

/** Values that are no snapshot at all. */
const NOT_A_SNAPSHOT: readonly Change[] = [null, [], 'snapshot', 42, true].map((value) => ({
  kind: 'shape' as const,
  change: JSON.stringify(value),
  edit: () => value,
}));

/** One change for each cross-field rule of section 10, each keeping every other rule. */
const CROSS_FIELD: readonly Change[] = [
  // The contract's own example first: a running delivery without its leaseUntil.
  without('status_fields', ['jobs', 'b', 'leaseUntil']),
  setTo('config', ['config', 'capacity'], 0),
  setTo('config', ['config', 'maxAttempts'], 0),
  setTo('config', ['config', 'leaseTicks'], 0),
  setTo('config', ['config', 'backoffCap'], 1),
  setTo('seq', ['jobs', 'e', 'seq'], 4),
  setTo('seq', ['jobs', 'e', 'seq'], 6),
  setTo('attempts', ['jobs', 'a', 'attempts'], 4),
  setTo('attempts', ['jobs', 'e', 'attempts'], 3),
  setTo('attempts', ['jobs', 'c', 'attempts'], 3),
  setTo('attempts', ['jobs', 'a', 'attempts'], 0),
  setTo('attempts', ['jobs', 'b', 'attempts'], 0),
  without('status_fields', ['jobs', 'b', 'token']),
  without('status_fields', ['jobs', 'b', 'owner']),
  without('status_fields', ['jobs', 'c', 'notBefore']),
  without('status_fields', ['jobs', 'd', 'reason']),
  setTo('status_fields', ['jobs', 'e', 'token'], 3),
  setTo('status_fields', ['jobs', 'e', 'notBefore'], 7),
  setTo('status_fields', ['jobs', 'a', 'reason'], 'permanent'),
  setTo('status_fields', ['jobs', 'd', 'owner'], 'w3'),
  setTo('clock', ['jobs', 'e', 'payload', 'deadline'], 5),
  setTo('clock', ['jobs', 'b', 'leaseUntil'], 5),
  setTo('clock', ['jobs', 'c', 'notBefore'], 5),
  setTo('clock', ['jobs', 'c', 'notBefore'], 100),
  setTo('clock', ['clock'], 100),
  setTo('tokens', ['jobs', 'b', 'token'], 5),
  setTo('tokens', ['nextToken'], 4),
  setAll('tokens', 'jobs.c running with token 4, as jobs.b is', [
    [['jobs', 'c', 'status'], 'running'],
    [['jobs', 'c', 'token'], 4],
    [['jobs', 'c', 'owner'], 'w2'],
    [['jobs', 'c', 'leaseUntil'], 9],
    [['jobs', 'c', 'notBefore'], undefined],
  ]),
  setTo('capacity', ['config', 'capacity'], 2),
  setAll('account_order', 'jobs.e waiting behind jobs.b in account acme', [
    [['jobs', 'e', 'status'], 'waiting'],
    [['jobs', 'e', 'attempts'], 1],
    [['jobs', 'e', 'notBefore'], 7],
  ]),
  setAll('account_order', 'jobs.b ready and jobs.e running in its place', [
    [['jobs', 'b', 'status'], 'ready'],
    [['jobs', 'b', 'token'], undefined],
    [['jobs', 'b', 'owner'], undefined],
    [['jobs', 'b', 'leaseUntil'], undefined],
    [['jobs', 'e', 'status'], 'running'],
    [['jobs', 'e', 'attempts'], 1],
    [['jobs', 'e', 'token'], 4],
    [['jobs', 'e', 'owner'], 'w1'],
    [['jobs', 'e', 'leaseUntil'], 10],
  ]),
  setTo('ledger', ['effects', 'acme', 'invoice-1', 'job'], 'z'),
  setTo('ledger', ['effects', 'acme', 'invoice-1', 'job'], 'b'),
  setAll('ledger', 'effects.acme.invoice-1.amount = 6 and balances.acme = 6', [
    [['effects', 'acme', 'invoice-1', 'amount'], 6],
    [['balances', 'acme'], 6],
  ]),
  setTo('ledger', ['effects', 'acme', 'invoice-1', 'token'], 5),
  setTo('ledger', ['effects', 'globex'], {}),
  setTo('ledger', ['balances', 'acme'], 6),
  setTo('ledger', ['balances', 'globex'], 3),
  without('ledger', ['effects', 'acme']),
  without('ledger', ['balances', 'acme']),
];

let memo: readonly InvalidSnapshot[] | undefined;

/**
 * Every snapshot the restore phase offers, in a fixed order: the cross-field rules (the contract's
 * own example first), what is no snapshot at all, then the generated changes; each one the model
 * refuses, each text once. Pure (computed once).
 */
export function invalidSnapshots(): readonly InvalidSnapshot[] {
  if (memo !== undefined) return memo;
  const seen = new Set<string>();
  const out: InvalidSnapshot[] = [];
  for (const c of [...CROSS_FIELD, ...NOT_A_SNAPSHOT, ...generated()]) {
    const copy = copyOfBase();
    const replaced = c.edit(copy);
    const text = textOf(replaced === undefined ? copy : replaced);
    if (seen.has(text)) continue;
    seen.add(text);
    const expected = modelRefusal(text);
    if (expected === undefined) continue;
    const replaces = replaced !== undefined;
    out.push({ name: `${c.kind}: ${c.change}`, kind: c.kind, change: c.change, replaces, text, expected });
  }
  memo = out;
  return out;
}
