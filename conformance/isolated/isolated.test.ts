/**
 * A `--module` runs isolated: whatever the module does (exit, spin, throw from a getter, hand back
 * a cycle, a 200,000-deep value or a Proxy, pollute Object.prototype), the harness ends with a
 * typed outcome and its verdict, in bounded time, leaving no process behind. Each case runs the
 * real command (bin/jobcheck.js) in a process of its own, since a module that calls process.exit
 * in process would end whatever ran it.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { taggedProcesses } from '../hostile/cases.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = 'conformance/isolated/fixtures';
const reports = mkdtempSync(join(tmpdir(), 'jobcheck-isolated-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

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
async function check(
  fixture: string,
  flags: readonly string[],
  options: { hardMs: number; termAfterMs?: number },
): Promise<Run> {
  const tag = randomUUID();
  const report = join(reports, `${fixture}-${tag}`);
  const args = [
    'bin/jobcheck.js',
    'check',
    '--module',
    `${FIXTURES}/${fixture}.mjs`,
    '--seed',
    '1',
    '--no-explore',
    '--report',
    report,
    ...flags,
  ];
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, JOBCHECK_ISOLATED_TAG: tag, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout = (stdout + d.toString('utf8')).slice(0, 262_144)));
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString('utf8')).slice(0, 262_144)));
  let signalledAt: number | undefined;
  const term =
    options.termAfterMs === undefined
      ? undefined
      : setTimeout(() => {
          signalledAt = performance.now();
          child.kill('SIGTERM');
        }, options.termAfterMs);
  const hard = setTimeout(() => child.kill('SIGKILL'), options.hardMs);
  const exit = await new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ended = performance.now();
  clearTimeout(hard);
  clearTimeout(term);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const survivors = taggedProcesses(tag);
  for (const pid of survivors) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  return {
    exit,
    stdout,
    stderr,
    wallMs: ended - started,
    afterSignalMs: signalledAt === undefined ? undefined : ended - signalledAt,
    left: survivors.length,
  };
}

/** Generous: a node start with tsx takes seconds on a loaded machine, and each store of the concurrent campaign is a process. */
const HARD_MS = 90_000;

/*
 * The other misbehaviours of a module (process.exit mid-check, a spin stopped at --timeout or at
 * --time-limit, each evil value of the concurrent factory) are cases of the hostile suite
 * (conformance/hostile/surface/modules.ts), asserted there for outcome, exit code, wall
 * time, memory and processes left. Here: what that suite cannot send (a signal to a spinning
 * module's harness) and what it does not read (the verdict of the JSON report).
 */
describe('a module that ends or stalls the process it runs in', () => {
  it("spins for ever in a command: SIGTERM ends the run promptly (exit 143), and the module's process with it", async () => {
    const r = await check('busyLoop', ['--runs', '5', '--timeout', '600000', '--time-limit', '600'], {
      hardMs: 40_000,
      termAfterMs: 12_000,
    });
    expect({ exit: r.exit, left: r.left }).toEqual({ exit: 143, left: 0 });
    expect(r.afterSignalMs).toBeLessThan(10_000);
  }, 50_000);
});

describe("a module's concurrent factory, guarded as the sequential one", () => {
  // A polluted Object.prototype once made the report writer print `agree` beside exit 1.
  const cases = [['concurrentPolluted', 'pollutes Object.prototype (toJSON, ok)']] as const;
  it.each(cases)(
    '%s (%s): a divergence of the concurrent campaign (exit 1) whose verdict the report keeps',
    async (fixture) => {
      const r = await check(
        fixture,
        ['--runs', '1', '--workers', '2', '--timeout', '15000', '--time-limit', '45', '--json'],
        { hardMs: HARD_MS },
      );
      expect({ exit: r.exit, left: r.left }).toEqual({ exit: 1, left: 0 });
      const json = JSON.parse(r.stdout) as { verdict: string; concurrent?: { verdict: string } };
      expect(json.verdict).toBe('diverge');
      expect(json.concurrent?.verdict).toBe('failed');
      expect(`${r.stdout}${r.stderr}`).not.toMatch(/internal error|at .+\.[cm]?[jt]s:\d+/);
    },
    HARD_MS + 10_000,
  );
});

/** What these tests read of the --json result (cli/checkJsonSchema.ts has all of it). */
interface CheckJson {
  readonly restore: {
    readonly verdict: string;
    readonly snapshots: number;
    readonly offered: number;
    readonly refused: number;
  } | null;
  readonly failure: { readonly source: string; readonly steps: number; readonly story: string } | null;
  readonly notExercised?: readonly { readonly phase: string; readonly reason: string }[];
}

describe("a module's restore, offered snapshots no store could have written", () => {
  /** The --json result of a check of `fixture` with the restore phase, the campaign small. */
  const restoreOf = async (fixture: string, flags: readonly string[] = []) => {
    const r = await check(fixture, ['--runs', '5', '--json', ...flags], { hardMs: HARD_MS });
    expect(r.left).toBe(0);
    return { exit: r.exit, json: JSON.parse(r.stdout) as CheckJson };
  };

  it(
    "refuses each through its adapter's restoreFrom, a JobcheckError invalid_snapshot a refusal",
    async () => {
      const { exit, json } = await restoreOf('base');
      expect(exit).toBe(0);
      expect(json['restore']).toMatchObject({ verdict: 'agree', failed: [], notExercised: null });
      expect(json.restore?.refused).toBe(json.restore?.snapshots);
    },
    HARD_MS,
  );

  it(
    'diverges when restoreFrom takes what it should refuse, with the restore story',
    async () => {
      const { exit, json } = await restoreOf('restoreTakesAll');
      expect(exit).toBe(1);
      expect(json['failure']).toMatchObject({ source: 'restore', steps: 2 });
      expect(json.failure?.story).toContain('took a snapshot the contract refuses');
    },
    HARD_MS,
  );

  it(
    'is NOT EXERCISED without restoreFrom (exit 3), and left out with --no-restore (exit 0)',
    async () => {
      const idle = await restoreOf('noRestoreFrom');
      expect(idle.exit).toBe(3);
      expect(idle.json['restore']).toMatchObject({ verdict: 'not_exercised', offered: 0 });
      expect(idle.json['notExercised']).toEqual([
        { phase: 'restore', reason: expect.stringMatching(/adapter has no restoreFrom\(snapshot\)/) },
      ]);
      const left = await restoreOf('noRestoreFrom', ['--no-restore']);
      expect(left.exit).toBe(0);
      expect(left.json['restore']).toBeNull();
    },
    2 * HARD_MS,
  );
});
