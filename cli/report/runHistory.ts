/**
 * The history of runs under a report directory: `runs/<time>-<verdict>/`, one folder a run, and
 * `latest`, a relative symbolic link to the newest finished one (`runs/<name>`). Where a link
 * cannot be made (Windows without the right, some file systems, a `latest` that is a real
 * folder), `latest.txt` holds the name instead.
 *
 * Pruning deletes only folders whose names are run folders' names as jobcheck writes them, oldest
 * first; never the run just made, never a run that may still be going (`-running` and younger than
 * the longest time limit a check accepts), and never a name that lies in the future (a clock
 * ahead, or a name made by hand), which it neither deletes nor counts: anything else in the report
 * directory (the flat files CI reads, a user's own files) is left alone. `runs/` is a real folder,
 * never a link; what is read back (latest.txt, run.json) is read within a limit, never blocking.
 */
import { mkdir, readlink, rename, rm, symlink, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { walkFolder } from '../../conformance/outside/folderWalk.ts';
import { InputFileError, readInputFile } from '../../conformance/outside/inputFile.ts';
import { makeInnerFolder, makeOutputFolder, writeOutputFile } from '../../conformance/outside/outputFile.ts';
import type { RunFolderVerdict } from './runName.ts';
import { parseRunFolderName, renamedRun, runFolderName } from './runName.ts';
import { RUN_RECORD_FILE, RunRecordError, readRunRecordSized } from './runRecord.ts';
import type { RunRecord } from './runRecord.ts';

/** Default report directory of `jobcheck check` and `jobcheck report`. */
export const DEFAULT_REPORT_DIR = '.jobcheck/report';
/** The page of a run folder. */
export const PAGE_FILE = 'index.html';
/** The folder of the runs, inside the report directory. */
export const RUNS_DIR = 'runs';
/** The link to the newest run, inside the report directory. */
export const LATEST_LINK = 'latest';
/** The file naming the newest run where the link cannot be made. */
export const LATEST_FILE = 'latest.txt';
/** Runs kept by default (`--keep-runs`). */
export const DEFAULT_KEEP_RUNS = 20;
/** A `-running` folder older than this (a day: the longest time limit of a check) is a run that was killed. */
export const RUNNING_FOR_AT_MOST_MS = 86_400_000;
/** Most entries read from `runs/` (the runs kept are at most 10,000), counted as they are read. */
export const MAX_RUNS_ENTRIES = 100_000;
/** Largest latest.txt read back: it holds one folder's name. */
export const MAX_LATEST_FILE_BYTES = 4096;
/** Most bytes of run.json files one listing reads, all runs together; runs past it are listed unread. */
export const MAX_LISTED_RECORD_BYTES = 32 * 1024 * 1024;

const errno = (error: unknown): string | undefined => (error as { code?: string }).code;

/** Creates the folder of a run starting at `at`, named `-running` until it ends; returns its name. */
export async function startRun(root: string, at: Date): Promise<string> {
  await makeOutputFolder(root);
  await makeInnerFolder(join(root, RUNS_DIR));
  // Two runs in the same millisecond get the next free one: names stay unique and in order.
  for (let ms = at.getTime(); ; ms++) {
    const name = runFolderName(new Date(ms), 'running');
    try {
      await mkdir(join(root, RUNS_DIR, name));
      return name;
    } catch (error) {
      if (errno(error) !== 'EEXIST' || ms > at.getTime() + 1000) throw error;
    }
  }
}

/** Renames a running run's folder to its verdict; returns the new name. */
export async function endRun(
  root: string,
  name: string,
  verdict: Exclude<RunFolderVerdict, 'running'>,
): Promise<string> {
  const final = renamedRun(name, verdict);
  await rename(join(root, RUNS_DIR, name), join(root, RUNS_DIR, final));
  return final;
}

/**
 * Points `latest` at `runs/<name>` (a relative link, replaced atomically), or, where no link can
 * be made, writes the name into latest.txt. Returns the path of the newest run as reached from
 * `root` through the link (`latest`), or through its own name when there is none.
 */
export async function markLatest(root: string, name: string): Promise<string> {
  const link = join(root, LATEST_LINK);
  const temporary = join(root, `.${LATEST_LINK}-${process.pid}-${Date.now()}`);
  try {
    await symlink(join(RUNS_DIR, name), temporary, 'dir');
    try {
      await rename(temporary, link);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
    await rm(join(root, LATEST_FILE), { force: true });
    return LATEST_LINK;
  } catch {
    await writeOutputFile(join(root, LATEST_FILE), `${name}\n`);
    return join(RUNS_DIR, name);
  }
}

/**
 * The name of the newest run `latest` (or latest.txt) points at, or undefined when there is none.
 * A latest.txt that is not a regular file within its limit is an InputFileError.
 */
export async function latestRun(root: string): Promise<string | undefined> {
  const target = await readlink(join(root, LATEST_LINK)).catch(() => undefined);
  const name =
    target?.split(/[\\/]/).pop() ??
    (await readInputFile(join(root, LATEST_FILE), MAX_LATEST_FILE_BYTES).then(
      (t) => t.trim(),
      (error: unknown) => {
        if (error instanceof InputFileError && error.code === 'not_found') return undefined;
        throw error;
      },
    ));
  return name !== undefined && parseRunFolderName(name) !== undefined ? name : undefined;
}

/**
 * The run folders under `root` (folders, not links, with a run folder's name), oldest first.
 * `runs/` is read without following a link in it, at most MAX_RUNS_ENTRIES entries (WalkError).
 */
export async function runFolders(root: string): Promise<string[]> {
  const folders: string[] = [];
  try {
    for await (const entry of walkFolder(join(root, RUNS_DIR), { maxEntries: MAX_RUNS_ENTRIES, recursive: false }))
      if (entry.kind === 'folder' && parseRunFolderName(entry.name) !== undefined) folders.push(entry.name);
  } catch (error) {
    if (errno((error as { cause?: unknown }).cause) === 'ENOENT') return [];
    throw error;
  }
  return folders.sort();
}

/** Whether a run folder may be deleted now: finished, or `-running` for longer than any check runs, and not in the future. Pure. */
export function isPrunable(name: string, now: Date): boolean {
  const parsed = parseRunFolderName(name);
  if (parsed === undefined) return false;
  const age = now.getTime() - Date.parse(parsed.time);
  if (age < 0) return false;
  return parsed.verdict !== 'running' || age > RUNNING_FOR_AT_MOST_MS;
}

/** Options of pruneRuns. */
export interface PruneOptions {
  /** The time the names are read against (default: now): names after it are neither deleted nor counted. */
  readonly now?: Date;
  /** The run just made: never deleted, and counted as one of those kept. */
  readonly justMade?: string;
}

/**
 * Deletes the oldest run folders until at most `keep` remain (a run that may still be going, or
 * whose name lies in the future, is neither deleted nor counted against them; the run just made
 * is never deleted); returns the names deleted. Nothing but run folders is touched.
 */
export async function pruneRuns(root: string, keep: number, options: PruneOptions = {}): Promise<string[]> {
  const now = options.now ?? new Date();
  const others = (await runFolders(root)).filter((n) => n !== options.justMade && isPrunable(n, now));
  const kept = options.justMade === undefined ? keep : keep - 1;
  const doomed = others.slice(0, Math.max(0, others.length - kept));
  for (const name of doomed) await rm(join(root, RUNS_DIR, name), { recursive: true, force: true });
  return doomed;
}

/** A run of the history as `jobcheck report --list` shows it: its record, or why it has none. */
export type ListedRun =
  | { readonly folder: string; readonly record: RunRecord }
  | { readonly folder: string; readonly error: RunRecordError };

/**
 * The runs under `root`, newest first, each with its run.json or the error reading it. Records
 * are read one at a time, each within its limit, and all together within MAX_LISTED_RECORD_BYTES:
 * the runs past that are listed with an error saying so, unread.
 */
export async function listRuns(root: string): Promise<ListedRun[]> {
  const folders = (await runFolders(root)).reverse();
  const listed: ListedRun[] = [];
  let bytes = 0;
  for (const name of folders) {
    const folder = join(root, RUNS_DIR, name);
    const file = join(folder, RUN_RECORD_FILE);
    if (bytes > MAX_LISTED_RECORD_BYTES) {
      const why = `${file}: not read, the runs listed before it hold more than ${MAX_LISTED_RECORD_BYTES} bytes of run.json`;
      listed.push({ folder, error: new RunRecordError('run_record_unreadable', file, '(root)', why) });
      continue;
    }
    try {
      const { record, size } = await readRunRecordSized(file);
      bytes += size;
      listed.push({ folder, record });
    } catch (error) {
      if (!(error instanceof RunRecordError)) throw error;
      listed.push({ folder, error });
    }
  }
  return listed;
}
