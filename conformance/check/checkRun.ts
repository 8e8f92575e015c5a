/**
 * The state one run of runCheck shares between its phases: what the options ask for, the gates of
 * the phases, the stops recorded, and when the first divergence came. Each phase step of
 * runCheck.ts reads and records through it; nothing here runs a phase.
 *
 * Invariants: with `failFast`, the first divergence closes every gate opened so far, and every gate
 * opened after it starts closed; a phase's end is told to `onPhaseEnd` with the stop recorded for it.
 */
import type { AdapterFactory } from '../adapter.ts';
import type { Budget } from '../budget.ts';
import type { ConcurrentFactory } from '../concurrent/adapter.ts';
import { sequentialFactory } from '../concurrent/inProcess.ts';
import { CheckBudget } from './checkBudget.ts';
import type { CheckOptions, CheckPhaseEnd, CheckProgress, ConcurrentWhen } from './options.ts';
import { PhaseGate } from './phaseGate.ts';
import type { PhaseStop } from './phaseStop.ts';
import type { CheckTarget } from './target.ts';

/** A phase's end as a phase step tells it: the stop is added from those recorded. */
export type PhaseEnd = CheckPhaseEnd extends infer E ? (E extends unknown ? Omit<E, 'stop'> : never) : never;

/** A seed for a check that was given none. Impure: reads the clock and Math.random. */
const randomSeed = (): number => (Date.now() ^ (Math.random() * 0x100000000)) | 0;

/** What a check's options ask for, read once: the seed, when competing workers run and on what. */
export interface CheckPlan {
  readonly seed: number;
  /** When the competing workers run; null without them. */
  readonly when: ConcurrentWhen | null;
  /** Their stores: the target's, or its sequential stores one request at a time. */
  readonly concurrentFactory: ConcurrentFactory | undefined;
}

/** The plan of `options` against `target`. Impure only for a seed not given (randomSeed). */
export function planOf(target: CheckTarget, options: CheckOptions): CheckPlan {
  const c = options.concurrent;
  return {
    seed: options.seed ?? randomSeed(),
    when: c === undefined ? null : (c.when ?? 'last'),
    concurrentFactory: c === undefined ? undefined : (target.concurrentFactory ?? sequentialFactory(target.factory)),
  };
}

/** One run of a check, shared by its phases. */
export class CheckRun {
  readonly started = performance.now();
  readonly seed: number;
  readonly budget: Budget | undefined;
  /** Stores of the paths, the exploration and a left-out campaign: warmed when the target can. */
  readonly warm: AdapterFactory;
  /** A shard after the first: it runs only its part of the campaign. */
  readonly restShard: boolean;
  /** False with competing workers alone (`when: 'only'`): the sequential phases are left out. */
  readonly sequential: boolean;
  readonly parallel: number;
  /** Why this part of the check leaves the sequential phases out, if it does. */
  readonly sequentialOut: 'shard' | 'concurrent_only' | null;
  readonly stops: PhaseStop[] = [];
  firstDivergenceMs: number | null = null;
  private failed = false;
  private readonly gates: PhaseGate[] = [];

  constructor(
    readonly target: CheckTarget,
    readonly options: CheckOptions,
    readonly plan: CheckPlan,
  ) {
    this.seed = plan.seed;
    this.budget = options.budget;
    this.warm = target.warmFactory ?? target.factory;
    this.restShard = options.shard !== undefined && options.shard.index > 1;
    this.sequential = plan.when !== 'only';
    this.parallel = options.parallel ?? target.parallel ?? 1;
    this.sequentialOut = this.restShard ? 'shard' : !this.sequential ? 'concurrent_only' : null;
  }

  /** Whether the time budget has run out. */
  get expired(): boolean {
    return this.budget?.expired === true;
  }

  /** Tells the caller's onProgress where the check is. */
  progress(p: CheckProgress): void {
    this.options.onProgress?.(p);
  }

  /** Tells onPhaseEnd that a phase ended, with the stop recorded for it, if any. */
  ended(end: PhaseEnd): void {
    this.options.onPhaseEnd?.({ ...end, stop: this.stops.find((s) => s.phase === end.phase) } as CheckPhaseEnd);
  }

  /** A gate for a phase; closed from the start when --fail-fast has already seen a divergence. */
  gate(): PhaseGate {
    const g = new PhaseGate();
    if (this.failFastStops()) g.close('fail_fast');
    this.gates.push(g);
    return g;
  }

  /** A target whose waits listen to a CheckBudget has them cut when the phase under way gives up. */
  phaseStart(g: PhaseGate): void {
    if (this.budget instanceof CheckBudget) this.budget.startPhase(g);
  }

  /** Records a divergence, `atMs` after the start; with --fail-fast closes every gate. */
  diverged(atMs: number = performance.now() - this.started): void {
    this.firstDivergenceMs ??= atMs;
    this.failed = true;
    if (this.options.failFast === true) for (const g of this.gates) g.close('fail_fast');
  }

  /** Whether --fail-fast keeps a phase from starting at all. */
  failFastStops(): boolean {
    return this.options.failFast === true && this.failed;
  }
}
