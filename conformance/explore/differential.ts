/**
 * Differential exploration: every transition the explorer takes from a state is also run against
 * an implementation, and its reply and snapshot compared with the model's.
 *
 * An implementation is brought to a state the way a user would bring it there: the Adapter
 * (adapter.ts) has `execute`, `snapshot` and `restart`, and no "restore this snapshot" (which would
 * test the implementation's restore instead of the states its commands reach). So for each state,
 * in breadth-first order, a fresh implementation replays the state's shortest path, then takes the
 * state's steps: first those after which the model stays in the state (refusals, a claim with
 * nothing due, a restart), one after the other, since a store is its snapshot (contract section 9)
 * once reply and snapshot agreed; then each state-changing step, each on a new implementation after
 * a new replay of the path.
 *
 * Cost: for a state at depth d with m state-changing steps, m replays of d commands, plus one
 * command and one snapshot per step and two snapshots for the alias check: about (transitions x
 * mean depth) commands, a round trip each behind the protocol. Hence small scopes. The first
 * disagreement ends the exploration; states come in breadth-first order, so its story (the path
 * and the step) is as short as any.
 */
import type { Config, Snapshot } from '../../contract/index.ts';
import { toSnapshot } from '../../model/index.ts';
import type { Adapter, AdapterFactory } from '../adapter.ts';
import { isTimeLimit } from '../budget.ts';
import type { Budget } from '../budget.ts';
import { firstDifference, replyDifference } from '../lockstep/compare.ts';
import { aliasDifference, errorText } from '../lockstep/index.ts';
import type { ScriptStep } from '../lockstep/symbolic.ts';
import type { Expansion } from './expander.ts';

/** Where the implementation first disagreed: after `path`, at `step` (undefined: the alias check after the path). */
export interface EdgeDivergence {
  readonly path: readonly ScriptStep[];
  readonly step: ScriptStep | undefined;
  readonly kind: 'reply' | 'snapshot' | 'alias' | 'impl_error';
  readonly error?: string;
}

/** Counts of the work done against the implementation. */
export interface DifferentialCounts {
  /** Implementations created (one per replay). */
  replays: number;
  /** Commands and restarts sent, replays included. */
  commands: number;
  /** Snapshots taken. */
  snapshots: number;
  /** Over lanes (differentialLanes.ts): stores brought to a state by a restore (the initial state: a hello) instead of a replay. */
  resets?: number;
  /** Over lanes: how many stores checked at once. */
  lanes?: number;
}

/** Runs each explored state's steps against implementations from `factory`. */
export class DifferentialChecker {
  readonly counts: DifferentialCounts = { replays: 0, commands: 0, snapshots: 0 };
  name = '(implementation)';
  private adapter: Adapter | undefined;

  constructor(
    private readonly config: Config,
    private readonly factory: AdapterFactory,
    private readonly budget?: Budget,
  ) {}

  private spent(): boolean {
    return this.budget?.expired === true;
  }

  private async open(path: readonly ScriptStep[]): Promise<Adapter> {
    await this.close();
    const adapter = await this.factory(this.config);
    this.adapter = adapter;
    this.name = adapter.name;
    this.counts.replays++;
    for (const s of path) {
      this.counts.commands++;
      if ('do' in s) await adapter.execute(s.do);
      else await adapter.restart();
    }
    return adapter;
  }

  /** Closes the implementation in use, if any. */
  async close(): Promise<void> {
    const a = this.adapter;
    this.adapter = undefined;
    await a?.close().catch(() => undefined);
  }

  private async snapshotDiffers(adapter: Adapter, expected: Snapshot): Promise<boolean> {
    this.counts.snapshots++;
    return firstDifference(expected, await adapter.snapshot()) !== undefined;
  }

  /**
   * Checks every step of an expanded state, reached by `path`. Returns the first disagreement,
   * `time_limit` when the budget ran out first, or undefined when the implementation agreed.
   */
  async check(
    path: readonly ScriptStep[],
    expansion: Expansion,
    moves: readonly boolean[],
  ): Promise<EdgeDivergence | 'time_limit' | undefined> {
    const order = expansion.steps.map((_, i) => i).sort((a, b) => Number(moves[a]) - Number(moves[b]));
    const here = toSnapshot(expansion.state);
    let current: ScriptStep | undefined;
    try {
      if (this.spent()) return 'time_limit';
      let adapter = await this.open(path);
      if (path.length > 0) {
        this.counts.snapshots += 2;
        const alias = await aliasDifference(adapter, here);
        if (alias === 'time_limit') return 'time_limit';
        // A snapshot that is the caller's own changes nothing when changed: the implementation is still here.
        if (alias !== undefined)
          return {
            path,
            step: undefined,
            kind: alias.kind,
            ...(alias.error === undefined ? {} : { error: alias.error }),
          };
      }
      let moved = false;
      for (const i of order) {
        if (this.spent()) return 'time_limit';
        const s = expansion.steps[i];
        if (s === undefined) continue;
        current = s;
        if (moved) adapter = await this.open(path);
        this.counts.commands++;
        if (!('do' in s)) {
          await adapter.restart();
          if (await this.snapshotDiffers(adapter, here)) return { path, step: s, kind: 'snapshot' };
        } else {
          const result = expansion.results[i];
          if (result === undefined) continue;
          const reply = await adapter.execute(s.do);
          if (replyDifference(result.reply, reply) !== undefined) return { path, step: s, kind: 'reply' };
          if (await this.snapshotDiffers(adapter, toSnapshot(result.state))) return { path, step: s, kind: 'snapshot' };
        }
        moved = Boolean(moves[i]);
      }
      return undefined;
    } catch (e) {
      if (isTimeLimit(e)) return 'time_limit';
      return { path, step: current, kind: 'impl_error', error: errorText(e) };
    }
  }
}
