/**
 * `jobcheck serve` with storage it cannot use: the real command, started as a checker starts it.
 * Whatever the store's folder, file or server is, the process answers `hello` with a typed
 * refusal naming the problem, stays up to answer what comes next, and exits 0 with nothing on
 * stderr when its stdin ends: a storage failure is the store's answer, never a crash.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'jobcheck-serve-storage-'));
afterAll(() => {
  chmodSync(join(dir, 'locked'), 0o755);
  rmSync(dir, { recursive: true, force: true });
});
mkdirSync(join(dir, 'folder'));
execFileSync('mkfifo', [join(dir, 'fifo')]);
writeFileSync(join(dir, 'plain.txt'), 'not a folder\n');
mkdirSync(join(dir, 'locked'));
chmodSync(join(dir, 'locked'), 0o555);
mkdirSync(join(dir, 'no-server'));

const config = { capacity: 2, maxAttempts: 2, leaseTicks: 3, backoffBase: 2, backoffCap: 4 };
const HELLO = JSON.stringify({ type: 'hello', protocol: 'jobcheck/1', config });

/** Runs `jobcheck serve --store <store>` in the test's folder, feeds it `lines` and ends its stdin; its exit, replies and stderr. */
function serve(
  store: string,
  lines: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; replies: Record<string, unknown>[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/jobcheck.js'), 'serve', '--store', store], {
      cwd: dir,
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({
        code,
        stderr,
        replies: stdout
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as Record<string, unknown>),
      });
    });
    child.stdin.end(lines.map((l) => `${l}\n`).join(''));
  });
}

/** Where the store cannot be made: a folder without write permission, or (for root, whom permissions do not stop) a read-only file system. */
const unwritable = process.getuid?.() === 0 ? '/proc/jobs.db' : 'locked/jobs.db';

describe('jobcheck serve with storage it cannot use', () => {
  it.concurrent.each([
    ['sqlite:<a folder>', 'sqlite:folder', {}, /"\S*folder" is a folder/],
    ['sqlite:<a FIFO>', 'sqlite:fifo', {}, /"\S*fifo" is a FIFO/],
    [
      'sqlite:<a file in a folder that does not exist>',
      'sqlite:missing/jobs.db',
      {},
      /cannot make a store file beside "missing\/jobs\.db" \(.*directory does not exist/,
    ],
    [
      'sqlite:<a file in a regular file>',
      'sqlite:plain.txt/jobs.db',
      {},
      /cannot make a store file beside "plain\.txt\/jobs\.db" \(unable to open/,
    ],
    [
      'sqlite:<a file where nothing can be written>',
      `sqlite:${unwritable}`,
      {},
      /cannot make a store file beside .* \(unable to open/,
    ],
    [
      'postgres: with no server at PGHOST',
      'postgres:',
      { PGHOST: join(dir, 'no-server'), PGCONNECT_TIMEOUT: '5' },
      /PostgreSQL server at libpq's environment \(PGHOST\) cannot be used/,
    ],
  ])(
    'refuses hello for %s with storage_unavailable, answers what follows, and exits 0 when stdin ends',
    async (_what, store, env, message) => {
      const r = await serve(store, [HELLO, '{"type":"snapshot"}', HELLO], env);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.replies).toHaveLength(3);
      expect(r.replies[0]).toMatchObject({
        ok: false,
        code: 'storage_unavailable',
        message: expect.stringMatching(message),
      });
      expect(r.replies[1]).toMatchObject({
        ok: false,
        code: 'invalid_argument',
        message: expect.stringMatching(/send hello first/),
      });
      expect(r.replies[2]).toMatchObject({ ok: false, code: 'storage_unavailable' });
    },
    120_000,
  );

  it('serves a store as ever beside a good file name (the control)', async () => {
    const r = await serve('sqlite:jobs.db', [HELLO, '{"type":"tick","now":1}']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.replies).toEqual([
      {
        ok: true,
        type: 'hello',
        protocol: 'jobcheck/1',
        implementation: 'jobcheck-sqlite',
        durable: { storage: expect.stringMatching(/^jobs-\d+-1\.db$/) },
      },
      { ok: true, type: 'tick', clock: 1 },
    ]);
  }, 120_000);
});
