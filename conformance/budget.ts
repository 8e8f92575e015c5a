/**
 * The time budget of a whole check. Every phase asks it before starting a run, and every wait on
 * the implementation is cut short when it runs out, so a check against a slow or stalled
 * implementation ends when its budget says, with the runs it completed, never later. Running out
 * is not a verdict about the implementation: it is reported as "stopped by time limit".
 */
import { CodedError } from '../contract/CodedError.ts';
import { codeOf } from '../contract/index.ts';

/** The error a wait ends with when the check's time limit is reached. Not a divergence. */
export class TimeLimitReached extends CodedError<'time_limit'> {
  override name = 'TimeLimitReached' as const;
  constructor(message = 'the time limit of the check was reached') {
    super('time_limit', message);
  }
}

/** True for an error that means "the time limit was reached" (from a budget or a process wait). */
export const isTimeLimit = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && codeOf(error) === 'time_limit';

/** How much longer than the budget's end a capped wait lasts, so that the budget's abort ends it first. */
export const CAP_MARGIN_MS = 50;

/** A deadline for a check; `undefined` limit means none. */
export class Budget {
  private readonly endsAt: number;
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;

  /** A budget of `limitMs` milliseconds from now (none when undefined). */
  constructor(readonly limitMs: number | undefined) {
    this.endsAt = limitMs === undefined ? Number.POSITIVE_INFINITY : performance.now() + limitMs;
    if (limitMs !== undefined) {
      this.timer = setTimeout(() => this.controller.abort(new TimeLimitReached()), limitMs);
      this.timer.unref();
    }
  }

  /** A budget without a limit. */
  static unlimited(): Budget {
    return new Budget(undefined);
  }

  /** Milliseconds left (Infinity without a limit, 0 once spent). */
  remainingMs(): number {
    return Math.max(0, this.endsAt - performance.now());
  }

  /** True once the limit is reached. */
  get expired(): boolean {
    return this.controller.signal.aborted || performance.now() >= this.endsAt;
  }

  /** Aborted when the limit is reached; waits listen to it. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * `ms`, or what is left of the budget plus CAP_MARGIN_MS if that is less (never below 1). A wait
   * the budget cuts short must end as `time_limit`: with the margin, the budget's own abort (due at
   * its end) always comes before the wait's timer, so the wait never ends as the implementation's
   * `timeout`, a failure the check did not establish.
   */
  cap(ms: number): number {
    return Math.max(1, Math.min(ms, Math.ceil(this.remainingMs()) + CAP_MARGIN_MS));
  }

  /** Releases the timer. */
  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
