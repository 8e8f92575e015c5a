/**
 * The two errors every command may throw, each told as one line on stderr with exit code 2. They
 * have a file of their own, free of imports, because cli/cli.ts needs them before any command is
 * loaded: `jobcheck --help` loads nothing else (see docs/startup-bench.md).
 */

/** A bad invocation: printed as one line, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError' as const;
  readonly code = 'usage' as const;
}

/** A failure to set up the check (the implementation cannot be started or loaded): one line, exit code 2. */
export class SetupError extends Error {
  override name = 'SetupError' as const;
  readonly code = 'setup' as const;
}
