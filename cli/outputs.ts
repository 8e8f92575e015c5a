/**
 * Output destinations, checked before any work starts: a report directory, a file in it, or a
 * `--junit`, `--markdown` or `--out` file that cannot be written is an error at once (exit 2,
 * naming the path), not after a whole check has run or, worse, a write that blocks on a FIFO.
 * Folders are made one level at a time and proven writable by a probe file; every file that will
 * be written must be a regular file or absent, never a link, a FIFO, a device or a folder
 * (conformance/outside/outputFile.ts, which also does the writing itself).
 */
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  OutputFileError,
  checkOutputFile,
  makeInnerFolder,
  makeOutputFolder,
  writeOutputFile,
} from '../conformance/outside/outputFile.ts';
import { SetupError } from './args.ts';

const reason = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * A failure to write `what` at `path` told as a SetupError of `command`, naming the path the
 * OutputFileError names when it is one (a file inside `path`). Pure.
 */
export const outputError = (command: string, what: string, path: string, error: unknown): SetupError =>
  new SetupError(
    `${command}: cannot write ${what} ${error instanceof OutputFileError ? error.path : path}: ${reason(error)}`,
    { cause: error },
  );

/** Creates `dir` and any missing parents, one level at a time, and proves it writable; throws SetupError. Returns the absolute path. */
export async function prepareOutputDir(command: string, what: string, dir: string): Promise<string> {
  const target = await makeOutputFolder(dir).catch((error: unknown) => {
    throw new SetupError(`${command}: cannot use ${what} ${dir}: ${reason(error)}`, { cause: error });
  });
  const probe = join(target, `.jobcheck-probe-${process.pid}-${Date.now()}`);
  try {
    await writeOutputFile(probe, '', { exclusive: true });
    await rm(probe);
  } catch (error) {
    throw new SetupError(`${command}: cannot write into ${what} ${dir}: ${reason(error)}`, { cause: error });
  }
  return target;
}

/** The files a coverage report writes into its directory. */
export const COVERAGE_FILES = ['coverage.json', 'coverage.md', 'coverage.html'] as const;

/** Checks that each of `names` in `dir` is a regular file or absent; throws SetupError naming the first that is not. */
async function checkFilesIn(command: string, dir: string, names: readonly string[]): Promise<void> {
  for (const name of names) {
    const file = join(dir, name);
    await checkOutputFile(file).catch((error: unknown) => {
      throw outputError(command, 'the report file', file, error);
    });
  }
}

/** Makes sure a directory that will hold a coverage report exists, is writable, and holds no coverage file that cannot be written. */
export async function prepareCoverageDir(command: string, dir: string): Promise<void> {
  await prepareOutputDir(command, 'the report directory', dir);
  await checkFilesIn(command, dir, COVERAGE_FILES);
}

/** What else a report directory holds, beside its coverage report and failure.json. */
export interface ReportDirOptions {
  /** Run folders (`runs/`) and the `latest.txt` that may name one, as `jobcheck check` writes them. */
  readonly runs?: { readonly runsDir: string; readonly latestFile: string };
}

/**
 * Makes sure the report directory exists and is writable, that every file the command writes
 * there can be, and removes a `failure.json` left by an earlier run there (an agreeing run writes
 * none, and an old one must not be taken for its own). With `runs`, the run folders' folder is
 * made, and must be a real folder, not a link out of the report directory.
 */
export async function prepareReportDir(command: string, dir: string, options: ReportDirOptions = {}): Promise<void> {
  await prepareCoverageDir(command, dir);
  const runs = options.runs;
  if (runs !== undefined) {
    await checkFilesIn(command, dir, [runs.latestFile]);
    const folder = join(dir, runs.runsDir);
    await makeInnerFolder(folder).catch((error: unknown) => {
      throw outputError(command, "the run folders' folder", folder, error);
    });
  }
  // Unlinked, never followed or opened: a link, a FIFO or a device named failure.json just goes.
  await rm(join(dir, 'failure.json'), { force: true }).catch((error: unknown) => {
    throw new SetupError(`${command}: cannot remove the old failure.json in ${dir}: ${reason(error)}`);
  });
}

/** Makes sure `file` can be written: its directory exists (or is created) and it is a regular file or absent. */
export async function prepareOutputFile(command: string, what: string, file: string): Promise<void> {
  await prepareOutputDir(command, `the directory of ${what}`, dirname(file));
  await checkOutputFile(file).catch((error: unknown) => {
    throw outputError(command, what, file, error);
  });
}

/** Writes `data` to `file` (regular or absent, never followed through a link, never blocking); throws SetupError. */
export async function writeOutput(
  command: string,
  what: string,
  file: string,
  data: string,
  options: { append?: boolean } = {},
): Promise<void> {
  await writeOutputFile(file, data, options).catch((error: unknown) => {
    throw outputError(command, what, file, error);
  });
}
