/**
 * What has to be written down when the harness is ended from outside (a signal, a parent gone):
 * cli/main.ts ends the process synchronously and at once (process.exit), so whatever must last
 * registers a synchronous hook here, and main.ts calls them all just before it exits. A hook
 * never throws (what it cannot write is lost with the process), and one that fails does not keep
 * the others from running. This file imports nothing: main.ts loads it before any command.
 */

/** A hook called with why the harness is ending (`stopped by SIGINT`) and the exit code it ends with. */
export type InterruptHook = (why: string, exitCode: number) => void;

const hooks = new Set<InterruptHook>();

/** Registers `hook` until the function returned is called. */
export function whenInterrupted(hook: InterruptHook): () => void {
  hooks.add(hook);
  return () => hooks.delete(hook);
}

/** Calls every registered hook, synchronously, each once; for cli/main.ts just before it exits. */
export function tellInterrupted(why: string, exitCode: number): void {
  const now = [...hooks];
  hooks.clear();
  for (const hook of now) {
    try {
      hook(why, exitCode);
    } catch {
      // The process is ending: a record that cannot be written is lost with it.
    }
  }
}
