/**
 * The CI recipes of docs/ci.md: each YAML block parses, has the shape its CI system needs, keeps
 * as artifacts the files its commands write, and its `npx --no-install jobcheck check` command
 * runs (against the Python example, put at the recipes' placeholder path, with fewer runs) in an
 * empty folder, writing those files. The sharded recipes run two shards with small budgets, as
 * their matrix or `parallel:` would, then their merge job's commands, and the merged verdict and
 * JUnit file are checked. The recipes name the Action by the release tag of this version, and the
 * page says how to add the dependency the plain recipes install.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { lifecyclePaths } from '../conformance/paths/lifecyclePaths.ts';
import { REFUSAL_KINDS } from '../conformance/restore/index.ts';
import { listFixtures } from '../model/fixtures.ts';
import { PROJECT_ROOT, jobcheckArgs, splitWords } from './tools/quotedCommands.ts';

const page = readFileSync(join(PROJECT_ROOT, 'docs', 'ci.md'), 'utf8');
const blocks = [...page.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
const work = mkdtempSync(join(tmpdir(), 'jobcheck-ci-'));
const VERSION = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
/** Where the recipes say the user's store is; the tests put the Python example there. */
const PLACEHOLDER = 'path/to/your/jobstore.py';
/** The command that runs jobcheck in the recipes: the project's own copy, never a registry's. */
const NPX = 'npx --no-install jobcheck ';
afterAll(() => rmSync(work, { recursive: true, force: true }));

type Yaml = Record<string, unknown>;
const parsed = blocks.map((b) => parse(b) as Yaml);
/** The first YAML block with a top-level `key` for which `test` holds. */
const recipe = (key: string, test: (y: Yaml) => boolean = () => true): Yaml => {
  const found = parsed.find((y) => key in y && test(y));
  if (found === undefined) throw new Error(`docs/ci.md has no YAML block with ${key}`);
  return found;
};
/** The GitHub workflow whose job `name` exists. */
const workflow = (name: string): Yaml => recipe('jobs', (y) => name in (y['jobs'] as Yaml));

/** The value of a flag in a command's words. */
const flag = (words: readonly string[], name: string): string | undefined => words[words.indexOf(name) + 1];

/** Runs `npx --no-install jobcheck ...` as the CI job would, in a folder holding only the Python example at the placeholder path. */
function runInFolder(line: string): Promise<{ code: number | null; folder: string; stderr: string }> {
  expect(line.startsWith(`${NPX}check `), line).toBe(true);
  const folder = exampleFolder();
  // Fewer runs than the recipe's: this tests the recipe, not the example.
  const args = (jobcheckArgs(splitWords(line)) ?? []).map((w, i, all) => (all[i - 1] === '--runs' ? '20' : w));
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

/** The expression of the matrix's shard, as the recipe writes it. */
const MATRIX_SHARD = ['$', '{{ matrix.shard }}'].join('');

const sameFile = (a: string, b: string): boolean => a.replace(/\/$/, '') === b.replace(/\/$/, '');

/** A fresh folder holding only the Python example, at the recipes' placeholder path, as a CI job's checkout would. */
function exampleFolder(): string {
  const folder = mkdtempSync(join(work, 'job-'));
  mkdirSync(dirname(join(folder, PLACEHOLDER)), { recursive: true });
  writeFileSync(join(folder, PLACEHOLDER), readFileSync(join(PROJECT_ROOT, 'examples', 'python', 'jobstore.py')));
  return folder;
}

/** Runs a recipe's shell line in `folder`, `npx --no-install jobcheck` being this checkout's bin/jobcheck.js. */
function sh(
  line: string,
  folder: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = line.replaceAll(NPX, `"${process.execPath}" "${join(PROJECT_ROOT, 'bin', 'jobcheck.js')}" `);
  return new Promise((resolve) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd: folder,
      env: { ...process.env, ...env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('docs/ci.md', () => {
  it('holds five YAML recipes (the Action, GitHub, GitLab, and both sharded), and all parse', () => {
    expect(blocks).toHaveLength(5);
    for (const b of blocks) expect(() => parse(b)).not.toThrow();
  });

  it("names the Action by this version's release tag, never a branch, and the user's store by a placeholder path", () => {
    const uses = [...page.matchAll(/uses: (jobcheck\/jobcheck@\S+)/g)].map((m) => m[1]);
    expect(uses.length).toBe(2);
    for (const u of uses) expect(u).toBe(`jobcheck/jobcheck@v${VERSION}`);
    const recipes = [...page.matchAll(/^```(?:yaml|sh)\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '').join('\n');
    const stores = [...recipes.matchAll(/(?:impl: |--impl ")([^"\n]+)/g)].map((m) => m[1]);
    expect(stores.length).toBeGreaterThan(5);
    for (const store of stores) expect(store).toBe(`python3 ${PLACEHOLDER}`);
  });

  it('says how to add the dependency the plain recipes install, from the release of this version, before them', () => {
    const add = `npm install --save-dev https://github.com/jobcheck/jobcheck/releases/download/v${VERSION}/jobcheck-${VERSION}.tgz`;
    expect(page).toContain(`\`\`\`sh\n${add}\n\`\`\``);
    expect(page.indexOf(add)).toBeLessThan(page.indexOf('## GitHub Actions'));
  });

  it('the Action recipe checks out and runs the Action of this repository with the Python example', () => {
    const wf = recipe(
      'jobs',
      (y) => JSON.stringify(y).includes('jobcheck/jobcheck@') && 'conformance' in (y['jobs'] as Yaml),
    );
    const steps = ((wf['jobs'] as Record<string, Yaml>)['conformance'] as Yaml)['steps'] as Yaml[];
    expect(steps.map((x) => x['uses'])).toEqual(['actions/checkout@v4', expect.stringMatching(/^jobcheck\/jobcheck@/)]);
    const action = parse(readFileSync(join(PROJECT_ROOT, 'action.yml'), 'utf8')) as Yaml;
    const inputs = Object.keys(action['inputs'] as Yaml);
    for (const given of Object.keys(steps[1]?.['with'] as Yaml)) expect(inputs).toContain(given);
    const table = page.slice(page.indexOf('Its inputs:'), page.indexOf('Its outputs'));
    const named = [...table.matchAll(/^\| ([^|]*) \|/gm)].flatMap((row) =>
      [...(row[1] ?? '').matchAll(/`([a-z-]+)`/g)].map((m) => m[1] ?? ''),
    );
    expect(named.sort()).toEqual([...inputs].sort());
  });

  it('GitHub Actions: checks out, installs from the lockfile, checks, and uploads the JUnit file and the report even after a failure', async () => {
    const wf = recipe('jobs', (y) => !JSON.stringify(y).includes('jobcheck/jobcheck@'));
    const job = (wf['jobs'] as Record<string, Yaml>)['conformance'] as Yaml;
    expect(job['runs-on']).toBe('ubuntu-latest');
    const steps = job['steps'] as Yaml[];
    expect(steps.map((s) => s['uses'] ?? s['run'])).toEqual([
      'actions/checkout@v4',
      'actions/setup-node@v4',
      'npm ci',
      expect.stringMatching(/^npx --no-install jobcheck check /),
      'actions/upload-artifact@v4',
    ]);
    expect((steps[1]?.['with'] as Yaml | undefined)?.['node-version']).toBe(20);
    const check = String(steps[3]?.['run']);
    const upload = steps[4] as Yaml;
    expect(upload['if']).toBe('always()');
    // upload-artifact 4.4 and later leave out what is under a folder whose name starts with a dot.
    expect((upload['with'] as Yaml)['include-hidden-files']).toBe(true);
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
  }, 180_000);

  it('GitLab CI: installs, checks, and keeps the report and the JUnit file (also as a JUnit report) even after a failure', async () => {
    const job = recipe('jobcheck')['jobcheck'] as Yaml;
    expect(job['image']).toBe('node:20');
    const script = job['script'] as string[];
    expect(script[0]).toBe('npm ci');
    const check = script.find((l) => l.startsWith(`${NPX}check `)) ?? '';
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
  }, 180_000);

  it('the command of the recipe fails the job on a divergence: exit 1, with the JUnit file and the failure artifact written', async () => {
    const job = recipe('jobcheck')['jobcheck'] as Yaml;
    const check = (job['script'] as string[]).find((l) => l.startsWith(`${NPX}check `)) ?? '';
    const broken = check.replace(/--impl "[^"]*"/, '--broken dead-job-blocks');
    const ran = await runInFolder(broken);
    expect(ran.code).toBe(1);
    const { report, junit } = outputsOf(check);
    expect(readFileSync(join(ran.folder, junit), 'utf8')).toContain('<failure ');
    expect(existsSync(join(ran.folder, report, 'failure.json'))).toBe(true);
  }, 180_000);

  it('GitHub Actions, sharded: two shards of the matrix, then the merge job: one verdict, one JUnit file with every shard, the summary', async () => {
    const wf = workflow('merge');
    const jobs = wf['jobs'] as Record<string, Yaml>;
    const check = jobs['check'] as Yaml;
    const merge = jobs['merge'] as Yaml;
    expect((check['strategy'] as Yaml)['fail-fast']).toBe(false);
    const matrix = ((check['strategy'] as Yaml)['matrix'] as Yaml)['shard'] as number[];
    const action = (check['steps'] as Yaml[]).find((x) => String(x['uses']).startsWith('jobcheck/jobcheck@')) as Yaml;
    const given = action['with'] as Record<string, string | number>;
    expect(String(given['shard'])).toBe(`${MATRIX_SHARD}/${matrix.length}`);
    expect(String(given['artifact-name'])).toMatch(/\$\{\{ matrix.shard \}\}/);
    expect(merge['needs']).toBe('check');
    expect(merge['if']).toBe('always()');
    const mergeSteps = merge['steps'] as Yaml[];
    const download = mergeSteps.find((x) => x['uses'] === 'actions/download-artifact@v4') as Yaml;
    const into = String((download['with'] as Yaml)['path']);
    const pattern = new RegExp(`^${String((download['with'] as Yaml)['pattern']).replace('*', '.*')}$`);
    // Two shards with small budgets; each writes what the Action uploads (report/, junit.xml, result.json).
    const folder = exampleFolder();
    const count = 2;
    const shards = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const artifact = String(given['artifact-name']).replace(MATRIX_SHARD, String(i + 1));
        expect(artifact).toMatch(pattern);
        const dir = join(into, artifact);
        return sh(
          `mkdir -p ${dir} && ${NPX}check --impl "${given['impl']}" --seed ${given['seed']} --runs 10 --no-explore --shard ${i + 1}/${count} --report ${dir}/report --junit ${dir}/junit.xml --json > ${dir}/result.json`,
          folder,
        );
      }),
    );
    for (const r of shards) expect(r.code, r.stderr).toBe(0);
    const runs = mergeSteps.filter((x) => typeof x['run'] === 'string' && x['run'] !== 'npm ci');
    expect(runs.slice(1).every((x) => x['if'] === 'always()')).toBe(true);
    const done = [];
    for (const x of runs) done.push(await sh(String(x['run']), folder));
    expect(done.map((d) => d.code)).toEqual(runs.map(() => 0));
    const merged = JSON.parse(readFileSync(join(folder, 'merged.json'), 'utf8')) as Yaml;
    expect(merged['verdict']).toBe('agree');
    expect((merged['parts'] as Yaml[]).map((p) => p['label'])).toEqual(['shard 1/2', 'shard 2/2']);
    const xml = readFileSync(join(folder, 'merged', 'junit.xml'), 'utf8');
    expect(xml).toContain('name="random campaign (shard 1/2)"');
    expect(xml).toContain('name="random campaign (shard 2/2)"');
    expect(xml).toMatch(
      new RegExp(
        `<testsuites [^>]*tests="${listFixtures().length + 1 + REFUSAL_KINDS.length + lifecyclePaths().length + 2}" failures="0" errors="0"`,
      ),
    );
    expect(readFileSync(join(folder, 'merged', 'coverage.md'), 'utf8')).toMatch(
      /^\*\*Verdict: AGREE with the model\*\* \(merged from 2 files: shard 1\/2 \(shards\/jobcheck-shard-1\/report\/coverage.json\); shard 2\/2/,
    );
    expect(done[1]?.stdout).toMatch(/^## jobcheck: AGREE/);
    expect(done[1]?.stdout).toContain('| shard 2/2 | agree |');
    // A shard that did not arrive is an error naming it, never a green merge of the rest.
    rmSync(join(folder, into, String(given['artifact-name']).replace(MATRIX_SHARD, '2')), { recursive: true });
    const missing = await sh(String(runs[0]?.['run']), folder);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('shard 2/2 is missing');
  }, 120_000);

  it('GitLab CI, sharded: two parallel jobs, then the merge job that needs them: one verdict and one JUnit report', async () => {
    const recipes = recipe('jobcheck-merge');
    const shard = recipes['jobcheck-shard'] as Yaml;
    const merge = recipes['jobcheck-merge'] as Yaml;
    expect(typeof shard['parallel']).toBe('number');
    expect(merge['needs']).toEqual(['jobcheck-shard']);
    expect(merge['when']).toBe('always');
    expect(((merge['artifacts'] as Yaml)['reports'] as Yaml)['junit']).toBe('merged/junit.xml');
    const folder = exampleFolder();
    const lines = (shard['script'] as string[]).filter((l) => l !== 'npm ci');
    const count = 2;
    const shards = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        sh(lines.map((l) => l.replace('--runs 900', '--runs 10 --no-explore')).join(' && '), folder, {
          CI_NODE_INDEX: String(i + 1),
          CI_NODE_TOTAL: String(count),
        }),
      ),
    );
    for (const r of shards) expect(r.code, r.stderr).toBe(0);
    const merged = await sh((merge['script'] as string[]).filter((l) => l !== 'npm ci').join(' && '), folder);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toMatch(/^verdict: AGREE \(2 parts merged: shard 1\/2 agree, shard 2\/2 agree\)/);
    const xml = readFileSync(join(folder, 'merged', 'junit.xml'), 'utf8');
    expect(xml.match(/name="random campaign \(shard \d\/2\)"/g)).toHaveLength(2);
    for (const p of (merge['artifacts'] as Yaml)['paths'] as string[]) expect(existsSync(join(folder, p))).toBe(true);
  }, 120_000);
});
