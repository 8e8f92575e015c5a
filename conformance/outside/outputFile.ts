/**
 * Writing at a path from outside (a report directory, `--junit`, `--markdown`, `--out`, the GitHub
 * files) without trusting what sits there. A FIFO blocks an ordinary open(2) until a reader comes,
 * in a libuv thread that process.exit waits for, so the process stops hearing signals; a device
 * such as /dev/full fails only once written; a link carries the write out of the folder. So:
 * - a destination is a regular file or nothing: `checkOutputFile` looks with lstat (which opens
 *   nothing) and refuses a link, a FIFO, a device, a socket or a folder, before any work;
 * - `writeOutputFile` opens with O_NOFOLLOW (a link is refused, never followed), O_NONBLOCK (a FIFO
 *   without a reader fails at once, ENXIO) and O_NOCTTY, and checks the open descriptor with fstat
 *   before a byte is written: what is written is a regular file, whatever was swapped in meanwhile;
 * - folders are made one level at a time (Node's recursive mkdir spins for ever on /proc/x), and a
 *   folder inside an output folder (`runs/`) must be a real folder, not a link out of it. The
 *   folder a user names is taken as named: its own path may pass through links.
 * Every write is asynchronous. Every refusal is an OutputFileError with a stable code, the path,
 * and a message saying what the path is instead; callers put the command and the role in front.
 */
import { constants } from 'node:fs';
import type { Stats } from 'node:fs';
import { access, lstat, mkdir, open, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { CodedError } from '../../contract/CodedError.ts';
import { kindOf } from './inputFile.ts';

/** Stable codes of a refused destination. */
export type OutputFileErrorCode =
  /** Something other than a regular file where a file is written: a FIFO, a device, a socket, a folder. */
  | 'not_a_file'
  /** A symbolic link where a file or a folder is written: jobcheck writes nothing through one. */
  | 'link'
  /** Something other than a folder where a folder is needed (on the way to a file, or `runs/`). */
  | 'not_a_folder'
  /** A regular file or folder that cannot be created or written (permissions, a full disk, /proc). */
  | 'unwritable';

/** A refused destination: stable `code`, the `path`, and a message saying what is wrong with it. */
export class OutputFileError extends CodedError<OutputFileErrorCode> {
  override name = 'OutputFileError' as const;
  constructor(
    code: OutputFileErrorCode,
    readonly path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

const errno = (error: unknown): string | undefined => (error as { code?: string }).code;
const reason = (error: unknown): string => (error instanceof Error ? error.message : String(error));
const LINK = 'it is a symbolic link (jobcheck writes nothing through a link)';

/** The refusal of what lstat found at `path` as a file to write, if it is refused. Pure. */
function fileRefusal(path: string, stats: Stats): OutputFileError | undefined {
  if (stats.isSymbolicLink()) return new OutputFileError('link', path, LINK);
  const kind = kindOf(stats);
  if (kind === undefined) return undefined;
  return new OutputFileError('not_a_file', path, `it is ${kind}, not a regular file (refused without opening it)`);
}

/** An error of the file system at `path` as an OutputFileError. */
function fromErrno(path: string, error: unknown): OutputFileError {
  if (error instanceof OutputFileError) return error;
  switch (errno(error)) {
    case 'ELOOP':
      return new OutputFileError('link', path, LINK, { cause: error });
    // ENXIO: open(2) of a FIFO without a reader, or of a socket, with O_NONBLOCK.
    case 'ENXIO':
      return new OutputFileError('not_a_file', path, 'it is a FIFO or a socket, not a regular file', { cause: error });
    case 'EISDIR':
      return new OutputFileError('not_a_file', path, 'it is a folder, not a regular file', { cause: error });
    case 'ENOTDIR':
      return new OutputFileError('not_a_folder', path, 'a part of its path is not a folder', { cause: error });
    // Opened with O_CREAT: the file itself may be missing, not its folder.
    case 'ENOENT':
      return new OutputFileError('not_a_folder', path, 'its folder does not exist', { cause: error });
    default:
      return new OutputFileError('unwritable', path, `cannot write it: ${reason(error)}`, { cause: error });
  }
}

/**
 * Checks that `path` can be written as a file: nothing is there (its folder then must exist), or
 * a regular file that may be written. Opens nothing. Throws OutputFileError.
 */
export async function checkOutputFile(path: string): Promise<void> {
  let stats: Stats;
  try {
    stats = await lstat(path);
  } catch (error) {
    if (errno(error) !== 'ENOENT') throw fromErrno(path, error);
    await checkFolder(dirname(path));
    return;
  }
  const refused = fileRefusal(path, stats);
  if (refused !== undefined) throw refused;
  await access(path, constants.W_OK).catch((error: unknown) => {
    throw fromErrno(path, error);
  });
}

/** Checks that `dir` is a folder, reached as named (a user's own path may pass through links). Throws OutputFileError. */
async function checkFolder(dir: string): Promise<void> {
  const stats = await stat(dir).catch((error: unknown) => {
    throw errno(error) === 'ENOENT'
      ? new OutputFileError('not_a_folder', dir, 'no such folder', { cause: error })
      : fromErrno(dir, error);
  });
  if (!stats.isDirectory())
    throw new OutputFileError('not_a_folder', dir, `it is ${kindOf(stats) ?? 'a regular file'}, not a folder`);
}

/**
 * Makes the folder `dir` and any missing parents, one level at a time (never `recursive`, which
 * spins on a path such as /proc/x), and returns its absolute path. The path as named may pass
 * through links. Throws OutputFileError.
 */
export async function makeOutputFolder(dir: string): Promise<string> {
  const target = resolve(dir);
  const missing: string[] = [];
  for (let current = target; ; ) {
    const stats = await lstat(current).catch((error: unknown) => {
      if (errno(error) === 'ENOENT') return undefined;
      throw fromErrno(dir, error);
    });
    if (stats === undefined) {
      missing.unshift(current);
      const parent = dirname(current);
      if (parent === current) throw new OutputFileError('not_a_folder', dir, 'no part of its path exists');
      current = parent;
      continue;
    }
    await checkFolder(current).catch((error: unknown) => {
      throw new OutputFileError('not_a_folder', dir, `${current} is not a folder`, { cause: error });
    });
    break;
  }
  for (const level of missing) {
    await mkdir(level).catch((error: unknown) => {
      if (errno(error) === 'EEXIST') return;
      throw new OutputFileError('unwritable', dir, `cannot make the folder ${level}: ${reason(error)}`, {
        cause: error,
      });
    });
  }
  return target;
}

/**
 * Makes `dir`, a folder inside an output folder (`runs/` of a report directory), unless it is
 * there: what is there must be a real folder, not a link out of the output folder, nor anything
 * else. Throws OutputFileError.
 */
export async function makeInnerFolder(dir: string): Promise<void> {
  const stats = await lstat(dir).catch((error: unknown) => {
    if (errno(error) === 'ENOENT') return undefined;
    throw fromErrno(dir, error);
  });
  if (stats === undefined) {
    await mkdir(dir).catch((error: unknown) => {
      if (errno(error) !== 'EEXIST') throw fromErrno(dir, error);
    });
    return makeInnerFolder(dir);
  }
  if (stats.isSymbolicLink()) throw new OutputFileError('link', dir, LINK);
  if (!stats.isDirectory())
    throw new OutputFileError('not_a_folder', dir, `it is ${kindOf(stats) ?? 'a regular file'}, not a folder`);
}

// O_NOFOLLOW: a link is refused (ELOOP), never followed; O_NONBLOCK: a FIFO never blocks the open;
// O_NOCTTY: a terminal never becomes ours. O_NOFOLLOW is 0 where the platform has none.
const WRITE_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0) | constants.O_NONBLOCK | constants.O_NOCTTY;

/** Options of writeOutputFile. */
export interface WriteOutputOptions {
  /** Append to the file instead of replacing what it holds (the GitHub files). */
  readonly append?: boolean;
  /** Create the file, refusing one that exists (a file in a folder just made). */
  readonly exclusive?: boolean;
}

/**
 * Writes `data` to `path`, a regular file or nothing (module header): opened without following a
 * link and without blocking, checked with fstat before a byte is written. Throws OutputFileError.
 */
export async function writeOutputFile(
  path: string,
  data: string | Uint8Array,
  options: WriteOutputOptions = {},
): Promise<void> {
  const flags =
    WRITE_FLAGS |
    (options.append === true ? constants.O_APPEND : 0) |
    (options.exclusive === true ? constants.O_EXCL : 0);
  let handle: FileHandle;
  try {
    handle = await open(path, flags, 0o666);
  } catch (error) {
    throw fromErrno(path, error);
  }
  try {
    const refused = fileRefusal(path, await handle.stat());
    if (refused !== undefined) throw refused;
    // Replaced only once known to be a regular file (O_TRUNC at open would act before the check).
    if (options.append !== true) await handle.truncate(0);
    await handle.writeFile(data);
  } catch (error) {
    throw fromErrno(path, error);
  } finally {
    await handle.close();
  }
}
