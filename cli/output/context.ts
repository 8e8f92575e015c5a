/**
 * How `jobcheck check` was run, as its outputs need it: headings, reproduction hints, the JSON
 * result's fields. The check itself does not know its command line; the outputs do.
 */

/** How the check was run, for headings and reproduction hints. */
export interface CheckContext {
  /** The implementation's name for reports (command, module, impl/JobStore...). */
  readonly target: string;
  /** The flags that select it again (`--impl "..."`). */
  readonly flags: string;
  /** The name the implementation gave itself in hello, if it is a process. */
  readonly implementation?: string | undefined;
  readonly seed: number;
  readonly runs: number;
  /** `--max-commands`, when given: it shapes the generated runs, so a reproduction repeats it. */
  readonly maxCommands?: number;
  /** `--shard i/n`, when given. */
  readonly shard?: { readonly index: number; readonly count: number };
  /** The check's time limit, in ms. */
  readonly timeLimitMs?: number;
  /** `--workers`, when 2 or more: the concurrent campaign's lanes (its scenarios depend on it). */
  readonly workers?: number;
}
