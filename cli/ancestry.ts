/**
 * The processes above the harness, as Linux shows them in /proc, and the wrappers among them.
 * `npx jobcheck` (and `npm exec`, `npm run`) starts the harness two processes down: npm runs a
 * `sh -c`, which runs the harness. npm dies of SIGHUP or SIGKILL without a word to its shell,
 * which lives on, so the harness's own parent tells it nothing. Such wrappers have no life of
 * their own: the harness looks through them. Each wrapper above it, from its parent up to the
 * first process that is none, must keep the parent it had at start (cli/followParent.ts); a
 * wrapper gone, or reparented because the process above it is gone, means the harness is orphaned.
 * - A wrapper is a shell running a command string (`sh -c`) or a package runner (npm, npx, pnpm,
 *   yarn: their node process, or the title npm gives it, `npm exec …`).
 * - A process is told apart from a later one given its pid by its start time (stat field 22).
 * - Without /proc (another system than Linux) nothing is read: no wrapper is looked through.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

/** Shells that run a command string given after `-c`. */
const SHELLS = new Set(['sh', 'dash', 'bash', 'zsh', 'ksh', 'mksh', 'ash', 'busybox']);
/** Package runners, by the name of their executable or script (`npx-cli.js`, `pnpm.cjs`). */
const RUNNER = /^(?:npm|npx|pnpm|pnpx|yarn|yarnpkg)(?:-cli)?(?:\.c?js)?$/;
/** How many processes above the harness are read at most. */
export const MAX_ANCESTORS = 8;

/** One process above the harness, as /proc showed it: its pid and the text of its stat and cmdline files. */
export interface Ancestor {
  readonly pid: number;
  readonly stat: string;
  readonly cmdline: string;
}

/** A wrapper that must keep its parent: its pid, its start time, and the pid of the parent it had at start. */
export interface WrapperLink {
  readonly pid: number;
  readonly start: string;
  readonly parent: number;
}

/** Reads `/proc/<pid>/<file>` (undefined when it cannot be read). */
export type ProcReader = (pid: number, file: 'cmdline' | 'status' | 'stat') => string | undefined;

/** The default ProcReader: the file system. */
export const readProc: ProcReader = (pid, file) => {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'latin1');
  } catch {
    return undefined;
  }
};

/** The state, parent pid and start time in a `/proc/<pid>/stat` text (undefined if it is not one). Pure. */
export function parseStat(stat: string): { state: string; ppid: number; start: string } | undefined {
  // The command name, in parentheses, may hold spaces and parentheses itself: the fields start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [state, ppid, start] = [fields[0], Number(fields[1]), fields[19]];
  if (stat.lastIndexOf(')') < 0 || state === undefined || !Number.isInteger(ppid) || start === undefined)
    return undefined;
  return { state, ppid, start };
}

/** True when `cmdline` (NUL-separated, as /proc gives it) is a shell running a command string (`sh -c …`). Pure. */
export function isCommandShell(cmdline: string): boolean {
  const [argv0 = '', flag = ''] = cmdline.split('\0');
  return SHELLS.has(basename(argv0.replace(/^-/, ''))) && /^-[a-z]*c[a-z]*$/.test(flag);
}

/** True when `cmdline` is a package runner: `node …/npx-cli.js`, `npm`, or npm's title `npm exec …`. Pure. */
export function isPackageRunner(cmdline: string): boolean {
  const [argv0 = '', argv1 = ''] = cmdline.split('\0');
  const name = basename(argv0);
  return (
    RUNNER.test(name) ||
    RUNNER.test(argv0.split(' ')[0] ?? '') ||
    (/^node(?:js)?$/.test(name) && RUNNER.test(basename(argv1)))
  );
}

/** True when `cmdline` is a wrapper the harness looks through (module header). Pure. */
export const isWrapper = (cmdline: string): boolean => isCommandShell(cmdline) || isPackageRunner(cmdline);

/**
 * Reads the processes above the harness from `parent` up: at most MAX_ANCESTORS, none at or
 * below pid 1, stopping at the first that cannot be read (bin/jobcheck.js does the same at the
 * very start, before the slow part of it).
 */
export function readAncestry(parent: number, proc: ProcReader = readProc): Ancestor[] {
  const ancestry: Ancestor[] = [];
  for (let pid = parent; pid > 1 && ancestry.length < MAX_ANCESTORS; ) {
    const stat = proc(pid, 'stat');
    const cmdline = proc(pid, 'cmdline');
    const parsed = stat === undefined ? undefined : parseStat(stat);
    if (stat === undefined || cmdline === undefined || parsed === undefined) break;
    ancestry.push({ pid, stat, cmdline });
    pid = parsed.ppid;
  }
  return ancestry;
}

/**
 * The links to follow: one for each wrapper from the first of `ancestry` (the harness's parent)
 * up to the first process that is none, to the parent it had when read, unless that is init.
 * Checked in this order, the lowest link broken names the first process gone. Pure.
 */
export function wrapperLinks(ancestry: readonly Ancestor[]): WrapperLink[] {
  const links: WrapperLink[] = [];
  for (const { pid, stat, cmdline } of ancestry) {
    const parsed = parseStat(stat);
    if (!isWrapper(cmdline) || parsed === undefined) break;
    if (parsed.ppid > 1) links.push({ pid, start: parsed.start, parent: parsed.ppid });
  }
  return links;
}

/**
 * The pid of the process found gone on `link`, given the wrapper's stat now: its parent when it was
 * reparented; the wrapper itself when it is dead or its pid is another process's; undefined when the
 * link holds. A stat that could not be read (undefined) tells nothing: a full table of file
 * descriptors must not end a check, and a wrapper that is gone shows in the link below it, or in the
 * harness's own parent. Pure.
 */
export function brokenLink(link: WrapperLink, stat: string | undefined): number | undefined {
  const now = stat === undefined ? undefined : parseStat(stat);
  if (now === undefined) return undefined;
  if (now.start !== link.start || now.state === 'Z' || now.state === 'X') return link.pid;
  return now.ppid === link.parent ? undefined : link.parent;
}

/** The ancestry bin/jobcheck.js recorded, if `value` is one. Pure. */
export function asAncestry(value: unknown): Ancestor[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const ok = value.every(
    (a: unknown) =>
      typeof a === 'object' &&
      a !== null &&
      typeof (a as Ancestor).pid === 'number' &&
      typeof (a as Ancestor).stat === 'string' &&
      typeof (a as Ancestor).cmdline === 'string',
  );
  return ok ? (value as Ancestor[]) : undefined;
}
