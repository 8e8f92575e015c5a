/**
 * The clock BullMQ reads. BullMQ's PostgreSQL backend takes every instant from `Date.now()` in the
 * client and hands it to its SQL functions as a parameter (`move_to_active(…, p_now, …)`,
 * `move_stalled_jobs_to_wait(…, p_now, …)`, the retry's `process_at`): the server's clock is never
 * used. So the contract's logical `now` can drive the real client code unchanged by making
 * `Date.now()` answer that instant while a command runs, and only then.
 *
 * `Date.now` is replaced (while at least one adapter is open) by a function that returns the
 * instant of the command in whose asynchronous context it is called, and the real time
 * everywhere else: an AsyncLocalStorage carries the instant, so two adapters (or a test runner's
 * own timing) in the same process never see each other's time. The instant is frozen for the
 * whole command: every `Date.now()` BullMQ makes during one command returns the same value, which
 * is the contract's "a command is evaluated at its `now`".
 *
 * One tick is one second (BullMQ's own defaults are in seconds: a 30 s lock, a 30 s stalled
 * check), and tick 0 is 2026-01-01T00:00:00Z, a fixed instant, so that the same run writes the
 * same rows.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Milliseconds per contract tick. */
export const MS_PER_TICK = 1000;

/** The wall time (ms since the Unix epoch) of tick 0: 2026-01-01T00:00:00Z. */
export const EPOCH_MS = Date.UTC(2026, 0, 1);

/** The wall time (ms) of a tick. Pure. */
export const tickMillis = (tick: number): number => EPOCH_MS + tick * MS_PER_TICK;

/** The tick of a wall time BullMQ stored (ms); exact for every instant the adapter gave it. Pure. */
export const millisTick = (ms: number): number => (ms - EPOCH_MS) / MS_PER_TICK;

const instant = new AsyncLocalStorage<number>();
const originalNow = Date.now;
let users = 0;

function adapterNow(): number {
  const ms = instant.getStore();
  return ms === undefined ? originalNow.call(Date) : ms;
}

/**
 * Installs the adapter clock for one user (an open adapter); returns the function that releases
 * it. When the last user releases it, `Date.now` is the original again.
 */
export function acquireClock(): () => void {
  if (users === 0) Date.now = adapterNow;
  users += 1;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    users -= 1;
    if (users === 0) Date.now = originalNow;
  };
}

/** Runs `work` with `Date.now()` answering the wall time of `tick` inside it (and whatever it awaits). */
export function atTick<T>(tick: number, work: () => Promise<T>): Promise<T> {
  return instant.run(tickMillis(tick), work);
}

/** Runs `work` with `Date.now()` answering `ms` (a wall time) inside it (and whatever it awaits). */
export function atMillis<T>(ms: number, work: () => Promise<T>): Promise<T> {
  return instant.run(ms, work);
}
