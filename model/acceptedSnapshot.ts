/**
 * A fast acceptance path for well-formed snapshots. A restart (`fromSnapshot`) validates the whole
 * snapshot with the zod schema (contract/schema.ts), and the explorer restores a snapshot of every
 * state it reaches (the snapshot-round-trip invariant), where zod was a fifth of all the time. Yet
 * almost every snapshot the model meets is one it wrote itself. `acceptedSnapshot` accepts only
 * inputs it can prove the schema accepts, and returns what the schema would (a fresh deep copy,
 * every object's fields in the schema's order); for anything else it returns undefined and the
 * caller asks the schema, so every refusal, and its message, stays the schema's own.
 *
 * It is sound, not complete: it answers only for plain objects (prototype Object.prototype, every
 * key own and enumerable, no key `__proto__`, no optional field present as `undefined`), which is
 * what `toSnapshot` and JSON.parse write, and it holds the schema's field rules (safe integers,
 * times >= 0, tokens and sequence numbers >= 1, non-empty strings and keys, the enums) and every
 * cross-field rule of its `superRefine`, each as a plain test; any doubt gives undefined.
 * model/acceptedSnapshot.test.ts holds it to the schema under fast-check.
 */
import type {
  Config,
  DeadReason,
  EffectRecord,
  FieldNames,
  JobRecord,
  JobStatus,
  Snapshot,
} from '../contract/index.ts';
import { SNAPSHOT_FORMAT, countFields, fieldNames, hasOwnKey } from '../contract/index.ts';
import { policyOf } from './jobMachine.ts';
import type { JobContext } from './jobMachine.ts';
import type { JobSnapshot, StoreContext } from './storeMachine.ts';

const text = (v: unknown): v is string => typeof v === 'string' && v.length >= 1;
const int = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
const time = (v: unknown): v is number => int(v) && v >= 0;
const positive = (v: unknown): v is number => int(v) && v >= 1;

const STATUSES: ReadonlySet<unknown> = new Set<JobStatus>(['ready', 'waiting', 'running', 'done', 'dead']);
const REASONS: ReadonlySet<unknown> = new Set<DeadReason>([
  'deadline',
  'lease_expired',
  'permanent',
  'attempts_exhausted',
  'no_time_for_retry',
]);
const isStatus = (v: unknown): v is JobStatus => STATUSES.has(v);
/** Absent, or present and well formed: the optional fields of a job record. */
const noneOr =
  <T>(is: (v: unknown) => v is T) =>
  (v: unknown): v is T | undefined =>
    v === undefined || is(v);
const optionalText = noneOr(text);
const optionalTime = noneOr(time);
const optionalPositive = noneOr(positive);
const optionalReason = noneOr((v: unknown): v is DeadReason => REASONS.has(v));
const JOB_FIELDS = fieldNames(
  'payload',
  'seq',
  'status',
  'attempts',
  'token',
  'owner',
  'leaseUntil',
  'notBefore',
  'reason',
  'lastError',
);

/** A plain object: an object whose prototype is Object.prototype. */
const plainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;

/** Whether every enumerable key of `o` is own and a dictionary key the schema keeps as it is (non-empty, not `__proto__`). */
function plainKeys(o: object): boolean {
  for (const key in o) if (!hasOwnKey(o, key) || key === '' || key === '__proto__') return false;
  return true;
}

/** The number of enumerable keys of `o` when each is own and one of `fields`; -1 otherwise. */
const countOf = (o: object, fields: FieldNames): number => countFields(o, fields, true);
const CONFIG_FIELDS = fieldNames('capacity', 'maxAttempts', 'leaseTicks', 'backoffBase', 'backoffCap');
const PAYLOAD_FIELDS = fieldNames('account', 'key', 'amount', 'deadline');
const EFFECT_FIELDS = fieldNames('amount', 'job', 'token');
const SNAPSHOT_FIELDS = fieldNames('format', 'config', 'clock', 'nextToken', 'nextSeq', 'jobs', 'balances', 'effects');

function configOf(v: unknown): Config | undefined {
  if (!plainObject(v) || countOf(v, CONFIG_FIELDS) !== 5) return undefined;
  const { capacity, maxAttempts, leaseTicks, backoffBase, backoffCap } = v;
  if (!positive(capacity) || !positive(maxAttempts) || !positive(leaseTicks) || !positive(backoffBase))
    return undefined;
  if (!positive(backoffCap) || backoffCap < backoffBase) return undefined;
  return { capacity, maxAttempts, leaseTicks, backoffBase, backoffCap };
}

/** The optional fields of a job record (one list, not one per job read). */
const OPTIONAL_JOB_FIELDS = ['token', 'owner', 'leaseUntil', 'notBefore', 'reason', 'lastError'] as const;

/**
 * The fields of the job record `readJob` accepted last (each read once from the input, written here
 * only after every read): one object for every job read, not one per job.
 */
const read: JobFields = {
  payload: { account: '', key: '', amount: 0, deadline: 0 },
  seq: 0,
  status: 'ready',
  attempts: 0,
  token: undefined,
  owner: undefined,
  leaseUntil: undefined,
  notBefore: undefined,
  reason: undefined,
  lastError: undefined,
};

/** A job record's fields as read, each optional one present as `undefined` when absent. */
interface JobFields {
  payload: JobRecord['payload'];
  seq: number;
  status: JobStatus;
  attempts: number;
  token: number | undefined;
  owner: string | undefined;
  leaseUntil: number | undefined;
  notBefore: number | undefined;
  reason: DeadReason | undefined;
  lastError: string | undefined;
}

/**
 * Whether `v` is one job record the schema accepts, by the rules that need only the job, the
 * config and the counters; when it is, its fields are in `read` (the payload a fresh copy).
 */
function readJob(v: unknown, s: { config: Config; clock: number; nextToken: number; nextSeq: number }): boolean {
  if (!plainObject(v) || countOf(v, JOB_FIELDS) < 0) return false;
  const { payload: p, seq, status, attempts, token, owner, leaseUntil, notBefore, reason, lastError } = v;
  if (!plainObject(p) || countOf(p, PAYLOAD_FIELDS) !== 4) return false;
  const { account, key, amount, deadline } = p;
  if (!text(account) || !text(key) || !int(amount) || !time(deadline)) return false;
  if (!positive(seq) || seq >= s.nextSeq || !isStatus(status) || !int(attempts) || attempts < 0) return false;
  if (attempts > s.config.maxAttempts) return false;
  // Present fields must be well formed; which ones a status has is checked below.
  if (!optionalPositive(token) || !optionalText(owner) || !optionalTime(leaseUntil)) return false;
  if (!optionalTime(notBefore) || !optionalReason(reason) || !optionalText(lastError)) return false;
  // An optional field present as `undefined` is left to the schema.
  for (const field of OPTIONAL_JOB_FIELDS) if (hasOwnKey(v, field) && v[field] === undefined) return false;
  const delivered = status === 'running';
  if ((token !== undefined) !== delivered || (owner !== undefined) !== delivered) return false;
  if ((leaseUntil !== undefined) !== delivered) return false;
  if ((notBefore !== undefined) !== (status === 'waiting') || (reason !== undefined) !== (status === 'dead'))
    return false;
  const unresolved = status === 'ready' || status === 'waiting' || status === 'running';
  if (unresolved && deadline <= s.clock) return false;
  if ((status === 'ready' || status === 'waiting') && attempts >= s.config.maxAttempts) return false;
  if (status !== 'ready' && status !== 'dead' && attempts < 1) return false;
  // (A delivered job has its token and lease, a waiting one its notBefore: checked above.)
  if (delivered && (token === undefined || token >= s.nextToken || leaseUntil === undefined || leaseUntil <= s.clock))
    return false;
  if (status === 'waiting' && (notBefore === undefined || notBefore <= s.clock || notBefore >= deadline)) return false;
  read.payload = { account, key, amount, deadline };
  read.seq = seq;
  read.status = status;
  read.attempts = attempts;
  read.token = token;
  read.owner = owner;
  read.leaseUntil = leaseUntil;
  read.notBefore = notBefore;
  read.reason = reason;
  read.lastError = lastError;
  return true;
}

/** One job record as the schema parses it (the fields `readJob` accepted), or undefined. */
function jobOf(
  v: unknown,
  s: { config: Config; clock: number; nextToken: number; nextSeq: number },
): JobRecord | undefined {
  if (!readJob(v, s)) return undefined;
  const { payload, seq, status, attempts, token, owner, leaseUntil, notBefore, reason, lastError } = read;
  // The fields in the schema's order; `readJob` proved which ones the status has.
  const error = lastError === undefined ? undefined : { lastError };
  switch (status) {
    case 'running':
      if (token === undefined || owner === undefined || leaseUntil === undefined) return undefined;
      return { payload, seq, status, attempts, token, owner, leaseUntil, ...error };
    case 'waiting':
      if (notBefore === undefined) return undefined;
      return { payload, seq, status, attempts, notBefore, ...error };
    case 'dead':
      if (reason === undefined) return undefined;
      return { payload, seq, status, attempts, reason, ...error };
    default:
      return { payload, seq, status, attempts, ...error };
  }
}

/** What both acceptances read first: the snapshot's own fields, its counters and its three maps, each proven plain. */
interface Envelope {
  readonly counters: Pick<StoreContext, 'config' | 'clock' | 'nextToken' | 'nextSeq'>;
  readonly jobsIn: Record<string, unknown>;
  readonly balancesIn: Record<string, unknown>;
  readonly effectsIn: Record<string, unknown>;
}

/** The envelope of `input` when the schema surely accepts it, else undefined. Pure. */
function envelopeOf(input: unknown): Envelope | undefined {
  if (!plainObject(input) || countOf(input, SNAPSHOT_FIELDS) !== 8 || input.format !== SNAPSHOT_FORMAT)
    return undefined;
  const config = configOf(input.config);
  const { clock, nextToken, nextSeq } = input;
  if (config === undefined || !time(clock) || !positive(nextToken) || !positive(nextSeq)) return undefined;
  const jobsIn = input.jobs;
  const balancesIn = input.balances;
  const effectsIn = input.effects;
  if (!plainObject(jobsIn) || !plainKeys(jobsIn) || !plainObject(balancesIn) || !plainKeys(balancesIn))
    return undefined;
  if (!plainObject(effectsIn) || !plainKeys(effectsIn)) return undefined;
  return { counters: { config, clock, nextToken, nextSeq }, jobsIn, balancesIn, effectsIn };
}

/**
 * The snapshot the zod schema would parse from `input`, when this path can prove that the schema
 * accepts it; undefined otherwise (the schema then decides, and words the refusal). Pure: the
 * result is a fresh deep copy sharing nothing with `input`.
 */
export function acceptedSnapshot(input: unknown): Snapshot | undefined {
  const envelope = envelopeOf(input);
  if (envelope === undefined) return undefined;
  const { counters, jobsIn, balancesIn, effectsIn } = envelope;
  const { config, clock, nextToken, nextSeq } = counters;

  const jobs: Record<string, JobRecord> = {};
  const seqs = new Set<number>();
  const tokens = new Set<number>();
  // Per account, the least sequence number of its unresolved jobs, and whether one that is not ready is not that job.
  const heads = new Map<string, number>();
  const notReady: JobRecord[] = [];
  let unresolved = 0;
  for (const id in jobsIn) {
    const job = jobOf(jobsIn[id], counters);
    if (job === undefined || seqs.has(job.seq)) return undefined;
    seqs.add(job.seq);
    if (job.status === 'running') {
      if (tokens.has(job.token)) return undefined;
      tokens.add(job.token);
    }
    if (job.status === 'ready' || job.status === 'waiting' || job.status === 'running') {
      unresolved++;
      const head = heads.get(job.payload.account);
      if (head === undefined || job.seq < head) heads.set(job.payload.account, job.seq);
      if (job.status !== 'ready') notReady.push(job);
    }
    jobs[id] = job;
  }
  if (unresolved > config.capacity) return undefined;
  for (const job of notReady) if (heads.get(job.payload.account) !== job.seq) return undefined;

  const balances: Record<string, number> = {};
  for (const account in balancesIn) {
    const balance = balancesIn[account];
    if (!int(balance) || !hasOwnKey(effectsIn, account)) return undefined;
    balances[account] = balance;
  }
  const effects: Record<string, Record<string, EffectRecord>> = {};
  for (const account in effectsIn) {
    const ledgerIn = effectsIn[account];
    if (!plainObject(ledgerIn) || !plainKeys(ledgerIn)) return undefined;
    const ledger: Record<string, EffectRecord> = {};
    let sum = 0;
    let entries = 0;
    for (const key in ledgerIn) {
      const e = ledgerIn[key];
      if (!plainObject(e) || countOf(e, EFFECT_FIELDS) !== 3) return undefined;
      const { amount, job, token } = e;
      if (!int(amount) || !text(job) || !positive(token) || token >= nextToken) return undefined;
      const owner = hasOwnKey(jobs, job) ? jobs[job] : undefined;
      if (owner === undefined) return undefined;
      const p = owner.payload;
      if (p.account !== account || p.key !== key || p.amount !== amount) return undefined;
      ledger[key] = { amount, job, token };
      sum += amount;
      entries++;
    }
    if (entries === 0 || !hasOwnKey(balancesIn, account) || balancesIn[account] !== sum) return undefined;
    effects[account] = ledger;
  }
  return { format: SNAPSHOT_FORMAT, config, clock, nextToken, nextSeq, jobs, balances, effects };
}

const isUnresolvedStatus = (status: JobStatus): boolean =>
  status === 'ready' || status === 'waiting' || status === 'running';

/**
 * In one pass, what `snapshotContext(acceptedSnapshot(input), jobOf, true)` (restoredContext.ts)
 * builds: the store context of a snapshot this path can prove the schema accepts, built straight
 * from the input (a fresh value sharing nothing with it), without the snapshot copy in between,
 * its Sets and Map of the cross-field rules (plain loops over the few jobs instead), or a second
 * walk. Undefined exactly when `acceptedSnapshot(input)` is (the same rules over the same reads of
 * the input); model/acceptedSnapshot.test.ts holds the two equal. Pure.
 */
export function acceptedContext(
  input: unknown,
  jobOf: (status: JobStatus, context: JobContext) => JobSnapshot,
): StoreContext | undefined {
  const envelope = envelopeOf(input);
  if (envelope === undefined) return undefined;
  const { counters, jobsIn, balancesIn, effectsIn } = envelope;
  const { config, clock, nextToken, nextSeq } = counters;

  const policy = policyOf(config);
  // The jobs as listed, and whether they are listed in admission order (as the model writes them).
  const listed: JobSnapshot[] = [];
  let inOrder = true;
  let unresolved = 0;
  for (const id in jobsIn) {
    if (!readJob(jobsIn[id], counters)) return undefined;
    const { payload, seq, status, token } = read;
    for (const other of listed) {
      const o = other.context;
      if (o.seq === seq) return undefined;
      if (status === 'running' && other.value === 'running' && o.token === token) return undefined;
    }
    if (isUnresolvedStatus(status)) unresolved++;
    const last = listed[listed.length - 1];
    if (last !== undefined && !(seq > last.context.seq)) inOrder = false;
    const context: JobContext = {
      id,
      payload,
      seq,
      policy,
      attempts: read.attempts,
      token,
      owner: read.owner,
      leaseUntil: read.leaseUntil,
      notBefore: read.notBefore,
      reason: read.reason,
      lastError: read.lastError,
    };
    listed.push(jobOf(status, context));
  }
  if (unresolved > config.capacity) return undefined;
  // A waiting or running job must be its account's head: no unresolved job of the account admitted before it.
  for (const job of listed) {
    if (job.value !== 'waiting' && job.value !== 'running') continue;
    const { payload, seq } = job.context;
    for (const other of listed)
      if (
        other.context.seq < seq &&
        isUnresolvedStatus(other.value) &&
        other.context.payload.account === payload.account
      )
        return undefined;
  }

  const balances = new Map<string, number>();
  for (const account in balancesIn) {
    const balance = balancesIn[account];
    if (!int(balance) || !hasOwnKey(effectsIn, account)) return undefined;
    balances.set(account, balance);
  }
  const effects = new Map<string, ReadonlyMap<string, EffectRecord>>();
  for (const account in effectsIn) {
    const ledgerIn = effectsIn[account];
    if (!plainObject(ledgerIn) || !plainKeys(ledgerIn)) return undefined;
    const ledger = new Map<string, EffectRecord>();
    let sum = 0;
    for (const key in ledgerIn) {
      const e = ledgerIn[key];
      if (!plainObject(e) || countOf(e, EFFECT_FIELDS) !== 3) return undefined;
      const { amount, job, token } = e;
      if (!int(amount) || !text(job) || !positive(token) || token >= nextToken) return undefined;
      let owner: JobContext | undefined;
      for (const j of listed) {
        if (j.context.id === job) {
          owner = j.context;
          break;
        }
      }
      if (owner === undefined) return undefined;
      const p = owner.payload;
      if (p.account !== account || p.key !== key || p.amount !== amount) return undefined;
      ledger.set(key, { amount, job, token });
      sum += amount;
    }
    if (ledger.size === 0 || !hasOwnKey(balancesIn, account) || balancesIn[account] !== sum) return undefined;
    effects.set(account, ledger);
  }

  // Admission order: as listed when they are in it already, otherwise sorted (a stable sort).
  if (!inOrder) listed.sort((a, b) => a.context.seq - b.context.seq);
  const jobs = new Map<string, JobSnapshot>();
  for (const job of listed) jobs.set(job.context.id, job);
  return { config, clock, nextToken, nextSeq, jobs, balances, effects, reply: undefined, trace: [] };
}
