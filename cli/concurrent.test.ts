/**
 * `jobcheck check --workers N`: the built-in store behind a mutex passes, saying how many requests
 * were in flight together; each broken concurrent variant of the catalogue exits 1 with a story of
 * lanes and the command that repeats it, which does repeat it; the concurrent Python example
 * passes over jobcheck/2 and its broken variant (a claim that lets go of the lock between reading
 * and writing) fails; the same example speaking only jobcheck/1 gets its competing workers called
 * NOT EXERCISED in the text, the JSON, the JUnit file and the page, and exits 3; bad flags exit 2.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CONCURRENT_BROKEN_VARIANTS } from '../conformance/broken/index.ts';
import { findPython, pythonCommand } from '../examples/python/interpreter.ts';
import { checkResultSchema } from './checkJsonSchema.ts';
import { runCliCaptured } from './runCliCaptured.ts';
import type { CapturedRun } from './runCliCaptured.ts';

const dir = await mkdtemp(join(tmpdir(), 'jobcheck-workers-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Runs `jobcheck <args>` in process, its output kept. */
const cli = (...args: string[]): Promise<CapturedRun> => runCliCaptured(args);

/** The quick part of a check: the sequential phases small, no exploration. */
const QUICK = ['--runs', '20', '--no-explore', '--seed', '7'];

describe('jobcheck check --workers', () => {
  it('passes the built-in store behind a mutex with 4 workers, and says so in the summary, JSON and JUnit', async () => {
    const junit = join(dir, 'builtin.xml');
    const out = await cli(
      'check',
      '--builtin',
      '--workers',
      '4',
      // Exactly 100 scenarios: without the flag the campaign adds scenarios while time allows.
      '--concurrent-runs',
      '100',
      ...QUICK,
      '--report',
      join(dir, 'builtin'),
      '--junit',
      junit,
    );
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(
      /concurrent +100 runs of 4 workers, seed 7: every history linearizable; \d+ of \d+ requests in flight together with another \(\d+ overlapping pairs: claim\+claim \d+, settle at lease end\+claim [1-9]\d*, claim at an expiry \d+, submit\+submit \d+, commit\+commit of one job \d+\)/,
    );
    const json = checkResultSchema.parse(
      JSON.parse(
        (
          await cli(
            'check',
            '--builtin',
            '--workers',
            '4',
            '--concurrent-runs',
            '100',
            ...QUICK,
            '--report',
            join(dir, 'builtin-json'),
            '--json',
          )
        ).stdout,
      ),
    );
    expect(json.concurrent).toMatchObject({
      verdict: 'passed',
      workers: 4,
      runs: 100,
      unknownRuns: 0,
      notExercised: null,
    });
    expect(json.concurrent?.overlap?.pairs).toBeGreaterThan(0);
    expect(json.concurrent?.histories).toBeGreaterThan(100);
    expect(json.concurrent?.overlap?.kinds?.settleAtLeaseEnd).toBeGreaterThan(0);
    const xml = await readFile(junit, 'utf8');
    expect(xml).toContain('<testsuite name="jobcheck.concurrent"');
    expect(xml).toMatch(/<testcase classname="jobcheck.concurrent" name="concurrent campaign" time="[\d.]+"\/>/);
  });

  it.each(CONCURRENT_BROKEN_VARIANTS.map((v) => v.name))(
    'catches %s with a story of lanes that its reproduce line repeats',
    async (name) => {
      const out = await cli(
        'check',
        '--broken',
        name,
        '--workers',
        '4',
        ...QUICK,
        '--concurrent-runs',
        '2000',
        '--report',
        join(dir, name),
      );
      expect(out.code).toBe(1);
      expect(out.stdout).toContain('comes from the concurrent campaign of competing workers');
      expect(out.stdout).toMatch(/round +now \| lane 0/);
      expect(out.stdout).toContain('no request that could come next is explained');
      const reproduce = /reproduce: npx jobcheck (check .*)$/m.exec(out.stdout)?.[1];
      expect(reproduce).toBeDefined();
      const again = await cli(
        ...(reproduce as string).split(' ').filter((w) => w !== ''),
        '--runs',
        '20',
        '--no-explore',
        '--report',
        join(dir, `${name}-again`),
      );
      expect(again.code).toBe(1);
      const story = (text: string): string =>
        text.slice(text.indexOf(': no order of the model explains the replies'), text.indexOf('\nseed: '));
      expect(story(again.stdout)).toBe(story(out.stdout));
      // The HTML report draws the lanes on a timeline.
      expect(await readFile(join(dir, name, 'coverage.html'), 'utf8')).toContain('The requests on their lanes');
    },
  );

  it('refuses --workers out of range, --concurrent-path without its seed and workers, and --concurrent-runs alone', async () => {
    for (const args of [
      ['--workers', '0'],
      ['--workers', '17'],
      ['--workers', 'x'],
      ['--workers', '4', '--concurrent-path', '1:2'],
      ['--seed', '1', '--concurrent-path', '1:2'],
      ['--concurrent-runs', '5'],
    ]) {
      const out = await cli('check', '--builtin', ...args);
      expect(out.code, args.join(' ')).toBe(2);
      expect(out.stderr).toMatch(/^jobcheck: check: /);
    }
  });
});

const python = findPython();
describe.skipIf(python === undefined)('the Python example over jobcheck/2', () => {
  it('passes in its concurrent mode, leaving no listener behind on the time limit per process started', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => {
      warnings.push(w.name);
    };
    process.on('warning', onWarning);
    const out = await cli(
      'check',
      '--impl',
      pythonCommand(python as string, 'examples/python/jobstore.py'),
      '--workers',
      '4',
      ...QUICK,
      '--concurrent-runs',
      '30',
      '--report',
      join(dir, 'python'),
    );
    expect(out.code, out.stdout).toBe(0);
    expect(out.stdout).toMatch(
      /concurrent +30 runs of 4 workers, seed 7: every history linearizable; \d+ of \d+ requests in flight/,
    );
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('catches its broken concurrent variant (a claim that lets go of the lock between reading and writing)', async () => {
    const out = await cli(
      'check',
      '--impl',
      pythonCommand(python as string, 'examples/python/broken/concurrent_double_claim.py'),
      '--workers',
      '4',
      ...QUICK,
      '--report',
      join(dir, 'python-broken'),
    );
    expect(out.code).toBe(1);
    expect(out.stdout).toContain('comes from the concurrent campaign of competing workers');
    // The checker is stuck at a claim that got a job where the model, after every order, has none left.
    expect(out.stdout).toMatch(/claim by w\d \(round \d+, lane \d\)\n +model: +no job\n +observed: job \w+ token=/);
  });

  it('calls the competing workers of a jobcheck/1 program NOT EXERCISED in the text, JSON, JUnit and page, and exits 3', async () => {
    const report = join(dir, 'python-v1');
    const junit = join(dir, 'python-v1.xml');
    const args = [
      'check',
      '--impl',
      `${pythonCommand(python as string, 'examples/python/jobstore.py')} --no-concurrent`,
      '--workers',
      '4',
      ...QUICK,
      '--concurrent-runs',
      '20',
      '--report',
      report,
    ];
    const out = await cli(...args, '--junit', junit);
    expect(out.code, out.stdout).toBe(3);
    expect(out.stdout).toMatch(
      /concurrent +20 runs of 4 workers, seed 7: NOT EXERCISED \(not a concurrency pass\): the implementation takes one request at a time/,
    );
    expect(out.stdout).not.toContain('every history linearizable');
    expect(out.stdout).toMatch(/\nverdict: INCOMPLETE: the competing workers exercised nothing: .*; not a pass\n/);
    const json = checkResultSchema.parse(JSON.parse((await cli(...args, '--json')).stdout));
    expect(json.verdict).toBe('incomplete');
    expect(json.concurrent).toMatchObject({
      verdict: 'not_exercised',
      overlap: {
        pairs: 0,
        kinds: { claimClaim: 0, settleAtLeaseEnd: 0, claimAtExpiry: 0, submitSubmit: 0, commitCommit: 0 },
      },
    });
    expect(json.concurrent?.notExercised).toMatch(/one request at a time/);
    expect(json.notExercised).toEqual([{ phase: 'concurrent', reason: json.concurrent?.notExercised }]);
    expect(json.notAPass).toMatch(/^the competing workers exercised nothing/);
    expect(await readFile(junit, 'utf8')).toMatch(
      /<testcase classname="jobcheck.concurrent" name="concurrent campaign" time="[\d.]+">\n +<skipped message="not exercised: the implementation takes one request at a time/,
    );
    const page = await readFile(join(report, 'latest', 'index.html'), 'utf8');
    expect(page).toContain('data-verdict="incomplete"');
    expect(page).toMatch(/<p class="meaning">The competing workers exercised nothing: /);
    expect(page).toMatch(/<dd class="not-exercised">20 runs of 4 workers, seed 7: NOT EXERCISED/);
  }, 120_000);
});
