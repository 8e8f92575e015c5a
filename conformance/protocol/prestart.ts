/**
 * A process of the implementation started before the harness has loaded. Loading the engine takes
 * `jobcheck check` most of the half second it needs to start, on one core; a program behind a
 * version manager's shim takes about as long to start. The command line names the program before
 * any of that, so the check starts its first process at once (cli/checkFlags.ts), and the pool that
 * asks for a process with the same command and options (pool.ts) takes that one instead of
 * starting another.
 * One that nobody takes is ended by endPrestarted(); every process still alive at the harness's
 * exit is killed in any case (peer.ts).
 */
import { Peer } from './peer.ts';
import type { PeerOptions } from './peer.ts';

/** The options of a process that decide how it runs (stderr is handed over when it is taken). */
type RunOptions = Omit<PeerOptions, 'onStderr'>;

const started: { command: string; options: RunOptions; peer: Peer }[] = [];

/** Whether two sets of options start the same process. Pure. */
const sameRun = (a: RunOptions, b: RunOptions): boolean =>
  a.cwd === b.cwd &&
  a.env === b.env &&
  a.endGraceMs === b.endGraceMs &&
  a.maxLineBytes === b.maxLineBytes &&
  (a.scheduling ?? 'batch') === (b.scheduling ?? 'batch');

/** Starts `command` now, for a pool that will ask for it later. */
export function prestart(command: string, options: RunOptions = {}): void {
  started.push({ command, options, peer: new Peer(command, options) });
}

/**
 * The process started ahead for `command` with these options, if one is there and has not
 * failed: it is the caller's from now on, and its stderr goes to `options.onStderr`.
 */
export function takePrestarted(command: string, options: PeerOptions): Peer | undefined {
  const at = started.findIndex((p) => p.command === command && sameRun(p.options, options) && p.peer.healthy);
  if (at < 0) return undefined;
  const [taken] = started.splice(at, 1);
  taken?.peer.adoptStderr(options.onStderr);
  return taken?.peer;
}

/** Ends every process started ahead that nobody took. */
export async function endPrestarted(): Promise<void> {
  await Promise.all(started.splice(0).map(({ peer }) => peer.end()));
}
