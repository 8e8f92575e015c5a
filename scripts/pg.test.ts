/**
 * scripts/pg.sh leaves no server behind, even when its folder is removed before it stops: what a
 * parent's clean-up does when it removes its temporary folder first (`.ci/run`'s, on Ctrl-C). The
 * server's pid, read at its start, is what stops it then. Needs PostgreSQL's server binaries: the
 * test skips without them, saying so, and fails under CI.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const found =
  spawnSync('bash', ['-c', 'command -v initdb || ls -d /usr/lib/postgresql/*/bin'], { stdio: 'ignore' }).status === 0;
const missing = found ? undefined : 'no PostgreSQL server binaries here (Debian: apt-get install postgresql)';
if (missing !== undefined && (process.env['CI'] ?? '') !== '') throw new Error(missing);

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(missing !== undefined)('scripts/pg.sh', () => {
  it('stops its server by pid when its folder was removed before it stopped', async () => {
    const child = spawn('bash', ['scripts/pg.sh', 'bash', '-c', 'echo "$PGHOST"; exec sleep 60'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const ended = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let out = '';
    const sock = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no PGHOST line in 60 s: ${out}`)), 60_000);
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const line = out.split('\n')[0];
        if (out.includes('\n') && line !== undefined) {
          clearTimeout(timer);
          resolve(line.trim());
        }
      });
    });
    let server = 0;
    try {
      const root = dirname(sock);
      server = Number(readFileSync(join(root, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
      expect(alive(server)).toBe(true);
      rmSync(root, { recursive: true, force: true });
      process.kill(-(child.pid as number), 'SIGTERM');
      expect(await ended).toBe(143);
      const until = Date.now() + 15_000;
      while (alive(server) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      expect(alive(server), `the server (pid ${server}) outlived pg.sh`).toBe(false);
    } finally {
      if (server > 0 && alive(server)) process.kill(server, 'SIGKILL');
      if (child.exitCode === null) process.kill(-(child.pid as number), 'SIGKILL');
    }
  }, 90_000);
});
