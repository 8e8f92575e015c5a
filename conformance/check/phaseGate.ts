/**
 * Giving up early, as a gate on a phase's stores. A check against a badly broken implementation
 * should not wait out one timeout per item: once an implementation has let a reply time out in a
 * phase (it answers `hello`, then nothing), every later item of that phase would wait just as long
 * for nothing; and with `--fail-fast` nothing after the first divergence is wanted at all.
 *
 * The gate sits between a phase and the target's factory: while it is open, stores are made and
 * used as usual, and a `timeout` of any of them closes it; once it is closed, a new store, and a new
 * request to a store already made, ends at once with GivenUp. A request already waiting is not cut
 * short: it ends by its own reply or timeout, which started at about the same time as the one that
 * closed the gate, so it costs no extra wall time, and the item that timed out keeps its failure;
 * with a CheckBudget (checkBudget.ts) as the target's budget, those waits end at once as well.
 *
 * GivenUp carries the code `time_limit` on purpose: that is how every runner of the engine (lockstep,
 * campaign, exploration) already tells an item that did not run to the end from one that failed, so
 * an item given up is reported as not run, never as a divergence of its own and never as a pass.
 * The check's report then says why it was not run (report.ts, `stops`), not "the time limit".
 */
import { CodedError } from '../../contract/CodedError.ts';
import type { Adapter, AdapterFactory } from '../adapter.ts';
import { codeOf } from '../../contract/index.ts';

/** Why a gate closed: a `timeout` of the implementation in this phase, or `fail_fast` after a divergence. */
export type GateReason = 'timeout' | 'fail_fast';

/**
 * The error an item meets once its phase has given up: not a divergence, and not the check's time
 * limit either, although it carries that code so that the runners count the item as not run.
 */
export class GivenUp extends CodedError<'time_limit'> {
  override name = 'GivenUp' as const;
  constructor(readonly reason: GateReason) {
    super(
      'time_limit',
      reason === 'timeout'
        ? 'given up: the implementation let a reply time out earlier in this phase'
        : 'given up: --fail-fast stopped the check at its first divergence',
    );
  }
}

/** True for an error of an implementation that did not reply in time (a ProcessError or isolated module's `timeout`). Pure. */
export function isReplyTimeout(error: unknown): boolean {
  return typeof error === 'object' && error !== null && codeOf(error) === 'timeout';
}

/** The methods of an adapter whose calls the gate watches and, once it is closed, refuses. */
const GATED = new Set<PropertyKey>(['execute', 'snapshot', 'restart', 'restoreFrom', 'resetTo', 'offerRestore']);

/** A gate over the stores of one phase (see the top of this file). Stateful; one per phase. */
export class PhaseGate {
  private reason: GateReason | null = null;
  private readonly listeners: (() => void)[] = [];

  /** Why the gate closed, or null while it is open. */
  get closed(): GateReason | null {
    return this.reason;
  }

  /** Closes the gate (the first reason is kept) and tells every listener, once. */
  close(reason: GateReason): void {
    if (this.reason !== null) return;
    this.reason = reason;
    for (const listener of this.listeners.splice(0)) listener();
  }

  /** Calls `listener` when the gate closes (at once if it is closed already). */
  onClose(listener: () => void): void {
    if (this.reason !== null) listener();
    else this.listeners.push(listener);
  }

  /** Throws GivenUp when the gate is closed. */
  private pass(): void {
    if (this.reason !== null) throw new GivenUp(this.reason);
  }

  /** Watches a call's outcome: a reply timeout closes the gate (`timeout`), then the error goes on. */
  private async watch<T>(call: () => Promise<T>): Promise<T> {
    this.pass();
    try {
      return await call();
    } catch (error) {
      if (isReplyTimeout(error)) this.close('timeout');
      throw error;
    }
  }

  /**
   * The adapter with its requests behind the gate: the same object to every other use (a Proxy, so
   * that optional methods such as `resetTo` stay visible as they are).
   */
  adapter(inner: Adapter): Adapter {
    return new Proxy(inner, {
      get: (target, key) => {
        const value: unknown = Reflect.get(target, key, target);
        if (typeof value !== 'function' || !GATED.has(key)) return value;
        const method = value as (...args: unknown[]) => Promise<unknown>;
        return (...args: unknown[]) => this.watch(() => method.apply(target, args));
      },
    });
  }

  /** The factory with its stores behind the gate: a closed gate refuses a new store at once, before any process starts. */
  factory(inner: AdapterFactory): AdapterFactory {
    return (config) => this.watch(async () => this.adapter(await inner(config)));
  }
}
