/**
 * Entry point of the `jobcheck` command (bin/jobcheck.js loads it): runs the command line on the
 * process's own streams and sets the exit code.
 */
import { killAllPeers } from '../conformance/protocol/index.ts';
import { runCli } from './cli.ts';

// Implementations run in process groups of their own (conformance/protocol/peer.ts), so a Ctrl-C
// on the terminal does not reach them: the harness ends them before it goes.
const SIGNAL_EXIT: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };
for (const [signal, code] of Object.entries(SIGNAL_EXIT)) {
  process.once(signal as NodeJS.Signals, () => {
    killAllPeers();
    process.exit(code);
  });
}

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  isTTY: process.stderr.isTTY === true,
  stdin: process.stdin,
});
// Everything the commands start is closed by them; should an implementation's process or a
// timer linger anyway, it must not keep the command from ending.
setTimeout(() => process.exit(), 3_000).unref();
