/**
 * Schemas for everything that arrives from outside: commands, configs and snapshots. Both the
 * model and the implementation validate through these, once, at the boundary; the inside then
 * trusts its types. Validation never throws for commands (a malformed command is an ordinary
 * `invalid_argument` reply); configs and snapshots throw a JobcheckError.
 */
import { z } from 'zod';
import { describeValue } from './describe.ts';
import { JobcheckError } from './errors.ts';
import { fastCommand } from './fastCommand.ts';
import { putOwn } from './keys.ts';
import type { Command, Config, Rejection, Snapshot } from './types.ts';
import { SNAPSHOT_FORMAT } from './types.ts';

const nonEmpty = z.string().min(1, 'must be a non-empty string');
/** Safe integers only: NaN, fractions and values beyond 2^53-1 are refused. */
const int = z.int();
const time = z.int().min(0, 'must be >= 0');
const positive = z.int().min(1, 'must be >= 1');

/** Schema of a store config. */
export const configSchema = z
  .strictObject({
    capacity: positive,
    maxAttempts: positive,
    leaseTicks: positive,
    backoffBase: positive,
    backoffCap: positive,
  })
  .refine((c) => c.backoffCap >= c.backoffBase, {
    message: 'must be >= backoffBase',
    path: ['backoffCap'],
  });

const submitSchema = z
  .strictObject({
    type: z.literal('submit'),
    id: nonEmpty,
    account: nonEmpty,
    key: nonEmpty,
    amount: int,
    deadline: time,
    now: time,
  })
  .refine((c) => c.deadline > c.now, { message: 'must be greater than now', path: ['deadline'] });
const claimSchema = z.strictObject({ type: z.literal('claim'), worker: nonEmpty, now: time });
const commitSchema = z.strictObject({ type: z.literal('commit'), worker: nonEmpty, token: positive, now: time });
const ackSchema = z.strictObject({ type: z.literal('ack'), worker: nonEmpty, token: positive, now: time });
const failSchema = z.strictObject({
  type: z.literal('fail'),
  worker: nonEmpty,
  token: positive,
  kind: z.enum(['transient', 'permanent']),
  error: nonEmpty,
  now: time,
});
const tickSchema = z.strictObject({ type: z.literal('tick'), now: time });

/** The schema of each command of the contract, by `type` (without the fast path of parseCommand). */
export const commandSchemas = {
  submit: submitSchema,
  claim: claimSchema,
  commit: commitSchema,
  ack: ackSchema,
  fail: failSchema,
  tick: tickSchema,
} as const;

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = input;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, key)) return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

/**
 * The first issue of a zod error as `{path, message}`: the dotted path of the bad field and a
 * sentence naming it and the value it got (`worker: must be a non-empty string (got "")`), an
 * unknown field as `x: unknown field`, a missing one as `x: is required`. `root` names the value
 * itself when the path is empty. Used for every input from outside (commands, configs, snapshots,
 * protocol requests and replies), so all of them are described alike. Pure.
 */
export function describeIssue(
  error: Pick<z.ZodError, 'issues'>,
  input: unknown,
  root = 'value',
): { path: string; message: string } {
  const issue = error.issues[0];
  if (issue === undefined) return { path: '', message: 'invalid' };
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    const path = [...issue.path, key].map(String).join('.');
    return { path, message: `${path}: unknown field` };
  }
  const path = issue.path.map(String).join('.');
  const where = path === '' ? root : path;
  if (issue.code === 'invalid_type' && issue.expected === 'nonoptional')
    return { path, message: `${where}: is required` };
  return { path, message: `${where}: ${issue.message} (got ${describeValue(valueAt(input, issue.path))})` };
}

/** The issues a schema finds, as `describeIssue` reads them. */
class IssueList {
  constructor(readonly issues: z.core.$ZodIssue[]) {}
}
/**
 * zod's own parse, with the same issues as `schema.safeParse`, but handing them over in a plain
 * list instead of a ZodError: building the error (an Error with its stack and a dozen methods) was
 * most of the cost of refusing a command.
 */
const parseIssues = z.core._safeParse(IssueList as unknown as typeof z.core.$ZodError);

/** Outcome of parsing a command: the typed command, or the `invalid_argument` rejection to reply with. */
export type ParsedCommand =
  | { readonly ok: true; readonly command: Command }
  | { readonly ok: false; readonly rejection: Rejection };

/**
 * Validates an untrusted command (step 1 of the contract, without the clock check, which needs the
 * store). Pure; never throws. The message names the first bad field and its value. A well-formed
 * command is accepted by a fast path that yields what the schema would (fastCommand.ts); anything
 * else goes to the schema (`parseCommandBySchema`), which words every rejection.
 */
export function parseCommand(input: unknown): ParsedCommand {
  const command = fastCommand(input);
  return command !== undefined ? { ok: true, command } : parseCommandBySchema(input);
}

/** `parseCommand` by the zod schema alone, without the fast path: the reference the fast path is held to. Pure. */
export function parseCommandBySchema(input: unknown): ParsedCommand {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return reject(`command: must be an object (got ${describeValue(input)})`);
  }
  const type = (input as { type?: unknown }).type;
  if (typeof type !== 'string' || !Object.hasOwn(commandSchemas, type)) {
    return reject(`type: must be one of ${Object.keys(commandSchemas).join(', ')} (got ${describeValue(type)})`);
  }
  const schema = commandSchemas[type as keyof typeof commandSchemas];
  const result = parseIssues(schema, input);
  if (!result.success) return reject(describeIssue(result.error, input).message);
  return { ok: true, command: result.data as Command };
}

function reject(message: string): ParsedCommand {
  return { ok: false, rejection: { ok: false, code: 'invalid_argument', message } };
}

/** Validates a config; throws JobcheckError `invalid_config` naming the field. Returns a fresh copy. */
export function parseConfig(input: unknown): Config {
  const result = configSchema.safeParse(input);
  if (!result.success) {
    const { path, message } = describeIssue(result.error, input);
    throw new JobcheckError('invalid_config', path, `invalid config: ${message}`);
  }
  return result.data;
}

/** The own property `key` of `record`, never one inherited from Object.prototype. */
export function ownValue<T>(record: { readonly [key: string]: T }, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

const toEntries = (input: unknown): unknown =>
  input !== null && typeof input === 'object' && !Array.isArray(input) && !(input instanceof Map)
    ? new Map(Object.entries(input))
    : input;

/**
 * A JSON object used as a dictionary with arbitrary string keys. zod's `record` skips a key named
 * `__proto__` (and its output would lose it), so the object is validated as a map of its own
 * entries and rebuilt with every key as an own property.
 */
function dictionary<V extends z.ZodType>(value: V) {
  return z
    .preprocess(toEntries, z.map(z.string(), value, { error: 'must be an object' }))
    .superRefine((map, ctx) => {
      if (map.has(''))
        ctx.addIssue({
          code: 'custom',
          message: 'must not have an empty key (ids, accounts and keys are non-empty strings)',
        });
    })
    .transform((map) => {
      const out: Record<string, z.output<V>> = {};
      for (const [key, v] of map) putOwn(out, key, v);
      return out;
    });
}

const payloadSchema = z.strictObject({ account: nonEmpty, key: nonEmpty, amount: int, deadline: time });
const jobSchema = z.strictObject({
  payload: payloadSchema,
  seq: positive,
  status: z.enum(['ready', 'waiting', 'running', 'done', 'dead']),
  attempts: z.int().min(0, 'must be >= 0'),
  token: positive.optional(),
  owner: nonEmpty.optional(),
  leaseUntil: time.optional(),
  notBefore: time.optional(),
  reason: z.enum(['deadline', 'lease_expired', 'permanent', 'attempts_exhausted', 'no_time_for_retry']).optional(),
  lastError: nonEmpty.optional(),
});
const effectSchema = z.strictObject({ amount: int, job: nonEmpty, token: positive });

/** Which of the status-dependent fields a job of each status has (true) or must not have (false). */
const FIELDS_BY_STATUS = {
  ready: { token: false, owner: false, leaseUntil: false, notBefore: false, reason: false },
  waiting: { token: false, owner: false, leaseUntil: false, notBefore: true, reason: false },
  running: { token: true, owner: true, leaseUntil: true, notBefore: false, reason: false },
  done: { token: false, owner: false, leaseUntil: false, notBefore: false, reason: false },
  dead: { token: false, owner: false, leaseUntil: false, notBefore: false, reason: true },
} as const;

/** Schema of the canonical snapshot, with the cross-field rules that any reachable state obeys. */
export const snapshotSchema = z
  .strictObject({
    format: z.literal(SNAPSHOT_FORMAT),
    config: configSchema,
    clock: time,
    nextToken: positive,
    nextSeq: positive,
    jobs: dictionary(jobSchema),
    balances: dictionary(int),
    effects: dictionary(dictionary(effectSchema)),
  })
  .superRefine((s, ctx) => {
    const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });
    const seqs = new Set<number>();
    const tokens = new Set<number>();
    const unresolvedByAccount = new Map<string, { seq: number; status: string }[]>();
    let unresolved = 0;
    for (const [id, job] of Object.entries(s.jobs)) {
      const at = (field: string) => ['jobs', id, field];
      if (job.seq >= s.nextSeq) issue(at('seq'), `must be below nextSeq (${s.nextSeq})`);
      if (seqs.has(job.seq)) issue(at('seq'), 'must be unique');
      seqs.add(job.seq);
      // Spelled out field by field: this loop runs once per job of a snapshot that may hold millions.
      const wanted = FIELDS_BY_STATUS[job.status];
      const presence = (field: string, present: boolean, required: boolean) => {
        if (present !== required) {
          issue(
            at(field),
            present ? `must be absent when status is ${job.status}` : `is required when status is ${job.status}`,
          );
        }
      };
      presence('token', job.token !== undefined, wanted.token);
      presence('owner', job.owner !== undefined, wanted.owner);
      presence('leaseUntil', job.leaseUntil !== undefined, wanted.leaseUntil);
      presence('notBefore', job.notBefore !== undefined, wanted.notBefore);
      presence('reason', job.reason !== undefined, wanted.reason);
      if (job.attempts > s.config.maxAttempts)
        issue(at('attempts'), `must be <= maxAttempts (${s.config.maxAttempts})`);
      const isUnresolved = job.status === 'ready' || job.status === 'waiting' || job.status === 'running';
      if (isUnresolved) {
        unresolved += 1;
        if (job.payload.deadline <= s.clock)
          issue(['jobs', id, 'payload', 'deadline'], `must be greater than clock (${s.clock}) while unresolved`);
        const list = unresolvedByAccount.get(job.payload.account) ?? [];
        list.push({ seq: job.seq, status: job.status });
        unresolvedByAccount.set(job.payload.account, list);
      }
      if ((job.status === 'ready' || job.status === 'waiting') && job.attempts >= s.config.maxAttempts) {
        issue(at('attempts'), `must be below maxAttempts (${s.config.maxAttempts}) when status is ${job.status}`);
      }
      if ((job.status === 'running' || job.status === 'waiting' || job.status === 'done') && job.attempts < 1) {
        issue(at('attempts'), `must be >= 1 when status is ${job.status}`);
      }
      if (job.status === 'running') {
        if (job.token !== undefined && job.token >= s.nextToken)
          issue(at('token'), `must be below nextToken (${s.nextToken})`);
        if (job.token !== undefined && tokens.has(job.token)) issue(at('token'), 'must be unique among running jobs');
        if (job.token !== undefined) tokens.add(job.token);
        if (job.leaseUntil !== undefined && job.leaseUntil <= s.clock)
          issue(at('leaseUntil'), `must be greater than clock (${s.clock})`);
      }
      if (job.status === 'waiting' && job.notBefore !== undefined) {
        if (job.notBefore <= s.clock) issue(at('notBefore'), `must be greater than clock (${s.clock})`);
        if (job.notBefore >= job.payload.deadline) issue(at('notBefore'), 'must be below the deadline');
      }
    }
    if (unresolved > s.config.capacity)
      issue(['jobs'], `holds ${unresolved} unresolved jobs, more than capacity (${s.config.capacity})`);
    for (const [account, list] of unresolvedByAccount) {
      const head = Math.min(...list.map((j) => j.seq));
      for (const j of list) {
        if (j.seq !== head && j.status !== 'ready') {
          issue(
            ['jobs'],
            `account ${JSON.stringify(account)}: a ${j.status} job (seq ${j.seq}) is not the account's earliest unresolved job`,
          );
        }
      }
    }
    for (const [account, ledger] of Object.entries(s.effects)) {
      let sum = 0;
      for (const [key, effect] of Object.entries(ledger)) {
        const job = ownValue(s.jobs, effect.job);
        if (job === undefined) issue(['effects', account, key, 'job'], 'must name a job of the snapshot');
        else if (job.payload.account !== account || job.payload.key !== key || job.payload.amount !== effect.amount) {
          issue(['effects', account, key], `does not match the payload of job ${JSON.stringify(effect.job)}`);
        }
        if (effect.token >= s.nextToken)
          issue(['effects', account, key, 'token'], `must be below nextToken (${s.nextToken})`);
        sum += effect.amount;
      }
      if (Object.keys(ledger).length === 0) issue(['effects', account], 'must not be empty');
      if (ownValue(s.balances, account) !== sum)
        issue(['balances', account], `must equal the sum of the ledger's amounts (${sum})`);
    }
    for (const account of Object.keys(s.balances)) {
      if (ownValue(s.effects, account) === undefined) issue(['balances', account], 'has no effect in the ledger');
    }
  });

/**
 * Validates an untrusted snapshot and returns a deep, fresh copy that shares nothing with the
 * input. Throws JobcheckError `invalid_snapshot` naming the first bad field; pure otherwise.
 */
export function parseSnapshot(input: unknown): Snapshot {
  const result = snapshotSchema.safeParse(input);
  if (!result.success) {
    const { path, message } = describeIssue(result.error, input);
    throw new JobcheckError('invalid_snapshot', path, `invalid snapshot: ${message}`);
  }
  // zod infers each job as one flat object with every status-dependent field optional; the
  // FIELDS_BY_STATUS check above is what makes a parsed job a member of the JobRecord union.
  return result.data as Snapshot;
}
