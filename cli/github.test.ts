/**
 * The GitHub Action (action.yml) and the step after its check (`jobcheck github`): the metadata
 * is a valid action whose inputs are all declared and all used, and its steps, run in order in a
 * simulated GitHub environment (the summary and output files, GITHUB_ACTIONS=true), write the
 * verdict, the story, the coverage table, the outputs and one annotation per failure, against the
 * Python example (green) and a broken variant of it (red).
 *
 * The Action runs from a release as a user's job gets it: the working tree is committed in a
 * temporary repository, scripts/release.sh makes the release commit and tag there (dist/ built),
 * and the tag's tree is the action's folder. Its install step runs for real there and must leave
 * the runtime dependencies only; the cache steps (GitHub's own actions/cache) are checked for what
 * they are given, a miss first and then hits. The other `uses:` steps (setup-node,
 * upload-artifact) are checked, not run.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { validateAction, validateWorkflow } from '@action-validator/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../docs/tools/quotedCommands.ts';
import { runCheck } from '../conformance/check/index.ts';
import { lockedJobStoreFactory, sequentialFactory } from '../conformance/concurrent/inProcess.ts';
import { workflowData, workflowProperty } from '../conformance/outside/outsideText.ts';
import { jobStoreFactory } from '../conformance/stores/jobStore.ts';
import type { CheckResultJson } from './checkJsonSchema.ts';
import { checkJson } from './output/index.ts';
import { fixtureRules, githubStep, implementationFile, rulesOf } from './github.ts';

type Yaml = Record<string, unknown>;
interface Step {
  readonly name?: string;
  readonly id?: string;
  readonly if?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly shell?: string;
  readonly env?: Record<string, string>;
  readonly with?: Record<string, string>;
  readonly 'working-directory'?: string;
}

const source = readFileSync(join(PROJECT_ROOT, 'action.yml'), 'utf8');
const action = parse(source) as Yaml;
const inputs = action['inputs'] as Record<string, { default?: string; description?: string }>;
const steps = (action['runs'] as { steps: Step[] }).steps;
const work = mkdtempSync(join(tmpdir(), 'jobcheck-action-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const VERSION = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** Every `${{ ... }}` expression of a text. */
const expressions = (text: string): string[] => [...text.matchAll(/\$\{\{\s*(.*?)\s*\}\}/g)].map((m) => m[1] ?? '');

/** Where the action's files are: the tree of the release tag (beforeAll). */
let actionPath = '';

/** Replaces the expressions of a value as GitHub would, for the inputs given, the action's path and earlier steps' outputs. */
function substitute(
  text: string,
  given: Record<string, string>,
  outputs: Record<string, Record<string, string>>,
): string {
  return text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, e: string) => {
    const input = /^inputs\.([\w-]+)$/.exec(e);
    if (input !== null) return given[input[1] ?? ''] ?? inputs[input[1] ?? '']?.default ?? '';
    if (e === 'github.action_path') return actionPath;
    const out = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(e);
    if (out !== null) return outputs[out[1] ?? '']?.[out[2] ?? ''] ?? '';
    throw new Error(`the test does not know the expression ${e}`);
  });
}

/** Whether a step's `if:` holds, for the conditions action.yml uses. */
function holds(
  condition: string | undefined,
  given: Record<string, string>,
  outputs: Record<string, Record<string, string>>,
): boolean {
  if (condition === undefined || condition === 'always()') return true;
  if (condition === "inputs.node-version != ''") return (given['node-version'] ?? '') !== '';
  if (condition === "steps.restore.outputs.cache-hit != 'true'") return outputs['restore']?.['cache-hit'] !== 'true';
  throw new Error(`the test does not know the condition ${condition}`);
}

/** `key=value` lines of a GITHUB_OUTPUT file. */
const outputsOf = (text: string): Record<string, string> =>
  Object.fromEntries(
    text
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

/** What a cache step was given: its paths and its key. */
interface CacheUse {
  readonly action: string;
  readonly paths: readonly string[];
  readonly key: string;
}

interface Run {
  readonly summary: string;
  readonly outputs: Record<string, Record<string, string>>;
  readonly stdout: Record<string, string>;
  readonly stderr: Record<string, string>;
  /** The exit code of the last step (the job's). */
  readonly exitCode: number | null;
  readonly uploaded: readonly string[];
  readonly cache: readonly CacheUse[];
  /** The names of the steps that ran (a `uses:` step counts when its condition held). */
  readonly ran: readonly string[];
  readonly folder: string;
}

/**
 * Runs the action's steps in a folder holding the Python example and its broken variants, as a job
 * on GitHub would; the cache's restore step reports a hit unless `cacheHit` is false.
 */
function runAction(given: Record<string, string>, cacheHit = true): Run {
  const folder = mkdtempSync(join(work, 'job-'));
  cpSync(join(PROJECT_ROOT, 'examples', 'python'), join(folder, 'examples', 'python'), {
    recursive: true,
    filter: (f) => !f.endsWith('.ts'),
  });
  const summaryFile = join(folder, 'summary.md');
  writeFileSync(summaryFile, '');
  const outputs: Record<string, Record<string, string>> = {};
  const stdout: Record<string, string> = {};
  const stderr: Record<string, string> = {};
  const cache: CacheUse[] = [];
  const ran: string[] = [];
  let exitCode: number | null = 0;
  let uploaded: string[] = [];
  for (const [i, step] of steps.entries()) {
    const id = step.id ?? `step${i}`;
    if (!holds(step.if, given, outputs)) continue;
    ran.push(step.name ?? id);
    if (step.uses !== undefined) {
      const paths = (): string[] =>
        substitute(step.with?.['path'] ?? '', given, outputs)
          .trim()
          .split('\n');
      if (step.uses.startsWith('actions/upload-artifact@')) uploaded = paths();
      if (step.uses.startsWith('actions/cache/')) {
        cache.push({ action: step.uses, paths: paths(), key: substitute(step.with?.['key'] ?? '', given, outputs) });
        if (step.uses.startsWith('actions/cache/restore@')) outputs[id] = { 'cache-hit': cacheHit ? 'true' : '' };
      }
      continue;
    }
    const outputFile = join(folder, `output-${id}`);
    writeFileSync(outputFile, '');
    const env = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([k, v]) => [k, substitute(String(v), given, outputs)]),
    );
    const script = substitute(step.run ?? '', given, outputs);
    const cwd =
      step['working-directory'] === undefined ? folder : substitute(step['working-directory'], given, outputs);
    const result = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd,
      env: {
        ...process.env,
        ...env,
        GITHUB_ACTIONS: 'true',
        GITHUB_STEP_SUMMARY: summaryFile,
        GITHUB_OUTPUT: outputFile,
        NO_COLOR: '1',
        // The runner's npm has the registry; this test's has a warm cache to use first.
        npm_config_prefer_offline: 'true',
      },
      encoding: 'utf8',
      timeout: 300_000,
    });
    outputs[id] = outputsOf(readFileSync(outputFile, 'utf8'));
    stdout[id] = result.stdout;
    stderr[id] = result.stderr;
    exitCode = result.status;
    if (result.status !== 0 && i < steps.length - 1)
      throw new Error(`step ${step.name ?? id} failed: ${result.stderr}`);
  }
  return {
    summary: readFileSync(summaryFile, 'utf8'),
    outputs,
    stdout,
    stderr,
    exitCode,
    uploaded,
    cache,
    ran,
    folder,
  };
}

/** A git repository holding the working tree's files (tracked, and new ones not ignored) in one commit. */
function repositoryOfWorkingTree(): string {
  const repo = join(work, 'jobcheck');
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  for (const file of new Set(listed.split('\0').filter((f) => f !== ''))) {
    const from = join(PROJECT_ROOT, file);
    if (!existsSync(from) || !lstatSync(from).isFile()) continue; // deleted in the tree, or a link
    mkdirSync(dirname(join(repo, file)), { recursive: true });
    copyFileSync(from, join(repo, file));
  }
  // The maintainer's first step of a release (docs/releasing.md): the CHANGELOG's section dated.
  const changelog = join(repo, 'CHANGELOG.md');
  writeFileSync(
    changelog,
    readFileSync(changelog, 'utf8').replace(`## [${VERSION}] - unreleased`, `## [${VERSION}] - 2026-12-31`),
  );
  git(repo, 'init', '--quiet');
  git(repo, 'add', '--all');
  git(repo, 'commit', '--quiet', '-m', 'the working tree');
  // The build needs the development dependencies: this checkout's, linked (and kept out of git).
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(repo, 'node_modules'));
  writeFileSync(join(repo, '.git', 'info', 'exclude'), 'node_modules\n');
  return repo;
}

/** Runs git in `cwd` with a committer of its own; returns its stdout. */
function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=jobcheck', '-c', 'user.email=jobcheck@localhost', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** The packages installed in a node_modules folder (scoped ones as @scope/name). */
function installed(modules: string): string[] {
  const names: string[] = [];
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith('.')) continue;
    if (entry.startsWith('@')) for (const sub of readdirSync(join(modules, entry))) names.push(`${entry}/${sub}`);
    else names.push(entry);
  }
  return names.sort();
}

const SMALL = { runs: '6', seed: '1', 'time-limit': '2m', args: '--no-explore' };
let repo = '';
let release = { stderr: '', head: '', tagged: '', parent: '', files: [] as string[] };
/** The first job: nothing cached yet, the install step runs; against the Python example. */
let first: Run;

beforeAll(() => {
  repo = repositoryOfWorkingTree();
  const head = git(repo, 'rev-parse', 'HEAD').trim();
  const made = spawnSync('bash', ['scripts/release.sh', VERSION], {
    cwd: repo,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'jobcheck',
      GIT_AUTHOR_EMAIL: 'jobcheck@localhost',
      GIT_COMMITTER_NAME: 'jobcheck',
      GIT_COMMITTER_EMAIL: 'jobcheck@localhost',
    },
    timeout: 400_000,
  });
  if (made.status !== 0) throw new Error(`scripts/release.sh failed: ${made.stderr}`);
  release = {
    stderr: made.stderr,
    head: git(repo, 'rev-parse', 'HEAD').trim(),
    tagged: git(repo, 'rev-parse', `v${VERSION}^{commit}`).trim(),
    parent: git(repo, 'rev-parse', `v${VERSION}^`).trim(),
    files: git(repo, 'ls-tree', '-r', '--name-only', `v${VERSION}`).split('\n'),
  };
  expect(release.head).toBe(head);
  // The action's folder as GitHub unpacks a tag: its tree, nothing else.
  actionPath = join(work, 'action');
  mkdirSync(actionPath);
  execFileSync('bash', ['-c', `git archive v${VERSION} | tar -x -C '${actionPath}'`], { cwd: repo });
  first = runAction({ ...SMALL, impl: 'python3 examples/python/jobstore.py' }, false);
}, 900_000);

describe('action.yml', () => {
  it('is a composite action that the action-validator schema accepts, and the validator refuses a broken one', () => {
    expect(validateAction(source).errors).toEqual([]);
    const noShell = source.replace(/\n {6}shell: bash\n/, '\n');
    expect(validateAction(noShell).errors).not.toEqual([]);
    for (const key of ['name', 'description', 'inputs', 'outputs', 'runs']) expect(action).toHaveProperty(key);
    expect((action['runs'] as Yaml)['using']).toBe('composite');
    for (const s of steps) if (s.run !== undefined) expect(s.shell, s.name).toBe('bash');
  });

  it("is what this repository's own workflow runs, and that workflow and the GitHub recipes of docs/ci.md are valid workflows", () => {
    const own = readFileSync(join(PROJECT_ROOT, '.github', 'workflows', 'ci.yml'), 'utf8');
    expect(validateWorkflow(own).errors).toEqual([]);
    expect(own).toContain('run: bash .ci/run');
    expect(own).toContain('uses: ./\n');
    const page = readFileSync(join(PROJECT_ROOT, 'docs', 'ci.md'), 'utf8');
    const workflows = [...page.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)]
      .map((m) => m[1] ?? '')
      .filter((b) => /^jobs:/m.test(b));
    expect(workflows.length).toBeGreaterThanOrEqual(3);
    for (const w of workflows) expect(validateWorkflow(w).errors).toEqual([]);
    expect(validateWorkflow(own.replace('runs-on: ubuntu-latest', 'runs-on: [')).errors).not.toEqual([]);
  });

  it('declares every input it uses and uses every input it declares, each with a description', () => {
    const used = new Set(
      expressions(source)
        .map((e) => /^inputs\.([\w-]+)/.exec(e)?.[1])
        .filter((x) => x !== undefined),
    );
    expect([...used].sort()).toEqual(Object.keys(inputs).sort());
    for (const [name, input] of Object.entries(inputs)) expect(input.description, name).toMatch(/\w/);
    for (const key of ['impl', 'module', 'workers', 'time-limit', 'shard', 'seed', 'runs', 'report-dir', 'junit'])
      expect(inputs).toHaveProperty(key);
  });

  it('gives inputs to the shell through env, never inside a script', () => {
    for (const s of steps) if (s.run !== undefined) expect(expressions(s.run), s.name).toEqual([]);
  });

  it('is released by scripts/release.sh as one commit on top of HEAD, tagged, holding dist/ built from its sources, and a tarball', () => {
    expect(release.parent).toBe(release.head);
    expect(release.tagged).not.toBe(release.head);
    expect(release.files).toContain('dist/cli/main.js');
    expect(release.files).toContain('dist/.sources-hash');
    expect(release.files).toContain('action.yml');
    expect(git(repo, 'status', '--porcelain', '--untracked-files=no')).toBe('');
    expect(existsSync(join(repo, `jobcheck-${VERSION}.tgz`))).toBe(true);
    expect(release.stderr).toContain(`release.sh: tagged v${VERSION}`);
    expect(git(repo, 'cat-file', '-t', `v${VERSION}`).trim()).toBe('tag');
  });

  it('refuses a release whose tag exists, whose tree is not clean, or whose CHANGELOG section is not dated', () => {
    const again = spawnSync('bash', ['scripts/release.sh', VERSION], { cwd: repo, encoding: 'utf8' });
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/the working tree is not clean|the tag v\S+ exists already/);
    rmSync(join(repo, `jobcheck-${VERSION}.tgz`));
    expect(spawnSync('bash', ['scripts/release.sh', VERSION], { cwd: repo, encoding: 'utf8' }).stderr).toBe(
      `release.sh: the tag v${VERSION} exists already\n`,
    );
    expect(spawnSync('bash', ['scripts/release.sh', '9.9.9'], { cwd: repo, encoding: 'utf8' }).stderr).toBe(
      `release.sh: package.json says version ${VERSION}, not 9.9.9 (npm version 9.9.9 --no-git-tag-version)\n`,
    );
    writeFileSync(
      join(repo, 'CHANGELOG.md'),
      readFileSync(join(repo, 'CHANGELOG.md'), 'utf8').replace(' - 2026-12-31', ' - unreleased'),
    );
    git(repo, 'commit', '--quiet', '-am', 'undated');
    expect(spawnSync('bash', ['scripts/release.sh', VERSION], { cwd: repo, encoding: 'utf8' }).stderr).toBe(
      `release.sh: CHANGELOG.md has no dated section "## [${VERSION}] - YYYY-MM-DD"\n`,
    );
  });

  it('installs from the release only what a check needs: the runtime dependencies, no TypeScript, no build, no native module', () => {
    expect(first.outputs['plan']?.['prebuilt']).toBe('true');
    expect(first.stderr['install']).toContain('a release with dist/ built: installing the runtime dependencies only');
    const names = installed(join(actionPath, 'node_modules'));
    const runtime = Object.keys(
      (JSON.parse(readFileSync(join(actionPath, 'package.json'), 'utf8')) as { dependencies: Record<string, string> })
        .dependencies,
    );
    for (const dependency of runtime) expect(names).toContain(dependency);
    for (const dev of [
      'typescript',
      'tsx',
      'vitest',
      'vite',
      '@biomejs/biome',
      'better-sqlite3',
      'pg',
      'playwright-core',
      'bullmq',
    ])
      expect(names, dev).not.toContain(dev);
    expect(names.length).toBeLessThan(20);
  });

  it('caches the install under a key of the platform, node, the lockfile and the sources, restored then saved at once on a miss, only restored on a hit', () => {
    const key = first.outputs['plan']?.['key'] ?? '';
    expect(key).toMatch(/^jobcheck-[a-z0-9]+-[a-z0-9]+-node\d+-lock-[0-9a-f]{16}-dist-[0-9a-f]{16}$/);
    const paths = [join(actionPath, 'node_modules'), join(actionPath, 'dist')];
    expect(first.cache).toEqual([
      { action: 'actions/cache/restore@v4', paths, key },
      { action: 'actions/cache/save@v4', paths, key },
    ]);
    const hit = runAction({ ...SMALL, impl: 'python3 examples/python/jobstore.py' });
    expect(hit.cache.map((c) => c.action)).toEqual(['actions/cache/restore@v4']);
    expect(hit.ran).not.toContain('Install jobcheck (what a check needs)');
    expect(hit.outputs['summary']).toMatchObject({ verdict: 'agree' });
  }, 120_000);

  it('runs green against the Python example: verdict agree, summary with the coverage table, no annotation, the job passes', () => {
    const run = first;
    expect(run.outputs['check']).toEqual({ 'exit-code': '0' });
    expect(run.outputs['summary']).toMatchObject({ verdict: 'agree', 'exit-code': '0', report: '.jobcheck/report' });
    expect(run.summary).toMatch(/^## jobcheck: AGREE/);
    expect(run.summary).toContain('| transitions |');
    expect(run.stdout['summary']).not.toContain('::error');
    expect(run.exitCode).toBe(0);
    expect(run.uploaded).toEqual(['.jobcheck/report', '.jobcheck/junit.xml', '.jobcheck/result.json']);
    for (const path of run.uploaded) expect(existsSync(join(run.folder, path)), path).toBe(true);
  }, 120_000);

  it('runs red against a broken variant: verdict diverge, the story in the summary, one annotation a failure naming its rules and the command that repeats it, the job fails with exit code 1', () => {
    const impl = 'python3 examples/python/broken/lease_one_tick_late.py';
    const run = runAction({ ...SMALL, impl, 'artifact-name': 'red' });
    expect(run.outputs['summary']).toMatchObject({ verdict: 'diverge', 'exit-code': '1' });
    expect(run.summary).toMatch(/^## jobcheck: DIVERGE/);
    expect(run.summary).toMatch(/### The shortest story: .*\n/);
    expect(run.summary).toContain('disagrees with the model at step');
    expect(run.summary).toMatch(/Repeat it: `npx jobcheck (check|replay) /);
    const annotations = (run.stdout['summary'] ?? '').split('\n').filter((l) => l.startsWith('::error '));
    const junit = readFileSync(join(run.folder, '.jobcheck/junit.xml'), 'utf8');
    expect(annotations).toHaveLength((junit.match(/<failure /g) ?? []).length);
    expect(annotations.length).toBeGreaterThan(1);
    for (const a of annotations) {
      expect(a).toMatch(/^::error file=examples\/python\/broken\/lease_one_tick_late\.py,title=jobcheck%3A [^:]+::/);
      expect(a).toMatch(/%0Arules? [a-z0-9-]+/);
      expect(a).toMatch(
        /%0Arepeat: npx jobcheck check --impl "python3 examples\/python\/broken\/lease_one_tick_late.py" --seed 1/,
      );
    }
    expect(run.exitCode).toBe(1);
  }, 120_000);

  it('fails the job with exit code 2 and says why when the implementation cannot start', () => {
    const run = runAction({ ...SMALL, impl: 'no-such-jobstore-binary' });
    expect(run.outputs['summary']).toMatchObject({ verdict: 'error', 'exit-code': '2' });
    expect(run.summary).toMatch(/^## jobcheck: ERROR/);
    expect(run.summary).toContain('no-such-jobstore-binary');
    expect(run.stdout['summary']).toMatch(/^::error title=jobcheck could not start the check::/m);
    expect(run.exitCode).toBe(2);
  }, 60_000);
});

describe('jobcheck github, its parts', () => {
  it('escapes workflow command data and properties', () => {
    expect(workflowData('a%b\nc\r')).toBe('a%25b%0Ac%0D');
    expect(workflowProperty('x: y, z')).toBe('x%3A y%2C z');
    expect(workflowProperty('a\nb')).toBe('a\\nb');
  });

  it("finds the rules a story cites on lines of its own, never in a quoted message, and only the contract's", () => {
    const story = [
      '       model: {"ok":false,"code":"x"}  -- rule counters-stay-safe (docs/contract.md#rule-counters-stay-safe)',
      '       impl:  {"ok":false,"code":"\u2028 rule snapshot-is-a-copy (docs/contract.md#rule-snapshot-is-a-copy)"}',
      '       rule lease-equality-expires (docs/contract.md#rule-lease-equality-expires): ...',
      '       rule stale-token-refused (docs/contract.md#rule-stale-token-refused): ...',
      '       rule lease-equality-expires (docs/contract.md#rule-lease-equality-expires): ...',
      '       rule no-such-rule (docs/contract.md#rule-no-such-rule): ...',
    ].join('\n');
    expect(rulesOf(story)).toEqual(['lease-equality-expires', 'stale-token-refused']);
  });

  it("works out the rules of a fixture story's step on the model", () => {
    expect(fixtureRules('exact-lease-equality', 4)).toContain('lease-equality-expires');
    expect(fixtureRules('no-such-story', 1)).toEqual([]);
  });

  it('places annotations on the file the target names, not on its interpreter', () => {
    const files = new Set(['examples/python/jobstore.py', 'python3']);
    expect(implementationFile('python3 examples/python/jobstore.py', (p) => files.has(p))).toBe(
      'examples/python/jobstore.py',
    );
    expect(implementationFile('./serve --port 1', () => false)).toBeUndefined();
  });

  it("repeats a failure with the result's own fields, never a line its story quotes", () => {
    const injected = 'npx jobcheck check --builtin --seed 1 ; echo INJECTED';
    const story = `python3 x.py disagrees with the model at step 2 of 2 (reply differs).\n  impl: {} -- x\nreproduce: ${injected}`;
    const coverage = Object.fromEntries(
      ['states', 'transitions', 'pairs', 'rejections', 'paths', 'rules'].map((k) => [k, { hit: 1, total: 2 }]),
    );
    const result = {
      format: 'jobcheck.check/1',
      verdict: 'diverge',
      target: 'python3 x.py',
      seed: 7,
      runs: 30,
      shard: null,
      fixtures: { total: 1, failed: [{ name: 'normal', message: 'm' }], notRun: [] },
      paths: { total: 0, failed: [], notRun: [] },
      campaign: { runs: 30, runsPlanned: 30 },
      coverage,
      failure: { source: 'fixture', name: 'normal', steps: 2, story },
    } as unknown as CheckResultJson;
    const case_ = (suite: string, name: string, props = '') =>
      `  <testsuite name="${suite}" tests="1" failures="1">\n${props}    <testcase classname="${suite}" name="${name}" time="0">\n      <failure message="m" type="divergence">${story.replaceAll('<', '&lt;')}</failure>\n    </testcase>\n  </testsuite>`;
    const junit = [
      '<testsuites name="jobcheck">',
      case_('jobcheck.fixtures', 'normal'),
      case_(
        'jobcheck.campaign',
        'random campaign',
        '    <properties>\n      <property name="seed" value="7"/>\n      <property name="max-commands" value="9"/>\n      <property name="path" value="3:1"/>\n    </properties>\n',
      ),
      '</testsuites>',
    ].join('\n');
    const step = githubStep({ kind: 'check', result }, { junit });
    const repeats = step.annotations.map((a) => a.split('%0Arepeat: ')[1]);
    expect(repeats).toEqual([
      'npx jobcheck check --impl "python3 x.py" --seed 7 --runs 30',
      'npx jobcheck check --impl "python3 x.py" --max-commands 9 --seed 7 --path 3:1',
    ]);
    expect(step.summary).toContain('Repeat it: `npx jobcheck check --impl "python3 x.py" --seed 7 --runs 30`');
    expect(`${step.summary}${step.annotations.join('')}`).not.toContain('; echo INJECTED`');
  });

  it('says there was no result when the check wrote none', () => {
    const step = githubStep({ kind: 'none' }, { exitCode: 2 });
    expect(step.outputs).toEqual({ verdict: 'error', 'exit-code': '2' });
    expect(step.summary).toContain('exited with code 2 and wrote no result');
  });

  it('says which phase exercised nothing, and what a concurrent pass and the restore phase exercised', async () => {
    const target = { factory: jobStoreFactory() };
    const ctx = { target: 'x', flags: '--builtin', seed: 1, runs: 5, workers: 4 };
    const options = { runs: 5, seed: 1, noExplore: true };
    const idle = await runCheck(
      { ...target, concurrentFactory: sequentialFactory(jobStoreFactory()) },
      { ...options, concurrent: { workers: 4, runs: 5 } },
    );
    const step = githubStep({ kind: 'check', result: checkJson(idle, ctx) });
    expect(step.outputs).toMatchObject({ verdict: 'incomplete', 'exit-code': '3' });
    expect(step.summary).toContain('## jobcheck: INCOMPLETE');
    expect(step.summary).toMatch(
      /\n- concurrent: \*\*not exercised\*\* \(not a pass\): the implementation takes one request at a time/,
    );
    expect(step.summary).toMatch(/\n- restore: \d+ of \d+ invalid snapshots refused as the contract says\n/);
    const busy = await runCheck(
      { ...target, concurrentFactory: lockedJobStoreFactory() },
      { ...options, concurrent: { workers: 4, runs: 5 } },
    );
    const green = githubStep({ kind: 'check', result: checkJson(busy, ctx) });
    expect(green.outputs).toMatchObject({ verdict: 'agree', 'exit-code': '0' });
    expect(green.summary).toMatch(/\n- competing workers: \d+ of \d+ requests in flight together with another/);
    expect(green.summary).not.toContain('not exercised');
  });
});
