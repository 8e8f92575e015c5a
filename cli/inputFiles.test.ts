/**
 * Every file a user names is checked to be a regular file within its limit before a byte is read:
 * a FIFO once blocked `replay` and `coverage` for ever (its size reads 0, under the 64 MiB limit),
 * /dev/zero was read without end, a folder failed only once read. Each command runs as the real
 * process, since a blocked read would hang an in-process caller; a generous kill timer turns a hang
 * into a failure.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'jobcheck-input-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fifo = join(dir, 'pipe.json');
execFileSync('mkfifo', [fifo]);
const folder = join(dir, 'folder.json');
mkdirSync(folder);
const story = join(dir, 'story-pipe.json');
execFileSync('mkfifo', [story]);
const moduleFifo = join(dir, 'module-pipe.mjs');
execFileSync('mkfifo', [moduleFifo]);
writeFileSync(join(dir, 'regular.json'), '{}');

/** A hang is killed after this long: far more than a refusal takes on a loaded machine. */
const HANG_MS = 25_000;

/** Runs `jobcheck <args>` as a process; a run still going after HANG_MS is killed and says so. */
function jobcheck(...args: string[]): Promise<{ code: number | null; stderr: string; killed: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/jobcheck.js', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    let killed = false;
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, HANG_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, killed });
    });
  });
}

describe.skipIf(process.platform === 'win32')('input files that are not regular files', () => {
  it.each([
    [
      'replay of a FIFO',
      ['replay', fifo, '--builtin'],
      /replay: .*pipe\.json.*it is a FIFO \(named pipe\), not a regular file/,
    ],
    [
      'replay of /dev/zero',
      ['replay', '/dev/zero', '--builtin'],
      /replay: \/dev\/zero.*it is a character device, not a regular file/,
    ],
    [
      'replay of a folder',
      ['replay', folder, '--builtin'],
      /replay: .*folder\.json.*it is a folder, not a regular file/,
    ],
    [
      'coverage of a FIFO',
      ['coverage', fifo, '--report', join(dir, 'merged')],
      /coverage.*pipe\.json.*it is a FIFO \(named pipe\)/,
    ],
    [
      'coverage of /dev/zero',
      ['coverage', '/dev/zero', '--report', join(dir, 'merged')],
      /coverage.*\/dev\/zero.*a character device/,
    ],
    [
      'demo of a story file that is a FIFO',
      ['demo', story],
      /story file .*story-pipe\.json.*it is a FIFO \(named pipe\)/,
    ],
    [
      'check of a --module that is a FIFO',
      ['check', '--module', moduleFifo, '--runs', '1'],
      /--module .*module-pipe\.mjs: it is a FIFO/,
    ],
    [
      'check of a --module that is a folder',
      ['check', '--module', folder, '--runs', '1'],
      /--module .*folder\.json: it is a folder/,
    ],
  ])(
    '%s is refused at once with exit 2, naming the path and what it is',
    async (_name, args, message) => {
      const r = await jobcheck(...args);
      expect({ killed: r.killed, code: r.code }).toEqual({ killed: false, code: 2 });
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/internal error/);
    },
    HANG_MS + 10_000,
  );
});
