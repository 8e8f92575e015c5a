/**
 * One case of the hostile suite: a misbehaviour (of a peer, a module, a file, a flag or a signal)
 * and what the harness must make of it. Kept apart from the runner (cases.ts) so that the case
 * lists of surface/ can name the type without importing the runner that imports them.
 */
export interface HostileCase {
  /** Name in tables and tests. */
  readonly name: string;
  /** What the misbehaving side does. */
  readonly what: string;
  /**
   * The shell command given to `--impl` under the default check line (`{peer}` stands for the
   * peer script, `{once}` for a fresh marker file). Unused when `argv` is given.
   */
  readonly command?: string;
  /** Extra flags of `jobcheck check` under the default check line. */
  readonly flags: readonly string[];
  /**
   * The whole command line after `bin/jobcheck.js`, in place of the default check line. The
   * placeholders `{tmp}` (a fresh folder of the run, removed after it), `{peer}`, `{python}` and
   * `{once}` are filled in every argument.
   */
  readonly argv?: readonly string[];
  /** Prepares the run's folder (`{tmp}`) before the harness starts: files, FIFOs, modules. */
  readonly setup?: (tmp: string) => void;
  /** Expected exit code. */
  readonly exit: 0 | 1 | 2 | 3;
  /** Expected outcome: the verdict, and a pattern the output must show. */
  readonly outcome: string;
  readonly pattern: RegExp;
}
