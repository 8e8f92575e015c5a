import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CATALOGUE } from '../conformance/broken/index.ts';
import { PYTHON_BROKEN, findPython, pythonCommand } from '../examples/python/interpreter.ts';
import { runCliCaptured } from '../cli/runCliCaptured.ts';
import { DEFAULT_PROCESS_PARALLEL } from '../cli/target.ts';

/**
 * The catalogue of broken implementations is caught by `jobcheck check`, each with exit code 1
 * and a numbered story, and the correct Python example passes with exit code 0. The in-process
 * variants run through runCli (the same code as the command, without a process start); the
 * Python example and two of its broken variants run through the real `jobcheck` command.
 * Seeds are fixed so that a failure is reproducible; docs/broken-catalogue.md shows how many runs
 * each bug needs (seed 1 finds every one within the 300 runs used here).
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dir = await mkdtemp(join(tmpdir(), 'jobcheck-catalogue-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const cli = (args: readonly string[]): Promise<Outcome> => runCliCaptured(args);

/** Runs the real command: `npx --no-install jobcheck ...` (or `node bin/jobcheck.js ...`) from the project root. */
function command(args: readonly string[], via: 'npx' | 'bin'): Promise<Outcome> {
  const [exe, prefix] = via === 'npx' ? ['npx', ['--no-install', 'jobcheck']] : [process.execPath, ['bin/jobcheck.js']];
  return new Promise((resolve, reject) => {
    const child = spawn(exe, [...prefix, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** A story: numbered steps with the model's reply, and the first differing field. */
const STORY = /^\s+1\. \S+/m;

describe('jobcheck check catches every in-process broken variant of the catalogue', () => {
  it('holds (at least) the fifteen bugs the catalogue names', () => {
    expect(CATALOGUE.map((v) => v.name)).toEqual(
      expect.arrayContaining([
        'capacity-forgets-running',
        'retry-forgets-deadline',
        'restart-resets-tokens',
        'restart-forgets-ledger',
        'lease-one-tick-late',
        'last-attempt-requeues',
        'global-fifo',
        'waiting-does-not-block',
        'dead-job-blocks',
        'commit-not-idempotent',
        'payload-conflict-accepted',
        'lease-before-deadline',
        'backoff-not-capped',
        'snapshot-live-alias',
        'restore-accepts-anything',
      ]),
    );
  });

  it('carries, for each decision bug, the broken decisions that npm run catalogue also runs on SQLite and PostgreSQL', () => {
    const deciding = CATALOGUE.filter((v) => v.decisions !== undefined).map((v) => v.name);
    expect(deciding.sort()).toEqual([
      'backoff-not-capped',
      'capacity-forgets-running',
      'commit-not-idempotent',
      'last-attempt-requeues',
      'lease-before-deadline',
      'lease-one-tick-late',
      'payload-conflict-accepted',
      'retry-forgets-deadline',
    ]);
  });

  it.each(CATALOGUE.map((v) => [v.name] as const))('catches %s with exit code 1 and a story', async (name) => {
    const out = await cli(['check', '--broken', name, '--seed', '1', '--runs', '300', '--report', join(dir, name)]);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(1);
    expect(out.stdout).toContain('verdict: DIVERGE from the model');
    expect(out.stdout).toMatch(STORY);
    expect(out.stdout).toMatch(/differs at|>> /);
  });

  it('passes the built-in implementation with exit code 0', async () => {
    const out = await cli(['check', '--builtin', '--seed', '1', '--runs', '100', '--report', join(dir, 'builtin')]);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('verdict: AGREE with the model');
  });
});

const python = findPython();
describe.skipIf(python === undefined)(
  `the Python example through the protocol${python === undefined ? ' (skipped: python3 is not installed)' : ''}`,
  () => {
    const py = (script: string): string => pythonCommand(python as string, script);
    const VIA_BIN = ['lease_one_tick_late', 'restart_resets_tokens'];

    it('passes examples/python/jobstore.py through `npx jobcheck check` with exit code 0, a coverage summary, JSON and JUnit XML', async () => {
      const report = join(dir, 'python');
      const junit = join(dir, 'python.xml');
      const out = await command(
        [
          'check',
          '--impl',
          py('examples/python/jobstore.py'),
          '--seed',
          '1',
          '--runs',
          '40',
          '--report',
          report,
          '--junit',
          junit,
          '--json',
        ],
        'npx',
      );
      // Without a terminal, the summary's lines go to stderr as each phase ends (stdout is the JSON), and nothing else.
      expect(out.stderr).toMatch(/^jobcheck check: .* \(python-jobstore\)\n( {2}[a-z ]{15} {2}\S.*\n){5}$/);
      expect(out.code).toBe(0);
      const result = JSON.parse(out.stdout) as {
        verdict: string;
        implementation: string;
        coverage: { transitions: { hit: number; total: number } };
        phases: Record<string, unknown>;
      };
      expect(result).toMatchObject({ verdict: 'agree', implementation: 'python-jobstore', firstDivergenceMs: null });
      // One store per core (2 to 4) at once; only the fixture stories' two restarts start a process.
      expect(result.phases).toMatchObject({
        parallel: DEFAULT_PROCESS_PARALLEL,
        restarts: { cold: 2, warm: expect.any(Number) },
      });
      expect((result.phases['restarts'] as { warm: number }).warm).toBeGreaterThan(40);
      expect(result.coverage.transitions.hit).toBe(result.coverage.transitions.total);
      const xml = await readFile(junit, 'utf8');
      expect(xml.match(/<testcase /g)?.length).toBeGreaterThan(50);
      expect(xml).not.toContain('<failure');
      expect(JSON.parse(await readFile(join(report, 'coverage.json'), 'utf8'))).toMatchObject({
        format: 'jobcheck.coverage/1',
      });
    });

    it.each(VIA_BIN.map((name) => [name] as const))(
      'catches broken/%s.py through the real command with exit code 1 and a story',
      async (name) => {
        const out = await command(
          [
            'check',
            '--impl',
            py(`examples/python/broken/${name}.py`),
            '--seed',
            '1',
            '--runs',
            '100',
            '--max-commands',
            '15',
            '--report',
            join(dir, name),
          ],
          'bin',
        );
        expect(out.stderr).toBe('');
        expect(out.code).toBe(1);
        expect(out.stdout).toContain('(python-jobstore)');
        expect(out.stdout).toContain('verdict: DIVERGE from the model');
        expect(out.stdout).toMatch(STORY);
      },
    );

    it('has every Python broken variant checked here, through the command or in-process', () => {
      expect(PYTHON_BROKEN.map((b) => b.name).sort()).toEqual([
        'commit_not_idempotent',
        'lease_one_tick_late',
        'restart_resets_tokens',
        'restore_half_applied',
      ]);
    });

    it.each(PYTHON_BROKEN.filter((b) => !VIA_BIN.includes(b.name)).map((b) => [b.name] as const))(
      'catches broken/%s.py with exit code 1 and a story',
      async (name) => {
        const out = await cli([
          'check',
          '--impl',
          py(`examples/python/broken/${name}.py`),
          '--seed',
          '1',
          '--runs',
          '100',
          '--max-commands',
          '15',
          '--report',
          join(dir, `py-${name}`),
        ]);
        expect(out.code).toBe(1);
        expect(out.stdout).toContain('verdict: DIVERGE from the model');
        expect(out.stdout).toMatch(STORY);
      },
    );
  },
);
