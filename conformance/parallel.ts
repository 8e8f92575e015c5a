/**
 * Several independent checks in flight at once. An implementation behind a process boundary spends
 * most of a run waiting on pipes; with a few runs in flight, each on its own process, the harness
 * and the implementation's processes keep both cores busy. Results keep the order of the inputs,
 * so a check's outcome does not depend on which run finished first.
 */

/** How many runs are in flight at once: a whole number from 1 to MAX_PARALLEL. */
export const MAX_PARALLEL = 64;

/**
 * Calls `run` on every index from 0 to `count` - 1, at most `lanes` at a time, in increasing order
 * of start, and returns the outcomes by index (`undefined` for an index never started). No index
 * starts once `stop(index)` says so for it; the runs already started are awaited. With `lanes` 1
 * this is a plain loop.
 */
export async function inOrder<R>(
  count: number,
  lanes: number,
  run: (index: number) => Promise<R>,
  stop: (index: number) => boolean = () => false,
): Promise<(R | undefined)[]> {
  const results: (R | undefined)[] = new Array<R | undefined>(count).fill(undefined);
  let next = 0;
  const lane = async (): Promise<void> => {
    for (let i = next++; i < count && !stop(i); i = next++) results[i] = await run(i);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(lanes, count)) }, lane));
  return results;
}
