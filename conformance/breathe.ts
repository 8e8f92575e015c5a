/**
 * A turn of the event loop for work that runs in the harness's own thread. A built-in store and the
 * model answer without I/O, so a campaign against them never leaves the microtask queue: signals,
 * the watch on the parent process (cli/followParent.ts) and timers would wait for the whole check.
 * Callers ask for a breath at each run or state; one is taken at most every BREATHE_MS.
 */

/** The longest stretch of in-thread work between two turns of the event loop, in ms. */
export const BREATHE_MS = 20;

let last = performance.now();

/** Resolves after a turn of the event loop when BREATHE_MS have passed since the last one, at once otherwise. */
export async function breathe(): Promise<void> {
  if (performance.now() - last < BREATHE_MS) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  last = performance.now();
}
