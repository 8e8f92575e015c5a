/**
 * The clock an SQS emulator reads, installed in the emulator's own process before it is loaded
 * (emulatorMain.ts), as libfaketime is for beanstalkd. Two kinds:
 * - stopped: `Date.now()` answers the instant the adapter last set, and nothing else; for fauxqs,
 *   which reads `Date.now()` at every request to expire visibility timeouts, delays and its
 *   deduplication window and runs no timer for them (its only timers serve long polls, never used);
 * - fast: `Date.now()`, `setTimeout` and `setInterval` run `factor` times as fast as real time, from
 *   the instant the clock was installed; for local-aws-sqs, which expires visibility timeouts,
 *   delays and retention with `setTimeout`, so a stopped clock would stop them (and its receive
 *   loop) altogether: a wall clock whose emulated second is `1000 / factor` real milliseconds.
 * Either way the emulator's code is unchanged: only the time it reads, and how long its timers wait.
 */

/** The stopped clock: Date.now() answers `set`'s instant until the next set. */
export interface StoppedClock {
  readonly kind: 'stopped';
  set(ms: number): void;
}

/** Installs a stopped clock at `ms` (milliseconds since the epoch) in this process. */
export function installStoppedClock(ms: number): StoppedClock {
  let now = ms;
  Date.now = () => now;
  return {
    kind: 'stopped',
    set(next: number) {
      now = next;
    },
  };
}

/** Installs a clock `factor` times as fast as real time in this process, from `from` (default now): Date.now and the timers' waits. */
export function installFastClock(factor: number, from?: number): void {
  if (!(factor >= 1)) throw new RangeError(`clock factor ${factor}: must be at least 1`);
  const realNow = Date.now.bind(Date);
  const origin = realNow();
  const start = from ?? origin;
  const realSetTimeout = globalThis.setTimeout;
  const realSetInterval = globalThis.setInterval;
  Date.now = () => start + Math.floor((realNow() - origin) * factor);
  const scaled = (ms: unknown): number => (typeof ms === 'number' && ms > 0 ? ms / factor : 0);
  globalThis.setTimeout = ((handler: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) =>
    realSetTimeout(handler, scaled(ms), ...args)) as typeof setTimeout;
  globalThis.setInterval = ((handler: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) =>
    realSetInterval(handler, scaled(ms), ...args)) as typeof setInterval;
}
