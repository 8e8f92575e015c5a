/**
 * The CI recipes of docs/ci.md: each YAML block parses, has the shape its CI system needs, keeps
 * as artifacts the files its commands write, and its `npx jobcheck check` command runs (against
 * the Python example, with fewer runs) in an empty folder, writing those files.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PROJECT_ROOT, splitWords } from './tools/quotedCommands.ts';

const page = readFileSync(join(PROJECT_ROOT, 'docs', 'ci.md'), 'utf8');
const blocks = [...page.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
const work = mkdtempSync(join(tmpdir(), 'jobcheck-ci-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

type Yaml = Record<string, unknown>;
const recipe = (key: string): Yaml => {
  const found = blocks.map((b) => parse(b) as Yaml).find((y) => key in y);
  if (found === undefined) throw new Error(`docs/ci.md has no YAML block with ${key}`);
  return found;
};

/** The value of a flag in a command's words. */
const flag = (words: readonly string[], name: string): string | undefined => words[words.indexOf(name) + 1];

/** Runs `npx jobcheck ...` as the CI job would, in a folder holding only the Python example. */
function runInFolder(line: string): Promise<{ code: number | null; folder: string; stderr: string }> {
  const words = splitWords(line);
  expect(words.slice(0, 3)).toEqual(['npx', 'jobcheck', 'check']);
  const folder = mkdtempSync(join(work, 'job-'));
  cpSync(join(PROJECT_ROOT, 'examples', 'python', 'jobstore.py'), join(folder, 'examples', 'python', 'jobstore.py'));
  // Fewer runs than the recipe's: this tests the recipe, not the example.
  const args = words.slice(2).map((w, i, all) => (all[i - 1] === '--runs' ? '20' : w));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'jobcheck.js'), ...args], {
      cwd: folder,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, folder, stderr }));
  });
}

/** The report directory and JUnit file a check command writes. */
function outputsOf(line: string): { report: string; junit: string } {
  const words = splitWords(line);
  const report = flag(words, '--report');
  const junit = flag(words, '--junit');
  expect(report, `--report in ${line}`).toBeDefined();
  expect(junit, `--junit in ${line}`).toBeDefined();
  return { report: report ?? '', junit: junit ?? '' };
}

const sameFile = (a: string, b: string): boolean => a.replace(/\/$/, '') === b.replace(/\/$/, '');

describe('docs/ci.md', () => {
  it('holds two YAML recipes, and both parse', () => {
    expect(blocks).toHaveLength(2);
    for (const b of blocks) expect(() => parse(b)).not.toThrow();
  });

  it('GitHub Actions: checks out, installs from the lockfile, checks, and uploads the JUnit file and the report even after a failure', async () => {
    const wf = recipe('jobs');
    const job = (wf['jobs'] as Record<string, Yaml>)['conformance'] as Yaml;
    expect(job['runs-on']).toBe('ubuntu-latest');
    const steps = job['steps'] as Yaml[];
    expect(steps.map((s) => s['uses'] ?? s['run'])).toEqual([
      'actions/checkout@v4',
      'actions/setup-node@v4',
      'npm ci',
      expect.stringMatching(/^npx jobcheck check /),
      'actions/upload-artifact@v4',
    ]);
    expect((steps[1]?.['with'] as Yaml | undefined)?.['node-version']).toBe(20);
    const check = String(steps[3]?.['run']);
    const upload = steps[4] as Yaml;
    expect(upload['if']).toBe('always()');
    const paths = String((upload['with'] as Yaml)['path'])
      .trim()
      .split('\n');
    const { report, junit } = outputsOf(check);
    expect(paths.some((p) => sameFile(p, junit))).toBe(true);
    expect(paths.some((p) => sameFile(p, report))).toBe(true);
    const ran = await runInFolder(check);
    expect(ran.code, ran.stderr).toBe(0);
    expect(existsSync(join(ran.folder, junit))).toBe(true);
    expect(existsSync(join(ran.folder, report, 'coverage.html'))).toBe(true);
    expect(readFileSync(join(ran.folder, junit), 'utf8')).toMatch(/<testsuites [^>]*failures="0" errors="0"/);
  }, 60_000);

  it('GitLab CI: installs, checks, and keeps the report and the JUnit file (also as a JUnit report) even after a failure', async () => {
    const job = recipe('jobcheck')['jobcheck'] as Yaml;
    expect(job['image']).toBe('node:20');
    const script = job['script'] as string[];
    expect(script[0]).toBe('npm ci');
    const check = script.find((l) => l.startsWith('npx jobcheck check ')) ?? '';
    const artifacts = job['artifacts'] as Yaml;
    expect(artifacts['when']).toBe('always');
    const { report, junit } = outputsOf(check);
    expect((artifacts['reports'] as Yaml)['junit']).toBe(junit);
    const paths = artifacts['paths'] as string[];
    expect(paths.some((p) => sameFile(p, junit))).toBe(true);
    expect(paths.some((p) => sameFile(p, report))).toBe(true);
    const ran = await runInFolder(check);
    expect(ran.code, ran.stderr).toBe(0);
    expect(existsSync(join(ran.folder, junit))).toBe(true);
    expect(existsSync(join(ran.folder, report, 'coverage.html'))).toBe(true);
  }, 60_000);

  it('the command of the recipe fails the job on a divergence: exit 1, with the JUnit file and the failure artifact written', async () => {
    const job = recipe('jobcheck')['jobcheck'] as Yaml;
    const check = (job['script'] as string[]).find((l) => l.startsWith('npx jobcheck check ')) ?? '';
    const broken = check.replace(/--impl "[^"]*"/, '--broken dead-job-blocks');
    const ran = await runInFolder(broken);
    expect(ran.code).toBe(1);
    const { report, junit } = outputsOf(check);
    expect(readFileSync(join(ran.folder, junit), 'utf8')).toContain('<failure ');
    expect(existsSync(join(ran.folder, report, 'failure.json'))).toBe(true);
  }, 60_000);
});
