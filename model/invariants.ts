/**
 * The store invariants of contract section 11, as checks over a model state: what every state
 * reachable from an empty store keeps. Shared by the random invariant test
 * (model/invariants.test.ts) and the exhaustive explorer (conformance/explore/), which checks
 * every state it reaches. Pure.
 *
 * The explorer checks every new state it reaches, so the checks are written for speed where that
 * changes nothing: plain loops instead of arrays built to be filtered, and, in the two checks that
 * compared values with `isDeepStrictEqual`, a direct comparison that answers only when it can
 * prove the answer (a snapshot of plain objects, strings and numbers, which is what `toSnapshot`
 * writes) and otherwise falls back to the original comparison.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Snapshot } from '../contract/index.ts';
import { hasOwnKey } from '../contract/index.ts';
import { fromSnapshot, toSnapshot } from './step.ts';
import type { ModelState } from './step.ts';
import type { JobSnapshot, StoreContext } from './storeMachine.ts';

// Proofs about JSON values: whether a value survives JSON.parse(JSON.stringify(value)) unchanged, and
// whether two values are equal as isDeepStrictEqual says, for plain objects, strings, finite numbers,
// booleans and null (what toSnapshot writes). Both answer true only when they can prove it; anything
// else (arrays, -0, symbols, objects that are not plain, a `__proto__` key) gets false, and the
// caller then decides the slow way.

const plain = (o: object): o is Record<string, unknown> =>
  Object.getPrototypeOf(o) === Object.prototype && Object.getOwnPropertySymbols(o).length === 0;

const safeKey = (k: string): boolean => k !== '__proto__';

/** True when `value` is provably unchanged by a JSON round trip (compared with isDeepStrictEqual). Pure. */
export function isJsonValue(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object': {
      if (value === null) return true;
      if (Array.isArray(value) || !plain(value)) return false;
      const o = value;
      for (const k in o) {
        if (!hasOwnKey(o, k) || !safeKey(k) || !isJsonValue(o[k])) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

/**
 * True when `a` and `b` are provably equal as `isDeepStrictEqual(a, b)` says, `b` being a value
 * isJsonValue accepted (so only `a`'s shape is checked here); key order does not count, as it does
 * not there. A key that is own but not enumerable in `b` is left out of the count of `b`'s keys,
 * which then differs. Pure.
 */
export function sameJsonValue(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    if (typeof a === 'number' && Object.is(a, -0)) return false;
    return (
      typeof a === typeof b &&
      (typeof a === 'string' || typeof a === 'boolean' || typeof a === 'number' || a === null) &&
      Object.is(a, b)
    );
  }
  if (Array.isArray(a) || !plain(a)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let n = 0;
  for (const k in x) {
    if (!hasOwnKey(x, k) || !safeKey(k) || !hasOwnKey(y, k) || !sameJsonValue(x[k], y[k])) return false;
    n++;
  }
  for (const k in y) {
    if (!hasOwnKey(y, k)) return false;
    n--;
  }
  return n === 0;
}

/**
 * Whether two plain records provably have the same own enumerable keys with the same values
 * (Object.is), as a spread copy of each would show them. False when it cannot tell. Pure.
 */
function sameFields(a: object, b: object): boolean {
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let n = 0;
  for (const k in x) {
    if (!hasOwnKey(x, k) || !hasOwnKey(y, k) || !Object.is(x[k], y[k])) return false;
    n++;
  }
  for (const k in y) {
    if (!hasOwnKey(y, k)) return false;
    n--;
  }
  return n === 0;
}

/**
 * Whether `toSnapshot` provably writes the same snapshot from both store contexts: every field it
 * reads is equal (Object.is), jobs, balances and ledgers met in the same order (so that its
 * sorting meets the same sequences), the config and payloads with the same keys (it copies them
 * whole). False when it cannot tell. Pure; allocates nothing, which is its point: it replaces a
 * second snapshot and a walk of two JSON trees.
 */
function sameSnapshotContent(a: StoreContext, b: StoreContext): boolean {
  if (a.clock !== b.clock || a.nextToken !== b.nextToken || a.nextSeq !== b.nextSeq) return false;
  if (a.jobs.size !== b.jobs.size || a.balances.size !== b.balances.size || a.effects.size !== b.effects.size)
    return false;
  if (!sameFields(a.config, b.config)) return false;
  // `b`'s entries are listed first, into arrays kept for the purpose, and met side by side with
  // `a`'s (a Map iterator stepped by hand makes an object for every entry it yields).
  let n = 0;
  for (const job of b.jobs.values()) jobsB[n++] = job;
  let i = 0;
  for (const x of a.jobs.values()) {
    const y = jobsB[i++];
    if (y === undefined || x.value !== y.value) return false;
    const p = x.context;
    const q = y.context;
    if (p.id !== q.id || p.seq !== q.seq || p.attempts !== q.attempts || p.token !== q.token) return false;
    if (p.owner !== q.owner || p.leaseUntil !== q.leaseUntil || p.notBefore !== q.notBefore) return false;
    if (p.reason !== q.reason || p.lastError !== q.lastError || !sameFields(p.payload, q.payload)) return false;
  }
  n = 0;
  for (const account of b.balances.keys()) keysB[n++] = account;
  i = 0;
  for (const [account, balance] of a.balances) {
    if (keysB[i++] !== account || !Object.is(b.balances.get(account), balance)) return false;
  }
  n = 0;
  for (const account of b.effects.keys()) keysB[n++] = account;
  i = 0;
  for (const [account, ledger] of a.effects) {
    const other = keysB[i++] === account ? b.effects.get(account) : undefined;
    if (other === undefined || other.size !== ledger.size) return false;
    n = 0;
    for (const key of other.keys()) ledgerKeysB[n++] = key;
    let j = 0;
    for (const [key, e] of ledger) {
      const f = ledgerKeysB[j++] === key ? other.get(key) : undefined;
      if (f === undefined) return false;
      if (!Object.is(e.amount, f.amount) || e.job !== f.job || !Object.is(e.token, f.token)) return false;
    }
  }
  return true;
}
// The arrays sameSnapshotContent lists `b`'s entries into, kept from call to call: it reads only
// as many as the sizes it checked equal first (the rest are left from earlier calls).
const jobsB: JobSnapshot[] = [];
const keysB: string[] = [];
const ledgerKeysB: string[] = [];

/** One invariant: a stable name and a check that returns what is wrong, or undefined. */
export interface StoreInvariant {
  readonly name: string;
  /** What the invariant says, in one sentence. */
  readonly says: string;
  /**
   * Undefined when the invariant holds in the state (given as its snapshot); otherwise what is
   * wrong. `state`, when given, is the state the snapshot was written from (`toSnapshot(state)`):
   * a check may use it to prove that it holds more cheaply, never to reach another verdict.
   */
  readonly check: (snapshot: Snapshot, state?: ModelState) => string | undefined;
}

const isUnresolved = (status: string): boolean => status === 'ready' || status === 'waiting' || status === 'running';

/** Equality as a Set or Map key: NaN is NaN (a snapshot given to a check need not be valid). */
const sameValueZero = (a: unknown, b: unknown): boolean => a === b || (Number.isNaN(a) && Number.isNaN(b));

/** The least sequence number of the unresolved jobs of `account` (undefined when it has none). */
function headOf(jobs: Snapshot['jobs'], account: unknown): number | undefined {
  let head: number | undefined;
  for (const id in jobs) {
    if (!hasOwnKey(jobs, id)) continue;
    const j = jobs[id];
    if (j === undefined) continue;
    if (isUnresolved(j.status) && sameValueZero(j.payload.account, account) && (head === undefined || j.seq < head))
      head = j.seq;
  }
  return head;
}

/** `field t` when the pending instant `t` is not after the clock, undefined when it is or there is none. */
const pendingNotAfter = (field: string, t: number | undefined, clock: number): string | undefined =>
  t !== undefined && t <= clock ? `${field} ${t}` : undefined;

/**
 * Whether every account's balance provably equals its ledger's sum, as `isDeepStrictEqual` of the
 * sums and the balances would say: the same accounts, each with the same number (Object.is). False
 * when it cannot tell (an account named `__proto__`, which the original comparison treats in its
 * own way), and then the original comparison decides.
 */
function balancesMatch(s: Snapshot): boolean {
  let accounts = 0;
  for (const account in s.effects) {
    if (!hasOwnKey(s.effects, account)) return false;
    if (account === '__proto__' || !hasOwnKey(s.balances, account)) return false;
    const ledger = s.effects[account];
    if (ledger === undefined) continue;
    let sum = 0;
    for (const key in ledger) {
      const effect = ledger[key];
      if (effect !== undefined && hasOwnKey(ledger, key)) sum += effect.amount;
    }
    if (!Object.is(sum, s.balances[account])) return false;
    accounts++;
  }
  let balances = 0;
  for (const account in s.balances) {
    if (!hasOwnKey(s.balances, account)) return false;
    balances++;
  }
  return accounts === balances;
}

/** The invariants, in the order they are checked. */
export const STORE_INVARIANTS: readonly StoreInvariant[] = [
  {
    name: 'capacity',
    says: 'at most capacity jobs are unresolved',
    check: (s) => {
      let unresolved = 0;
      for (const id in s.jobs) {
        const j = s.jobs[id];
        if (j !== undefined && hasOwnKey(s.jobs, id) && isUnresolved(j.status)) unresolved++;
      }
      return unresolved > s.config.capacity
        ? `${unresolved} unresolved jobs exceed capacity ${s.config.capacity}`
        : undefined;
    },
  },
  {
    name: 'one-running-per-account',
    says: 'at most one job per account is running, and only the head of an account is running or waiting',
    // Plain loops over the few jobs of a state, in the order they are listed, instead of a Set and
    // a Map built for every state checked: the same verdict and message, nothing allocated.
    check: (s) => {
      const jobs = s.jobs;
      for (const id in jobs) {
        if (!hasOwnKey(jobs, id)) continue;
        const j = jobs[id];
        if (j === undefined) continue;
        const account = j.payload.account;
        if (j.status === 'running') {
          for (const other in jobs) {
            if (other === id) break;
            if (!hasOwnKey(jobs, other)) continue;
            const o = jobs[other];
            if (o === undefined) continue;
            if (o.status === 'running' && sameValueZero(o.payload.account, account))
              return `two running jobs for account ${account}`;
          }
        }
        if ((j.status === 'running' || j.status === 'waiting') && headOf(jobs, account) !== j.seq) {
          return `job ${id} is ${j.status} but is not the head of account ${account}`;
        }
      }
      return undefined;
    },
  },
  {
    name: 'tokens',
    says: 'every running token is unique among running jobs and below nextToken',
    check: (s) => {
      const jobs = s.jobs;
      for (const id in jobs) {
        if (!hasOwnKey(jobs, id)) continue;
        const j = jobs[id];
        if (j === undefined) continue;
        if (j.status !== 'running') continue;
        if (j.token === undefined || j.token >= s.nextToken)
          return `running token ${j.token} not below nextToken ${s.nextToken}`;
        for (const other in jobs) {
          if (other === id) break;
          if (!hasOwnKey(jobs, other)) continue;
          const o = jobs[other];
          if (o === undefined) continue;
          if (o.status === 'running' && sameValueZero(o.token, j.token))
            return `token ${j.token} held by two running jobs`;
        }
      }
      return undefined;
    },
  },
  {
    name: 'balances',
    says: "every account's balance equals the sum of its ledger's amounts",
    check: (s) => {
      if (balancesMatch(s)) return undefined;
      const sums: Record<string, number> = {};
      for (const [account, ledger] of Object.entries(s.effects))
        sums[account] = Object.values(ledger).reduce((sum, e) => sum + e.amount, 0);
      return isDeepStrictEqual(sums, { ...s.balances })
        ? undefined
        : `balances ${JSON.stringify(s.balances)} differ from ledger sums ${JSON.stringify(sums)}`;
    },
  },
  {
    name: 'pending-after-clock',
    says: 'every pending instant (deadline of an unresolved job, leaseUntil, notBefore) lies after the clock',
    check: (s) => {
      const jobs = s.jobs;
      for (const id in jobs) {
        if (!hasOwnKey(jobs, id)) continue;
        const j = jobs[id];
        if (j === undefined) continue;
        if (!isUnresolved(j.status)) continue;
        const late =
          pendingNotAfter('deadline', j.payload.deadline, s.clock) ??
          pendingNotAfter('leaseUntil', j.leaseUntil, s.clock) ??
          pendingNotAfter('notBefore', j.notBefore, s.clock);
        if (late !== undefined) return `job ${id}: ${late} is not after the clock ${s.clock}`;
      }
      return undefined;
    },
  },
  {
    name: 'snapshot-round-trip',
    says: 'the snapshot survives a JSON round trip and a restore unchanged',
    check: (s, state) => {
      // The fast path: a snapshot of plain JSON values survives JSON as it is, and the JSON text
      // restores to the same state as the snapshot itself (fromSnapshot keeps no alias), so the
      // text and the parse are needed only when the restored snapshot is not provably the same.
      // Given the state the snapshot was written from, a restored state with the same content
      // writes the same snapshot again, which proves the round trip without writing it; any
      // difference, even one toSnapshot would not show, leaves the verdict to the comparisons below.
      if (isJsonValue(s)) {
        const restored = fromSnapshot(s);
        if (state !== undefined && sameSnapshotContent(restored.context, state.context)) return undefined;
        if (sameJsonValue(toSnapshot(restored), s)) return undefined;
      }
      const text = JSON.stringify(s);
      const parsed: unknown = JSON.parse(text);
      if (!isDeepStrictEqual(parsed, s)) return 'snapshot does not survive JSON';
      const again = toSnapshot(fromSnapshot(parsed));
      // The model writes snapshots in one order, so equal text is equal snapshots; unequal text is
      // compared as values, where key order does not count.
      if (JSON.stringify(again) !== text && !isDeepStrictEqual(again, s))
        return 'snapshot does not survive fromSnapshot -> toSnapshot';
      return undefined;
    },
  },
];

/** The first invariant the state breaks, with what is wrong; undefined when all hold. Pure. */
export function violatedInvariant(
  state: ModelState,
  invariants: readonly StoreInvariant[] = STORE_INVARIANTS,
): { name: string; message: string } | undefined {
  const snapshot = toSnapshot(state);
  for (const inv of invariants) {
    const message = inv.check(snapshot, state);
    if (message !== undefined) return { name: inv.name, message };
  }
  return undefined;
}

/** What the first broken invariant says is wrong, or undefined when all hold. Pure. */
export function brokenInvariant(state: ModelState): string | undefined {
  return violatedInvariant(state)?.message;
}
