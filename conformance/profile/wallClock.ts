/**
 * Logical time on a broker that keeps its own clock. The contract's commands carry `now` in ticks;
 * RabbitMQ, NATS JetStream and BullMQ on Redis measure leases and delays on their own clocks,
 * which nobody outside can move. Such a broker is driven in wall-clock mode: one tick is a stated
 * number of real milliseconds, and before a command with a later `now` runs, the adapter waits
 * until that tick has begun in real time. Tick `n` begins `n · tickMs` after the clock's origin
 * (set when the clock is made, or by `restart`), so a lease of `k` ticks claimed at tick `c` ends
 * on the broker at about `(c + k) · tickMs`, give or take the time the claim itself took: what
 * that slack may decide is the tolerance an adapter declares for the rules it touches.
 *
 * Every request waits for its own tick's start, also when another request in flight already asked
 * for that tick or a later one: no command reaches the broker early. The clock never goes back: a
 * command whose `now` is earlier than a tick already begun runs at once (the broker's time has
 * moved on; the model's `now` for it is what the command says).
 */

/** Real milliseconds, from a monotonic source. */
export type Millis = number;

/** What a wall clock is made with. */
export interface WallClockOptions {
  /** Real milliseconds per tick. */
  readonly tickMs: number;
  /**
   * Real milliseconds into a tick at which its commands start (default 0): a broker whose timers
   * fire late is given its deadline's tick plus this much before the command that depends on it.
   */
  readonly offsetMs?: number;
  /** The monotonic clock (default `performance.now`); tests pass their own. */
  readonly now?: () => Millis;
  /** Waits `ms` real milliseconds (default a timer); tests pass their own. */
  readonly sleep?: (ms: Millis) => Promise<void>;
}

/** Maps the contract's ticks onto real time and waits for them. */
export class WallClock {
  readonly tickMs: number;
  readonly offsetMs: number;
  private readonly clock: () => Millis;
  private readonly sleep: (ms: Millis) => Promise<void>;
  private origin: Millis;
  private reached = 0;

  constructor(options: WallClockOptions) {
    if (!Number.isFinite(options.tickMs) || options.tickMs <= 0)
      throw new RangeError(`tickMs must be a positive number of milliseconds, got ${String(options.tickMs)}`);
    this.tickMs = options.tickMs;
    this.offsetMs = options.offsetMs ?? 0;
    this.clock = options.now ?? (() => performance.now());
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.origin = this.clock();
  }

  /** The latest tick a command has asked for (it may not have started yet). */
  get tick(): number {
    return this.reached;
  }

  /** The real instant at which tick `n`'s commands may start. Pure. */
  startOf(n: number): Millis {
    return this.origin + n * this.tickMs + this.offsetMs;
  }

  /**
   * Waits until tick `now` has begun (plus the offset), whether or not another request already
   * asked for it or a later tick, and returns the real milliseconds waited: 0 for a tick that has
   * begun. A timer that fires early is waited out again, so no request returns before its start.
   */
  async advanceTo(now: number): Promise<Millis> {
    if (now > this.reached) this.reached = now;
    let waited = 0;
    for (let wait = this.startOf(now) - this.clock(); wait > 0; wait = this.startOf(now) - this.clock()) {
      await this.sleep(wait);
      waited += wait;
    }
    return waited;
  }

  /** Starts again at tick 0 now: a fresh broker (a new instance, or a restart that resets time). */
  restart(): void {
    this.origin = this.clock();
    this.reached = 0;
  }
}
