/**
 * Symbolic commands: what the random campaign generates. Times, tokens and workers are written as
 * references ("the lease expiry of job b, minus one", "the current token of job a", "the worker
 * that does not own job c") and resolved against the model's state at the moment the command
 * runs. A shrunk sequence therefore keeps its meaning: when an earlier command is removed, "the
 * current token of job a" still names job a's current token, not a number that happened to match
 * it in the longer run.
 */
import type { Command, FailureKind } from '../../contract/index.ts';
import type { ModelState } from '../../model/index.ts';

/** Stale tokens are picked among the last this many handed out (more than any generated run from an empty store hands out). */
const STALE_WINDOW = 1024;
/** A time: relative to the clock, to an instant of one job (±1 tick), or deliberately in the past. */
export type TimeRef =
  | { readonly at: 'clock'; readonly plus: number }
  | { readonly at: 'leaseUntil' | 'deadline' | 'notBefore'; readonly job: string; readonly plus: -1 | 0 | 1 }
  | { readonly at: 'past'; readonly minus: number };

/**
 * A delivery token: the current token of the pick-th running job (in admission order), a named
 * job's current (or last) one, the latest issued, a stale one, or one never issued.
 */
export type TokenRef =
  | { readonly of: 'running'; readonly pick: number }
  | { readonly of: 'current'; readonly job: string }
  | { readonly of: 'latest' }
  | { readonly of: 'stale'; readonly pick: number }
  | { readonly of: 'never'; readonly plus: number };

/**
 * A worker: the one holding the delivery the command's token names (`holder`), another one
 * (`other`), or a fixed name.
 */
export type WorkerRef = { readonly name: string } | { readonly holder: true } | { readonly other: true };

/** Which field a resubmission changes (`none`: an exact duplicate). */
export type ResubmitChange = 'none' | 'amount' | 'key' | 'account' | 'deadline';

/** One generated step of a campaign, before resolution. */
export type SymbolicCommand =
  | {
      readonly kind: 'submit';
      readonly id: string;
      readonly account: string;
      readonly key: string;
      /** A number, or `limit`: an amount at the edge of the safe-integer range (see limitAmount). */
      readonly amount: number | 'limit';
      /** The deadline is `now + deadlineIn`. */
      readonly deadlineIn: number;
      readonly now: TimeRef;
    }
  | { readonly kind: 'resubmit'; readonly id: string; readonly change: ResubmitChange; readonly now: TimeRef }
  | { readonly kind: 'claim'; readonly worker: string; readonly now: TimeRef }
  | { readonly kind: 'commit' | 'ack'; readonly worker: WorkerRef; readonly token: TokenRef; readonly now: TimeRef }
  | {
      readonly kind: 'fail';
      readonly worker: WorkerRef;
      readonly token: TokenRef;
      readonly failure: FailureKind;
      readonly now: TimeRef;
    }
  | { readonly kind: 'tick'; readonly now: TimeRef }
  | { readonly kind: 'restart' }
  | { readonly kind: 'malformed'; readonly variant: number; readonly now: TimeRef };

/** A concrete step of a script: a command (possibly malformed) or a restart. This is what artifacts store. */
export type ScriptStep = { readonly do: unknown } | { readonly restart: true };

/** What resolution may know besides the model state: the last token each job was delivered under. */
export interface ResolveMemory {
  readonly lastToken: Map<string, number>;
}

/** A fresh, empty resolution memory. */
export const newResolveMemory = (): ResolveMemory => ({ lastToken: new Map() });

/** The worker names the campaign uses. */
export const WORKERS = ['w1', 'w2'] as const;

const MALFORMED: readonly ((now: number) => unknown)[] = [
  (now) => ({ type: 'claim', worker: '', now }),
  (now) => ({ type: 'claim', worker: 'w1', now, priority: 1 }),
  (now) => ({ type: 'commit', worker: 'w1', token: 0, now }),
  () => ({ type: 'tick', now: -1 }),
  (now) => ({ type: 'tick', now: now + 0.5 }),
  (now) => ({ type: 'submit', id: 'a', account: 'x', key: 'k1', amount: 1, deadline: now, now }),
  (now) => ({ type: 'launch', now }),
  () => null,
  (now) => ({ type: 'fail', worker: 'w1', token: 1, kind: 'sometimes', error: 'e', now }),
  (now) => ({ type: 'ack', worker: 'w1', now }),
  (now) => ({ type: 'submit', id: 'b', account: 'x', key: 'k1', amount: 1.5, deadline: now + 5, now }),
  (now) => ({ type: 'fail', worker: 'w1', token: 1, kind: 'transient', error: '', now }),
  () => 'tick',
  () => ({ type: 'tick', now: Number.MAX_SAFE_INTEGER + 2 }),
  (now) => ({ type: 'submit', id: '', account: 'x', key: 'k1', amount: 1, deadline: now + 3, now }),
];

/** How many malformed-command variants there are (`variant` is taken modulo this). */
export const MALFORMED_VARIANTS = MALFORMED.length;

/** Resolves a time against the model: never before the clock, except `past` (which tests `clock_regressed`). Pure. */
export function resolveTime(state: ModelState, ref: TimeRef): number {
  const clock = state.context.clock;
  switch (ref.at) {
    case 'clock':
      return clock + ref.plus;
    case 'past':
      return Math.max(0, clock - ref.minus);
    default: {
      const job = state.context.jobs.get(ref.job)?.context;
      const base = ref.at === 'deadline' ? job?.payload.deadline : job?.[ref.at];
      return base === undefined ? clock : Math.max(clock, base + ref.plus);
    }
  }
}

function resolveToken(state: ModelState, memory: ResolveMemory, ref: TokenRef): number {
  const c = state.context;
  switch (ref.of) {
    case 'running': {
      const running = [...c.jobs.values()]
        .filter((j) => j.context.token !== undefined)
        .sort((a, b) => a.context.seq - b.context.seq);
      return running[ref.pick % Math.max(1, running.length)]?.context.token ?? c.nextToken + 1;
    }
    case 'current':
      return c.jobs.get(ref.job)?.context.token ?? memory.lastToken.get(ref.job) ?? c.nextToken + 1;
    case 'latest':
      return Math.max(1, c.nextToken - 1);
    case 'never':
      return c.nextToken + ref.plus;
    case 'stale': {
      const current = new Set<number>();
      for (const job of [...c.jobs.values()]) if (job.context.token !== undefined) current.add(job.context.token);
      // The latest STALE_WINDOW tokens handed out are the candidates: every token of a generated
      // run from an empty store, and a bounded list for one that starts near the counters' edge.
      const stale: number[] = [];
      for (let t = Math.max(1, c.nextToken - STALE_WINDOW); t < c.nextToken; t++) if (!current.has(t)) stale.push(t);
      return stale.length === 0 ? c.nextToken + 1 : (stale[ref.pick % stale.length] ?? 1);
    }
  }
}

function resolveWorker(state: ModelState, ref: WorkerRef, token: number): string {
  if ('name' in ref) return ref.name;
  const owner = [...state.context.jobs.values()].find((j) => j.context.token === token)?.context.owner;
  if ('holder' in ref) return owner ?? WORKERS[0];
  return owner === WORKERS[0] ? WORKERS[1] : WORKERS[0];
}

/**
 * The `limit` amount for a new job of `account`: the account's balance plus the positive amounts
 * of its unresolved jobs not yet committed (which, by per-account order, commit first if they
 * commit at all) is the expected balance `b`; the amount is `MAX - b + 1` when `b > 0` (so the new
 * job's commit leaves the safe-integer range), else MAX itself. Pure.
 */
function limitAmount(state: ModelState, account: string): number {
  const c = state.context;
  let expected = c.balances.get(account) ?? 0;
  for (const job of [...c.jobs.values()]) {
    const p = job.context.payload;
    const unresolved = job.value === 'ready' || job.value === 'waiting' || job.value === 'running';
    if (unresolved && p.account === account && p.amount > 0 && c.effects.get(account)?.get(p.key) === undefined)
      expected += p.amount;
  }
  return expected > 0 && expected <= Number.MAX_SAFE_INTEGER
    ? Number.MAX_SAFE_INTEGER - expected + 1
    : Number.MAX_SAFE_INTEGER;
}

/**
 * The concrete step a symbolic command stands for in the given model state. Pure (reads only).
 * Resolution never fails: a reference to something absent (a job not yet submitted, a lease that
 * is over) falls back to an ordinary value (the clock, a never-issued token).
 */
export function resolveCommand(state: ModelState, memory: ResolveMemory, sym: SymbolicCommand): ScriptStep {
  switch (sym.kind) {
    case 'restart':
      return { restart: true };
    case 'submit': {
      const now = resolveTime(state, sym.now);
      const { id, account, key } = sym;
      const amount = sym.amount === 'limit' ? limitAmount(state, account) : sym.amount;
      return { do: { type: 'submit', id, account, key, amount, deadline: now + sym.deadlineIn, now } };
    }
    case 'resubmit': {
      const now = resolveTime(state, sym.now);
      const p = state.context.jobs.get(sym.id)?.context.payload ?? {
        account: 'x',
        key: 'k1',
        amount: 1,
        deadline: now + 5,
      };
      const changed = {
        account: sym.change === 'account' ? `${p.account}2` : p.account,
        key: sym.change === 'key' ? `${p.key}2` : p.key,
        amount: sym.change === 'amount' ? p.amount + 1 : p.amount,
        deadline: sym.change === 'deadline' ? p.deadline + 1 : p.deadline,
      };
      return { do: { type: 'submit', id: sym.id, ...changed, now } };
    }
    case 'claim':
      return { do: { type: 'claim', worker: sym.worker, now: resolveTime(state, sym.now) } };
    case 'commit':
    case 'ack': {
      const token = resolveToken(state, memory, sym.token);
      const command: Command = {
        type: sym.kind,
        worker: resolveWorker(state, sym.worker, token),
        token,
        now: resolveTime(state, sym.now),
      };
      return { do: command };
    }
    case 'fail': {
      const token = resolveToken(state, memory, sym.token);
      const command: Command = {
        type: 'fail',
        worker: resolveWorker(state, sym.worker, token),
        token,
        kind: sym.failure,
        error: sym.failure === 'permanent' ? 'bad input' : 'timeout',
        now: resolveTime(state, sym.now),
      };
      return { do: command };
    }
    case 'tick':
      return { do: { type: 'tick', now: resolveTime(state, sym.now) } };
    case 'malformed': {
      const make = MALFORMED[sym.variant % MALFORMED.length] ?? MALFORMED[0];
      return { do: make?.(resolveTime(state, sym.now)) };
    }
  }
}

/** A short human reading of a symbolic command, e.g. `commit token=current(a) worker=other now=leaseUntil(a)-1`. Pure. */
export function describeSymbolic(sym: SymbolicCommand): string {
  const t = (r: TimeRef): string =>
    r.at === 'clock'
      ? r.plus === 0
        ? 'clock'
        : `clock+${r.plus}`
      : r.at === 'past'
        ? `clock-${r.minus}`
        : `${r.at}(${r.job})${r.plus === 0 ? '' : r.plus > 0 ? '+1' : '-1'}`;
  const tok = (r: TokenRef): string =>
    r.of === 'running'
      ? `running#${r.pick}`
      : r.of === 'current'
        ? `current(${r.job})`
        : r.of === 'latest'
          ? 'latest'
          : r.of === 'stale'
            ? `stale#${r.pick}`
            : `never+${r.plus}`;
  const w = (r: WorkerRef): string => ('name' in r ? r.name : 'holder' in r ? 'holder' : 'other');
  switch (sym.kind) {
    case 'restart':
      return 'restart';
    case 'submit':
      return `submit ${sym.id} ${sym.account}/${sym.key} amount=${sym.amount} deadline=now+${sym.deadlineIn} now=${t(sym.now)}`;
    case 'resubmit':
      return `resubmit ${sym.id} change=${sym.change} now=${t(sym.now)}`;
    case 'claim':
      return `claim ${sym.worker} now=${t(sym.now)}`;
    case 'commit':
    case 'ack':
      return `${sym.kind} token=${tok(sym.token)} worker=${w(sym.worker)} now=${t(sym.now)}`;
    case 'fail':
      return `fail ${sym.failure} token=${tok(sym.token)} worker=${w(sym.worker)} now=${t(sym.now)}`;
    case 'tick':
      return `tick now=${t(sym.now)}`;
    case 'malformed':
      return `malformed #${sym.variant % MALFORMED.length}`;
  }
}
