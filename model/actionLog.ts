/**
 * A record of the actions a step executed, for the test that holds the fast step (runMachine.ts)
 * equal to xstate's own execution of the same machines (referenceModel.ts). Both executors report
 * here, and only while `recordActions` runs; otherwise reporting costs one comparison.
 *
 * Entries are written when a transition has completed, so a job's transition, taken inside a store
 * action, comes before the store transition that took it: that is the order in which xstate
 * reports its microsteps, and both executors follow it.
 *
 * The log is module state, set and restored around one synchronous call, so a step stays a pure
 * function to its callers; nothing asynchronous can run while it is set.
 */

/** One executed action: the machine's id, the action's name, and its parameters (if any). */
export interface ExecutedAction {
  readonly machine: string;
  readonly action: string;
  readonly params?: unknown;
}

let active: ExecutedAction[] | undefined;

/** Whether a recording is under way (the executors then report each transition's actions). */
export const isRecording = (): boolean => active !== undefined;

/** Reports the actions of one completed transition; does nothing outside a recording. */
export function logActions(entries: readonly ExecutedAction[]): void {
  if (active !== undefined) active.push(...entries);
}

/**
 * Runs `run` and returns its result with the actions executed during it, in order. Recordings do
 * not nest: an inner one takes the actions of its own call. Pure apart from calling `run`.
 */
export function recordActions<T>(run: () => T): { readonly result: T; readonly actions: readonly ExecutedAction[] } {
  const outer = active;
  const actions: ExecutedAction[] = [];
  active = actions;
  try {
    return { result: run(), actions };
  } finally {
    active = outer;
  }
}
