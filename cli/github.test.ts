/**
 * The GitHub Action (action.yml) and the step after its check (`jobcheck github`): the metadata
 * is a valid action whose inputs are all declared and all used, and its `run:` steps, run in
 * order in a simulated GitHub environment (the summary and output files, GITHUB_ACTIONS=true),
 * write the verdict, the story, the coverage table, the outputs and one annotation per failure,
 * against the Python example (green) and a broken variant of it (red). The `uses:` steps
 * (setup-node, upload-artifact) are GitHub's own: what they are given is checked, not run; the
 * install step (`npm ci` in the action's folder) is left out, this checkout being installed.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateAction, validateWorkflow } from '@action-validator/core';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../docs/tools/quotedCommands.ts';
import { runCheck } from '../conformance/check/index.ts';
import { lockedJobStoreFactory, sequentialFactory } from '../conformance/concurrent/inProcess.ts';
import { jobStoreFactory } from '../conformance/stores/jobStore.ts';
import { checkJson } from './output/index.ts';
import {
  escapeData,
  escapeProperty,
  fixtureRules,
  githubStep,
  implementationFile,
  repeatOf,
  rulesOf,
} from './github.ts';

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

/** Every `${{ ... }}` expression of a text. */
const expressions = (text: string): string[] => [...text.matchAll(/\$\{\{\s*(.*?)\s*\}\}/g)].map((m) => m[1] ?? '');

/** Replaces the expressions of a value as GitHub would, for the inputs given, the action's path and earlier steps' outputs. */
function substitute(
  text: string,
  given: Record<string, string>,
  outputs: Record<string, Record<string, string>>,
): string {
  return text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, e: string) => {
    const input = /^inputs\.([\w-]+)$/.exec(e);
    if (input !== null) return given[input[1] ?? ''] ?? inputs[input[1] ?? '']?.default ?? '';
    if (e === 'github.action_path') return PROJECT_ROOT;
    const out = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(e);
    if (out !== null) return outputs[out[1] ?? '']?.[out[2] ?? ''] ?? '';
    throw new Error(`the test does not know the expression ${e}`);
  });
}

/** `key=value` lines of a GITHUB_OUTPUT file. */
const outputsOf = (text: string): Record<string, string> =>
  Object.fromEntries(
    text
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

interface Run {
  readonly summary: string;
  readonly outputs: Record<string, Record<string, string>>;
  readonly stdout: Record<string, string>;
  /** The exit code of the last step (the job's). */
  readonly exitCode: number | null;
  readonly uploaded: readonly string[];
  readonly folder: string;
}

/** Runs the action's steps in a folder holding the Python example and its broken variants, as a job on GitHub would. */
function runAction(given: Record<string, string>): Run {
  const folder = mkdtempSync(join(work, 'job-'));
  cpSync(join(PROJECT_ROOT, 'examples', 'python'), join(folder, 'examples', 'python'), {
    recursive: true,
    filter: (f) => !f.endsWith('.ts'),
  });
  const summaryFile = join(folder, 'summary.md');
  writeFileSync(summaryFile, '');
  const outputs: Record<string, Record<string, string>> = {};
  const stdout: Record<string, string> = {};
  let exitCode: number | null = 0;
  let uploaded: string[] = [];
  for (const [i, step] of steps.entries()) {
    const id = step.id ?? `step${i}`;
    if (step.if === "inputs.node-version != ''" && (given['node-version'] ?? '') === '') continue;
    if (step.if !== undefined && step.if !== 'always()' && step.if !== "inputs.node-version != ''")
      throw new Error(`the test does not know the condition ${step.if}`);
    if (step.uses !== undefined) {
      if (step.uses.startsWith('actions/upload-artifact@'))
        uploaded = substitute(step.with?.['path'] ?? '', given, outputs)
          .trim()
          .split('\n');
      continue;
    }
    if (expressions(step['working-directory'] ?? '').includes('github.action_path') && step.run?.startsWith('npm ci'))
      continue;
    const outputFile = join(folder, `output-${id}`);
    writeFileSync(outputFile, '');
    const env = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([k, v]) => [k, substitute(String(v), given, outputs)]),
    );
    const script = substitute(step.run ?? '', given, outputs);
    const ran = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd: folder,
      env: {
        ...process.env,
        ...env,
        GITHUB_ACTIONS: 'true',
        GITHUB_STEP_SUMMARY: summaryFile,
        GITHUB_OUTPUT: outputFile,
        NO_COLOR: '1',
      },
      encoding: 'utf8',
      timeout: 120_000,
    });
    outputs[id] = outputsOf(readFileSync(outputFile, 'utf8'));
    stdout[id] = ran.stdout;
    exitCode = ran.status;
    if (ran.status !== 0 && i < steps.length - 1) throw new Error(`step ${step.name ?? id} failed: ${ran.stderr}`);
  }
  return { summary: readFileSync(summaryFile, 'utf8'), outputs, stdout, exitCode, uploaded, folder };
}

const SMALL = { runs: '6', seed: '1', 'time-limit': '2m', args: '--no-explore' };

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

  it('runs green against the Python example: verdict agree, summary with the coverage table, no annotation, the job passes', () => {
    const run = runAction({ ...SMALL, impl: 'python3 examples/python/jobstore.py' });
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
    expect(escapeData('a%b\nc\r')).toBe('a%25b%0Ac%0D');
    expect(escapeProperty('x: y, z')).toBe('x%3A y%2C z');
  });

  it('finds the rules a story cites and the command that repeats it', () => {
    const story = [
      '       rule lease-equality-expires (docs/contract.md#rule-lease-equality-expires): ...',
      '       rule stale-token-refused (docs/contract.md#rule-stale-token-refused): ...',
      '       rule lease-equality-expires (docs/contract.md#rule-lease-equality-expires): ...',
      'reproduce: npx jobcheck check --impl "x" --seed 1 --path 2:1',
    ].join('\n');
    expect(rulesOf(story)).toEqual(['lease-equality-expires', 'stale-token-refused']);
    expect(repeatOf(story)).toBe('npx jobcheck check --impl "x" --seed 1 --path 2:1');
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
