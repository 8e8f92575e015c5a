/**
 * What a run may call a pass, through the real command (`node bin/jobcheck.js`): a reproduce line
 * edited to name no run, a shard that holds no run, a huge index or flag, and an artifact whose
 * step is one of the protocol's own messages. Each once ended in AGREE for a broken variant, a
 * false reason, a spin deaf to the time limit, an out-of-memory crash or a correct program blamed.
 * Each run has a hard wall-time bound that catches a hang (the harness is killed past it).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCampaign } from '../conformance/random/campaign.ts';
import { catalogueVariant } from '../conformance/broken/index.ts';
import { concurrentBrokenVariant } from '../conformance/broken/index.ts';
import { DEFAULT_CONCURRENT_PERTURBATIONS } from '../conformance/check/index.ts';
import { runConcurrentCampaign } from '../conformance/concurrent/campaign.ts';
import { PATH_CONFIG } from '../conformance/paths/lifecyclePaths.ts';
import { initialState, step, toSnapshot } from '../model/index.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dir = await mkdtemp(join(tmpdir(), 'jobcheck-reproduce-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Far above what any of these runs needs on a loaded machine; a run past it is killed and fails. */
const HANG_BOUND_MS = 60_000;

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `node bin/jobcheck.js ...args`, killed (SIGKILL) past HANG_BOUND_MS. */
function jobcheck(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/jobcheck.js', ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const hard = setTimeout(() => child.kill('SIGKILL'), HANG_BOUND_MS);
    child.on('exit', (code) => {
      clearTimeout(hard);
      resolve({ code, stdout, stderr });
    });
  });
}

let reports = 0;
/** A fresh report folder, and the flags every check here shares. */
const quick = (): string[] => ['--no-explore', '--time-limit', '40', '--report', join(dir, `report-${++reports}`)];

/** One typed line on stderr, exit code 2, nothing on stdout, no internal error. */
function expectRefused(r: Run, mentions: RegExp): void {
  expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: '' });
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(mentions);
  expect(r.stderr).not.toMatch(/internal error/);
}

describe('an edited reproduce line is refused before any work, or is not a pass', () => {
  it('refuses a --path one step longer than its counterexample goes (invalid_path), rather than INCOMPLETE "stopped by the time limit"', async () => {
    const found = await runCampaign({ factory: catalogueVariant('backoff-not-capped')!.factory, seed: 1, runs: 30 });
    expect(found.path).not.toBeNull();
    const r = await jobcheck(
      'check',
      '--broken',
      'backoff-not-capped',
      '--seed',
      '1',
      '--path',
      `${found.path}:999`,
      ...quick(),
    );
    expectRefused(r, /--path "[\d:.]+" names no scenario of seed 1.*\(invalid_path\)/);
  });

  it('tells a --path whose runs all agree as INCOMPLETE (exit 3), never as AGREE for a broken variant', async () => {
    const found = await runCampaign({ factory: catalogueVariant('backoff-not-capped')!.factory, seed: 1, runs: 30 });
    const r = await jobcheck(
      'check',
      '--broken',
      'backoff-not-capped',
      '--seed',
      '1',
      '--path',
      `${found.path}:0`,
      ...quick(),
    );
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(
      /verdict: INCOMPLETE: the runs named by --path [\d:]+ all agree, so the campaign they stand for did not run/,
    );
    expect(r.stdout).not.toMatch(/stopped by the time limit/);
  });

  it('refuses a --concurrent-path that names no scenario (6:999999), rather than "0 runs, every history linearizable"', async () => {
    const r = await jobcheck(
      'check',
      '--builtin',
      '--seed',
      '1',
      '--workers',
      '4',
      '--runs',
      '1',
      '--concurrent-path',
      '6:999999',
      ...quick(),
    );
    expectRefused(r, /--concurrent-path "6:999999": its shrink steps add up to more than 100000 \(invalid_path\)/);
    // A step within the bounds that its stream does not have is refused too, after walking it.
    const within = await jobcheck(
      'check',
      '--builtin',
      '--seed',
      '1',
      '--workers',
      '4',
      '--runs',
      '1',
      '--concurrent-path',
      '6:99999',
      ...quick(),
    );
    expectRefused(within, /--concurrent-path "6:99999" names no scenario of seed 1 with 4 workers.*\(invalid_path\)/);
  });

  it('tells the printed --concurrent-path with a step appended as INCOMPLETE (exit 3) for a racy variant, never AGREE', async () => {
    const variant = concurrentBrokenVariant('claim-reads-then-writes')!;
    // The path's meaning depends on the perturbations drawn with each scenario: the check's own.
    const found = await runConcurrentCampaign({
      factory: variant.factory,
      workers: 4,
      numRuns: 100,
      seed: 1,
      perturbations: DEFAULT_CONCURRENT_PERTURBATIONS,
    });
    expect(found.path).not.toBeNull();
    const r = await jobcheck(
      'check',
      '--broken',
      'claim-reads-then-writes',
      '--seed',
      '1',
      '--workers',
      '4',
      '--runs',
      '1',
      '--concurrent-path',
      `${found.path}:0`,
      ...quick(),
    );
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/verdict: INCOMPLETE: the runs named by --concurrent-path [\d:]+ all agree/);
  }, 120_000);

  it.each([
    ['--path', ['--path', '99999999999999999999999']],
    ['--concurrent-path', ['--workers', '2', '--concurrent-path', '99999999999999999999999']],
  ])('refuses a huge %s index at once, naming it, instead of spinning past the time limit', async (flag, args) => {
    const r = await jobcheck('check', '--builtin', '--seed', '1', ...args, ...quick());
    expectRefused(r, new RegExp(`${flag} "99999999999999999999999": names run 99999999999999999999999, beyond`));
  });

  it('refuses a --path whose run index is past the --runs it is given with', async () => {
    expectRefused(
      await jobcheck('check', '--builtin', '--seed', '1', '--runs', '5', '--path', '7', ...quick()),
      /--path "7": names run 7, beyond the 5 runs/,
    );
  });
});

describe('a shard that holds no run is refused', () => {
  it('refuses --shard 2/2 --runs 1 (exit 2) instead of calling a broken variant AGREE', async () => {
    const r = await jobcheck(
      'check',
      '--broken',
      'backoff-not-capped',
      '--seed',
      '1',
      '--shard',
      '2/2',
      '--runs',
      '1',
      ...quick(),
    );
    expectRefused(r, /--shard 2\/2 holds no run of a campaign of 1 \(part i needs --runs 2 or more\)/);
  });
});

describe('numeric flags are bounded before any work', () => {
  it.each([
    ['--max-commands', '9007199254740991', /--max-commands must be at most 1000 \(got "9007199254740991"\)/],
    ['--runs', '9007199254740991', /--runs must be at most 100000 \(got "9007199254740991"\)/],
    ['--concurrent-runs', '9007199254740991', /--concurrent-runs must be at most 100000/],
  ])('refuses %s %s with a typed error naming the flag, not a crash', async (flag, value, mentions) => {
    const workers = flag === '--concurrent-runs' ? ['--workers', '2'] : [];
    const r = await jobcheck('check', '--builtin', '--seed', '1', flag, value, ...workers, ...quick());
    expectRefused(r, mentions);
  });
});

describe('replay refuses an artifact step the harness could not send', () => {
  /** An artifact the reference model stands behind: a tick, then a command typed as the protocol's `type` (which the model refuses). */
  async function artifactWith(type: 'hello' | 'snapshot'): Promise<string> {
    const command = type === 'hello' ? { type, protocol: 'jobcheck/1', config: PATH_CONFIG } : { type };
    const tick = { type: 'tick', now: 1 };
    const first = step(initialState(PATH_CONFIG), tick);
    const second = step(first.state, command);
    const artifact = {
      format: 'jobcheck.artifact/1',
      foundAgainst: 'hand-made',
      createdAt: new Date(0).toISOString(),
      config: PATH_CONFIG,
      steps: [
        { do: tick, expect: first.reply, snapshot: toSnapshot(first.state) },
        { do: command, expect: second.reply, snapshot: toSnapshot(second.state) },
      ],
    };
    const file = join(dir, `${type}.json`);
    await writeFile(file, JSON.stringify(artifact));
    return file;
  }

  it.each(['hello', 'snapshot'] as const)(
    'refuses a %s step (exit 2, naming the step) instead of blaming a correct process for the harness refusing to send it',
    async (type) => {
      const file = await artifactWith(type);
      const server = `'${process.execPath}' bin/jobcheck.js serve --store memory`;
      for (const target of [['--impl', server], ['--builtin']]) {
        const r = await jobcheck('replay', file, ...target);
        expectRefused(
          r,
          new RegExp(`steps\\.1\\.do: a command may not use the protocol's own type "${type}" \\(step 2\\)`),
        );
      }
    },
  );
});
