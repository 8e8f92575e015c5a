/**
 * The two errors every command may throw, each told as one line on stderr with exit code 2. They
 * have a file of their own, whose one import (the base class) imports nothing, because cli/cli.ts
 * needs them before any command is loaded: `jobcheck --help` loads nothing else (see docs/startup-bench.md).
 */
import { CodedError } from '../contract/CodedError.ts';

/** A bad invocation: printed as one line, exit code 2. */
export class UsageError extends CodedError<'usage'> {
  override name = 'UsageError' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super('usage', message, options);
  }
}

/** A failure to set up the check (the implementation cannot be started or loaded): one line, exit code 2. */
export class SetupError extends CodedError<'setup'> {
  override name = 'SetupError' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super('setup', message, options);
  }
}
