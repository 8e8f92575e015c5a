/**
 * The command run in process with its output kept, as the CLI's tests run it: the same code as
 * `jobcheck ...` (runCli) without a process start, stdout and stderr collected as text, not a TTY.
 */
import { runCli } from './cli.ts';

/** What one run of the command printed, and its exit code. */
export interface CapturedRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `jobcheck <args>` in process (runCli) and returns its exit code and output. Not pure: it runs the command. */
export async function runCliCaptured(args: readonly string[]): Promise<CapturedRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    isTTY: false,
  });
  return { code, stdout, stderr };
}
