/**
 * Runs one concurrent scenario against a ConcurrentAdapter and records its history.
 *
 * Round by round: the round's symbolic requests are resolved from the replies of earlier rounds,
 * every request is sent at once (`execute(lane, command)`), and the next round starts only when
 * this one has settled: every request replied, or its time limit made it indefinite. Instants come
 * from one counter: all of a round's invokes are numbered before any of its returns, which are
 * numbered in the order the replies arrive. So real-time order is exactly "earlier round before
 * later round", and every request of a round carries the same `now`, which never decreases: the
 * clock never contradicts real time. The run ends with a `snapshot` operation.
 *
 * Every wait is bounded: a request by `timeoutMs` (then it is indefinite: it may have taken effect
 * or not), the snapshot and `close` likewise, and the whole run by the budget, if any.
 */
import type { Reply } from '../../contract/index.ts';
import type { Budget } from '../budget.ts';
import { IndefiniteOutcome } from './adapter.ts';
import type { ConcurrentAdapter } from './adapter.ts';
import type { ConcurrentCommand, ConcurrentRequest, ConcurrentScenario, DeliveryRef, RoundTime } from './generate.ts';
import { laneWorker } from './generate.ts';
import type { History, Operation } from './history.ts';
import { SNAPSHOT_REQUEST } from './jobModel.ts';

/** An operation's input: a command as sent, or the final snapshot request. */
export type JobOperationInput = unknown;
/** An operation's output: a reply, or the snapshot. */
export type JobOperationOutput = unknown;
/** The history of a job store. */
export type JobHistory = History<JobOperationInput, JobOperationOutput>;

/** One request of a run, as resolved and sent. */
export interface SentRequest {
  /** The operation id in the history. */
  readonly id: number;
  readonly lane: number;
  readonly command: unknown;
  /** The symbolic request it was resolved from. */
  readonly symbolic: ConcurrentCommand;
  /** Why no reply came (absent when one did). */
  readonly indefinite?: 'timeout' | 'process_died' | 'closed' | 'error';
  /** The error's message when `execute` failed with something other than IndefiniteOutcome. */
  readonly error?: string;
}

/** One round of a run. */
export interface SentRound {
  readonly index: number;
  readonly now: number;
  readonly requests: readonly SentRequest[];
}

/** A run: the history, and the rounds it was made of (for stories). */
export interface ConcurrentRun {
  readonly adapter: string;
  readonly workers: number;
  readonly rounds: readonly SentRound[];
  /** Every request and, last, the snapshot operation. */
  readonly history: JobHistory;
  /** The id of the snapshot operation. */
  readonly snapshotId: number;
  /** Requests whose `execute` failed with an error that is not an IndefiniteOutcome (an adapter defect). */
  readonly errors: readonly { readonly id: number; readonly message: string }[];
  /** True when the budget ran out before every round ran; such a run is neither a pass nor a failure. */
  readonly interrupted: boolean;
}

/**
 * How a run waits for a round: `settle(p)` resolves when `p` does. Under fast-check's scheduler it
 * is `s.waitFor`, which releases the scheduled await points of the in-process adapter until `p`
 * resolves; otherwise the identity.
 */
export type Settle = <T>(p: Promise<T>) => Promise<T>;

/** Options of one run. */
export interface RunOptions {
  /** Milliseconds a request (or the snapshot) may take before it is indefinite. */
  readonly timeoutMs: number;
  /** See Settle; default: wait plainly. */
  readonly settle?: Settle;
  readonly budget?: Budget;
}

interface Delivery {
  readonly id: string;
  readonly token: number;
  readonly worker: string;
  readonly lane: number;
  readonly leaseUntil: number;
  ended: boolean;
}

interface Payload {
  readonly account: string;
  readonly key: string;
  readonly amount: number;
  readonly deadline: number;
}

/** What resolution knows: the replies of earlier rounds, and what was sent. */
export class ResolveMemory {
  /** The previous round's `now` (0 before the first). */
  now = 0;
  private readonly deliveries: Delivery[] = [];
  private readonly submitted = new Map<string, Payload>();
  private readonly notBefore = new Map<string, number>();
  private maxToken = 0;

  /** The `now` of a round: never below the previous one. */
  roundNow(ref: RoundTime): number {
    const base = this.now;
    switch (ref.at) {
      case 'same':
        return base;
      case 'later':
        return base + ref.plus;
      case 'leaseUntil': {
        const d = this.delivery(ref.delivery);
        return d === undefined ? base : Math.max(base, d.leaseUntil + ref.plus);
      }
      case 'notBefore': {
        const t = this.notBefore.get(ref.job);
        return t === undefined ? base : Math.max(base, t + ref.plus);
      }
      case 'deadline': {
        const t = this.submitted.get(ref.job)?.deadline;
        return t === undefined ? base : Math.max(base, t + ref.plus);
      }
    }
  }

  /** The delivery a reference names, if any was seen. */
  delivery(ref: DeliveryRef): Delivery | undefined {
    const live = this.deliveries.filter((d) => !d.ended && d.leaseUntil > this.now).reverse();
    const ended = this.deliveries.filter((d) => d.ended || d.leaseUntil <= this.now).reverse();
    const pool = (ref.ended ? ended : live).length > 0 ? (ref.ended ? ended : live) : ref.ended ? live : ended;
    return pool.length === 0 ? undefined : pool[ref.pick % pool.length];
  }

  /** The concrete command (and lane) a symbolic request stands for at `now`. */
  resolve(request: ConcurrentRequest, now: number, workers: number): { lane: number; command: unknown } {
    const lane = request.lane % workers;
    const c = request.command;
    switch (c.kind) {
      case 'submit':
        return { lane, command: { type: 'submit', id: c.id, account: c.account, key: c.key, amount: c.amount, deadline: now + c.deadlineIn, now } };
      case 'resubmit': {
        const p = this.submitted.get(c.id) ?? { account: 'x', key: 'k1', amount: 1, deadline: now + 6 };
        // A repeat whose deadline has come would be malformed, not a duplicate: keep it in the future.
        return { lane, command: { type: 'submit', id: c.id, ...p, deadline: Math.max(p.deadline, now + 1), now } };
      }
      case 'claim':
        return { lane, command: { type: 'claim', worker: laneWorker(lane), now } };
      case 'tick':
        return { lane, command: { type: 'tick', now } };
      case 'commit':
      case 'ack':
      case 'fail': {
        const d = this.delivery(c.delivery);
        const token = d?.token ?? this.maxToken + 1;
        const holderLane = d === undefined ? lane : d.lane % workers;
        const holder = d?.worker ?? laneWorker(lane);
        const other = laneWorker((holderLane + 1) % Math.max(2, workers));
        const worker = c.worker === 'holder' ? holder : other === holder ? laneWorker(holderLane + 1) : other;
        const sendLane = c.worker === 'holder' ? holderLane : lane;
        const base = { worker, token, now };
        if (c.kind === 'fail') {
          const error = c.failure === 'permanent' ? 'bad input' : 'timeout';
          return { lane: sendLane, command: { type: 'fail', ...base, kind: c.failure, error } };
        }
        return { lane: sendLane, command: { type: c.kind, ...base } };
      }
    }
  }

  /** Learns from one request and its reply (undefined: none came). */
  learn(lane: number, command: unknown, reply: unknown): void {
    const cmd = command as { type?: unknown; id?: unknown; token?: unknown };
    if (cmd.type === 'submit' && typeof cmd.id === 'string' && !this.submitted.has(cmd.id)) {
      const s = command as Payload & { id: string };
      this.submitted.set(s.id, { account: s.account, key: s.key, amount: s.amount, deadline: s.deadline });
    }
    if (reply === undefined || typeof reply !== 'object' || reply === null || (reply as { ok?: unknown }).ok !== true) return;
    const r = reply as Reply;
    if (r.ok !== true) return;
    if (r.type === 'claim' && r.job !== null) {
      for (const d of this.deliveries) if (d.id === r.job.id) d.ended = true;
      const worker = (command as { worker: string }).worker;
      this.deliveries.push({ id: r.job.id, token: r.job.token, worker, lane, leaseUntil: r.job.leaseUntil, ended: false });
      this.maxToken = Math.max(this.maxToken, r.job.token);
    }
    if ((r.type === 'ack' || r.type === 'fail') && typeof cmd.token === 'number') {
      for (const d of this.deliveries) if (d.token === cmd.token) d.ended = true;
    }
    if (r.type === 'fail' && r.status === 'waiting') this.notBefore.set(r.id, r.notBefore);
  }
}

type Outcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly why: 'timeout' | 'process_died' | 'closed' | 'error'; readonly message: string };

/** `p`, or a timeout outcome after `ms`; never rejects. */
export function bounded(p: Promise<unknown>, ms: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ ok: false, why: 'timeout', message: `no reply within ${ms} ms` }), ms);
    p.then(
      (value) => {
        clearTimeout(timer);
        resolve({ ok: true, value });
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (error instanceof IndefiniteOutcome) resolve({ ok: false, why: error.why, message: error.message });
        else resolve({ ok: false, why: 'error', message: error instanceof Error ? error.message : String(error) });
      },
    );
  });
}

/** `f()`, with a synchronous throw turned into a rejection. */
function attempt<T>(f: () => Promise<T>): Promise<T> {
  try {
    return f();
  } catch (error) {
    return Promise.reject(error);
  }
}

/** A permutation of `0..n-1` chosen by `seed` (0: the identity). Pure. */
function order(n: number, seed: number): number[] {
  const out = Array.from({ length: n }, (_, i) => i);
  let x = seed >>> 0;
  for (let i = n - 1; i > 0 && seed !== 0; i--) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const j = x % (i + 1);
    [out[i], out[j]] = [out[j] as number, out[i] as number];
  }
  return out;
}

/**
 * Runs a scenario against an adapter (which the caller creates and closes) and returns its
 * history. Never throws for anything the adapter does; never waits longer than the timeouts and
 * the budget allow.
 */
export async function runScenario(scenario: ConcurrentScenario, adapter: ConcurrentAdapter, options: RunOptions): Promise<ConcurrentRun> {
  const settle: Settle = options.settle ?? (<T>(p: Promise<T>) => p);
  const timeoutMs = options.budget === undefined ? options.timeoutMs : options.budget.cap(options.timeoutMs);
  const workers = Math.max(1, scenario.workers);
  const memory = new ResolveMemory();
  const operations: Operation<unknown, unknown>[] = [];
  const rounds: SentRound[] = [];
  const errors: { id: number; message: string }[] = [];
  let instant = 0;
  let nextId = 1;
  let interrupted = false;

  for (const [index, round] of scenario.rounds.entries()) {
    if (options.budget?.expired === true) {
      interrupted = true;
      break;
    }
    const now = memory.roundNow(round.now);
    const resolved = round.requests.map((r) => ({ ...memory.resolve(r, now, workers), symbolic: r.command, id: nextId++ }));
    const invoked = new Map<number, number>();
    const results = new Map<number, { returned: number; outcome: Outcome }>();
    const send = (r: (typeof resolved)[number]): Promise<void> => {
      invoked.set(r.id, instant++);
      return bounded(attempt(() => adapter.execute(r.lane, r.command)), timeoutMs).then((outcome) => {
        results.set(r.id, { returned: instant++, outcome });
      });
    };
    if (adapter.concurrent) {
      // Every invoke is numbered (synchronously, in `send`) before any reply can be.
      const all = resolved.map(send);
      await settle(Promise.all(all));
    } else {
      for (const i of order(resolved.length, round.shuffle)) await settle(send(resolved[i] as (typeof resolved)[number]));
    }
    const sent: SentRequest[] = [];
    for (const r of resolved) {
      const result = results.get(r.id);
      const inv = invoked.get(r.id) as number;
      const base = { id: r.id, lane: r.lane, command: r.command, symbolic: r.symbolic };
      if (result !== undefined && result.outcome.ok) {
        operations.push({ id: r.id, lane: r.lane, input: r.command, invoked: inv, returned: result.returned, output: result.outcome.value });
        sent.push(base);
        memory.learn(r.lane, r.command, result.outcome.value);
      } else {
        operations.push({ id: r.id, lane: r.lane, input: r.command, invoked: inv });
        const why = result?.outcome.ok === false ? result.outcome.why : 'timeout';
        const message = result?.outcome.ok === false ? result.outcome.message : 'no reply';
        if (why === 'error') errors.push({ id: r.id, message });
        sent.push({ ...base, indefinite: why, ...(why === 'error' ? { error: message } : {}) });
        memory.learn(r.lane, r.command, undefined);
      }
    }
    rounds.push({ index: index + 1, now, requests: sent });
    memory.now = now;
  }

  const snapshotId = nextId++;
  const snapInvoked = instant++;
  const snap = await settle(bounded(attempt(() => adapter.snapshot()), timeoutMs));
  const snapReturned = instant++;
  if (snap.ok) operations.push({ id: snapshotId, lane: 0, input: SNAPSHOT_REQUEST, invoked: snapInvoked, returned: snapReturned, output: snap.value });
  else {
    operations.push({ id: snapshotId, lane: 0, input: SNAPSHOT_REQUEST, invoked: snapInvoked });
    if (snap.why === 'error') errors.push({ id: snapshotId, message: snap.message });
  }
  return { adapter: adapter.name, workers, rounds, history: { operations }, snapshotId, errors, interrupted };
}

/** Closes an adapter within `ms`; a close that fails or hangs is ignored (the run is already recorded). */
export async function closeBounded(adapter: ConcurrentAdapter, ms: number): Promise<void> {
  await bounded(attempt(() => adapter.close()), ms);
}
