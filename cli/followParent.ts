/**
 * The harness follows the process that started it. `npx jobcheck` (and `npm exec`, `npm run`) runs
 * the harness under npm's `sh -c`, and npm passes a SIGTERM or SIGINT it receives to that shell
 * only:
 * - on SIGTERM (or SIGHUP) the shell dies without passing it on, and the harness would carry on,
 *   reparented to init or a subreaper, starting implementation processes that nobody waits for.
 *   The same happens under any wrapper that is SIGKILLed;
 * - on SIGINT the shell, waiting for its command as POSIX shells do, holds the interrupt until the
 *   harness ends by itself: the check would run to its end.
 *
 * The mechanism is the simplest that needs no cooperation from the parent and no native code
 * (node has no prctl(PR_SET_PDEATHSIG)): an unref'd timer looks at the parent every PARENT_POLL_MS.
 * - The parent's pid is read at start. A process whose parent exits is reparented at once, and
 *   never back, so a changed `process.ppid` means the parent is gone.
 * - When the parent is a shell running a command string (`sh -c`) that catches SIGINT, the shell
 *   sleeps in wait() for the harness the whole time, and only a signal it catches wakes it: its
 *   context-switch counts (Linux /proc) stay still. A change means it caught a signal and lived,
 *   which for a shell waiting on us is an interrupt. A stop or continue of the harness wakes it
 *   too (SIGCHLD): so a wake-up is confirmed one tick later, unless the harness was sent SIGCONT
 *   in between, which only re-reads the counts. (A gap between ticks proves nothing: a loaded
 *   machine makes them.)
 * A harness whose parent is init already (as when a daemon detaches it) follows nothing. The timer
 * runs on the event loop: a synchronous stretch delays it, and the commands keep those short.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

/** How often the parent is looked at, in ms. */
export const PARENT_POLL_MS = 250;

/** Shells that hold an interrupt while they wait for their command. */
const SHELLS = new Set(['sh', 'dash', 'bash', 'zsh', 'ksh', 'mksh', 'ash', 'busybox']);

/** What a parent can do that the harness must follow. */
export interface ParentEvents {
  /** The parent exited: called once, with its pid. */
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
  readonly proc?: (pid: number, file: 'cmdline' | 'status') => string | undefined;
  /** Calls `continued` on every SIGCONT the process gets; returns a function that stops (default: a SIGCONT listener). */
  readonly onContinue?: (continued: () => void) => () => void;
}

const listenContinue = (continued: () => void): (() => void) => {
  process.on('SIGCONT', continued);
  return () => process.off('SIGCONT', continued);
};

const readProc = (pid: number, file: 'cmdline' | 'status'): string | undefined => {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'latin1');
  } catch {
    return undefined;
  }
};

/**
 * True when `cmdline` (NUL-separated, as /proc gives it) and `status` describe a shell running a
 * command string that catches SIGINT: one that holds an interrupt for the command it waits for. Pure.
 */
export function isWaitingShell(cmdline: string, status: string): boolean {
  const [argv0 = '', flag = ''] = cmdline.split('\0');
  if (!SHELLS.has(basename(argv0.replace(/^-/, ''))) || !/^-[a-z]*c[a-z]*$/.test(flag)) return false;
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
 * Follows the parent the process started under: calls `events.gone` as soon as it has exited, or
 * `events.interrupted` when it is a waiting shell that caught an interrupt (module header); at most
 * one call in all. Returns a function that stops following. The timer is unref'd: it never keeps
 * the process alive by itself.
 */
export function followParent(events: ParentEvents, options: FollowParentOptions = {}): () => void {
  const read = options.ppid ?? ((): number => process.ppid);
  const proc = options.proc ?? readProc;
  const pollMs = options.pollMs ?? PARENT_POLL_MS;
  const parent = options.parent ?? read();
  // Init (or no parent at all) never exits: there is nothing to follow.
  if (parent <= 1) return () => undefined;
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
