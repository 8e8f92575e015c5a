import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OutputFileError, checkOutputFile, makeInnerFolder, makeOutputFolder, writeOutputFile } from './outputFile.ts';

/**
 * What may be written as an output file: a regular file or nothing, never through a link, never
 * blocking. A FIFO nobody reads would block an ordinary open for ever, so each FIFO case would hang
 * (and hit the test's timeout) if the file were opened the ordinary way.
 */
const dir = mkdtempSync(join(tmpdir(), 'jobcheck-output-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fifo = join(dir, 'pipe.xml');
const folder = join(dir, 'folder.xml');
const outside = join(dir, 'outside.txt');
const link = join(dir, 'link.xml');
mkdirSync(folder);
writeFileSync(outside, 'not ours\n');
symlinkSync(outside, link);
if (process.platform !== 'win32') execFileSync('mkfifo', [fifo]);

const refusal = async (write: () => Promise<unknown>): Promise<{ code: string; message: string } | undefined> => {
  try {
    await write();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(OutputFileError);
    return { code: (error as OutputFileError).code, message: (error as OutputFileError).message };
  }
};

describe.skipIf(process.platform === 'win32')('output files', () => {
  it('writes a new file, replaces one, and appends to one', async () => {
    const file = join(dir, 'report.md');
    await checkOutputFile(file);
    await writeOutputFile(file, 'first, and longer\n');
    await writeOutputFile(file, 'second\n');
    await writeOutputFile(file, 'third\n', { append: true });
    expect(readFileSync(file, 'utf8')).toBe('second\nthird\n');
    await expect(writeOutputFile(file, 'x', { exclusive: true })).rejects.toMatchObject({ code: 'unwritable' });
  });

  it.each([
    ['a FIFO nobody reads', fifo, 'not_a_file', /^it is a FIFO \(named pipe\), not a regular file/],
    ['a folder', folder, 'not_a_file', /^it is a folder, not a regular file/],
    ['/dev/full', '/dev/full', 'not_a_file', /^it is a character device, not a regular file/],
    ['a link to a regular file', link, 'link', /^it is a symbolic link/],
    ['a file in a missing folder', join(dir, 'missing', 'x.xml'), 'not_a_folder', /^no such folder/],
  ])('refuses %s, before any work and when written, with a stable code', async (_name, path, code, message) => {
    const checked = await refusal(() => checkOutputFile(path));
    expect(checked?.code).toBe(code);
    expect(checked?.message).toMatch(message);
    const written = await refusal(() => writeOutputFile(path, 'data'));
    expect(written?.code).toBe(code);
    expect(readFileSync(outside, 'utf8')).toBe('not ours\n');
  });

  it('refuses a FIFO that a reader holds open, without writing into it', async () => {
    // The reader's open does not block (O_NONBLOCK); the writer's open then succeeds, and fstat refuses it.
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      await expect(writeOutputFile(fifo, 'into the pipe')).rejects.toMatchObject({ code: 'not_a_file' });
      // Nothing was written: the pipe, its writer gone, reads as ended (0 bytes).
      expect(readSync(reader, Buffer.alloc(64))).toBe(0);
    } finally {
      closeSync(reader);
    }
  });

  it('makes missing folders one level at a time, and refuses a path where none can be made', async () => {
    const deep = join(dir, 'a', 'b', 'c');
    expect(await makeOutputFolder(deep)).toBe(deep);
    await makeOutputFolder(deep);
    await expect(makeOutputFolder(join(outside, 'below'))).rejects.toMatchObject({ code: 'not_a_folder' });
    if (process.platform === 'linux')
      await expect(makeOutputFolder('/proc/jobcheck-output-test/x')).rejects.toMatchObject({ code: 'unwritable' });
  });

  it('makes a folder inside an output folder, and refuses a link out of it or a file in its place', async () => {
    await makeInnerFolder(join(dir, 'runs'));
    await makeInnerFolder(join(dir, 'runs'));
    symlinkSync(join(dir, 'a'), join(dir, 'runs-link'));
    await expect(makeInnerFolder(join(dir, 'runs-link'))).rejects.toMatchObject({ code: 'link' });
    await expect(makeInnerFolder(outside)).rejects.toMatchObject({ code: 'not_a_folder' });
  });
});
