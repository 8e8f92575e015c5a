/**
 * The path suite's enumeration: @xstate/graph walks the job lifecycle machine (model/jobMachine.ts)
 * and returns paths that reach every lifecycle state, take every declared transition (each guard
 * outcome) and every reachable consecutive pair of transitions; each path becomes a concrete
 * command script for the store.
 *
 * Abstraction and bound. The store as a whole (many jobs, accounts, an unbounded clock) has no
 * finite graph worth walking, so the walk is over ONE job, composed with the two things its
 * guards read from outside: the clock and the config. The traversal state is the job's
 * lifecycle snapshot plus the clock; it is serialised by the explicit abstraction
 * `status | attempts | clock | leaseUntil | notBefore | last two transitions` (owner, token and
 * lastError are left out: they never decide a guard). Times are offered only at the instants that
 * decide guards (now, a lease expiry, a backoff end, the deadline, one tick before the deadline,
 * one tick before a lease expiry), with one fixed config (PATH_CONFIG) and deadline
 * (PATH_DEADLINE). The clock never passes the deadline and attempts never pass maxAttempts, so the
 * abstract graph is finite (a few hundred vertices); PATH_TRAVERSAL_LIMIT bounds the walk in
 * case a future machine change makes it grow. See docs/conformance.md.
 */
import { getShortestPaths } from '@xstate/graph';
import { fromTransition, transition } from 'xstate';
import type { Config } from '../../contract/index.ts';
import { admittedJob, jobMachine, lifecycleTransitions, policyOf, transitionOf } from '../../model/index.ts';
import type { JobEvent, JobSnapshot, JobStep, LifecycleTransition } from '../../model/index.ts';
import type { ScriptStep } from '../lockstep/symbolic.ts';

/** The config every lifecycle path runs under: one slot, two attempts, a 3-tick lease, backoff 2 capped at 3. */
export const PATH_CONFIG: Config = { capacity: 1, maxAttempts: 2, leaseTicks: 3, backoffBase: 2, backoffCap: 3 };
/** The deadline of the job every lifecycle path follows (submitted at 0). */
export const PATH_DEADLINE = 10;
/** Most traversal iterations before @xstate/graph gives up (the abstract graph is far smaller). */
export const PATH_TRAVERSAL_LIMIT = 5_000;

const JOB = 'a';
const WORKER = 'w1';

/** A step of the walk: a lifecycle event at a symbolic instant, resolved from the state it is taken in. */
export type PathEvent =
  | { readonly type: 'CLAIM'; readonly at: 'now' | 'lastChance' }
  | { readonly type: 'COMMIT' }
  | { readonly type: 'ACK' }
  | { readonly type: 'FAIL'; readonly kind: 'transient' | 'permanent'; readonly at: 'now' | 'leaseEnd' }
  | { readonly type: 'ADVANCE'; readonly to: 'leaseUntil' | 'notBefore' | 'deadline' };

/** The walked state: one job's lifecycle snapshot, the clock, the last transition taken (for the abstraction). */
export interface Walk {
  readonly job: JobSnapshot;
  readonly clock: number;
  readonly via: string | null;
  /** The transition before `via` (so that paths for consecutive pairs can be chosen). */
  readonly prevVia: string | null;
}

const statusOf = (job: JobSnapshot): string => String(job.value);

/** The concrete `now` of an event taken in a state. Pure. */
function timeOf(w: Walk, e: PathEvent): number {
  const c = w.job.context;
  switch (e.type) {
    case 'CLAIM':
      return e.at === 'now' ? w.clock : Math.max(w.clock, c.payload.deadline - 1);
    case 'FAIL':
      return e.at === 'now' ? w.clock : Math.max(w.clock, Math.min(c.leaseUntil ?? w.clock, c.payload.deadline) - 1);
    case 'ADVANCE':
      return e.to === 'deadline' ? c.payload.deadline : (c[e.to] ?? w.clock);
    default:
      return w.clock;
  }
}

/** The lifecycle event the store would send the job for a path event. Pure. */
function jobEventOf(w: Walk, e: PathEvent): JobEvent {
  const now = timeOf(w, e);
  const token = w.job.context.token ?? 0;
  switch (e.type) {
    case 'CLAIM':
      return { type: 'CLAIM', worker: WORKER, token: w.job.context.attempts + 1, now };
    case 'COMMIT':
      return { type: 'COMMIT', worker: WORKER, token };
    case 'ACK':
      return { type: 'ACK', worker: WORKER, token };
    case 'FAIL':
      return {
        type: 'FAIL',
        worker: WORKER,
        token,
        kind: e.kind,
        error: e.kind === 'permanent' ? 'bad input' : 'timeout',
        now,
      };
    case 'ADVANCE':
      return { type: 'ADVANCE', now };
  }
}

/** The recorded step of a job transition, as the store's trace would show it, or undefined if nothing moved. */
function stepOf(before: JobSnapshot, after: JobSnapshot, event: JobEvent): JobStep | undefined {
  const from = statusOf(before) as JobStep['from'];
  const to = statusOf(after) as JobStep['to'];
  if (from === to && event.type !== 'COMMIT') return undefined;
  const reason = after.context.reason;
  return to === 'dead' && reason !== undefined
    ? { job: JOB, from, event: event.type, to, reason }
    : { job: JOB, from, event: event.type, to };
}

function advance(w: Walk, e: PathEvent): Walk {
  const event = jobEventOf(w, e);
  const [job] = transition(jobMachine, w.job as ReturnType<typeof admittedJob>, event);
  const step = stepOf(w.job, job, event);
  return {
    job,
    clock: Math.max(w.clock, timeOf(w, e)),
    via: step === undefined ? null : transitionOf(step).id,
    prevVia: w.via,
  };
}

/** Events worth offering in a state: only those whose instants decide a guard, never past the deadline. */
function eventsFor(w: Walk): PathEvent[] {
  const c = w.job.context;
  switch (statusOf(w.job)) {
    case 'ready':
      return [
        { type: 'CLAIM', at: 'now' },
        { type: 'CLAIM', at: 'lastChance' },
        { type: 'ADVANCE', to: 'deadline' },
      ];
    case 'running': {
      const events: PathEvent[] = [
        { type: 'COMMIT' },
        { type: 'ACK' },
        { type: 'FAIL', kind: 'transient', at: 'now' },
        { type: 'FAIL', kind: 'transient', at: 'leaseEnd' },
        { type: 'FAIL', kind: 'permanent', at: 'now' },
        { type: 'ADVANCE', to: 'deadline' },
      ];
      if ((c.leaseUntil ?? Infinity) < c.payload.deadline) events.push({ type: 'ADVANCE', to: 'leaseUntil' });
      return events;
    }
    case 'waiting': {
      const events: PathEvent[] = [{ type: 'ADVANCE', to: 'deadline' }];
      if ((c.notBefore ?? Infinity) < c.payload.deadline) events.push({ type: 'ADVANCE', to: 'notBefore' });
      return events;
    }
    default:
      return [];
  }
}

/** The explicit abstraction the walk deduplicates by (see the file comment). Pure. */
export function abstractState(w: Walk): string {
  const c = w.job.context;
  return `${statusOf(w.job)}|attempts=${c.attempts}|clock=${w.clock}|lease=${c.leaseUntil ?? '-'}|notBefore=${c.notBefore ?? '-'}|via=${w.prevVia ?? '-'},${w.via ?? '-'}`;
}

const walkLogic = fromTransition<Walk, PathEvent, never, undefined>(advance, () => {
  const job = admittedJob({
    id: JOB,
    payload: { account: 'x', key: 'k1', amount: 7, deadline: PATH_DEADLINE },
    seq: 1,
    policy: policyOf(PATH_CONFIG),
  });
  return { job, clock: 0, via: null, prevVia: null };
});

/** One enumerated path: why it is in the suite, the transitions it takes, and its command script. */
export interface LifecyclePath {
  /** E.g. `to dead via running-fail->dead(no_time_for_retry)`. */
  readonly name: string;
  /** What the path was chosen for: a lifecycle state, or a transition (by lifecycle id). */
  readonly goal:
    | { readonly state: string }
    | { readonly transition: string }
    | { readonly pair: readonly [string, string] };
  /** Lifecycle ids of the transitions job a takes, in order. */
  readonly transitions: readonly string[];
  readonly config: Config;
  /** How many leading steps of `script` walk the path (the rest are probes and the restart). */
  readonly walkSteps: number;
  /**
   * The concrete script: submit job a, the commands of the path, then two probes of the store
   * policy in the state reached (submit job b of the same account, claim), then a restart (so
   * restore is checked in every state reached).
   */
  readonly script: readonly ScriptStep[];
}

function commandOf(w: Walk, e: PathEvent): unknown {
  const now = timeOf(w, e);
  const token = w.job.context.token ?? 0;
  switch (e.type) {
    case 'CLAIM':
      return { type: 'claim', worker: WORKER, now };
    case 'COMMIT':
      return { type: 'commit', worker: WORKER, token, now };
    case 'ACK':
      return { type: 'ack', worker: WORKER, token, now };
    case 'FAIL':
      return {
        type: 'fail',
        worker: WORKER,
        token,
        kind: e.kind,
        error: e.kind === 'permanent' ? 'bad input' : 'timeout',
        now,
      };
    case 'ADVANCE':
      return { type: 'tick', now };
  }
}

let cache: readonly LifecyclePath[] | undefined;

/**
 * The path suite: for every lifecycle state, every declared transition and every reachable pair of
 * consecutive transitions, the shortest walk
 * (by @xstate/graph's getShortestPaths over the abstraction) that ends there, as a command script.
 * Pure (computed once). Throws if some state or transition is unreachable (a model change the
 * walk's events do not cover), so that a gap cannot pass silently.
 */
export function lifecyclePaths(): readonly LifecyclePath[] {
  if (cache !== undefined) return cache;
  const all = getShortestPaths(walkLogic, {
    events: (s) => eventsFor(s.context),
    serializeState: (s) => abstractState(s.context),
    limit: PATH_TRAVERSAL_LIMIT,
  });
  const shortestFor = (pred: (w: Walk) => boolean) =>
    all.filter((p) => pred(p.state.context)).sort((a, b) => a.steps.length - b.steps.length)[0];
  const paths: LifecyclePath[] = [];
  const build = (name: string, goal: LifecyclePath['goal'], p: (typeof all)[number]): LifecyclePath => {
    const script: ScriptStep[] = [
      { do: { type: 'submit', id: JOB, account: 'x', key: 'k1', amount: 7, deadline: PATH_DEADLINE, now: 0 } },
    ];
    const transitions: string[] = [];
    let w: Walk = walkLogic.getInitialSnapshot({} as never, undefined).context;
    for (const step of p.steps) {
      // @xstate/graph starts every path with a pseudo-step for the initial state.
      if ((step.event as { type: string }).type === 'xstate.init') continue;
      const next = advance(w, step.event);
      script.push({ do: commandOf(w, step.event) });
      if (next.via !== null) transitions.push(next.via);
      w = next;
    }
    const walkSteps = script.length;
    // Probe the store policy in the state reached: a second job of the same account must be
    // refused while job a is unresolved (capacity 1), and must not be claimed ahead of it.
    script.push({
      do: {
        type: 'submit',
        id: 'b',
        account: 'x',
        key: 'k2',
        amount: 1,
        deadline: w.clock + PATH_DEADLINE,
        now: w.clock,
      },
    });
    script.push({ do: { type: 'claim', worker: 'w2', now: w.clock } });
    script.push({ restart: true });
    return { name, goal, transitions, config: PATH_CONFIG, walkSteps, script };
  };
  for (const state of ['ready', 'running', 'waiting', 'done', 'dead']) {
    const p = shortestFor((w) => statusOf(w.job) === state);
    if (p === undefined) throw new Error(`path suite: lifecycle state ${state} is unreachable by the walk`);
    paths.push(build(`to ${state}`, { state }, p));
  }
  for (const t of lifecycleTransitions()) {
    const p = shortestFor((w) => w.via === t.id);
    if (p === undefined) throw new Error(`path suite: transition ${t.id} is unreachable by the walk`);
    paths.push(build(`via ${shortLabel(t)}`, { transition: t.id }, p));
  }
  // Consecutive pairs of one job's transitions: those the walk can reach (others are infeasible
  // under PATH_CONFIG, e.g. a second delivery after a lease expiry that already used the last attempt).
  for (const a of lifecycleTransitions()) {
    for (const b of lifecycleTransitions()) {
      if (a.to !== b.from) continue;
      const p = shortestFor((w) => w.prevVia === a.id && w.via === b.id);
      if (p !== undefined) paths.push(build(`via ${shortLabel(a)} then ${shortLabel(b)}`, { pair: [a.id, b.id] }, p));
    }
  }
  cache = paths;
  return paths;
}

const shortLabel = (t: LifecycleTransition): string =>
  `${t.from}-${t.event.toLowerCase()}->${t.to}${t.reason === undefined ? '' : `(${t.reason})`}`;

/** How many abstract states the walk visited (for docs and reports). Pure. */
export function walkSize(): number {
  return getShortestPaths(walkLogic, {
    events: (s) => eventsFor(s.context),
    serializeState: (s) => abstractState(s.context),
    limit: PATH_TRAVERSAL_LIMIT,
  }).length;
}
