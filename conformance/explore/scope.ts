/**
 * The scope of an exploration and the finite command alphabet it offers in each model state.
 *
 * A scope bounds everything unbounded in the store: pools of job ids, accounts, workers and
 * operation keys, a few amounts and job lifetimes (deadline = now + lifetime), and a time horizon
 * that no command's `now` passes. Within it, the alphabet of a state is:
 * - submits of a new job id, for every account, key, amount and lifetime of the scope;
 * - claims by each worker; commit, ack, fail transient and fail permanent of every live delivery,
 *   by its owner;
 * - ticks to the next tick and to each pending instant (deadline, leaseUntil, notBefore) with the
 *   ticks just before and after it, within the horizon: every guard's boundary and one either side;
 * - probes the model refuses without changing more than the clock: a duplicate and a conflicting
 *   resubmission of each job, an ack by a non-holder, a commit of one stale token, a submit whose
 *   deadline is its `now`, a tick before the clock;
 * - a restart (snapshot -> JSON -> restore), when the scope has restarts.
 * Every command but a tick is sent at `now = clock`: by section 6 of the contract a later `now`
 * reaches the same state as a tick to it followed by the command. With symmetry on, names the state
 * does not use yet are offered only in pool order (the first unused id, account, key or worker):
 * any other gives a successor a renaming maps onto that one (canonical.ts says why that is sound).
 */
import type { Config } from '../../contract/index.ts';
import { statusOf } from '../../model/index.ts';
import type { JobSnapshot, StoreContext } from '../../model/index.ts';
import type { ScriptStep } from '../lockstep/symbolic.ts';

/** One config of a scope, by name. */
export interface NamedConfig {
  readonly name: string;
  readonly config: Config;
  /** Why it is in the scope: which boundaries it is built to reach. */
  readonly why: string;
}

/** Everything an exploration is bounded by. */
export interface ExploreScope {
  /** How many job ids (a, b, c, ...). */
  readonly jobs: number;
  /** How many accounts (x, y, z, ...). */
  readonly accounts: number;
  /** How many workers (w1, w2, ...). */
  readonly workers: number;
  /** How many operation keys (k1, k2, ...). */
  readonly keys: number;
  /** The amounts a job may carry. */
  readonly amounts: readonly number[];
  /** The lifetimes a job may be submitted with: deadline = now + lifetime. */
  readonly lifetimes: readonly number[];
  /** No command's `now` passes it. */
  readonly horizon: number;
  /** Whether the alphabet has restarts. */
  readonly restarts: boolean;
  /** Whether the alphabet has the probes (refused commands that change nothing but the clock). */
  readonly probes: boolean;
  /** Whether names are reduced by symmetry (canonical keys and first-unused names). */
  readonly symmetry: boolean;
}

/**
 * The named configs. Each is built to reach boundaries the others do not; `expectedBoundaries`
 * (boundaries.ts) says which ones each can reach, and a test holds the exploration to it.
 */
export const EXPLORE_CONFIGS: readonly NamedConfig[] = [
  {
    name: 'basic',
    config: { capacity: 1, maxAttempts: 2, leaseTicks: 2, backoffBase: 1, backoffCap: 2 },
    why: 'capacity 1 is full with one job; a retry below the cap; the last attempt expires or fails',
  },
  {
    name: 'backoff-cap',
    config: { capacity: 1, maxAttempts: 4, leaseTicks: 1, backoffBase: 1, backoffCap: 2 },
    why: 'retry delays 1, 2, 2: below the cap, exactly at it, and capped (raw delay 4)',
  },
  {
    name: 'retry-on-deadline',
    config: { capacity: 2, maxAttempts: 2, leaseTicks: 3, backoffBase: 2, backoffCap: 2 },
    why: 'a delay of 2 under a lease of 3: a retry lands one tick before, exactly on, and one tick after the deadline',
  },
];

/** The config names of the default scope. */
export const DEFAULT_CONFIG_NAMES: readonly string[] = EXPLORE_CONFIGS.map((c) => c.name);

/** The named config, or undefined. */
export const exploreConfig = (name: string): NamedConfig | undefined => EXPLORE_CONFIGS.find((c) => c.name === name);

/**
 * The base scope: two jobs, so that the store-wide rules (capacity, per-account order, the
 * ledger shared by jobs) can be seen, over a short horizon. Command-line flags change it.
 */
export const DEFAULT_SCOPE: ExploreScope = {
  jobs: 2,
  accounts: 2,
  workers: 2,
  keys: 1,
  amounts: [1],
  lifetimes: [3],
  horizon: 2,
  restarts: true,
  probes: true,
  symmetry: true,
};

/** One part of an exploration: a scope and the configs it is explored with. */
export interface ExplorePart {
  readonly name: string;
  readonly scope: Partial<ExploreScope>;
  /** Config names (EXPLORE_CONFIGS). */
  readonly configs: readonly string[];
}

/**
 * The default exploration, small enough to run completely in a second or two in process: one
 * job over a long horizon (every timing of one lifecycle under every config, and every guard
 * boundary a single job can reach), and two jobs over a short one (what needs two: capacity,
 * per-account order, a shared ledger), with the configs of capacity 1 and 2.
 */
export const DEFAULT_EXPLORATION: readonly ExplorePart[] = [
  { name: 'one-job', scope: { jobs: 1, accounts: 1, lifetimes: [3, 6], horizon: 6 }, configs: DEFAULT_CONFIG_NAMES },
  { name: 'two-jobs', scope: {}, configs: ['basic', 'retry-on-deadline'] },
];

/**
 * The exploration `jobcheck check` runs beside the path suite: one job over a short horizon
 * under every config, a few hundred states. Small on purpose: over the protocol each of its
 * transitions costs a replay of its path (differential.ts), and a check runs on every push.
 * `jobcheck explore` runs DEFAULT_EXPLORATION or any scope given.
 */
export const CHECK_EXPLORATION: readonly ExplorePart[] = [
  { name: 'one-job', scope: { jobs: 1, accounts: 1, lifetimes: [6], horizon: 4 }, configs: DEFAULT_CONFIG_NAMES },
];

/** The pools of names a scope draws from, and each name's index. */
export interface ScopeNames {
  readonly ids: readonly string[];
  readonly accounts: readonly string[];
  readonly keys: readonly string[];
  readonly workers: readonly string[];
  /** Failure texts: a fail of attempt n says `e<n>`, so that `lastError` shows which fail it kept. */
  readonly errors: readonly string[];
  readonly index: ReadonlyMap<string, number>;
}

const letters = (n: number, from: string): string[] =>
  Array.from({ length: n }, (_, i) =>
    i < 26 - (from.charCodeAt(0) - 97) ? String.fromCharCode(from.charCodeAt(0) + i) : `${from}${i}`,
  );

/** The name pools of a scope (ids a, b, ...; accounts x, y, ...; keys k1, ...; workers w1, ...). Pure. */
export function scopeNames(scope: ExploreScope, maxAttempts: number): ScopeNames {
  const ids = letters(scope.jobs, 'a');
  const accounts = Array.from({ length: scope.accounts }, (_, i) => (i < 3 ? ('xyz'[i] ?? 'x') : `x${i}`));
  const keys = Array.from({ length: scope.keys }, (_, i) => `k${i + 1}`);
  const workers = Array.from({ length: scope.workers }, (_, i) => `w${i + 1}`);
  const errors = Array.from({ length: maxAttempts }, (_, i) => `e${i + 1}`);
  const index = new Map<string, number>();
  for (const pool of [ids, accounts, keys, workers, errors]) {
    pool.forEach((name, i) => {
      index.set(name, i);
    });
  }
  return { ids, accounts, keys, workers, errors, index };
}

/** A restart step of the alphabet. */
export const RESTART: ScriptStep = { restart: true };

/** The first name of `pool` that `used` does not hold, or undefined. */
const firstUnused = (pool: readonly string[], used: readonly string[]): string | undefined => {
  for (const n of pool) if (!used.includes(n)) return n;
  return undefined;
};

/** The names of `pool` that `used` holds, in pool order, then the first one it does not. */
const usedThenFirstUnused = (pool: readonly string[], used: readonly string[]): string[] => {
  const out: string[] = [];
  let free: string | undefined;
  for (const n of pool) {
    if (used.includes(n)) out.push(n);
    else if (free === undefined) free = n;
  }
  if (free !== undefined) out.push(free);
  return out;
};

/** Adds `t` to `instants` when it lies after `now`, within the horizon, and is not there yet (not a closure: alphabet runs once per state). */
function consider(instants: number[], t: number, now: number, horizon: number): void {
  if (t > now && t <= horizon && !instants.includes(t)) instants.push(t);
}

/**
 * The alphabet of a state: every step the exploration takes from it, in a fixed order (the
 * order is part of a state's identity in a counterexample path, which records step indices).
 * Pure. It runs once per expanded state: the names in use are kept in short arrays (a scope has
 * a handful of each) rather than sets.
 */
export function alphabet(context: StoreContext, scope: ExploreScope, names: ScopeNames): ScriptStep[] {
  const now = context.clock;
  const out: ScriptStep[] = [];
  const jobs: JobSnapshot[] = [];
  const usedIds: string[] = [];
  const usedAccounts: string[] = [];
  const usedKeys: string[] = [];
  const owners: string[] = [];
  for (const j of context.jobs.values()) {
    jobs.push(j);
    const c = j.context;
    usedIds.push(c.id);
    usedAccounts.push(c.payload.account);
    usedKeys.push(c.payload.key);
    if (c.owner !== undefined) owners.push(c.owner);
  }
  const sym = scope.symmetry;
  // 1. Submits of a new id.
  let freshIds: readonly string[];
  if (sym) {
    const free = firstUnused(names.ids, usedIds);
    freshIds = free === undefined ? [] : [free];
  } else freshIds = names.ids.filter((n) => !usedIds.includes(n));
  const accounts = sym ? usedThenFirstUnused(names.accounts, usedAccounts) : names.accounts;
  const keys = sym ? usedThenFirstUnused(names.keys, usedKeys) : names.keys;
  for (const id of freshIds) {
    for (const account of accounts) {
      for (const key of keys) {
        for (const amount of scope.amounts) {
          for (const life of scope.lifetimes)
            out.push({ do: { type: 'submit', id, account, key, amount, deadline: now + life, now } });
        }
      }
    }
  }
  // 2. Claims.
  const claimers = sym ? usedThenFirstUnused(names.workers, owners) : names.workers;
  for (const worker of claimers) out.push({ do: { type: 'claim', worker, now } });
  // 3. Settlements of every live delivery, by its owner.
  const live: number[] = [];
  for (const j of jobs) {
    const c = j.context;
    if (statusOf(j) !== 'running' || c.token === undefined || c.owner === undefined) continue;
    live.push(c.token);
    const worker = c.owner;
    const token = c.token;
    const error = names.errors[c.attempts - 1] ?? `e${c.attempts}`;
    out.push({ do: { type: 'commit', worker, token, now } });
    out.push({ do: { type: 'ack', worker, token, now } });
    out.push({ do: { type: 'fail', worker, token, now, kind: 'transient', error } });
    out.push({ do: { type: 'fail', worker, token, now, kind: 'permanent', error } });
  }
  // 4. Ticks to the interesting instants, in order, each once.
  const instants: number[] = [];
  const horizon = scope.horizon;
  consider(instants, now + 1, now, horizon);
  for (const j of jobs) {
    const s = statusOf(j);
    if (s !== 'ready' && s !== 'waiting' && s !== 'running') continue;
    const c = j.context;
    for (const t of [c.payload.deadline, c.leaseUntil, c.notBefore]) {
      if (t === undefined) continue;
      consider(instants, t - 1, now, horizon);
      consider(instants, t, now, horizon);
      consider(instants, t + 1, now, horizon);
    }
  }
  instants.sort((a, b) => a - b);
  for (const t of instants) out.push({ do: { type: 'tick', now: t } });
  // 5. Probes.
  if (scope.probes) {
    for (const j of jobs) {
      const { id, payload } = j.context;
      if (payload.deadline > now) out.push({ do: { type: 'submit', id, ...payload, now } });
      out.push({
        do: {
          type: 'submit',
          id,
          ...payload,
          amount: payload.amount + 1,
          deadline: Math.max(payload.deadline, now + 1),
          now,
        },
      });
    }
    for (const j of jobs) {
      const c = j.context;
      if (c.token === undefined || c.owner === undefined) continue;
      const other = names.workers.find((w) => w !== c.owner);
      if (other !== undefined) out.push({ do: { type: 'ack', worker: other, token: c.token, now } });
    }
    let stale = context.nextToken;
    for (let t = context.nextToken - 1; t >= 1; t--) {
      if (!live.includes(t)) {
        stale = t;
        break;
      }
    }
    out.push({ do: { type: 'commit', worker: names.workers[0] ?? 'w1', token: stale, now } });
    const probeId = freshIds[0] ?? names.ids[0] ?? 'a';
    out.push({
      do: {
        type: 'submit',
        id: probeId,
        account: names.accounts[0] ?? 'x',
        key: names.keys[0] ?? 'k1',
        amount: scope.amounts[0] ?? 1,
        deadline: now,
        now,
      },
    });
    if (now > 0) out.push({ do: { type: 'tick', now: now - 1 } });
  }
  // 6. Restart.
  if (scope.restarts) out.push(RESTART);
  return out;
}
