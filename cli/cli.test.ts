import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CHECK_EXPLORATION } from '../conformance/explore/index.ts';
import { lifecyclePaths } from '../conformance/lifecyclePaths.ts';
import { listFixtures } from '../model/fixtures.ts';
import { runCli } from './cli.ts';
import { xmlEscape } from './junit.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dir = await mkdtemp(join(tmpdir(), 'jobcheck-cli-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) }, isTTY: false });
  return { code, stdout, stderr };
}

/** One line on stderr, starting with `jobcheck:`, and nothing that looks like a stack trace. */
function expectOneLineError(stderr: string, mentions: RegExp): void {
  expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(stderr).toMatch(/^jobcheck: /);
  expect(stderr).toMatch(mentions);
  expect(stderr).not.toMatch(/\n\s+at /);
}

describe('bad invocations: one line on stderr, exit code 2', () => {
  it('prints the usage on stderr and exits 2 without a command', async () => {
    const out = await cli();
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('Usage: jobcheck <command>');
  });

  it.each([
    [['frobnicate'], /unknown command "frobnicate"/],
    [['check', '--builtin', '--frobnicate'], /Unknown option --frobnicate/],
    [['check'], /say which implementation to check/],
    [['check', '--builtin', '--broken', 'global-fifo'], /choose one implementation, not --builtin and --broken/],
    [['check', '--builtin', '--runs', 'many'], /--runs must be a whole number \(got "many"\)/],
    [['check', '--builtin', '--runs', '0'], /--runs must be at least 1/],
    [['check', '--broken', 'no-such-bug'], /no broken variant named "no-such-bug"/],
    [['check', '--module', 'no/such/file.ts'], /no such file/],
    [['check', '--module', 'conformance/adapters/jobStore.ts'], /exports no AdapterFactory/],
    [['replay', '--builtin'], /give exactly one artifact file/],
    [['replay', join(ROOT, 'package.json'), '--builtin'], /invalid artifact/],
    [['coverage'], /at least one coverage JSON file/],
    [['coverage', join(ROOT, 'package.json')], /invalid coverage file/],
    [['paths', 'extra'], /Unexpected argument extra/],
    [['check', '--builtin', '--path', '1:2'], /--path needs the --seed/],
    [['check', '--builtin', '--seed', '1', '--path', 'a:b'], /--path must look like 3:0:1/],
  ] as const)('%j', async (args, mentions) => {
    const out = await cli(...args);
    expect(out.code).toBe(2);
    expectOneLineError(out.stderr, mentions);
  });

  it('reports a command that cannot start through the real `jobcheck` as one line and exit 2, naming spawn_failed and the shell\'s complaint', () => {
    const r = spawnSync(process.execPath, ['bin/jobcheck.js', 'check', '--impl', 'no-such-jobstore-binary --serve'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expectOneLineError(r.stderr, /cannot start the implementation .*spawn_failed.*not found/);
  });
});

describe('help', () => {
  it.each(['check', 'explore', 'replay', 'coverage', 'paths', 'demo'])('jobcheck %s --help prints the usage of the command and exits 0', async (command) => {
    const out = await cli(command, '--help');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(`Usage: jobcheck ${command}`);
  });
});

describe('check, replay and coverage work together', () => {
  it('writes a failure artifact that replay repeats against the broken variant (exit 1) and that the built-in implementation passes (exit 0)', async () => {
    const report = join(dir, 'fifo');
    const check = await cli('check', '--broken', 'global-fifo', '--seed', '1', '--runs', '100', '--report', report);
    expect(check.code).toBe(1);
    expect((await readdir(report)).sort()).toEqual(['coverage.html', 'coverage.json', 'coverage.md', 'failure.json']);
    const artifact = join(report, 'failure.json');
    expect(check.stdout).toContain(`replay: npx jobcheck replay ${artifact} --broken global-fifo`);
    const again = await cli('replay', artifact, '--broken', 'global-fifo');
    expect(again.code).toBe(1);
    expect(again.stdout).toMatch(/disagrees with the model at step \d+/);
    const fixed = await cli('replay', artifact, '--builtin', '--json');
    expect(fixed.code).toBe(0);
    expect(JSON.parse(fixed.stdout)).toMatchObject({ verdict: 'agree', divergence: null });
  });

  it('repeats just the shrunk counterexample with the seed and path it reported', async () => {
    const first = await cli('check', '--broken', 'dead-job-blocks', '--seed', '3', '--runs', '100', '--report', join(dir, 'again'), '--json');
    const { campaign } = JSON.parse(first.stdout) as { campaign: { path: string; storyLength: number } };
    expect(campaign.path).toMatch(/^\d+(:\d+)*$/);
    const again = await cli('check', '--broken', 'dead-job-blocks', '--seed', '3', '--path', campaign.path, '--report', join(dir, 'again'), '--json');
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toMatchObject({ campaign: { verdict: 'diverge', runs: 1, storyLength: campaign.storyLength } });
  });

  it('adds up coverage files: merged counts are the sums of the inputs', async () => {
    const a = join(dir, 'cov-a');
    const b = join(dir, 'cov-b');
    await cli('check', '--builtin', '--seed', '1', '--runs', '20', '--report', a);
    await cli('check', '--builtin', '--seed', '2', '--runs', '30', '--report', b);
    const merged = join(dir, 'cov-merged');
    const out = await cli('coverage', join(a, 'coverage.json'), join(b, 'coverage.json'), '--report', merged);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('2 file(s)');
    type Cov = { runs: number; steps: number; items: { transitions: Record<string, number> } };
    const read = async (d: string): Promise<Cov> => JSON.parse(await readFile(join(d, 'coverage.json'), 'utf8')) as Cov;
    const [ca, cb, cm] = [await read(a), await read(b), await read(merged)];
    expect(cm.runs).toBe(ca.runs + cb.runs);
    expect(cm.steps).toBe(ca.steps + cb.steps);
    for (const [t, n] of Object.entries(cm.items.transitions)) expect(n).toBe((ca.items.transitions[t] ?? 0) + (cb.items.transitions[t] ?? 0));
    expect(await readFile(join(merged, 'coverage.html'), 'utf8')).toContain('<svg');
  });

  it('checks a module that exports an AdapterFactory', async () => {
    const out = await cli('check', '--module', 'examples/typescript/jobStoreModule.ts', '--seed', '1', '--runs', '20', '--report', join(dir, 'module'), '--json');
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ verdict: 'agree', target: 'examples/typescript/jobStoreModule.ts' });
  });

  it('writes JUnit XML with one test case per fixture story, per path, for the campaign and per explored config, the failing ones carrying their story', async () => {
    const file = join(dir, 'junit.xml');
    const out = await cli('check', '--broken', 'dead-job-blocks', '--seed', '1', '--runs', '50', '--report', join(dir, 'junit'), '--junit', file);
    expect(out.code).toBe(1);
    const xml = await readFile(file, 'utf8');
    const cases = xml.match(/<testcase /g)?.length ?? 0;
    expect(cases).toBe(listFixtures().length + lifecyclePaths().length + 1 + CHECK_EXPLORATION[0]!.configs.length);
    expect(xml).toContain('classname="jobcheck.exploration" name="exploration one-job/basic"');
    const failures = xml.match(/<failure /g)?.length ?? 0;
    expect(xml).toMatch(new RegExp(`<testsuites [^>]*tests="${cases}" failures="${failures}"`));
    expect(failures).toBeGreaterThan(1);
    expect(xml).toContain('classname="jobcheck.campaign"');
    const inside = [...xml.matchAll(/<failure [^>]*>([\s\S]*?)<\/failure>/g)].map((m) => m[1] ?? '');
    for (const text of inside) expect(text).not.toMatch(/[<>]/);
  });

  it('escapes what XML cannot hold as it is', () => {
    expect(xmlEscape(`a<b>&"c'\u0001`)).toBe('a&lt;b&gt;&amp;&quot;c&apos;');
  });
});

describe('paths and demo', () => {
  it('lists every path of the suite', async () => {
    const out = await cli('paths');
    expect(out.code).toBe(0);
    expect(out.stdout.match(/^\s+\d+\. /gm)).toHaveLength(lifecyclePaths().length);
  });

  it('lists the fixture stories', async () => {
    const out = await cli('demo');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('snapshot-aliasing');
  });
});

describe('docs/cli.md', () => {
  const page = readFile(join(ROOT, 'docs', 'cli.md'), 'utf8');
  it.each(['check', 'explore', 'replay', 'coverage', 'paths'])('shows the --help text of jobcheck %s as the command prints it', async (command) => {
    const blocks = [...(await page).matchAll(/^```text\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
    const shown = blocks.find((b) => b.startsWith(`Usage: jobcheck ${command} `) || b.startsWith(`Usage: jobcheck ${command}\n`));
    expect(shown).toBe((await cli(command, '--help')).stdout);
  });
});
