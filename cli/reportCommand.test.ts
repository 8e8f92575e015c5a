import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportListJson } from './reportCommand.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

/** Runs `jobcheck <args>` through bin/jobcheck.js; resolves with its stdout and exit code. */
async function jobcheck(...args: string[]): Promise<{ stdout: string; code: number }> {
  try {
    const { stdout } = await run(process.execPath, [join(ROOT, 'bin', 'jobcheck.js'), ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1' },
      timeout: 60_000,
    });
    return { stdout, code: 0 };
  } catch (error) {
    const e = error as { stdout?: string; code?: number };
    return { stdout: e.stdout ?? '', code: e.code ?? -1 };
  }
}

let dir: string;
const checks: Array<{ stdout: string; code: number }> = [];
let lists: Array<{ stdout: string; code: number }> = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'jobcheck-report-list-'));
  for (const seed of ['11', '22'])
    checks.push(await jobcheck('check', '--builtin', '--runs', '2', '--no-explore', '--seed', seed, '--report', dir));
  // The listings only read: they run at once.
  lists = await Promise.all([
    jobcheck('report', '--list', '--report', dir),
    jobcheck('report', '--list', '--report', dir, '--json'),
    jobcheck('report', '--report', dir),
  ]);
}, 90_000);
const listed = (i: number): { stdout: string; code: number } => lists[i] ?? { stdout: '', code: -1 };
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('jobcheck report --list', () => {
  it('follows two checks that each name their page through latest', async () => {
    expect(checks.map((c) => c.code)).toEqual([0, 0]);
    for (const c of checks) expect(c.stdout).toContain(`report: ${join(dir, 'latest', 'index.html')}\n`);
    expect(await readFile(join(dir, 'latest', 'index.html'), 'utf8')).toContain('AGREE');
    expect(await readlink(join(dir, 'latest'))).toMatch(/^runs[\\/]\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z-agree$/);
  });

  it('lists both runs, newest first, with time, verdict, target, seed, command and folder', () => {
    const { stdout, code } = listed(0);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`2 runs in ${dir}, newest first:`);
    expect(lines[1]).toMatch(
      /^ {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC {2}AGREE .* impl\/JobStore {2}seed 22 {2}.*-agree \(latest\)$/,
    );
    expect(lines[2]).toBe(`    jobcheck check --builtin --runs 2 --no-explore --seed 22 --report ${dir}`);
    expect(lines[3]).toMatch(/seed 11 {2}.*-agree$/);
    expect(lines[4]).toBe(`    jobcheck check --builtin --runs 2 --no-explore --seed 11 --report ${dir}`);
    expect(lines).toHaveLength(5);
  });

  it('prints the same list as JSON with --json', () => {
    const { stdout, code } = listed(1);
    expect(code).toBe(0);
    const list = JSON.parse(stdout) as ReportListJson;
    expect(list.format).toBe('jobcheck.report-list/1');
    const runs = list.runs.map((r) => ('unreadable' in r ? null : r));
    expect(runs.map((r) => r?.seed)).toEqual([22, 11]);
    expect(runs.map((r) => r?.latest)).toEqual([true, false]);
    expect(runs[0]).toMatchObject({
      verdict: 'agree',
      exitCode: 0,
      target: 'impl/JobStore',
      version: expect.any(String),
    });
    expect(runs[0]?.argv).toEqual([
      'check',
      '--builtin',
      '--runs',
      '2',
      '--no-explore',
      '--seed',
      '22',
      '--report',
      dir,
    ]);
    expect(Date.parse(runs[0]?.time ?? '')).toBeGreaterThan(Date.parse(runs[1]?.time ?? ''));
    expect(runs[0]?.page).toBe(join(runs[0]?.folder ?? '', 'index.html'));
  });

  it('refuses to guess what to show without --list', () => {
    expect(listed(2).code).toBe(2);
  });
});
