/**
 * The history of runs under a report directory: `runs/<time>-<verdict>/`, one folder a run, and
 * `latest`, a relative symbolic link to the newest finished one (`runs/<name>`). Where a link
 * cannot be made (Windows without the right, some file systems, a `latest` that is a real
 * folder), `latest.txt` holds the name instead.
 *
 * Pruning deletes only folders whose names are run folders' names, oldest first, and never a run
 * that may still be going (`-running` and younger than the longest time limit a check accepts):
 * anything else in the report directory (the flat files CI reads, a user's own files) is left alone.
 */
import { lstat, mkdir, readdir, readFile, readlink, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunFolderVerdict } from './runName.ts';
import { parseRunFolderName, renamedRun, runFolderName } from './runName.ts';
import { RUN_RECORD_FILE, RunRecordError, readRunRecord } from './runRecord.ts';
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

const errno = (error: unknown): string | undefined => (error as { code?: string }).code;

/** Creates the folder of a run starting at `at`, named `-running` until it ends; returns its name. */
export async function startRun(root: string, at: Date): Promise<string> {
  await mkdir(join(root, RUNS_DIR), { recursive: true });
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
    await writeFile(join(root, LATEST_FILE), `${name}\n`);
    return join(RUNS_DIR, name);
  }
}

/** The name of the newest run `latest` (or latest.txt) points at, or undefined when there is none. */
export async function latestRun(root: string): Promise<string | undefined> {
  const target = await readlink(join(root, LATEST_LINK)).catch(() => undefined);
  const name =
    target?.split(/[\\/]/).pop() ??
    (await readFile(join(root, LATEST_FILE), 'utf8').then(
      (t) => t.trim(),
      () => undefined,
    ));
  return name !== undefined && parseRunFolderName(name) !== undefined ? name : undefined;
}

/** The run folders under `root` (folders, not links, with a run folder's name), oldest first. */
export async function runFolders(root: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(join(root, RUNS_DIR));
  } catch (error) {
    if (errno(error) === 'ENOENT') return [];
    throw error;
  }
  const folders: string[] = [];
  for (const name of names.filter((n) => parseRunFolderName(n) !== undefined).sort()) {
    const info = await lstat(join(root, RUNS_DIR, name)).catch(() => undefined);
    if (info?.isDirectory() === true) folders.push(name);
  }
  return folders;
}

/** Whether a run folder may be deleted now: finished, or `-running` for longer than any check runs. Pure. */
export function isPrunable(name: string, now: Date): boolean {
  const parsed = parseRunFolderName(name);
  if (parsed === undefined) return false;
  return parsed.verdict !== 'running' || now.getTime() - Date.parse(parsed.time) > RUNNING_FOR_AT_MOST_MS;
}

/**
 * Deletes the oldest run folders until at most `keep` remain (a run that may still be going is
 * neither deleted nor counted against them); returns the names deleted. Nothing but run folders is touched.
 */
export async function pruneRuns(root: string, keep: number, now: Date = new Date()): Promise<string[]> {
  const prunable = (await runFolders(root)).filter((n) => isPrunable(n, now));
  const doomed = prunable.slice(0, Math.max(0, prunable.length - keep));
  for (const name of doomed) await rm(join(root, RUNS_DIR, name), { recursive: true, force: true });
  return doomed;
}

/** A run of the history as `jobcheck report --list` shows it: its record, or why it has none. */
export type ListedRun =
  | { readonly folder: string; readonly record: RunRecord }
  | { readonly folder: string; readonly error: RunRecordError };

/** The runs under `root`, newest first, each with its run.json or the error reading it. */
export async function listRuns(root: string): Promise<ListedRun[]> {
  const folders = (await runFolders(root)).reverse();
  return Promise.all(
    folders.map(async (name): Promise<ListedRun> => {
      const folder = join(root, RUNS_DIR, name);
      try {
        return { folder, record: await readRunRecord(join(folder, RUN_RECORD_FILE)) };
      } catch (error) {
        if (error instanceof RunRecordError) return { folder, error };
        throw error;
      }
    }),
  );
}
