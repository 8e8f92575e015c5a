/**
 * Entry point of the `jobcheck` command (bin/jobcheck.js loads it): runs the command line on the
 * process's own streams and sets the exit code.
 *
 * Implementations run in process groups of their own (conformance/protocol/peer.ts), so neither a
 * Ctrl-C on the terminal nor a signal to the harness reaches them: the harness ends every group
 * itself before it goes. It goes on SIGINT, SIGTERM and SIGHUP (exit 128 + the signal's number,
 * as a shell reports it), and when the process that started it is gone (cli/followParent.ts; exit
 * 129, as for a hangup), looking through npm and its shell: the way a signal sent to `npx jobcheck`
 * arrives, since npm and its shell die of it without passing it on; and when the shell that waits
 * for it caught an interrupt (exit 130, as for SIGINT), the way npm's shell receives a SIGINT sent
 * to `npx jobcheck`. What still escapes is said in docs/protocol.md, section 7.
 */
// peer.ts itself rather than the protocol's index, which loads zod: `--help` should start quickly.
import { killAllPeers } from '../conformance/protocol/peer.ts';
import { asAncestry } from './ancestry.ts';
import { runCli } from './cli.ts';
import { followParent } from './followParent.ts';
import { tellLibraryWarnings } from './libraryWarnings.ts';
import { tellInterrupted } from './report/interruption.ts';

/** Exit codes of the harness ended from outside: 128 + the signal's number; a parent gone counts as a hangup. */
const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
const EXIT_PARENT_GONE = SIGNAL_EXIT.SIGHUP;

/** Set once the harness is ending: a signal that comes meanwhile changes nothing. */
let ending = false;

/** Ends every implementation's process group, says why on stderr, and exits with `code`. Synchronous; once. */
function endNow(code: number, why: string): void {
  if (ending) return;
  ending = true;
  killAllPeers();
  // A run in progress records that it was interrupted (its folder, run.json, its page).
  tellInterrupted(why, code);
  try {
    // A progress line hides the cursor while it draws; give it back. Then one line of why.
    process.stderr.write(
      `${process.stderr.isTTY === true ? '\x1b[?25h\n' : ''}jobcheck: ${why}; every implementation process was ended\n`,
    );
  } catch {
    // stderr is gone too: the exit code says it
  }
  process.exit(code);
}

// A library's warning (a client's deprecation) is a line jobcheck writes, never Node's two.
tellLibraryWarnings();

// `on`, never `once`: with no listener left, a second Ctrl-C would kill the process by the signal's
// default action in the middle of endNow, before the run's record is written or every group ended.
for (const [signal, code] of Object.entries(SIGNAL_EXIT)) {
  process.on(signal as NodeJS.Signals, () => endNow(code, `stopped by ${signal}`));
}
// bin/jobcheck.js reads the parent and the processes above it first thing; a caller that loads
// this file by itself has them read here.
const startedUnder = (globalThis as Record<symbol, unknown>)[Symbol.for('jobcheck.parent')];
const ancestry = asAncestry((globalThis as Record<symbol, unknown>)[Symbol.for('jobcheck.ancestry')]);
followParent(
  {
    gone: (parent) => endNow(EXIT_PARENT_GONE, `stopped: the process that started it (pid ${parent}) is gone`),
    // npm's `sh -c` holds a SIGINT sent to npx until its command ends: the harness takes it as its own.
    interrupted: (parent) =>
      endNow(SIGNAL_EXIT.SIGINT, `stopped by SIGINT, caught by the shell that started it (pid ${parent})`),
  },
  {
    ...(typeof startedUnder === 'number' ? { parent: startedUnder } : {}),
    ...(ancestry === undefined ? {} : { ancestry }),
  },
);

// A reader that goes away early (`jobcheck demo --all | head`) closes the pipe: the write that
// meets it fails with EPIPE. That is no failure of the command: what follows is dropped, and the
// command ends as it would have, quietly. Any other error of the standard streams is one line.
const closed = new Set<NodeJS.WritableStream>();
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    closed.add(stream);
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') return;
    if (!closed.has(process.stderr))
      process.stderr.write(
        `jobcheck: cannot write ${stream === process.stdout ? 'stdout' : 'stderr'}: ${error.message}\n`,
      );
    process.exitCode = 2;
  });
}
const unlessClosed = (stream: NodeJS.WriteStream): { write(text: string): boolean } => ({
  write: (text) => (closed.has(stream) ? true : stream.write(text)),
});

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
