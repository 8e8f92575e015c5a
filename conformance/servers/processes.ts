/**
 * The processes of a broker server, held so that none outlives the harness. Each program starts in
 * a session (and so a process group) of its own; a signal goes to the group and to every process
 * descended from its leader, because brokers put helpers in sessions of their own (PostgreSQL's
 * children, Erlang's erl_child_setup). A kill first stops the whole tree (SIGSTOP), collects it
 * again until no new process appears (a stopped process cannot fork), then SIGKILLs it all.
 *
 * A Reaper is a `sh` in a session of its own that reads, on a pipe from this process, the leaders to
 * end and the folder to remove; when the pipe closes (this process exited, however: even by
 * SIGKILL) it kills their trees and removes the folder. So nothing is left behind, ever.
 * Linux only (/proc).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, readdirSync } from 'node:fs';

/** One row of /proc: a process, its parent, its group, and whether it is a zombie (dead, not reaped). */
interface Row {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  readonly zombie: boolean;
}

/** Every process of the machine as /proc shows it now. */
function rows(): Row[] {
  const found: Row[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue;
    }
    // `pid (comm) state ppid pgrp ...`: comm may hold spaces and parentheses, so read after the last `)`.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    found.push({ pid: Number(name), ppid: Number(rest[1]), pgid: Number(rest[2]), zombie: rest[0] === 'Z' });
  }
  return found;
}

/** The living processes in the groups of `leaders` or descended from them (the leaders included). */
export function treeOf(leaders: readonly number[]): number[] {
  const all = rows().filter((r) => !r.zombie);
  const groups = new Set(leaders);
  const mine = new Set(all.filter((r) => groups.has(r.pgid) || groups.has(r.pid)).map((r) => r.pid));
  for (let grew = true; grew; ) {
    grew = false;
    for (const r of all)
      if (mine.has(r.ppid) && !mine.has(r.pid)) {
        mine.add(r.pid);
        grew = true;
      }
  }
  return [...mine].sort((a, b) => a - b);
}

/** The processes of `pids` still alive (zombies count as gone). */
export function alive(pids: readonly number[]): number[] {
  const wanted = new Set(pids);
  return rows()
    .filter((r) => wanted.has(r.pid) && !r.zombie)
    .map((r) => r.pid);
}

const signal = (pid: number, name: NodeJS.Signals): void => {
  try {
    process.kill(pid, name);
  } catch {
    // Gone already.
  }
};

/** Sends `name` to the groups of `leaders` and to every process of their trees. Synchronous. */
export function signalTree(leaders: readonly number[], name: NodeJS.Signals): void {
  for (const leader of leaders) signal(-leader, name);
  for (const pid of treeOf(leaders)) signal(pid, name);
}

/** Whether every thread of `pid` is stopped (or the process is gone): /proc's state `T` or `t`. */
function stopped(pid: number): boolean {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return true;
  }
  return tasks.every((task) => {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
      return 'TtZX'.includes(stat.charAt(stat.lastIndexOf(')') + 2));
    } catch {
      return true;
    }
  });
}

/** Blocks this thread for `ms` (no event loop turn): for synchronous waits on other processes. */
export const sleepSync = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * SIGSTOPs the trees of `leaders` and waits, synchronously and at most `ms`, until every thread of
 * every process in them is stopped: a SIGSTOP takes effect when each thread next runs, so a
 * process may still answer a request sent just after the signal. Returns the pids not stopped in time.
 */
export function stopTree(leaders: readonly number[], ms: number): number[] {
  signalTree(leaders, 'SIGSTOP');
  const end = Date.now() + ms;
  for (;;) {
    const running = treeOf(leaders).filter((pid) => !stopped(pid));
    if (running.length === 0 || Date.now() >= end) return running;
    // A process forked after the first signals gets one too.
    for (const pid of running) signal(pid, 'SIGSTOP');
    sleepSync(1);
  }
}

/** Stops the trees of `leaders`, collects them until no new process appears, then SIGKILLs them. Synchronous; returns the pids killed. */
export function killTree(leaders: readonly number[]): number[] {
  const seen = new Set<number>();
  for (let round = 0; round < 20; round++) {
    const tree = treeOf(leaders).filter((p) => !seen.has(p));
    if (tree.length === 0 && round > 0) break;
    for (const leader of leaders) signal(-leader, 'SIGSTOP');
    for (const pid of tree) {
      signal(pid, 'SIGSTOP');
      seen.add(pid);
    }
  }
  for (const leader of leaders) signal(-leader, 'SIGKILL');
  for (const pid of seen) signal(pid, 'SIGKILL');
  return [...seen];
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until none of `pids` is alive, polling; false when `ms` ran out first. */
export async function waitGone(pids: readonly number[], ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (alive(pids).length > 0) {
    if (Date.now() >= end) return false;
    await sleep(25);
  }
  return true;
}

/** Starts `argv` in a session of its own, its output appended to `log`; never throws (a start failure is an `error` event). */
export function spawnGroup(
  argv: readonly string[],
  options: { readonly env: NodeJS.ProcessEnv; readonly log: string; readonly cwd?: string },
): ChildProcess {
  const fd = openSync(options.log, 'a');
  try {
    const child = spawn(argv[0] as string, argv.slice(1), {
      detached: true,
      stdio: ['ignore', fd, fd],
      env: options.env,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    });
    child.on('error', () => undefined);
    child.unref();
    return child;
  } finally {
    closeSync(fd);
  }
}

/** The reaper's script: `+pid` adds a leader, `-pid` removes one, `d path` names the folder; at the end of input, kill and remove. */
const REAPER = `
leaders=" "; dir=""
while IFS= read -r line; do
  case "$line" in
    +*) leaders="$leaders\${line#+} " ;;
    -*) leaders="$(printf '%s' "$leaders" | sed "s/ \${line#-} / /")" ;;
    d\\ *) dir="\${line#d }" ;;
  esac
done
for g in $leaders; do kill -STOP -- "-$g" 2>/dev/null; done
tree="$(ps -eo pid=,ppid= | awk -v roots="$leaders" '
  { pid[NR] = $1; parent[NR] = $2 }
  END {
    for (i = 1; i <= NR; i++) if (index(roots, " " pid[i] " ")) mine[pid[i]] = 1
    do { grew = 0
      for (i = 1; i <= NR; i++) if ((parent[i] in mine) && !(pid[i] in mine)) { mine[pid[i]] = 1; grew = 1 }
    } while (grew)
    for (p in mine) print p
  }')"
for g in $leaders; do kill -KILL -- "-$g" 2>/dev/null; done
for p in $tree; do kill -KILL "$p" 2>/dev/null; done
if [ -n "$dir" ]; then sleep 0.2; rm -rf -- "$dir"; fi
`;

/** A process that ends the leaders it was told of, and removes the folder, once this process is gone; see the top of the file. */
export class Reaper {
  private readonly child: ChildProcess;

  constructor(folder: string) {
    this.child = spawn('sh', ['-c', REAPER], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
    this.child.on('error', () => undefined);
    this.child.unref();
    const stdin = this.child.stdin;
    stdin?.on('error', () => undefined);
    (stdin as unknown as { unref?: () => void } | null)?.unref?.();
    this.tell(`d ${folder}`);
  }

  /** The reaper's own process id (tests check that it ends). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Ends `leader`'s tree if this process dies before `release(leader)`. */
  watch(leader: number): void {
    this.tell(`+${leader}`);
  }

  /** `leader`'s tree is gone: forget it (its number may be used again by another process). */
  release(leader: number): void {
    this.tell(`-${leader}`);
  }

  /** Closes the pipe: the reaper ends what it still holds, removes the folder, and exits. */
  finish(): void {
    this.child.stdin?.end();
  }

  private tell(line: string): void {
    if (this.child.stdin?.writable === true) this.child.stdin.write(`${line}\n`);
  }
}
