/**
 * Entry point of the `jobcheck` command (bin/jobcheck.js loads it): runs the command line on the
 * process's own streams and sets the exit code.
 */
// peer.ts itself rather than the protocol's index, which loads zod: `--help` should start quickly.
import { killAllPeers } from '../conformance/protocol/peer.ts';
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

// A reader that goes away early (`jobcheck demo --all | head`) closes the pipe: the write that
// meets it fails with EPIPE. That is no failure of the command: what follows is dropped, and the
// command ends as it would have, quietly. Any other error of the standard streams is one line.
const closed = new Set<NodeJS.WritableStream>();
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    closed.add(stream);
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') return;
    if (!closed.has(process.stderr)) process.stderr.write(`jobcheck: cannot write ${stream === process.stdout ? 'stdout' : 'stderr'}: ${error.message}\n`);
    process.exitCode = 2;
  });
}
const unlessClosed = (stream: NodeJS.WriteStream): { write(text: string): boolean } => ({ write: (text) => (closed.has(stream) ? true : stream.write(text)) });

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: unlessClosed(process.stdout),
  stderr: unlessClosed(process.stderr),
  isTTY: process.stderr.isTTY === true,
  stdoutIsTTY: process.stdout.isTTY === true,
  stdin: process.stdin,
});
// Everything the commands start is closed by them; should an implementation's process or a
// timer linger anyway, it must not keep the command from ending.
setTimeout(() => process.exit(), 3_000).unref();
