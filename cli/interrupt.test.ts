/**
 * Ctrl-C during a check, in a real pseudo-terminal: Python's `pty` module runs `node bin/jobcheck.js
 * check` against a slow implementation, waits for the progress line to hide the cursor, then types
 * Ctrl-C. The command exits 130, the last thing it writes gives the cursor and line wrap back (after
 * the sequences that took them), no process of the implementation is left running, and the run's
 * folder says `interrupted`. A SIGTERM to a check waiting on a silent implementation leaves the
 * same record: `jobcheck report --list` lists the run as interrupted, never as unreadable.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { taggedProcesses } from '../conformance/hostile/cases.ts';
import { findPython, pythonCommand } from '../examples/python/interpreter.ts';
import { SHOW_CURSOR, WRAP_ON } from './progress.ts';
import type { ReportListJson } from './reportCommand.ts';
import { runCliCaptured } from './runCliCaptured.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const python = findPython();
const dir = await mkdtemp(join(tmpdir(), 'jobcheck-interrupt-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

const HIDE_CURSOR = '\x1b[?25l';
const WRAP_OFF = '\x1b[?7l';

/**
 * Runs argv on a new pseudo-terminal, types Ctrl-C once the cursor is hidden (and a moment more),
 * reads everything until the command ends; prints { code, out } as JSON (out as latin1).
 */
const DRIVER = String.raw`
import json, os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out = b''
def read(timeout):
    global out
    ready, _, _ = select.select([fd], [], [], timeout)
    if not ready:
        return True
    try:
        data = os.read(fd, 65536)
    except OSError:
        return False
    out += data
    return len(data) > 0
deadline = time.time() + 60
while b'\x1b[?25l' not in out and time.time() < deadline and read(0.1):
    pass
until = time.time() + 0.5
while time.time() < until and read(0.05):
    pass
os.write(fd, b'\x03')
while time.time() < deadline and read(0.5):
    pass
_, status = os.waitpid(pid, 0)
print(json.dumps({'code': os.waitstatus_to_exitcode(status), 'out': out.decode('latin1')}))
`;

describe.skipIf(python === undefined)('Ctrl-C during a check', () => {
  it('exits 130 with the cursor and line wrap given back, and no process of the implementation left', async () => {
    const tag = `JOBCHECK_INTERRUPT_TAG=${randomUUID()}`;
    const slow = `${pythonCommand(python as string, 'conformance/hostile/peers/peer.py')} slow`;
    const run = spawnSync(
      python as string,
      ['-c', DRIVER, process.execPath, 'bin/jobcheck.js', 'check', '--impl', slow, '--report', join(dir, 'report')],
      {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 90_000,
        env: { ...process.env, TERM: 'xterm', NO_COLOR: '1', [tag.split('=')[0] as string]: tag.split('=')[1] },
      },
    );
    expect(run.status, run.stderr).toBe(0);
    const { code, out } = JSON.parse(run.stdout) as { code: number; out: string };
    expect(out).toContain('stopped by SIGINT');
    expect(code).toBe(130);
    expect(out).toContain(HIDE_CURSOR);
    expect(out).toContain(WRAP_OFF);
    expect(out.lastIndexOf(SHOW_CURSOR)).toBeGreaterThan(out.lastIndexOf(HIDE_CURSOR));
    expect(out.lastIndexOf(WRAP_ON)).toBeGreaterThan(out.lastIndexOf(WRAP_OFF));
    expect(out.trimEnd().endsWith(SHOW_CURSOR + WRAP_ON)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(taggedProcesses(tag.split('=')[1] as string)).toEqual([]);
    const [listed] = await listedRuns(join(dir, 'report'));
    expect(listed).toMatchObject({ verdict: 'interrupted', exitCode: 130, stoppedBy: 'stopped by SIGINT' });
  }, 100_000);
});

/** The runs `jobcheck report --list --json` lists in `report`. */
async function listedRuns(report: string): Promise<ReportListJson['runs']> {
  const out = await runCliCaptured(['report', '--list', '--report', report, '--json']);
  expect(out.code).toBe(0);
  return (JSON.parse(out.stdout) as ReportListJson).runs;
}

const FAKE = fileURLToPath(new URL('../conformance/hostile/peers/fakePeer.mjs', import.meta.url));

describe('a check ended by a signal', () => {
  it('names its folder -interrupted and writes run.json and a page that say so, which report --list reads', async () => {
    const report = join(dir, 'term');
    const silent = `'${process.execPath}' '${FAKE}' silent`;
    const child = spawn(
      process.execPath,
      ['bin/jobcheck.js', 'check', '--impl', silent, '--timeout', '60000', '--seed', '4', '--report', report],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      // The check is waiting for the silent implementation's first reply once its folder exists.
      const runs = join(report, 'runs');
      const deadline = Date.now() + 60_000;
      while (!(existsSync(runs) && readdirSync(runs).some((n) => n.endsWith('-running'))) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, stderr).toBe(143);
    const folders = readdirSync(join(report, 'runs'));
    expect(folders).toHaveLength(1);
    expect(folders[0]).toMatch(/^\d{4}-\d{2}-\d{2}T[\d-]+\.\d{3}Z-interrupted$/);
    const folder = join(report, 'runs', folders[0] as string);
    const listed = await listedRuns(report);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      verdict: 'interrupted',
      exitCode: 143,
      stoppedBy: 'stopped by SIGTERM',
      seed: 4,
      target: silent,
      page: join(folder, 'index.html'),
    });
    expect(JSON.parse(readFileSync(join(folder, 'run.json'), 'utf8'))).toMatchObject({ verdict: 'interrupted' });
    const page = readFileSync(join(folder, 'index.html'), 'utf8');
    expect(page).toContain('<p class="word">INTERRUPTED</p>');
    expect(page).toContain('before the check had a verdict (stopped by SIGTERM)');
    // latest points at a run that finished: there is none here.
    expect(existsSync(join(report, 'latest'))).toBe(false);
  }, 90_000);
});

describe('a check of a built-in store, which runs in the harness thread', () => {
  it('ends within 3 s of a SIGTERM sent mid-campaign, not at the end of its campaign', async () => {
    const child = spawn(
      process.execPath,
      [
        'bin/jobcheck.js',
        'check',
        '--builtin',
        '--runs',
        '100000',
        '--no-explore',
        '--time-limit',
        '60',
        '--report',
        join(dir, 'builtin'),
      ],
      { cwd: ROOT, stdio: 'ignore' },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // The run's folder exists once the check has started; its campaign of 100,000 runs takes minutes.
    const runs = join(dir, 'builtin', 'runs');
    const deadline = Date.now() + 30_000;
    while (!(existsSync(runs) && readdirSync(runs).some((n) => n.endsWith('-running'))) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const sent = Date.now();
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const code = await exited;
    clearTimeout(timer);
    expect(code).toBe(143);
    expect(Date.now() - sent).toBeLessThan(3_000);
  }, 60_000);
});
