/**
 * Entry point of the `jobcheck` command (bin/jobcheck.js loads it through tsx): runs the command
 * line on the process's own streams and sets the exit code.
 */
import { runCli } from './cli.ts';

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  isTTY: process.stderr.isTTY === true,
  stdin: process.stdin,
});
// Everything the commands start is closed by them; should an implementation's process or a
// timer linger anyway, it must not keep the command from ending.
setTimeout(() => process.exit(), 3_000).unref();
