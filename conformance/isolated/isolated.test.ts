/**
 * A `--module` runs isolated: whatever the module does (exit, spin, throw from a getter, hand back
 * a cycle, a 200,000-deep value or a Proxy, pollute Object.prototype), the harness ends with a
 * typed outcome and its verdict, in bounded time, leaving no process behind. Each case runs the
 * real command (bin/jobcheck.js) in a process of its own, since a module that calls process.exit
 * in process would end whatever ran it.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = 'conformance/isolated/fixtures';
const reports = mkdtempSync(join(tmpdir(), 'jobcheck-isolated-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

/** Processes whose environment carries `tag` (the harness and everything it started). */
function tagged(tag: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(tag)) found.push(Number(entry));
    } catch {
      // gone already
    }
  }
  return found;
}

interface Run {
  readonly exit: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly wallMs: number;
  /** Milliseconds from the SIGTERM (when one was sent) to the harness's exit. */
  readonly afterSignalMs: number | undefined;
  readonly left: number;
}

/**
 * Runs `jobcheck check --module <fixture> ...flags`; kills it (and counts that as a hang) after
 * `hardMs`; sends SIGTERM after `termAfterMs`, when given.
 */
async function check(fixture: string, flags: readonly string[], options: { hardMs: number; termAfterMs?: number }): Promise<Run> {
  const tag = randomUUID();
  const report = join(reports, `${fixture}-${tag}`);
  const args = ['bin/jobcheck.js', 'check', '--module', `${FIXTURES}/${fixture}.mjs`, '--seed', '1', '--no-explore', '--report', report, ...flags];
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, JOBCHECK_ISOLATED_TAG: tag, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout = (stdout + d.toString('utf8')).slice(0, 262_144)));
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString('utf8')).slice(0, 262_144)));
  let signalledAt: number | undefined;
  const term = options.termAfterMs === undefined ? undefined : setTimeout(() => ((signalledAt = performance.now()), child.kill('SIGTERM')), options.termAfterMs);
  const hard = setTimeout(() => child.kill('SIGKILL'), options.hardMs);
  const exit = await new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ended = performance.now();
  clearTimeout(hard);
  clearTimeout(term);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const survivors = tagged(tag);
  for (const pid of survivors) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  return { exit, stdout, stderr, wallMs: ended - started, afterSignalMs: signalledAt === undefined ? undefined : ended - signalledAt, left: survivors.length };
}

/** Generous: a node start with tsx takes seconds on a loaded machine, and each store of the concurrent campaign is a process. */
const HARD_MS = 90_000;

describe('a module that ends or stalls the process it runs in', () => {
  it('calls process.exit(0) in its fifth command: a process_exited divergence (exit 1) with its story, never exit 0 with no output', async () => {
    const r = await check('exitMidway', ['--runs', '5', '--timeout', '15000', '--time-limit', '40'], { hardMs: HARD_MS });
    expect({ exit: r.exit, left: r.left }).toEqual({ exit: 1, left: 0 });
    expect(r.stdout).toMatch(/verdict: DIVERGE/);
    expect(r.stdout).toMatch(/ProcessError: process_exited: the implementation ended/);
    expect(r.wallMs).toBeLessThan(HARD_MS);
  }, HARD_MS + 10_000);

  it('spins for ever in a command: stopped at --timeout with a typed timeout divergence (exit 1)', async () => {
    const r = await check('busyLoop', ['--runs', '5', '--timeout', '4000', '--time-limit', '40'], { hardMs: HARD_MS });
    expect({ exit: r.exit, left: r.left }).toEqual({ exit: 1, left: 0 });
    expect(r.stdout).toMatch(/AdapterError: timeout: execute did not settle within 4/);
  }, HARD_MS + 10_000);

  it('spins for ever in a command: stopped at --time-limit as INCOMPLETE (exit 3), never as agreement', async () => {
    const r = await check('busyLoop', ['--runs', '5', '--timeout', '600000', '--time-limit', '25'], { hardMs: HARD_MS });
    expect({ exit: r.exit, left: r.left }).toEqual({ exit: 3, left: 0 });
    expect(r.stdout).toMatch(/INCOMPLETE: stopped by the time limit/);
  }, HARD_MS + 10_000);

  it('spins for ever in a command: SIGTERM ends the run promptly (exit 143), and the module\'s process with it', async () => {
    const r = await check('busyLoop', ['--runs', '5', '--timeout', '600000', '--time-limit', '600'], { hardMs: 40_000, termAfterMs: 12_000 });
    expect({ exit: r.exit, left: r.left }).toEqual({ exit: 143, left: 0 });
    expect(r.afterSignalMs).toBeLessThan(10_000);
  }, 50_000);
});

describe("a module's concurrent factory, guarded as the sequential one", () => {
  const cases = [
    ['concurrentThrowingGetter', 'replies with an object whose ok getter throws'],
    ['concurrentNullFactory', 'resolves to null'],
    ['concurrentCyclic', 'replies with a cycle'],
    ['concurrentDeep', 'replies with a value nested 200,000 deep'],
    ['concurrentProxy', 'replies with Proxies whose ownKeys trap throws'],
    ['concurrentPolluted', 'pollutes Object.prototype (toJSON, ok)'],
  ] as const;
  it.each(cases)('%s (%s): a divergence of the concurrent campaign (exit 1) whose verdict the report keeps', async (fixture) => {
    const r = await check(fixture, ['--runs', '1', '--workers', '2', '--timeout', '15000', '--time-limit', '45', '--json'], { hardMs: HARD_MS });
    expect({ exit: r.exit, left: r.left }).toEqual({ exit: 1, left: 0 });
    const json = JSON.parse(r.stdout) as { verdict: string; concurrent?: { verdict: string } };
    expect(json.verdict).toBe('diverge');
    expect(json.concurrent?.verdict).toBe('failed');
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/internal error|at .+\.ts:\d+/);
  }, HARD_MS + 10_000);
});
