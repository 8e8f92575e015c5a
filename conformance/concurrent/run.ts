/**
 * Runs one concurrent scenario against a ConcurrentAdapter and records its history.
 *
 * Round by round: a round's `now` is fixed when the round starts (never below the previous
 * round's), and each of its requests is queued on its lane. A lane sends its next request only
 * once the previous one has settled, so a lane's own order is real-time order. A round that does
 * not `overlap` starts once everything sent before has settled; an overlapping round starts at
 * once, while earlier requests are in flight (an ack sent at `leaseUntil - 1` may still be in
 * flight when a claim at `leaseUntil` is sent). A symbolic request is resolved (which delivery,
 * which token) when it is sent, from the replies that have come by then.
 *
 * Instants come from one counter, stamped when a request is handed to the adapter and when its
 * reply is read: an operation precedes another exactly when its reply was read before the other
 * was sent; rounds are not atomic. The run ends with a `snapshot` operation, sent once everything
 * has settled, which is part of the checked history. One time budget per request: the adapter's
 * reply timeout (`timeoutMs`, the check's `--timeout`). An adapter that gives up rejects with
 * IndefiniteOutcome; the runner waits as long (plus `hangGraceMs`), so a reply that arrives is
 * always recorded, and a call that settles in neither way is an adapter defect (`hung`).
 * A nemesis (`options.nemesis`) acts between rounds; its events are stamped by the same counter.
 */
import type { Reply } from '../../contract/index.ts';
import type { Budget } from '../budget.ts';
import type { NemesisAction, NemesisEvent } from '../nemesis/fault.ts';
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
  /** Why no reply came (absent when one did); `error` and `hung` are adapter defects, recorded in `errors`. */
  readonly indefinite?: 'timeout' | 'process_died' | 'closed' | 'error' | 'hung';
  /** The error's message when `execute` failed with something other than IndefiniteOutcome. */
  readonly error?: string;
}

/** One round of a run. */
export interface SentRound {
  readonly index: number;
  readonly now: number;
  readonly requests: readonly SentRequest[];
  /** True when the round was started while requests of earlier rounds were still in flight. */
  readonly overlap?: boolean;
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
  /**
   * Requests whose `execute` failed with an error that is not an IndefiniteOutcome, or never
   * settled (an adapter defect); the final snapshot's id when it did not come.
   */
  readonly errors: readonly { readonly id: number; readonly message: string }[];
  /** Why the final snapshot did not come (absent when it came). A run without it is a failure, never a pass. */
  readonly snapshotMissing?: string;
  /** True when the budget ran out before every round ran; such a run is neither a pass nor a failure. */
  readonly interrupted: boolean;
  /** The send-time perturbation of the run (absent: the scenario as generated). */
  readonly perturbation?: number;
}

/**
 * How a run waits for a round: `settle(p)` resolves when `p` does. Under fast-check's scheduler it
 * is `s.waitFor`, which releases the scheduled await points of the in-process adapter until `p`
 * resolves; otherwise the identity.
 */
export type Settle = <T>(p: Promise<T>) => Promise<T>;

/** Options of one run. */
export interface RunOptions {
  /** The adapter's reply timeout in ms (`--timeout`): how long a request (or the snapshot) may take. */
  readonly timeoutMs: number;
  /**
   * How much longer than `timeoutMs` the runner waits for `execute` or `snapshot` to settle before
   * it calls the adapter hung (default: DEFAULT_HANG_GRACE_MS). The adapter's own timeout fires first.
   */
  readonly hangGraceMs?: number;
  /** See Settle; default: wait plainly. */
  readonly settle?: Settle;
  readonly budget?: Budget;
  /**
   * The nemesis: called before round `round` (0-based) is sent, once the rounds before it have
   * settled (unless it overlaps them), and once more with `round` = the number of rounds before
   * the final snapshot; it injects or heals faults and reports each start and end it made:
   * through `stamp` at the moment it happens (a kill before the restart that follows it), or
   * in what it returns (stamped when it returns). Default: none.
   */
  readonly nemesis?: (round: number, stamp: (action: NemesisAction) => void) => Promise<readonly NemesisAction[]>;
  /**
   * A wait before request `id` is written (undefined: none): how a send-time perturbation
   * (generate.ts, `sendDelay`) moves when each request reaches the implementation. Default: none.
   */
  readonly delay?: (id: number) => Promise<void> | undefined;
  /** The perturbation the run was made with (0 or absent: as generated), recorded in the run. */
  readonly perturbation?: number;
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
        return {
          lane,
          command: {
            type: 'submit',
            id: c.id,
            account: c.account,
            key: c.key,
            amount: c.amount,
            deadline: now + c.deadlineIn,
            now,
          },
        };
      case 'resubmit': {
        const p = this.submitted.get(c.id) ?? { account: 'x', key: 'k1', amount: 1, deadline: now + 6 };
        // A repeat whose deadline has come would be malformed, not a duplicate: keep it in the future.
        return { lane, command: { type: 'submit', id: c.id, ...p, deadline: Math.max(p.deadline, now + 1), now } };
      }
      case 'claim':
        return { lane, command: { type: 'claim', worker: laneWorker((c.as ?? lane) % workers), now } };
      case 'tick':
        return { lane, command: { type: 'tick', now } };
      case 'commit':
      case 'ack':
      case 'fail': {
        // Lanes are not workers: the settlement travels on the request's own lane, in the name of
        // the delivery's holder (who may have several requests in flight) or of another worker.
        const d = this.delivery(c.delivery);
        const token = d?.token ?? this.maxToken + 1;
        const holder = d?.worker ?? laneWorker(lane);
        const holderIndex = Number(holder.slice(1)) - 1;
        const worker = c.worker === 'holder' ? holder : laneWorker((holderIndex + 1) % Math.max(2, workers));
        const base = { worker, token, now };
        if (c.kind === 'fail') {
          const error = c.failure === 'permanent' ? 'bad input' : 'timeout';
          return { lane, command: { type: 'fail', ...base, kind: c.failure, error } };
        }
        return { lane, command: { type: c.kind, ...base } };
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
    if (reply === undefined || typeof reply !== 'object' || reply === null || (reply as { ok?: unknown }).ok !== true)
      return;
    const r = reply as Reply;
    if (r.ok !== true) return;
    if (r.type === 'claim' && r.job !== null) {
      for (const d of this.deliveries) if (d.id === r.job.id) d.ended = true;
      const worker = (command as { worker: string }).worker;
      this.deliveries.push({
        id: r.job.id,
        token: r.job.token,
        worker,
        lane,
        leaseUntil: r.job.leaseUntil,
        ended: false,
      });
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
  | {
      readonly ok: false;
      readonly why: 'timeout' | 'process_died' | 'closed' | 'error' | 'hung';
      readonly message: string;
    };

/** Default of RunOptions.hangGraceMs: an adapter's own timer fires well within it, even on a loaded machine. */
export const DEFAULT_HANG_GRACE_MS = 1000;

/**
 * `p`, or an outcome of kind `why` after `ms` (`timeout` by default: used where the wait is the
 * runner's own; `hung` where the adapter should have given up first); never rejects.
 */
export function bounded(p: Promise<unknown>, ms: number, why: 'timeout' | 'hung' = 'timeout'): Promise<Outcome> {
  return new Promise((resolve) => {
    const message =
      why === 'hung' ? `the adapter neither replied nor gave up within ${ms} ms` : `no reply within ${ms} ms`;
    const timer = setTimeout(() => resolve({ ok: false, why, message }), ms);
    p.then(
      (value) => {
        clearTimeout(timer);
        resolve({ ok: true, value });
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (error instanceof IndefiniteOutcome) resolve({ ok: false, why: error.why, message: error.message });
        else resolve({ ok: false, why: 'error', message: describeError(error) });
      },
    );
  });
}

/** An error's message; never throws, whatever was thrown. */
function describeError(error: unknown): string {
  try {
    return error instanceof Error ? String(error.message) : String(error);
  } catch {
    return 'an error that cannot be described';
  }
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
 * The order in which a non-concurrent adapter is sent a round's requests: lanes interleaved as
 * `seed` chooses, each lane's requests in their own order. Pure.
 */
function laneOrderKept(lanes: readonly number[], seed: number): number[] {
  const queues = new Map<number, number[]>();
  lanes.forEach((lane, i) => {
    queues.set(lane, [...(queues.get(lane) ?? []), i]);
  });
  return order(lanes.length, seed).map((i) => (queues.get(lanes[i] as number) as number[]).shift() as number);
}

/** What became of one request, filled in as it is sent and settles. */
interface Slot {
  readonly id: number;
  readonly symbolic: ConcurrentCommand;
  lane: number;
  command: unknown;
  invoked?: number;
  returned?: number;
  outcome?: Outcome;
}

/**
 * Runs a scenario against an adapter (which the caller creates and closes) and returns its
 * history. Never throws for anything the adapter does; never waits longer than the timeouts and
 * the budget allow.
 */
export async function runScenario(
  scenario: ConcurrentScenario,
  adapter: ConcurrentAdapter,
  options: RunOptions,
): Promise<ConcurrentRun> {
  const settle: Settle = options.settle ?? (<T>(p: Promise<T>) => p);
  const timeoutMs = options.budget === undefined ? options.timeoutMs : options.budget.cap(options.timeoutMs);
  const waitMs = timeoutMs + (options.hangGraceMs ?? DEFAULT_HANG_GRACE_MS);
  const workers = Math.max(1, scenario.workers);
  const memory = new ResolveMemory();
  const slots: Slot[][] = [];
  const meta: { index: number; now: number; overlap: boolean }[] = [];
  const tails = new Map<number, Promise<void>>();
  let inFlight: Promise<void>[] = [];
  let instant = 0;
  let nextId = 1;
  let interrupted = false;
  const faults: NemesisEvent[] = [];
  /** Lets the nemesis act before round `round`, and stamps what it did. */
  const between = async (round: number): Promise<void> => {
    if (options.nemesis === undefined) return;
    const stamp = (action: NemesisAction): void => {
      faults.push({ ...action, at: instant++ });
    };
    for (const action of await settle(options.nemesis(round, stamp))) stamp(action);
  };

  /** Resolves a request from what is known now, stamps its invoke, and records its reply when it comes. */
  const send = (slot: Slot, request: ConcurrentRequest, now: number): Promise<void> => {
    const wait = options.delay?.(slot.id);
    return wait === undefined ? sendNow(slot, request, now) : wait.then(() => sendNow(slot, request, now));
  };
  const sendNow = (slot: Slot, request: ConcurrentRequest, now: number): Promise<void> => {
    if (options.budget?.expired === true) {
      slot.outcome = { ok: false, why: 'closed', message: 'not sent: the time limit was reached' };
      return Promise.resolve();
    }
    const resolved = memory.resolve(request, now, workers);
    slot.lane = resolved.lane;
    slot.command = resolved.command;
    slot.invoked = instant++;
    return bounded(
      attempt(() => adapter.execute(resolved.lane, resolved.command)),
      waitMs,
      'hung',
    ).then((outcome) => {
      slot.returned = instant++;
      slot.outcome = outcome;
      memory.learn(resolved.lane, resolved.command, outcome.ok ? outcome.value : undefined);
    });
  };

  for (const [index, round] of scenario.rounds.entries()) {
    if (options.budget?.expired === true) {
      interrupted = true;
      break;
    }
    const overlap = round.overlap === true && index > 0;
    if (!overlap && inFlight.length > 0) {
      await settle(Promise.all(inFlight));
      inFlight = [];
    }
    await between(index);
    const now = memory.roundNow(round.now);
    const mine: Slot[] = round.requests.map((r) => ({
      id: nextId++,
      symbolic: r.command,
      lane: r.lane % workers,
      command: undefined,
    }));
    const sequence = adapter.concurrent
      ? mine.map((_, i) => i)
      : laneOrderKept(
          mine.map((slot) => slot.lane),
          round.shuffle,
        );
    for (const i of sequence) {
      const slot = mine[i] as Slot;
      const request = round.requests[i] as ConcurrentRequest;
      // A lane's requests go one after another; a non-concurrent adapter has one lane in all.
      const key = adapter.concurrent ? slot.lane : 0;
      const next = (tails.get(key) ?? Promise.resolve()).then(() => send(slot, request, now));
      tails.set(key, next);
      inFlight.push(next);
    }
    slots.push(mine);
    meta.push({ index: index + 1, now, overlap });
    memory.now = now;
  }
  if (inFlight.length > 0) await settle(Promise.all(inFlight));
  if (!interrupted) await between(scenario.rounds.length);

  const operations: Operation<unknown, unknown>[] = [];
  const errors: { id: number; message: string }[] = [];
  const rounds: SentRound[] = slots.map((mine, r) => {
    const m = meta[r] as (typeof meta)[number];
    const requests = mine.map((slot): SentRequest => {
      const base = { id: slot.id, lane: slot.lane, command: slot.command, symbolic: slot.symbolic };
      const outcome = slot.outcome as Outcome;
      if (slot.invoked === undefined) return { ...base, indefinite: 'closed' };
      if (outcome.ok) {
        const returned = slot.returned as number;
        operations.push({
          id: slot.id,
          lane: slot.lane,
          input: slot.command,
          invoked: slot.invoked,
          returned,
          output: outcome.value,
        });
        return base;
      }
      operations.push({ id: slot.id, lane: slot.lane, input: slot.command, invoked: slot.invoked });
      if (outcome.why === 'error' || outcome.why === 'hung') {
        errors.push({ id: slot.id, message: outcome.message });
        return { ...base, indefinite: outcome.why, error: outcome.message };
      }
      return { ...base, indefinite: outcome.why };
    });
    return { index: m.index, now: m.now, requests, ...(m.overlap ? { overlap: true } : {}) };
  });
  // Requests never sent (the time limit came first) are left out of the history: they took no effect.
  const unsent = new Set(
    rounds.flatMap((r) => r.requests.filter((q) => !operations.some((o) => o.id === q.id)).map((q) => q.id)),
  );
  const kept =
    unsent.size === 0 ? rounds : rounds.map((r) => ({ ...r, requests: r.requests.filter((q) => !unsent.has(q.id)) }));

  const snapshotId = nextId++;
  let snapshotMissing: string | undefined;
  const expired = (): boolean => options.budget?.expired === true;
  if (expired()) interrupted = true;
  else {
    const snapInvoked = instant++;
    const snap = await settle(
      bounded(
        attempt(() => adapter.snapshot()),
        waitMs,
        'hung',
      ),
    );
    const snapReturned = instant++;
    if (snap.ok) {
      operations.push({
        id: snapshotId,
        lane: 0,
        input: SNAPSHOT_REQUEST,
        invoked: snapInvoked,
        returned: snapReturned,
        output: snap.value,
      });
    } else {
      operations.push({ id: snapshotId, lane: 0, input: SNAPSHOT_REQUEST, invoked: snapInvoked });
      snapshotMissing = `the final snapshot did not come: ${snap.why === 'error' ? '' : `${snap.why}: `}${snap.message}`;
      if (expired()) interrupted = true;
    }
  }
  return {
    adapter: adapter.name,
    workers,
    rounds: kept,
    history: { operations, ...(faults.length === 0 ? {} : { nemesis: faults }) },
    snapshotId,
    errors,
    ...(snapshotMissing === undefined ? {} : { snapshotMissing }),
    interrupted,
    ...(options.perturbation === undefined || options.perturbation === 0 ? {} : { perturbation: options.perturbation }),
  };
}

/** Closes an adapter within `ms`; a close that fails or hangs is ignored (the run is already recorded). */
export async function closeBounded(adapter: ConcurrentAdapter, ms: number): Promise<void> {
  await bounded(
    attempt(() => adapter.close()),
    ms,
  );
}
