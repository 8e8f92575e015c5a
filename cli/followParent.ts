/**
 * The harness follows the process that started it, and needs no cooperation from it and no
 * native code (node has no prctl(PR_SET_PDEATHSIG)): an unref'd timer looks every PARENT_POLL_MS.
 * - Its parent's pid is read at start. A process whose parent exits is reparented at once, and
 *   never back, so a changed `process.ppid` means the parent is gone (the way a wrapper SIGKILLed,
 *   or npm's `sh -c` dying of a SIGTERM sent to `npx jobcheck`, shows).
 * - It looks through wrappers (cli/ancestry.ts): each `sh -c` or npm above it must keep its
 *   parent, so npm gone of SIGHUP or SIGKILL, its shell living on, counts as gone too (Linux /proc).
 * - A shell running a command string that catches SIGINT, waiting for the harness as npm's does,
 *   holds an interrupt until the harness ends by itself. It sleeps in wait() the whole time, and
 *   only a signal it catches wakes it: its context-switch counts (/proc) stay still. A change means
 *   it caught a signal and lived, which for a shell waiting on us is an interrupt. A stop or
 *   continue of the harness wakes it too (SIGCHLD): so a wake-up is confirmed one tick later,
 *   unless the harness was sent SIGCONT in between, which only re-reads the counts.
 * A harness whose parent is init already (as when a daemon detaches it) follows nothing. The timer
 * runs on the event loop: a synchronous stretch delays it, and the commands keep those short.
 */
import type { Ancestor, ProcReader } from './ancestry.ts';
import { brokenLink, isCommandShell, readAncestry, readProc, wrapperLinks } from './ancestry.ts';

/** How often the parent is looked at, in ms. */
export const PARENT_POLL_MS = 250;

/** What a parent can do that the harness must follow. */
export interface ParentEvents {
  /** The parent exited, or a wrapper above it (cli/ancestry.ts): called once, with the pid of the process gone. */
  readonly gone: (parent: number) => void;
  /** The parent, a shell waiting for the harness, caught an interrupt: called once, with its pid. */
  readonly interrupted?: (parent: number) => void;
}

/** How following the parent can be tuned (tests pass their own readers). */
export interface FollowParentOptions {
  /** The interval of the poll, in ms (default PARENT_POLL_MS). */
  readonly pollMs?: number;
  /** Reads the current parent pid (default: `process.ppid`). */
  readonly ppid?: () => number;
  /** The parent the process started under, if it was read earlier than now (default: the first read of `ppid`). */
  readonly parent?: number;
  /** Reads `/proc/<pid>/<file>` (default: the file system; undefined when it cannot be read). */
  readonly proc?: ProcReader;
  /** The processes above, parent first, if they were read earlier than now (default: read at once through `proc`). */
  readonly ancestry?: readonly Ancestor[];
  /** Calls `continued` on every SIGCONT the process gets; returns a function that stops (default: a SIGCONT listener). */
  readonly onContinue?: (continued: () => void) => () => void;
}

const listenContinue = (continued: () => void): (() => void) => {
  process.on('SIGCONT', continued);
  return () => process.off('SIGCONT', continued);
};

/**
 * True when `cmdline` (NUL-separated, as /proc gives it) and `status` describe a shell running a
 * command string that catches SIGINT: one that holds an interrupt for the command it waits for. Pure.
 */
export function isWaitingShell(cmdline: string, status: string): boolean {
  if (!isCommandShell(cmdline)) return false;
  const caught = /^SigCgt:\s*([0-9a-f]+)$/m.exec(status)?.[1];
  // Bit 1 of the mask is signal 2, SIGINT.
  return caught !== undefined && (BigInt(`0x${caught}`) & 2n) !== 0n;
}

/** The context switches of a process so far, from its status file (undefined if none is shown). Pure. */
export function contextSwitches(status: string): number | undefined {
  const counts = [...status.matchAll(/^(?:non)?voluntary_ctxt_switches:\s*(\d+)$/gm)].map((m) => Number(m[1]));
  return counts.length === 0 ? undefined : counts.reduce((a, b) => a + b, 0);
}

/**
 * Follows the parent the process started under: calls `events.gone` as soon as it, or a wrapper
 * above it, has exited, or `events.interrupted` when it is a waiting shell that caught an interrupt
 * (module header); at most one call in all. Returns a function that stops following. The timer is
 * unref'd: it never keeps the process alive by itself.
 */
export function followParent(events: ParentEvents, options: FollowParentOptions = {}): () => void {
  const read = options.ppid ?? ((): number => process.ppid);
  const proc = options.proc ?? readProc;
  const pollMs = options.pollMs ?? PARENT_POLL_MS;
  const parent = options.parent ?? read();
  // Init (or no parent at all) never exits: there is nothing to follow.
  if (parent <= 1) return () => undefined;
  // Read for this parent only: a caller's record of another parent says nothing of this one.
  const ancestry = options.ancestry?.[0]?.pid === parent ? options.ancestry : readAncestry(parent, proc);
  const links = wrapperLinks(ancestry);
  const switches = (): number | undefined => contextSwitches(proc(parent, 'status') ?? '');
  const shell =
    events.interrupted !== undefined && isWaitingShell(proc(parent, 'cmdline') ?? '', proc(parent, 'status') ?? '');
  let seen = shell ? switches() : undefined;
  /** The shell woke at the last tick: an interrupt, unless the harness is told it was continued before the next. */
  let woke = false;
  let continued = false;
  const unlisten = shell ? (options.onContinue ?? listenContinue)(() => (continued = true)) : (): void => undefined;
  const stop = (): void => {
    clearInterval(timer);
    unlisten();
  };
  const timer = setInterval(() => {
    if (read() !== parent) {
      stop();
      events.gone(parent);
      return;
    }
    for (const link of links) {
      const gone = brokenLink(link, proc(link.pid, 'stat'));
      if (gone === undefined) continue;
      stop();
      events.gone(gone);
      return;
    }
    if (seen === undefined) return;
    const current = switches() ?? seen;
    if (continued) {
      // The harness was stopped and continued: its shell was told of both, and only re-reads the counts.
      continued = false;
      woke = false;
      seen = current;
      return;
    }
    if (woke) {
      stop();
      events.interrupted?.(parent);
      return;
    }
    woke = current !== seen;
  }, pollMs);
  timer.unref();
  return stop;
}
