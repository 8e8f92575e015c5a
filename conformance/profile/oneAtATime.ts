/**
 * Whether a history no order explains needs its competing workers to depart. Its requests are
 * sent again, one at a time, to a fresh instance of the queue (the target's sequential factory),
 * each reply held against the model's (the model and comparison the history was checked with), in
 * two orders: the order first sent, and the checker's closest order (the longest prefix it
 * explained, then the other answered requests in the order sent). If either departs, the departure
 * did not need the lanes: the queue departs one command at a time, as its rules show already. If
 * both agree, it came from requests in flight together: a race.
 *
 * Both orders, because each alone misleads. The closest order may put a request after one sent
 * later with a later `now`, where the model refuses it for the clock and hides what the queue did
 * (two submits of one id sent together to a queue without deduplication would read as a race). The
 * order sent may undo what the overlap decided (a claim sent before a submit but answered with the
 * submitted job finds nothing when sent first, and a later departure about that job never happens).
 *
 * A reply that does not come, or an instance that cannot be made, decides nothing: the answer is
 * then `undecided` (unless the other order departs), which a search for races treats as a race to
 * be replayed (never as excused).
 */
import type { Config } from '../../contract/index.ts';
import type { Model } from '../../model/step.ts';
import type { AdapterFactory } from '../adapter.ts';
import type { Operation } from '../concurrent/history.ts';
import { isSnapshotRequest, jobModel } from '../concurrent/jobModel.ts';
import type { NotLinearizable } from '../concurrent/result.ts';
import { bounded } from '../concurrent/run.ts';
import { DEFAULT_REPLY_TIMEOUT_MS } from '../adapter.ts';

/** The answer of a replay one request at a time. */
export type OneAtATime = 'departs' | 'agrees' | 'undecided';

/** Options of departsOneAtATime. */
export interface OneAtATimeOptions {
  /** The model the history was checked against (default the reference model). */
  readonly model?: Model;
  /** Fields the comparison leaves out (as the history's check did). */
  readonly ignoreFields?: readonly string[];
  /** Longest wait for one reply, and for the instance, in ms (default DEFAULT_REPLY_TIMEOUT_MS). */
  readonly timeoutMs?: number;
}

/**
 * Whether two requests of the history were in flight together (each sent before the other's reply
 * came; a request with no reply is in flight from its sending on). A history without is sequential:
 * whatever it shows, it is no race. Pure.
 */
export function inFlightTogether(failure: NotLinearizable): boolean {
  const ops = [...failure.run.history.operations].sort((a, b) => a.invoked - b.invoked);
  let latestReturn = Number.NEGATIVE_INFINITY;
  for (const op of ops) {
    if (op.invoked < latestReturn) return true;
    latestReturn = Math.max(latestReturn, op.returned ?? Number.POSITIVE_INFINITY);
  }
  return false;
}

/** The ids of the history's requests in the order they were sent. Pure. */
export function sentOrderIds(failure: NotLinearizable): number[] {
  return [...failure.run.history.operations].sort((a, b) => a.invoked - b.invoked || a.id - b.id).map((o) => o.id);
}

/**
 * The ids of the history's requests in the checker's closest order: its longest linearizable
 * prefix, then every other request that got a reply, in the order sent (as closestOrder.ts and the
 * story tell it; a request with no reply outside the prefix is left out). Pure.
 */
export function closestOrderIds(failure: NotLinearizable): number[] {
  const ops = failure.run.history.operations;
  const known = new Set(ops.map((o) => o.id));
  const prefix = failure.witness.longestOrder.filter((id) => known.has(id));
  const inPrefix = new Set(prefix);
  const rest = ops
    .filter((o) => !inPrefix.has(o.id) && o.returned !== undefined)
    .sort((a, b) => a.invoked - b.invoked || a.id - b.id)
    .map((o) => o.id);
  return [...prefix, ...rest];
}

/**
 * Sends the history's requests one at a time to a fresh instance from `factory`, in the order
 * they were sent and then (when it differs) in the closest order, and says whether a reply departs
 * from the model's in either. Never throws for what the queue does.
 */
export async function departsOneAtATime(
  factory: AdapterFactory,
  failure: NotLinearizable,
  options: OneAtATimeOptions = {},
): Promise<OneAtATime> {
  const sent = sentOrderIds(failure);
  const closest = closestOrderIds(failure);
  const orders = closest.join(',') === sent.join(',') ? [sent] : [sent, closest];
  let undecided = false;
  for (const order of orders) {
    const answer = await inOrder(factory, failure, order, options);
    if (answer === 'departs') return 'departs';
    if (answer === 'undecided') undecided = true;
  }
  return undecided ? 'undecided' : 'agrees';
}

/** Sends the requests `order` names one at a time to a fresh instance and holds each reply against the model's. */
async function inOrder(
  factory: AdapterFactory,
  failure: NotLinearizable,
  order: readonly number[],
  options: OneAtATimeOptions,
): Promise<OneAtATime> {
  const config: Config = failure.scenario.config;
  const timeoutMs = options.timeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS;
  const model = jobModel(config, options.model, { ignoreFields: options.ignoreFields ?? [] });
  const ops = new Map<number, Operation<unknown, unknown>>(failure.run.history.operations.map((o) => [o.id, o]));
  const created = await bounded(factory(config), 2 * timeoutMs);
  if (!created.ok) return 'undecided';
  const adapter = created.value as Awaited<ReturnType<AdapterFactory>>;
  try {
    let state = model.init();
    for (const id of order) {
      const op = ops.get(id);
      if (op === undefined) continue;
      const expected = model.step(state, op.input);
      state = expected.state;
      const replied = await bounded(
        isSnapshotRequest(op.input) ? adapter.snapshot() : adapter.execute(op.input),
        timeoutMs,
      );
      if (!replied.ok) return 'undecided';
      if (!model.equal(expected.output, replied.value)) return 'departs';
    }
    return 'agrees';
  } finally {
    await bounded(
      adapter.close().catch(() => undefined),
      timeoutMs,
    );
  }
}
