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
import type { JobContext, JobSnapshot, ModelState, StoreContext } from '../../model/index.ts';
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
  data = new Int32Array(1024);
  length = 0;

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

/**
 * Appends the record of a state to `out`. `history(jobIndex)` gives the coverage history word of
 * each job (0 for none). Returns the record's length.
 */
export function encodeState(
  context: StoreContext,
  names: ScopeNames,
  history: (job: number) => number,
  out: Words,
): number {
  const start = out.length;
  out.reserve(4 + context.jobs.size * JOB_WORDS);
  out.push(word(context.clock, 'clock'));
  out.push(word(context.nextToken, 'nextToken'));
  out.push(word(context.nextSeq, 'nextSeq'));
  out.push(context.jobs.size);
  let i = 0;
  for (const job of context.jobs.values()) {
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
    out.push(history(i++));
  }
  const countAt = out.length;
  out.push(0);
  let effects = 0;
  for (const [account, ledger] of context.effects) {
    for (const [key, e] of ledger) {
      out.reserve(5);
      out.push(nameIndex(names, account, 'account'));
      out.push(nameIndex(names, key, 'key'));
      out.push(word(e.amount, 'amount'));
      out.push(nameIndex(names, e.job, 'job id'));
      out.push(word(e.token, 'token'));
      effects++;
    }
  }
  out.data[countAt] = effects;
  out.push(context.balances.size);
  for (const [account, balance] of context.balances) {
    out.reserve(2);
    out.push(nameIndex(names, account, 'account'));
    out.push(word(balance, 'balance'));
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

/**
 * The model state of the record at `at`: what `fromSnapshot` would build from the same state's
 * snapshot. Pure.
 */
export function decodeState(
  data: Int32Array,
  at: number,
  config: Config,
  names: ScopeNames,
  policy = policyOf(config),
): ModelState {
  const g = (i: number): number => data[i] ?? 0;
  const jobsCount = g(at + 3);
  const jobs = new Map<string, JobSnapshot>();
  let p = at + 4;
  for (let k = 0; k < jobsCount; k++, p += JOB_WORDS) {
    const id = names.ids[g(p + J.id)] ?? '';
    const owner = opt(g(p + J.owner));
    const reason = opt(g(p + J.reason));
    const lastError = opt(g(p + J.lastError));
    const context: JobContext = {
      id,
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
    jobs.set(id, jobSnapshotOf(JOB_STATES[g(p + J.status)] ?? 'ready', context));
  }
  const effects = new Map<string, Map<string, EffectRecord>>();
  const effectCount = g(p++);
  for (let k = 0; k < effectCount; k++, p += 5) {
    const account = names.accounts[g(p)] ?? '';
    let ledger = effects.get(account);
    if (ledger === undefined) {
      ledger = new Map();
      effects.set(account, ledger);
    }
    ledger.set(names.keys[g(p + 1)] ?? '', { amount: g(p + 2), job: names.ids[g(p + 3)] ?? '', token: g(p + 4) });
  }
  const balances = new Map<string, number>();
  const balanceCount = g(p++);
  for (let k = 0; k < balanceCount; k++, p += 2) balances.set(names.accounts[g(p)] ?? '', g(p + 1));
  return modelStateOf({
    config,
    clock: g(at),
    nextToken: g(at + 1),
    nextSeq: g(at + 2),
    jobs,
    balances,
    effects,
    reply: undefined,
    trace: [],
  });
}
