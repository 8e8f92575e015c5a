/**
 * Whether a history no order explains needs its competing workers to depart. The requests of the
 * history are sent again, one at a time, to a fresh instance of the queue (the target's sequential
 * factory), in the order they were first sent, each waiting for the reply to the one before. Each
 * reply is held against the model's (the same model and comparison the history was checked with).
 * If one departs, the departure did not need the lanes: the queue departs one command at a time,
 * which the profile's rules show already. If every reply agrees, the departure came from requests
 * in flight together: a race.
 *
 * The order sent, not the checker's closest order: the closest order is only the longest prefix the
 * checker could explain, and may put a request after one that was sent later with a later `now`,
 * where the model refuses it for the clock and hides what the queue did with it (two submits of one
 * id sent together to a queue without deduplication read as a race that way, when one at a time
 * the second is already a second job).
 *
 * A reply that does not come, or an instance that cannot be made, decides nothing: the answer is
 * then `undecided`, which a search for races treats as a race to be replayed (never as excused).
 */
import type { Config } from '../../contract/index.ts';
import type { Model } from '../../model/step.ts';
import type { AdapterFactory } from '../adapter.ts';
import type { Operation } from '../concurrent/history.ts';
import { isSnapshotRequest, jobModel } from '../concurrent/jobModel.ts';
import type { NotLinearizable } from '../concurrent/result.ts';
import { bounded } from '../concurrent/run.ts';
import { DEFAULT_REPLY_TIMEOUT_MS } from '../protocol/limits.ts';

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
 * Sends the history's requests one at a time in the order they were sent to a fresh instance from
 * `factory` and says whether a reply departs from the model's. Never throws for what the queue does.
 */
export async function departsOneAtATime(
  factory: AdapterFactory,
  failure: NotLinearizable,
  options: OneAtATimeOptions = {},
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
    for (const id of sentOrderIds(failure)) {
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
