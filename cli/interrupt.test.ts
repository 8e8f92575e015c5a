/**
 * Ctrl-C during a check, in a real pseudo-terminal: Python's `pty` module runs `node bin/jobcheck.js
 * check` against a slow implementation, waits for the progress line to hide the cursor, then types
 * Ctrl-C. The command exits 130, the last thing it writes gives the cursor and line wrap back (after
 * the sequences that took them), and no process of the implementation is left running.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { taggedProcesses } from '../conformance/protocol/hostile/cases.ts';
import { findPython, pythonCommand } from '../examples/python/interpreter.ts';
import { SHOW_CURSOR, WRAP_ON } from './progress.ts';

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
    const slow = `${pythonCommand(python as string, 'conformance/protocol/hostile/peer.py')} slow`;
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
  }, 100_000);
});
