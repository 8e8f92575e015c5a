/**
 * A model state as a short run of integers, and back. The frontier of an exploration holds its
 * states in this form (a few dozen 32-bit words a state instead of a tree of xstate snapshots),
 * which is also the form states cross between worker threads in. Names are stored as their
 * index in the scope's pools (scope.ts), so every name of a state must come from them.
 *
 * Besides the state, a record carries each job's coverage history along the path that reached
 * it (its last lifecycle transition and the first PATH_BOUND ones): it is not part of the state
 * and never part of its key (canonical.ts), only what coverage needs to count pairs and paths.
 *
 * Layout: [clock, nextToken, nextSeq, jobs, job * JOB_WORDS, effects, effect * 5, balances, balance * 2].
 */
import type { Config, DeadReason, EffectRecord, JobStatus } from '../../contract/index.ts';
import { JOB_STATES, jobSnapshotOf, modelStateOf, policyOf, statusOf } from '../../model/index.ts';
import type { JobContext, JobPolicy, JobSnapshot, ModelState, StoreContext } from '../../model/index.ts';
import { hashWords } from './codecCache.ts';
import type { CodecCache } from './codecCache.ts';
import type { ScopeNames } from './scope.ts';

/** Words a job takes in a record. */
export const JOB_WORDS = 15;
/** Offsets of a job's fields in its words. */
export const J = {
  id: 0,
  account: 1,
  key: 2,
  amount: 3,
  deadline: 4,
  seq: 5,
  status: 6,
  attempts: 7,
  token: 8,
  owner: 9,
  leaseUntil: 10,
  notBefore: 11,
  reason: 12,
  lastError: 13,
  history: 14,
} as const;

/** Dead reasons by index. */
export const REASONS: readonly DeadReason[] = [
  'deadline',
  'lease_expired',
  'permanent',
  'attempts_exhausted',
  'no_time_for_retry',
];
const STATUS_INDEX = new Map<JobStatus, number>(JOB_STATES.map((s, i) => [s, i]));
const REASON_INDEX = new Map<DeadReason, number>(REASONS.map((r, i) => [r, i]));
const NONE = -1;
const LIMIT = 2 ** 31 - 1;

/** The growing buffer records are written to. */
export class Words {
  data: Int32Array;
  length = 0;

  /** A buffer with room for `capacity` words to begin with. */
  constructor(capacity = 1024) {
    this.data = new Int32Array(Math.max(16, capacity));
  }

  push(value: number): void {
    if (this.length === this.data.length) this.grow(this.length + 1);
    this.data[this.length++] = value;
  }

  /** Makes room for `n` more words. */
  reserve(n: number): void {
    if (this.length + n > this.data.length) this.grow(this.length + n);
  }

  private grow(min: number): void {
    let size = this.data.length * 2;
    while (size < min) size *= 2;
    const next = new Int32Array(size);
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }
}

const nameIndex = (names: ScopeNames, name: string, what: string): number => {
  const i = names.index.get(name);
  if (i === undefined) throw new Error(`explore: ${what} ${JSON.stringify(name)} is not in the scope's pools`);
  return i;
};

const word = (value: number, what: string): number => {
  if (!Number.isInteger(value) || value < -LIMIT || value > LIMIT)
    throw new Error(`explore: ${what} ${value} does not fit a 32-bit word`);
  return value;
};

/** The words of a job but its history (JOB_WORDS - 1 of them, J.history is last). */
const JOB_STATE_WORDS = JOB_WORDS - 1;

/** Appends the words of one job but its history to `out`. */
function pushJob(job: JobSnapshot, names: ScopeNames, out: Words): void {
  const c = job.context;
  out.push(nameIndex(names, c.id, 'job id'));
  out.push(nameIndex(names, c.payload.account, 'account'));
  out.push(nameIndex(names, c.payload.key, 'key'));
  out.push(word(c.payload.amount, 'amount'));
  out.push(word(c.payload.deadline, 'deadline'));
  out.push(word(c.seq, 'seq'));
  out.push(STATUS_INDEX.get(statusOf(job)) ?? NONE);
  out.push(c.attempts);
  out.push(c.token === undefined ? NONE : word(c.token, 'token'));
  out.push(c.owner === undefined ? NONE : nameIndex(names, c.owner, 'worker'));
  out.push(c.leaseUntil === undefined ? NONE : word(c.leaseUntil, 'leaseUntil'));
  out.push(c.notBefore === undefined ? NONE : word(c.notBefore, 'notBefore'));
  out.push(c.reason === undefined ? NONE : (REASON_INDEX.get(c.reason) ?? NONE));
  out.push(c.lastError === undefined ? NONE : nameIndex(names, c.lastError, 'error'));
}

/** Appends the ledger section (count, then 5 words an effect) to `out`. */
function pushEffects(effects: StoreContext['effects'], names: ScopeNames, out: Words): void {
  const countAt = out.length;
  out.push(0);
  let count = 0;
  for (const [account, ledger] of effects) {
    for (const [key, e] of ledger) {
      out.reserve(5);
      out.push(nameIndex(names, account, 'account'));
      out.push(nameIndex(names, key, 'key'));
      out.push(word(e.amount, 'amount'));
      out.push(nameIndex(names, e.job, 'job id'));
      out.push(word(e.token, 'token'));
      count++;
    }
  }
  out.data[countAt] = count;
}

/** Appends the balances section (count, then 2 words a balance) to `out`. */
function pushBalances(balances: StoreContext['balances'], names: ScopeNames, out: Words): void {
  out.push(balances.size);
  for (const [account, balance] of balances) {
    out.reserve(2);
    out.push(nameIndex(names, account, 'account'));
    out.push(word(balance, 'balance'));
  }
}

/** Appends `words` to `out`. */
function pushAll(words: Int32Array, out: Words): void {
  const n = words.length;
  out.reserve(n);
  const data = out.data;
  let o = out.length;
  for (let i = 0; i < n; i++) data[o++] = words[i] as number;
  out.length = o;
}

/**
 * Appends the record of a state to `out`. `history(jobIndex)` gives the coverage history word of
 * each job (0 for none). Returns the record's length. With a `cache`, the words of the jobs,
 * ledgers and balances it decoded are copied instead of computed (codecCache.ts). Pure but for `out`.
 */
export function encodeState(
  context: StoreContext,
  names: ScopeNames,
  history: (job: number) => number,
  out: Words,
  cache?: CodecCache,
): number {
  const start = out.length;
  out.reserve(4 + context.jobs.size * JOB_WORDS);
  out.push(word(context.clock, 'clock'));
  out.push(word(context.nextToken, 'nextToken'));
  out.push(word(context.nextSeq, 'nextSeq'));
  out.push(context.jobs.size);
  let i = 0;
  // With a cache, the words of each part the decoder built (the parts of the state being
  // expanded, which its successors share) are looked up by the part's identity; a part the step
  // made anew is written out directly and not kept: it belongs to this successor alone (a state
  // reached again is decoded into the parts of the decoder's own table, not into these), so
  // keeping its words would only fill the WeakMap with short-lived keys for the collector to
  // clear. Spelled out without closures, as this runs once per transition.
  for (const job of context.jobs.values()) {
    if (cache === undefined) pushJob(job, names, out);
    else {
      const words = cache.jobWords.get(job);
      if (words === undefined) pushJob(job, names, out);
      else pushAll(words, out);
    }
    out.push(history(i++));
  }
  if (cache === undefined) {
    pushEffects(context.effects, names, out);
    pushBalances(context.balances, names, out);
  } else {
    const effects = cache.effectWords.get(context.effects);
    if (effects === undefined) pushEffects(context.effects, names, out);
    else pushAll(effects, out);
    const balances = cache.balanceWords.get(context.balances);
    if (balances === undefined) pushBalances(context.balances, names, out);
    else pushAll(balances, out);
  }
  return out.length - start;
}

/** The length of the record at `at`. Pure. */
export function recordLength(data: Int32Array, at: number): number {
  const jobs = data[at + 3] ?? 0;
  let p = at + 4 + jobs * JOB_WORDS;
  p += 1 + (data[p] ?? 0) * 5;
  p += 1 + (data[p] ?? 0) * 2;
  return p - at;
}

const opt = (v: number): number | undefined => (v === NONE ? undefined : v);

/** The job of the words at `p` (all but the history), as `fromSnapshot` builds it. Pure. */
function jobOf(data: Int32Array, p: number, names: ScopeNames, policy: JobPolicy): JobSnapshot {
  const g = (i: number): number => data[i] ?? 0;
  const owner = opt(g(p + J.owner));
  const reason = opt(g(p + J.reason));
  const lastError = opt(g(p + J.lastError));
  const context: JobContext = {
    id: names.ids[g(p + J.id)] ?? '',
    payload: {
      account: names.accounts[g(p + J.account)] ?? '',
      key: names.keys[g(p + J.key)] ?? '',
      amount: g(p + J.amount),
      deadline: g(p + J.deadline),
    },
    seq: g(p + J.seq),
    policy,
    attempts: g(p + J.attempts),
    token: opt(g(p + J.token)),
    owner: owner === undefined ? undefined : names.workers[owner],
    leaseUntil: opt(g(p + J.leaseUntil)),
    notBefore: opt(g(p + J.notBefore)),
    reason: reason === undefined ? undefined : REASONS[reason],
    lastError: lastError === undefined ? undefined : names.errors[lastError],
  };
  return jobSnapshotOf(JOB_STATES[g(p + J.status)] ?? 'ready', context);
}

/** The ledger of the section at `p` (count first). Pure. */
function effectsOf(data: Int32Array, p: number, names: ScopeNames): Map<string, Map<string, EffectRecord>> {
  const g = (i: number): number => data[i] ?? 0;
  const effects = new Map<string, Map<string, EffectRecord>>();
  const count = g(p++);
  for (let k = 0; k < count; k++, p += 5) {
    const account = names.accounts[g(p)] ?? '';
    let ledger = effects.get(account);
    if (ledger === undefined) {
      ledger = new Map();
      effects.set(account, ledger);
    }
    ledger.set(names.keys[g(p + 1)] ?? '', { amount: g(p + 2), job: names.ids[g(p + 3)] ?? '', token: g(p + 4) });
  }
  return effects;
}

/** The balances of the section at `p` (count first). Pure. */
function balancesOf(data: Int32Array, p: number, names: ScopeNames): Map<string, number> {
  const g = (i: number): number => data[i] ?? 0;
  const balances = new Map<string, number>();
  const count = g(p++);
  for (let k = 0; k < count; k++, p += 2) balances.set(names.accounts[g(p)] ?? '', g(p + 1));
  return balances;
}

/**
 * The model state of the record at `at`: what `fromSnapshot` would build from the same state's
 * snapshot. With a `cache`, jobs, ledgers and balances decoded before are shared (they are
 * immutable values, codecCache.ts). Pure but for the cache.
 */
export function decodeState(
  data: Int32Array,
  at: number,
  config: Config,
  names: ScopeNames,
  policy = policyOf(config),
  cache?: CodecCache,
): ModelState {
  const jobsCount = data[at + 3] ?? 0;
  const jobs = new Map<string, JobSnapshot>();
  let p = at + 4;
  // With a cache, each part is looked up by its words and built (then kept, with its words for
  // the encode side) only the first time; spelled out without closures, as this runs once per
  // expanded state.
  for (let k = 0; k < jobsCount; k++, p += JOB_WORDS) {
    let job: JobSnapshot | undefined;
    if (cache === undefined) job = jobOf(data, p, names, policy);
    else {
      const hash = hashWords(data, p, JOB_STATE_WORDS);
      job = cache.jobs.get(data, p, JOB_STATE_WORDS, hash);
      if (job === undefined) {
        job = jobOf(data, p, names, policy);
        cache.jobWords.set(job, cache.jobs.set(data, p, JOB_STATE_WORDS, hash, job));
      }
    }
    jobs.set(job.context.id, job);
  }
  const effectsAt = p;
  const effectsLength = 1 + 5 * (data[effectsAt] ?? 0);
  const balancesAt = effectsAt + effectsLength;
  const balancesLength = 1 + 2 * (data[balancesAt] ?? 0);
  let effects: StoreContext['effects'] | undefined;
  let balances: StoreContext['balances'] | undefined;
  if (cache === undefined) {
    effects = effectsOf(data, effectsAt, names);
    balances = balancesOf(data, balancesAt, names);
  } else {
    const eh = hashWords(data, effectsAt, effectsLength);
    effects = cache.effects.get(data, effectsAt, effectsLength, eh);
    if (effects === undefined) {
      effects = effectsOf(data, effectsAt, names);
      cache.effectWords.set(effects, cache.effects.set(data, effectsAt, effectsLength, eh, effects));
    }
    const bh = hashWords(data, balancesAt, balancesLength);
    balances = cache.balances.get(data, balancesAt, balancesLength, bh);
    if (balances === undefined) {
      balances = balancesOf(data, balancesAt, names);
      cache.balanceWords.set(balances, cache.balances.set(data, balancesAt, balancesLength, bh, balances));
    }
  }
  return modelStateOf({
    config,
    clock: data[at] ?? 0,
    nextToken: data[at + 1] ?? 0,
    nextSeq: data[at + 2] ?? 0,
    jobs,
    balances,
    effects,
    reply: undefined,
    trace: [],
  });
}
