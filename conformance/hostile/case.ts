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
   * The check's `--time-limit` in seconds on the default check line (default 8). A case whose peer
   * makes every store slow (a 20 MB reply, a 200 MB stderr line) needs more on a busy two-core
   * machine, or the limit, not the peer, decides what the check reaches.
   */
  readonly timeLimit?: string;
  /**
   * The whole command line after `bin/jobcheck.js`, in place of the default check line. The
   * placeholders `{tmp}` (a fresh folder of the run, removed after it), `{peer}`, `{python}` and
   * `{once}` are filled in every argument.
   */
  readonly argv?: readonly string[];
  /**
   * Prepares the run's folder (`{tmp}`) before the harness starts: files, FIFOs, modules; `python`
   * is the interpreter the peer runs with, for a setup that runs a check of its own first (which
   * it awaits: the runner's other run goes on being measured meanwhile).
   */
  readonly setup?: (tmp: string, python: string) => void | Promise<void>;
  /** The folder the harness starts in (`{tmp}` filled in; default the repository), for a command that writes into its project (`init`). */
  readonly cwd?: string;
  /** Variables added to the harness's environment (`{tmp}` filled in), such as the GitHub files. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Reads what the run left in its folder, after the harness exited and before the folder is
   * removed; the text is matched with the output against `pattern` (a run folder pruned, a link
   * left dangling).
   */
  readonly inspect?: (tmp: string) => string;
  /** A bound on the run's wall time tighter than the suite's (a FIFO must be refused within 5 s); the runner kills the harness 10 s past it. */
  readonly withinMs?: number;
  /** A bound on the harness's peak memory tighter than the suite's, in MiB (a read that must stay bounded). */
  readonly peakBoundMiB?: number;
  /**
   * How the harness is started: by the runner itself (default `node`), through `npx jobcheck` in
   * the repository, or under `sh -c` that stays its parent (`"$0" bin/jobcheck.js "$@"; exit $?`).
   * The process the runner starts is the one it measures and signals.
   */
  readonly launch?: 'node' | 'npx' | 'sh';
  /**
   * A signal the runner sends to the process it started, `afterMs` after the run's first
   * implementation process (the interpreter of `{peer}`) is seen: a check interrupted mid-run.
   * The run then lasts until no process of it is left, or `settleMs` after the process started
   * has exited (default 15 s), when what is left is counted.
   */
  readonly interrupt?: {
    readonly signal: NodeJS.Signals;
    readonly afterMs: number;
    /** Waited for, after the first implementation process is seen and before `afterMs`: a state of the case's folder. */
    readonly readyWhen?: (tmp: string) => boolean;
    readonly settleMs?: number;
    /** How many times more the signal is sent, a millisecond apart, while the process lives (a Ctrl-C pressed again). */
    readonly again?: number;
  };
  /** Expected exit code of the process the runner started (null when it ends by a signal, `signal`). */
  readonly exit: 0 | 1 | 2 | 3 | 129 | 130 | 143 | null;
  /** The signal the process the runner started is expected to end by (default: none). */
  readonly signal?: NodeJS.Signals;
  /** Expected outcome: the verdict, and a pattern the output must show. */
  readonly outcome: string;
  readonly pattern: RegExp;
  /**
   * Reads back what the run wrote (its output, the files of `{tmp}`, other commands run on them)
   * before the folder is removed, and returns what is wrong with it: none when all is as it
   * should be. Runs after the harness exited; what it starts, it ends itself.
   */
  readonly readBack?: (tmp: string, output: { readonly stdout: string; readonly stderr: string }) => readonly string[];
}
