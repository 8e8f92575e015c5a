/** Wall and CPU time of an exploration, measured the same way by every way of exploring. */

/** CPU time of the process so far (user + system, all threads), in ms. */
const cpuNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Time since the stopwatch started. */
export interface Stopwatch {
  /** Wall time in ms. */
  readonly durationMs: () => number;
  /** CPU time of the process (user + system, all threads) in ms. */
  readonly cpuMs: () => number;
}

/** Starts a stopwatch now. Reads the clocks; not pure. */
export function startStopwatch(): Stopwatch {
  const started = performance.now();
  const cpu0 = cpuNow();
  return { durationMs: () => performance.now() - started, cpuMs: () => cpuNow() - cpu0 };
}
