/**
 * The job store's reference model (model/step.ts) as a SequentialModel for the linearizability
 * checker, plus the one request a concurrent history may add to the contract's commands:
 * `{ type: 'snapshot' }`, whose reply is the canonical snapshot and which changes nothing, so a
 * history can end with a snapshot that pins down the final state.
 *
 * Replies are compared as sequential checking compares them (compare.ts): a rejection by `ok`
 * and `code` only, anything else (tokens, seq, balances, snapshots) field by field.
 *
 * The memo key is exact, not symmetry-reduced as in exploration (explore/canonical.ts): there two
 * states that differ only by renaming jobs or workers have the same futures because every
 * command is drawn afresh, but a history's later requests name particular jobs and workers, so
 * renamed states answer them differently. The key lists the clock, the counters, every job in
 * admission order, the ledger and the balances. Keys are cached per job snapshot, per map and per
 * state (the model shares unchanged jobs and maps between states), so a step costs the key of
 * what it changed plus one join.
 *
 * Also here, for tests and benchmarks: `jobStoreRoundHistory`, a history recorded from
 * impl/JobStore driven by simulated workers in rounds.
 */
import type { Command, Config, Reply } from '../../contract/index.ts';
import { JobStore } from '../../impl/index.ts';
import { initialState, statusOf, step, toSnapshot } from '../../model/index.ts';
import type { JobSnapshot, ModelState } from '../../model/index.ts';
import type { Model } from '../../model/step.ts';
import { comparableReply, firstDifference, withoutFields } from '../lockstep/compare.ts';
import type { History, Operation, SequentialModel } from './history.ts';
import type { SearchHints } from './linearizability.ts';

/** The request for the canonical snapshot. */
export interface SnapshotRequest {
  readonly type: 'snapshot';
}

/** The snapshot request, as a value. */
export const SNAPSHOT_REQUEST: SnapshotRequest = { type: 'snapshot' };

/** Whether an input is the snapshot request (exactly `{ type: 'snapshot' }`). Pure. */
export function isSnapshotRequest(input: unknown): input is SnapshotRequest {
  return (
    typeof input === 'object' &&
    input !== null &&
    (input as { type?: unknown }).type === 'snapshot' &&
    Object.keys(input).length === 1
  );
}

const jobKeys = new WeakMap<JobSnapshot, string>();
const mapKeys = new WeakMap<object, string>();
const stateKeys = new WeakMap<ModelState, string>();

function jobKey(job: JobSnapshot): string {
  let key = jobKeys.get(job);
  if (key === undefined) {
    const c = job.context;
    const p = c.payload;
    key = JSON.stringify([
      c.id,
      p.account,
      p.key,
      p.amount,
      p.deadline,
      c.seq,
      statusOf(job),
      c.attempts,
      c.token,
      c.owner,
      c.leaseUntil,
      c.notBefore,
      c.reason,
      c.lastError,
    ]);
    jobKeys.set(job, key);
  }
  return key;
}

const byName = <T>(map: ReadonlyMap<string, T>): [string, T][] =>
  [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

function cached(map: object, make: () => string): string {
  let key = mapKeys.get(map);
  if (key === undefined) {
    key = make();
    mapKeys.set(map, key);
  }
  return key;
}

/**
 * The exact canonical key of a model state: equal exactly when the snapshots are equal (up to
 * the order of map entries, which carries no meaning) and, under a deduplication window, the
 * admission times too. The config is left out: one model serves one config. Pure (but for its caches).
 */
export function modelStateKey(state: ModelState): string {
  let key = stateKeys.get(state);
  if (key !== undefined) return key;
  const c = state.context;
  const jobs = cached(c.jobs, () => {
    let s = '';
    for (const job of c.jobs.values()) s += `${jobKey(job)};`;
    return s;
  });
  const balances = cached(c.balances, () => JSON.stringify(byName(c.balances)));
  const effects = cached(c.effects, () =>
    JSON.stringify(
      byName(c.effects).map(([account, ledger]) => [
        account,
        byName(ledger).map(([k, e]) => [k, e.amount, e.job, e.token]),
      ]),
    ),
  );
  key = `${c.clock},${c.nextToken},${c.nextSeq}|${jobs}|${balances}|${effects}`;
  // A deduplication window's admission times (model/variants.ts) decide later submits: part of the state.
  const admitted = c.admitted;
  if (admitted !== undefined)
    key += `|${cached(admitted, () => JSON.stringify(byName(admitted).map(([id, a]) => [id, a.seq, a.at])))}`;
  stateKeys.set(state, key);
  return key;
}

/**
 * Whether an observed reply (or snapshot) is the one the model gave, as sequential checking
 * decides it: rejections by code, never by message. Pure.
 */
export function sameJobReply(expected: unknown, observed: unknown): boolean {
  return firstDifference(comparableReply(expected), comparableReply(observed)) === undefined;
}

/** How replies are compared (jobModel's third argument). */
export interface JobModelComparison {
  /**
   * Fields left out of every reply and snapshot before comparing, at any depth (e.g. `lastError`
   * for a queue that declares `last-error-kept` unsupported). Default none.
   */
  readonly ignoreFields?: readonly string[];
}

/**
 * The reference model of one config as a SequentialModel: inputs are contract commands (any
 * value: a malformed one is refused as the contract says) or the snapshot request; outputs are
 * replies, or the canonical snapshot. `model` is the model to step (default the reference model;
 * a profile passes the composition of its declared variants, model/variants.ts), and `comparison`
 * may leave fields out of the comparison. Throws JobcheckError `invalid_config` for a bad config.
 * Pure.
 */
export function jobModel(
  config: unknown,
  model?: Model,
  comparison: JobModelComparison = {},
): SequentialModel<ModelState, unknown, unknown> & SearchHints<ModelState, unknown, unknown> {
  const init = model === undefined ? initialState(config) : model.initialState(config);
  const stepOf = model === undefined ? step : model.step;
  const ignored = new Set(comparison.ignoreFields ?? []);
  return {
    init: () => init,
    step(state, input) {
      if (isSnapshotRequest(input)) return { state, output: toSnapshot(state) };
      const r = stepOf(state, input);
      return { state: r.state, output: r.reply };
    },
    key: modelStateKey,
    equal:
      ignored.size === 0
        ? sameJobReply
        : (expected, observed) => sameJobReply(withoutFields(expected, ignored), withoutFields(observed, ignored)),
    stableWhenUnchanged: changesOnlyTheClock,
    inertFrom: timePassed,
  };
}

/**
 * Whether a request's `now` is before the clock: then it is refused (`clock_regressed`, or
 * `invalid_argument` if malformed) and changes nothing, here and in every later state, since the
 * clock never goes back. The checker's `inertFrom` hint. Pure.
 */
export function timePassed(state: ModelState, input: unknown): boolean {
  if (typeof input !== 'object' || input === null || isSnapshotRequest(input)) return false;
  const now = (input as { now?: unknown }).now;
  return typeof now === 'number' && now < state.context.clock;
}

/**
 * Whether a request with this reply can change nothing but the clock: a snapshot, a refusal
 * (the contract: a rejection changes nothing beyond advancing the clock), a claim that found no
 * job, a tick, a duplicate submit. If such a step left a state unchanged, the clock was already at
 * its `now`; the clock never goes back, and the same reply elsewhere means the clock is still at
 * that `now` (or the reply would be `clock_regressed`), so the step changes nothing there either.
 * This is the checker's `stableWhenUnchanged` hint. Pure.
 */
export function changesOnlyTheClock(input: unknown, output: unknown): boolean {
  if (isSnapshotRequest(input)) return true;
  if (typeof output !== 'object' || output === null) return false;
  const r = output as { ok?: unknown; type?: unknown; job?: unknown; duplicate?: unknown };
  if (r.ok === false) return true;
  if (r.ok !== true) return false;
  return (r.type === 'claim' && r.job === null) || r.type === 'tick' || (r.type === 'submit' && r.duplicate === true);
}

// --- Recorded histories, for tests and benchmarks. -------------------------------------------------

/** A small seeded generator (mulberry32): the same seed gives the same history. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** How `jobStoreRoundHistory` builds a history. */
export interface RoundHistoryOptions {
  readonly config: Config;
  /** Worker lanes; each sends at most one request a round. */
  readonly workers: number;
  /** Requests in all (the final snapshot request not counted). */
  readonly requests: number;
  readonly seed: number;
  /** Share of requests whose reply is lost (half of them never reach the store). Default 0. */
  readonly indefinite?: number;
  /** Whether to end with a snapshot request. Default true. */
  readonly snapshot?: boolean;
  /** The store class to record (a subclass of JobStore, such as a broken variant). Default JobStore. */
  readonly store?: typeof JobStore;
}

/**
 * A history of simulated workers against impl/JobStore. Each round every worker sends one request
 * with the round's `now` (a worker holding a delivery settles it: commit, ack or fail; an idle
 * one submits, claims or ticks); the store executes the round's requests one at a time in a
 * random order, and the instants are laid out so that all requests of a round overlap (every
 * invoke, then every return) and each round ends before the next begins. With `indefinite`, some
 * replies are dropped (the request still ran, or, for half of them, never ran). Deterministic in
 * the seed. Not pure: it runs a store.
 */
export function jobStoreRoundHistory(options: RoundHistoryOptions): History<unknown, unknown> {
  const random = seededRandom(options.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
  const store = new (options.store ?? JobStore)(options.config);
  const held: ({ token: number; committed: boolean } | undefined)[] = Array.from(
    { length: options.workers },
    () => undefined,
  );
  const operations: Operation<unknown, unknown>[] = [];
  let now = 0;
  let instant = 0;
  let jobs = 0;
  const lost = options.indefinite ?? 0;
  while (operations.length < options.requests) {
    if (random() < 0.4) now += 1 + Math.floor(random() * 2);
    const lanes = Array.from(
      { length: Math.min(options.workers, options.requests - operations.length) },
      (_, w) => w,
    ).filter(() => random() < 0.9);
    const round = lanes.map((lane) => {
      const worker = `w${lane}`;
      const h = held[lane];
      let command: Command;
      if (h !== undefined) {
        const token = random() < 0.05 ? Math.max(1, h.token - 1) : h.token;
        const r = random();
        if (!h.committed && r < 0.6) command = { type: 'commit', worker, token, now };
        else if (r < 0.85) command = { type: 'ack', worker, token, now };
        else
          command = {
            type: 'fail',
            worker,
            token,
            kind: random() < 0.7 ? 'transient' : 'permanent',
            error: pick(['boom', 'timeout']),
            now,
          };
      } else {
        const r = random();
        if (r < 0.3) {
          const id = random() < 0.1 && jobs > 0 ? `j${Math.floor(random() * jobs)}` : `j${jobs++}`;
          command = {
            type: 'submit',
            id,
            account: pick(['acme', 'bolt', 'core', 'dyne', 'echo', 'flux']),
            key: `k${Math.floor(random() * 30)}`,
            amount: pick([1, 2, 5, -3]),
            deadline: now + 4 + Math.floor(random() * 20),
            now,
          };
        } else if (r < 0.9) command = { type: 'claim', worker, now };
        else command = { type: 'tick', now };
      }
      return { lane, command, invoked: instant++ };
    });
    const order = round.map((_, i) => i);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j] as number, order[i] as number];
    }
    for (const k of order) {
      const { lane, command, invoked } = round[k] as (typeof round)[number];
      const fate = random() < lost ? (random() < 0.5 ? 'unsent' : 'unanswered') : 'answered';
      const reply: Reply | undefined = fate === 'unsent' ? undefined : store.execute(command);
      if (reply !== undefined && fate === 'answered') track(held, lane, command, reply);
      else if (command.type === 'claim' || command.type === 'ack' || command.type === 'fail') held[lane] = undefined;
      const id = operations.length;
      operations.push(
        fate === 'answered'
          ? { id, lane, input: command, invoked, returned: instant++, output: reply }
          : { id, lane, input: command, invoked },
      );
    }
  }
  if (options.snapshot ?? true) {
    operations.push({
      id: operations.length,
      lane: 0,
      input: SNAPSHOT_REQUEST,
      invoked: instant++,
      returned: instant++,
      output: store.snapshot(),
    });
  }
  return { operations };
}

/** What a worker learns from a reply: the delivery it now holds, or that it holds none. */
function track(
  held: ({ token: number; committed: boolean } | undefined)[],
  lane: number,
  command: Command,
  reply: Reply,
): void {
  const h = held[lane];
  switch (command.type) {
    case 'claim':
      held[lane] =
        reply.ok && reply.type === 'claim' && reply.job !== null
          ? { token: reply.job.token, committed: false }
          : undefined;
      return;
    case 'commit':
      if (h !== undefined) held[lane] = reply.ok ? { ...h, committed: true } : undefined;
      return;
    case 'ack':
    case 'fail':
      held[lane] = undefined;
      return;
    case 'submit':
    case 'tick':
      return;
  }
}
