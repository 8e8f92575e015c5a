import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputFileError, checkInputFile, inputFileProblem, readInputFile, readInputFileSync } from './inputFile.ts';

/**
 * What may be read as an input file: regular files within their limit, checked before a byte is
 * read. A FIFO nobody writes to would block a reader for ever, so each FIFO case would hang (and
 * hit the test's timeout) if the file were opened the ordinary way.
 */
const dir = mkdtempSync(join(tmpdir(), 'jobcheck-input-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const regular = join(dir, 'artifact.json');
writeFileSync(regular, '{"steps":[]}');
const fifo = join(dir, 'pipe.json');
const folder = join(dir, 'folder.json');
mkdirSync(folder);
const sparse = join(dir, 'sparse.json');
writeFileSync(sparse, '');
truncateSync(sparse, 2048);
if (process.platform !== 'win32') execFileSync('mkfifo', [fifo]);

const refusal = (read: () => unknown): { code: string; message: string } | undefined => {
  try {
    read();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(InputFileError);
    return { code: (error as InputFileError).code, message: (error as InputFileError).message };
  }
};

describe.skipIf(process.platform === 'win32')('input files', () => {
  it('reads a regular file within its limit, synchronously or not', async () => {
    expect(await readInputFile(regular, 1024)).toBe('{"steps":[]}');
    expect(readInputFileSync(regular, 1024)).toBe('{"steps":[]}');
  });

  it.each([
    ['a FIFO', fifo, 'not_a_file', 'it is a FIFO (named pipe), not a regular file (refused without reading it)'],
    ['a folder', folder, 'not_a_file', 'it is a folder, not a regular file (refused without reading it)'],
    [
      '/dev/zero',
      '/dev/zero',
      'not_a_file',
      'it is a character device, not a regular file (refused without reading it)',
    ],
    ['a file over the limit', sparse, 'too_large', 'it has 2048 bytes, more than the limit of 1024'],
    ['a missing file', join(dir, 'missing.json'), 'not_found', 'no such file'],
  ])(
    'refuses %s before reading it, with a stable code and what it is',
    async (_name, path, code, message) => {
      expect(refusal(() => readInputFileSync(path, 1024))).toEqual({ code, message });
      expect(refusal(() => checkInputFile(path, 1024))).toEqual({ code, message });
      expect(inputFileProblem(path, 1024)).toBe(message);
      await expect(readInputFile(path, 1024)).rejects.toMatchObject({ name: 'InputFileError', code, path, message });
    },
    10_000,
  );

  it('says nothing is wrong with a regular file within its limit', () => {
    expect(inputFileProblem(regular, 1024)).toBeUndefined();
    expect(inputFileProblem(regular, 5)).toBe('it has 12 bytes, more than the limit of 5');
  });
});
