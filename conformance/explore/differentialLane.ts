/**
 * One lane of the lane-spread differential exploration (differentialLanes.ts): one store of the
 * implementation, kept for a whole config, that checks explored states one after the other.
 *
 * A lane brings its store to a state as a warm restart does: `restore` of the snapshot this
 * implementation itself produced there when the step leading there was checked, one request
 * whatever the depth (the one-store checker, differential.ts, replays the path instead). A store is
 * its snapshot (contract section 9) and every state's restore is held to the model by its restart
 * step; still, any disagreement sends the config back to the one-store checker, whose verdict and
 * story are the exploration's.
 *
 * Within a state, as in the one-store checker: first the steps after which the model stays (each
 * reply and snapshot compared at once, so two changes cannot hide each other), then each
 * state-changing step on a store reset to the state, the one that first reaches a state last, so
 * that the lane checks that state next on the store already in it. A restart carries the snapshot
 * last read or restored, with no request between. Where the adapter says its restart carries that
 * snapshot (restartCarriesTaken), the restart is taken after the first state-changing step and
 * spares the next one its reset. The requests between two restarts do not depend on the replies,
 * so the lane hands them all to the adapter first (Adapter.plan), then checks the replies in order.
 */
import type { Snapshot } from '../../contract/index.ts';
import { toSnapshot } from '../../model/index.ts';
import type { Adapter, PlannedRequest } from '../adapter.ts';
import { isTimeLimit } from '../budget.ts';
import type { Budget } from '../budget.ts';
import { firstDifference, replyDifference } from '../lockstep/compare.ts';
import type { Expansion } from './expander.ts';

/** An adapter whose store can be reset to the empty store or to a snapshot it produced (ProcessAdapter.resetTo). */
export interface ResettableAdapter extends Adapter {
  /** Replaces the store by an empty one (undefined) or by one restored from `snapshot`. */
  resetTo(snapshot: Snapshot | undefined): Promise<void>;
  /** A restart; with `taken`, the store's snapshot as last read or restored (no request since), carried across without asking again. */
  restart(taken?: Snapshot): Promise<void>;
  /**
   * True when the next restart() restores exactly the `taken` snapshot it is given, whatever the
   * store holds now: the lane may then restart into a state from one of its successors.
   */
  readonly restartCarriesTaken?: boolean;
}

/** Whether an adapter can be reset in place (a process adapter can; an in-process one is replayed instead). Pure. */
export function isResettable(adapter: Adapter): adapter is ResettableAdapter {
  return typeof (adapter as Partial<ResettableAdapter>).resetTo === 'function';
}

/** One explored state to check on a lane. */
export interface LaneTask {
  /** Its expansion by the model (steps, results, which steps stay in the state). */
  readonly expansion: Expansion;
  /** The implementation's snapshot in this state (undefined: the empty store, the initial state). */
  readonly snapshot: Snapshot | undefined;
  /** Steps whose successor is a state first reached here: the snapshot after them is kept for it. */
  readonly found: readonly number[];
  /** The lane's store is in this state already (it took the step that first reached it last). */
  readonly here?: boolean;
}

/** What checking a state on a lane gave. */
export type LaneOutcome =
  | {
      readonly kind: 'agree';
      readonly children: ReadonlyMap<number, Snapshot>;
      /** The step of `found` whose successor the store is in now, if any. */
      readonly at: number | undefined;
    }
  | { readonly kind: 'disagree'; readonly step: number | undefined; readonly error?: string }
  | { readonly kind: 'time_limit' };

/** Counts of one lane's work against the implementation. */
export interface LaneCounts {
  /** Stores brought to a state (a restore of its snapshot; the initial state: a hello). */
  resets: number;
  /** Commands and restarts sent. */
  commands: number;
  /** Snapshots taken to compare. */
  snapshots: number;
}

/** One store checking states' steps. Not pure: it drives the adapter. */
export class DifferentialLane {
  readonly counts: LaneCounts = { resets: 0, commands: 0, snapshots: 0 };

  constructor(
    private readonly adapter: ResettableAdapter,
    private readonly budget?: Budget,
  ) {}

  /** Checks every step of one state; on agreement returns the implementation's snapshots of the states first reached from it. */
  async check(task: LaneTask): Promise<LaneOutcome> {
    const { expansion, snapshot, found } = task;
    const adapter = this.adapter;
    const moves = expansion.selfLoop.map((x) => !x);
    const wanted = new Set(found);
    // Steps that stay first, then those that move, one that first reaches a state last: the store
    // ends in that state, where the lane may go on (differentialLanes.ts) without a reset.
    const rank = (i: number): number => (moves[i] ? (wanted.has(i) && i === found[found.length - 1] ? 2 : 1) : 0);
    const order = expansion.steps.map((_, i) => i).sort((a, b) => rank(a) - rank(b) || a - b);
    // The restart, after the first state-changing step when there are two or more: the reset before the second.
    const restartAt = order.findIndex(
      (i) => !moves[i] && expansion.steps[i] !== undefined && !('do' in expansion.steps[i]),
    );
    const firstMove = order.findIndex((i) => moves[i]);
    if (adapter.restartCarriesTaken === true && restartAt >= 0 && moves.filter(Boolean).length >= 2) {
      const [restart] = order.splice(restartAt, 1);
      if (restart !== undefined) order.splice(firstMove, 0, restart);
    }
    let at: number | undefined;
    const children = new Map<number, Snapshot>();
    let current: number | undefined;
    // The store's snapshot as last read or restored, while no request has been sent since: a
    // restart carries it across as it is instead of asking for the same snapshot again.
    let taken: Snapshot | undefined = snapshot;
    // The implementation's own snapshot of this state, as the lane last read or restored it here.
    let own: Snapshot | undefined = snapshot;
    const stillHere = async (): Promise<boolean> => {
      this.counts.snapshots++;
      taken = await adapter.snapshot();
      own = taken;
      return firstDifference(toSnapshot(expansion.state), taken) === undefined;
    };
    /**
     * The requests the loop below makes from position `from` of `order` up to the next restart
     * step, `moved` saying whether the store has left the state: what it tells the adapter ahead.
     */
    const requestsFrom = (from: number, moved: boolean): PlannedRequest[] => {
      const requests: PlannedRequest[] = [];
      let away = moved;
      for (const i of order.slice(from)) {
        const s = expansion.steps[i];
        if (s === undefined) continue;
        if (!('do' in s)) break;
        if (expansion.results[i] === undefined) continue;
        if (moves[i] && away) {
          if (snapshot === undefined) break;
          requests.push({ restore: snapshot });
        }
        requests.push({ execute: s.do }, { snapshot: true });
        away ||= moves[i] === true;
      }
      return requests;
    };
    try {
      if (this.spent()) return { kind: 'time_limit' };
      if (task.here === true || snapshot === undefined) {
        // The empty store is a hello, which is never written ahead.
        if (task.here !== true) await this.reset(undefined);
        adapter.plan?.(requestsFrom(0, false));
      } else {
        adapter.plan?.([{ restore: snapshot }, ...requestsFrom(0, false)]);
        await this.reset(snapshot);
      }
      let moved = false;
      for (const [k, i] of order.entries()) {
        if (this.spent()) return { kind: 'time_limit' };
        const s = expansion.steps[i];
        if (s === undefined) continue;
        current = i;
        if (!moves[i]) {
          // A step that stays in the state: its reply, then the store's snapshot, compared at once.
          this.counts.commands++;
          const known = taken;
          taken = undefined;
          if (!('do' in s)) {
            if (!moved) await adapter.restart(known);
            else {
              // The store is in a successor: restart into this state from its own snapshot (see above).
              if (own === undefined) await this.reset(snapshot);
              await adapter.restart(own);
              moved = false;
            }
            adapter.plan?.([{ snapshot: true }, ...requestsFrom(k + 1, false)]);
          } else {
            const result = expansion.results[i];
            if (result === undefined) continue;
            if (replyDifference(result.reply, await adapter.execute(s.do)) !== undefined)
              return { kind: 'disagree', step: i };
          }
          if (!(await stillHere())) return { kind: 'disagree', step: i };
          continue;
        }
        const result = expansion.results[i];
        if (!('do' in s) || result === undefined) continue;
        if (moved) await this.reset(snapshot);
        taken = undefined;
        this.counts.commands++;
        if (replyDifference(result.reply, await adapter.execute(s.do)) !== undefined)
          return { kind: 'disagree', step: i };
        this.counts.snapshots++;
        const after = await adapter.snapshot();
        if (firstDifference(toSnapshot(result.state), after) !== undefined) return { kind: 'disagree', step: i };
        if (wanted.has(i)) children.set(i, after);
        at = wanted.has(i) ? i : undefined;
        moved = true;
      }
      return { kind: 'agree', children, at };
    } catch (e) {
      if (isTimeLimit(e)) return { kind: 'time_limit' };
      return { kind: 'disagree', step: current, error: e instanceof Error ? e.message : String(e) };
    }
  }

  private spent(): boolean {
    return this.budget?.expired === true;
  }

  private async reset(snapshot: Snapshot | undefined): Promise<void> {
    this.counts.resets++;
    await this.adapter.resetTo(snapshot);
  }

  /** Gives the store back (its process to the pool). */
  close(): Promise<void> {
    return this.adapter.close().catch(() => undefined);
  }
}
