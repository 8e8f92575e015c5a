/**
 * scripts/ciSummary.mjs, the last lines of .ci/run, run as CI runs it on reports in the shape of
 * vitest's JSON reporter: every failed test and every file that failed to load named with its part,
 * then the count; a part without a readable report is a failure; the exit code says whether anything
 * failed.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'jobcheck-ci-summary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes a report into the temporary folder and returns its path. */
function report(name: string, value: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(value));
  return file;
}

/** Runs the script from the repository's root with the arguments given. */
function summary(...args: string[]): { code: number | null; lines: string[] } {
  const r = spawnSync(process.execPath, ['scripts/ciSummary.mjs', ...args], { cwd: ROOT, encoding: 'utf8' });
  return { code: r.status, lines: r.stdout.split('\n').filter((l) => l !== '') };
}

const file = (name: string, status: string, assertionResults: unknown[], message = ''): unknown => ({
  name: join(ROOT, name),
  status,
  message,
  assertionResults,
});

describe('the summary of a CI run', () => {
  it('counts both parts, skipped tests included, and exits 0 when nothing failed', () => {
    const quick = report('q.json', {
      numPassedTests: 5,
      numFailedTests: 0,
      numFailedTestSuites: 0,
      numPendingTests: 2,
    });
    const slow = report('s.json', { numPassedTests: 3, numFailedTests: 0, numFailedTestSuites: 0, numPendingTests: 0 });
    expect(summary('quick', quick, '0', 'slow', slow, '0')).toEqual({
      code: 0,
      lines: ['8 passed, 0 failed, 2 skipped'],
    });
  });

  it('names each failed test with its part, its file and the first line of its message, then counts it', () => {
    const quick = report('q-failed.json', {
      numPassedTests: 1,
      numFailedTests: 1,
      numFailedTestSuites: 1,
      numPendingTests: 0,
      testResults: [
        file('a/b.test.ts', 'failed', [
          { status: 'passed', fullName: 'b works' },
          {
            status: 'failed',
            fullName: 'b > breaks',
            failureMessages: ['AssertionError: 1 !== 2\n    at b.test.ts:3'],
          },
        ]),
      ],
    });
    const slow = report('s-ok.json', {
      numPassedTests: 4,
      numFailedTests: 0,
      numFailedTestSuites: 0,
      numPendingTests: 0,
    });
    expect(summary('quick', quick, '1', 'slow', slow, '0')).toEqual({
      code: 1,
      lines: ['failed (quick): a/b.test.ts > b > breaks: AssertionError: 1 !== 2', '5 passed, 1 failed'],
    });
  });

  it('counts a file that failed to load, with no test failing, as a failure and names it', () => {
    const slow = report('s-load.json', {
      numPassedTests: 2,
      numFailedTests: 0,
      numFailedTestSuites: 1,
      numPendingTests: 0,
      testResults: [file('c/d.test.ts', 'failed', [], 'Error: no server here\nstack')],
    });
    expect(summary('slow', slow, '1')).toEqual({
      code: 1,
      lines: ['failed (slow): c/d.test.ts: Error: no server here', '2 passed, 1 failed'],
    });
  });

  it('counts a part that wrote no readable report as one failure, with its exit status', () => {
    const quick = report('q-ok.json', {
      numPassedTests: 7,
      numFailedTests: 0,
      numFailedTestSuites: 0,
      numPendingTests: 0,
    });
    writeFileSync(join(dir, 'cut.json'), '{"numPassedTests": 3, ');
    for (const missing of [join(dir, 'none.json'), join(dir, 'cut.json')])
      expect(summary('quick', quick, '0', 'slow', missing, '137')).toEqual({
        code: 1,
        lines: ['the slow part wrote no readable report (exit 137)', '7 passed, 1 failed'],
      });
  });

  it('refuses arguments that are not triples of part, report and status', () => {
    const r = spawnSync(process.execPath, ['scripts/ciSummary.mjs', 'quick', 'q.json'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^usage: node scripts\/ciSummary\.mjs/);
  });
});
