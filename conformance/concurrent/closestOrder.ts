/**
 * The closest order of a history no order explains, replayed on the model request by request, so
 * that a page can show, for any request, the model's state before and after it and the reply the
 * model gives there beside the one observed.
 *
 * The closest order is the one the terminal story tells (story.ts): the longest prefix the
 * checker linearized, then every other request that got a reply, in the order they were sent
 * (invoke instant, then id). A request with no reply outside the prefix is left out: the checker
 * may leave such a request out of any order (it may never have taken effect), so it has no place
 * and no states. After the first request whose reply differs, the replay goes on from the
 * model's own state: what the model would have done, not what the implementation did.
 *
 * A state is the canonical snapshot's content without its format tag and config (the clock, the
 * counters, every job with its status, token and lease, the balances and the effect ledger), a
 * plain JSON value a page can print.
 */
import type { Config, Snapshot } from '../../contract/index.ts';
import { toSnapshot } from '../../model/index.ts';
import { comparableReply, describeDifference, firstDifference } from '../lockstep/compare.ts';
import type { Operation, Witness } from './history.ts';
import { jobModel, sameJobReply } from './jobModel.ts';
import type { JobHistory } from './run.ts';

/** The model's state as a page shows it: the snapshot without `format` and `config`. */
export type ModelStateView = Omit<Snapshot, 'format' | 'config'>;

/**
 * Where a request stands: in the longest linearizable prefix, stuck (it could come next after
 * the prefix but the model gives another reply there), after the prefix, or left out (no reply,
 * not in the prefix).
 */
export type OrderPlace = 'prefix' | 'stuck' | 'after' | 'left_out';

/** One request of the history, as the closest order sees it. */
export interface OrderedRequest {
  readonly id: number;
  readonly place: OrderPlace;
  /** 1-based position in the closest order; null when left out. */
  readonly position: number | null;
  /** The model's reply at its position (null when left out). */
  readonly modelReply: unknown;
  /** Whether the observed reply is the model's (null: no reply was observed, or left out). */
  readonly agrees: boolean | null;
  /** Where the observed reply first departs from the model's (`reply.job: model null, impl {...}`), or null. */
  readonly difference: string | null;
  /** For a stuck request: the reply the model gives right after the prefix (the witness's). */
  readonly stuckReply?: unknown;
  /** The model's state before and after it in the closest order (null when left out). */
  readonly before: ModelStateView | null;
  readonly after: ModelStateView | null;
}

/** The closest order and every request's place in it. */
export interface ClosestOrder {
  /** Operation ids in the order replayed. */
  readonly order: readonly number[];
  /** How many of them are the longest linearizable prefix. */
  readonly prefixLength: number;
  /** Every operation of the history, in the history's order. */
  readonly requests: readonly OrderedRequest[];
  /** The model's state before the first request. */
  readonly initial: ModelStateView;
}

/** The snapshot of a model state as a page shows it. Pure. */
export function stateView(snapshot: Snapshot): ModelStateView {
  const { format: _format, config: _config, ...rest } = snapshot;
  return rest;
}

/**
 * Replays the closest order of `history` (the witness's longest prefix, then the other requests
 * with a reply in the order they were sent) on the model of `config`. Throws JobcheckError
 * `invalid_config` for a bad config. Pure.
 */
export function closestOrder(history: JobHistory, config: Config, witness: Witness<unknown>): ClosestOrder {
  const ops = new Map<number, Operation<unknown, unknown>>(history.operations.map((o) => [o.id, o]));
  const inPrefix = new Set(witness.longestOrder);
  const stuck = new Map(witness.stuck.map((s) => [s.id, s.expected]));
  const rest = history.operations
    .filter((o) => !inPrefix.has(o.id) && o.returned !== undefined)
    .sort((a, b) => a.invoked - b.invoked || a.id - b.id)
    .map((o) => o.id);
  const order = [...witness.longestOrder.filter((id) => ops.has(id)), ...rest];
  const model = jobModel(config);
  let state = model.init();
  const initial = stateView(toSnapshot(state));
  const placed = new Map<number, OrderedRequest>();
  order.forEach((id, k) => {
    const op = ops.get(id) as Operation<unknown, unknown>;
    const before = stateView(toSnapshot(state));
    const next = model.step(state, op.input);
    state = next.state;
    const d =
      op.returned === undefined
        ? undefined
        : firstDifference(comparableReply(next.output), comparableReply(op.output), 'reply');
    const place: OrderPlace = inPrefix.has(id) ? 'prefix' : stuck.has(id) ? 'stuck' : 'after';
    placed.set(id, {
      id,
      place,
      position: k + 1,
      modelReply: next.output,
      agrees: op.returned === undefined ? null : sameJobReply(next.output, op.output),
      difference: d === undefined ? null : describeDifference(d),
      ...(stuck.has(id) ? { stuckReply: stuck.get(id) } : {}),
      before,
      after: stateView(toSnapshot(state)),
    });
  });
  const requests = history.operations.map(
    (op): OrderedRequest =>
      placed.get(op.id) ?? {
        id: op.id,
        place: 'left_out',
        position: null,
        modelReply: null,
        agrees: null,
        difference: null,
        before: null,
        after: null,
      },
  );
  return { order, prefixLength: order.length - rest.length, requests, initial };
}
