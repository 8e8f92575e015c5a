/**
 * Reading a file a user named (an artifact, a coverage file, a story, a module) without trusting
 * what sits at that path. A FIFO blocks the reader until someone writes to it, a device such as
 * /dev/zero never ends and reports a size of 0, and a folder fails only once read: none of them is
 * an input. So, before any byte is read:
 * - the path is stat'ed (which opens nothing, so a FIFO or a device is never even opened) and must
 *   be a regular file within the limit;
 * - it is then opened with O_NONBLOCK (an open of a FIFO swapped in meanwhile returns at once) and
 *   O_NOCTTY, and the open descriptor is checked again with fstat: what is read is what was checked;
 * - reading stops one byte past the limit, so a file that grows after the check is refused too.
 * Every refusal is an InputFileError with a stable code and a message saying what the path is
 * instead; callers put the path and the role in front of it.
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { CodedError } from '../../contract/CodedError.ts';

/** Largest module file given to `--module` (node reads it itself, after the check). */
export const MAX_MODULE_BYTES = 64 * 1024 * 1024;
/** Largest story file `jobcheck demo` reads (a fixture is a few KiB). */
export const MAX_STORY_BYTES = 16 * 1024 * 1024;

/** Stable codes of a refused input file. */
export type InputFileErrorCode =
  /** Nothing at the path. */
  | 'not_found'
  /** Something other than a regular file: a folder, a FIFO, a device, a socket. */
  | 'not_a_file'
  /** A regular file over the limit of its kind. */
  | 'too_large'
  /** A regular file that cannot be opened or read (permissions, I/O error). */
  | 'unreadable';

/** A refused input file: stable `code`, the `path`, and for `not_a_file` what it is instead. */
export class InputFileError extends CodedError<InputFileErrorCode> {
  override name = 'InputFileError' as const;
  constructor(
    code: InputFileErrorCode,
    readonly path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

/** What a file system entry is, in words ("a FIFO (named pipe)"); undefined for a regular file. Pure. */
export function kindOf(stats: Stats): string | undefined {
  if (stats.isFile()) return undefined;
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** The refusal of `stats` at `path` as an input of at most `maxBytes`, if it is refused. Pure. */
function refusal(path: string, stats: Stats, maxBytes: number): InputFileError | undefined {
  const kind = kindOf(stats);
  if (kind !== undefined)
    return new InputFileError('not_a_file', path, `it is ${kind}, not a regular file (refused without reading it)`);
  if (stats.size > maxBytes)
    return new InputFileError('too_large', path, `it has ${stats.size} bytes, more than the limit of ${maxBytes}`);
  return undefined;
}

/** An error of the file system at `path` as an InputFileError. */
function fromErrno(path: string, error: unknown): InputFileError {
  if (error instanceof InputFileError) return error;
  const e = error as NodeJS.ErrnoException;
  if (e.code === 'ENOENT' || e.code === 'ENOTDIR')
    return new InputFileError('not_found', path, 'no such file', { cause: error });
  // ENXIO: open() of a socket, or of a FIFO for writing; neither is a file to read.
  if (e.code === 'ENXIO') {
    return new InputFileError('not_a_file', path, 'it is not a regular file (refused without reading it)', {
      cause: error,
    });
  }
  return new InputFileError('unreadable', path, `cannot read it: ${e.message}`, { cause: error });
}

/**
 * Checks that `path` is a regular file of at most `maxBytes` without opening it: for a file that
 * something else reads (a module node imports). Throws InputFileError.
 */
export function checkInputFile(path: string, maxBytes: number): void {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch (error) {
    throw fromErrno(path, error);
  }
  const refused = refusal(path, stats, maxBytes);
  if (refused !== undefined) throw refused;
}

/** What is wrong with `path` as an input of at most `maxBytes` ("no such file", "it is a folder, ..."), or undefined. */
export function inputFileProblem(path: string, maxBytes: number): string | undefined {
  try {
    checkInputFile(path, maxBytes);
    return undefined;
  } catch (error) {
    return (error as InputFileError).message;
  }
}

// O_NONBLOCK: an open of a FIFO does not wait for a writer; O_NOCTTY: a terminal never becomes ours.
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;
const CHUNK = 1 << 20;

/** The bytes read so far as one buffer, or a `too_large` refusal once they pass `maxBytes`. */
function collect(path: string, chunks: Buffer[], total: number, maxBytes: number): string {
  if (total > maxBytes)
    throw new InputFileError('too_large', path, `it has more than the limit of ${maxBytes} bytes (it grew while read)`);
  return Buffer.concat(chunks, total).toString('utf8');
}

/**
 * Reads `path` as UTF-8 text once it is known to be a regular file of at most `maxBytes`
 * (module header). Throws InputFileError; never blocks on a FIFO or reads a device.
 */
export async function readInputFile(path: string, maxBytes: number): Promise<string> {
  checkInputFile(path, maxBytes);
  let handle: FileHandle;
  try {
    handle = await open(path, OPEN_FLAGS);
  } catch (error) {
    throw fromErrno(path, error);
  }
  try {
    const refused = refusal(path, await handle.stat(), maxBytes);
    if (refused !== undefined) throw refused;
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const { bytesRead, buffer } = await handle.read(Buffer.alloc(CHUNK), 0, CHUNK, null);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) break;
    }
    return collect(path, chunks, total, maxBytes);
  } catch (error) {
    throw fromErrno(path, error);
  } finally {
    await handle.close();
  }
}

/** readInputFile, synchronously: for callers that are synchronous themselves. Throws InputFileError. */
export function readInputFileSync(path: string, maxBytes: number): string {
  checkInputFile(path, maxBytes);
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    throw fromErrno(path, error);
  }
  try {
    const refused = refusal(path, fstatSync(fd), maxBytes);
    if (refused !== undefined) throw refused;
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buffer = Buffer.alloc(CHUNK);
      const bytesRead = readSync(fd, buffer, 0, CHUNK, null);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) break;
    }
    return collect(path, chunks, total, maxBytes);
  } catch (error) {
    throw fromErrno(path, error);
  } finally {
    closeSync(fd);
  }
}
