/**
 * The starters run against the real command and fail as their READMEs promise: each starts, answers
 * `hello`, and ends in a divergence (exit code 1, never the setup error 2) whose story is the first
 * thing left to implement. What the story must say is not copied from an output: the test replays
 * the story's commands on the model and requires the rules the model's step exercised, the model's
 * replies, and a diverging command that the starter leaves unimplemented.
 *
 * Each starter also answers a short exchange of both protocol versions (hello, a refused hello, a
 * command, envelopes, snapshots) with lines that the JSON Schemas of schemas/ accept. The Go
 * starter is built with `go build` first. Without a Go toolchain the Go case is skipped on a
 * developer's machine and fails in CI (`CI` set), as the PostgreSQL tests do.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { Artifact } from '../conformance/lockstep/artifact.ts';
import { RULES } from '../contract/index.ts';
import { fromSnapshot, initialState, rulesExercised, step } from '../model/index.ts';
import { SCHEMAS_DIR } from '../scripts/schemas.ts';

const ROOT = join(import.meta.dirname, '..');
/** The environment of a new user's shell: without PYTHONUNBUFFERED, so a starter that forgot to flush fails here too. */
const { PYTHONUNBUFFERED: _unbuffered, ...USER_ENV } = process.env;
const work = mkdtempSync(join(tmpdir(), 'jobcheck-starters-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The commands every starter implements; the first story must be about another one. */
const IMPLEMENTED = ['submit'];

/** Runs `jobcheck check` on a starter with small budgets: its exit code, its JSON result and the failure artifact. */
function check(command: string, name: string) {
  const report = join(work, `report-${name}`);
  const args = ['--seed', '1', '--runs', '20', '--no-explore', '--time-limit', '90s', '--report', report, '--json'];
  const run = spawnSync(process.execPath, ['bin/jobcheck.js', 'check', '--impl', command, ...args], {
    cwd: ROOT,
    env: USER_ENV,
    encoding: 'utf8',
    timeout: 120_000,
  });
  const result = run.status === 1 ? (JSON.parse(run.stdout) as { verdict: string; implementation: string }) : null;
  const story = result === null ? '' : ((result as { failure?: { story?: string } }).failure?.story ?? '');
  const artifact =
    run.status === 1 ? (JSON.parse(readFileSync(join(report, 'failure.json'), 'utf8')) as Artifact) : null;
  return { status: run.status, stderr: run.stderr, result, story, artifact };
}

/** What the model says at the artifact's diverging step: its replies up to there, and the rules that step exercised. */
function modelAt(artifact: Artifact) {
  let state = initialState(artifact.config);
  const at = (artifact.divergence?.step ?? artifact.steps.length) - 1;
  for (const [i, s] of artifact.steps.entries()) {
    if ('restart' in s) {
      state = fromSnapshot(s.snapshot);
      continue;
    }
    const result = step(state, s.do);
    expect(result.reply, `step ${i + 1}: the story's model reply is the model's`).toMatchObject(s.expect);
    if (i === at) return { command: s.do as { type: string }, rules: rulesExercised(state, s.do, result) };
    state = result.state;
  }
  throw new Error('the artifact has no diverging step');
}

const ajv = new Ajv2020({ strict: true });
for (const name of readdirSync(SCHEMAS_DIR)) ajv.addSchema(JSON.parse(readFileSync(join(SCHEMAS_DIR, name), 'utf8')));
const CONFIG = { capacity: 2, maxAttempts: 2, leaseTicks: 3, backoffBase: 2, backoffCap: 4 };
const submitA = { type: 'submit', id: 'a', account: 'acme', key: 'k', amount: 5, deadline: 20, now: 0 };
/** Requests of both protocol versions, each with the schema of schemas/ its reply must match. */
const EXCHANGE: Array<[request: unknown, reply: string]> = [
  [{ type: 'hello', protocol: 'jobcheck/9', config: CONFIG }, 'protocol-rejection'],
  [{ type: 'hello', protocol: 'jobcheck/1', config: CONFIG }, 'hello-reply'],
  [submitA, 'reply-submit'],
  [{ type: 'snapshot' }, 'snapshot-reply'],
  [{ type: 'hello', protocol: 'jobcheck/2', config: CONFIG }, 'hello-reply-v2'],
  [{ type: 'request', id: 0, lane: 0, command: submitA }, 'reply-envelope'],
  [{ type: 'request', id: 1, lane: 1, command: { type: 'snapshot' } }, 'reply-envelope'],
  [{ type: 'snapshot' }, 'snapshot-reply'],
];

/** Sends EXCHANGE to a starter and checks each reply line against its JSON Schema. */
function expectSpeaksBothVersions(command: string) {
  const input = EXCHANGE.map(([request]) => `${JSON.stringify(request)}\n`).join('');
  const run = spawnSync(command, { cwd: ROOT, input, encoding: 'utf8', shell: true, timeout: 30_000 });
  const lines = run.stdout.trimEnd().split('\n');
  expect(lines, run.stderr).toHaveLength(EXCHANGE.length);
  for (const [i, [, schema]] of EXCHANGE.entries()) {
    const reply = JSON.parse(lines[i] ?? '') as Record<string, unknown>;
    const validate = ajv.getSchema(`${schema}.schema.json`);
    expect(validate?.(reply), `${lines[i]} is a ${schema}: ${JSON.stringify(validate?.errors)}`).toBe(true);
  }
  expect(JSON.parse(lines[5] ?? '')).toMatchObject({ id: 0, reply: { ok: true, seq: 1 } });
  expect(JSON.parse(lines[6] ?? '')).toMatchObject({ id: 1, reply: { ok: false, code: 'invalid_argument' } });
}

function expectFirstStory(run: ReturnType<typeof check>, implementation: string) {
  expect(run.status, `exit code 1 (a divergence), not a setup error; stderr: ${run.stderr}`).toBe(1);
  expect(run.result?.verdict).toBe('diverge');
  expect(run.result?.implementation).toBe(implementation);
  if (run.artifact === null) throw new Error('no failure artifact');
  const { command, rules } = modelAt(run.artifact);
  expect(IMPLEMENTED, 'the story is about a command the starter leaves to implement').not.toContain(command.type);
  expect(run.story).toContain(`${command.type} `);
  expect(run.story).toContain('not implemented yet');
  for (const id of rules) {
    const rule = RULES.find((r) => r.id === id);
    expect(run.story, `the story names the rule the model applied: ${id}`).toContain(
      `rule ${id} (docs/contract.md#rule-${id})`,
    );
    expect(rule).toBeDefined();
  }
}

describe('the starters', () => {
  it('python: answers hello, snapshot and envelopes with messages that match schemas/', () => {
    expectSpeaksBothVersions('python3 starters/python/jobstore.py');
  });

  it('javascript: answers hello, snapshot and envelopes with messages that match schemas/', () => {
    expectSpeaksBothVersions('node starters/javascript/jobstore.mjs');
  });

  it('python: starts, answers hello, and fails with the first story left to implement', () => {
    expectFirstStory(check('python3 starters/python/jobstore.py', 'python'), 'python-starter');
  }, 150_000);

  it('javascript: starts, answers hello, and fails with the first story left to implement', () => {
    expectFirstStory(check('node starters/javascript/jobstore.mjs', 'javascript'), 'javascript-starter');
  }, 150_000);

  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  const goMissing = go.error !== undefined || go.status !== 0;
  const goRequired = (process.env['CI'] ?? '') !== '';
  describe.skipIf(goMissing && !goRequired)('go', () => {
    it('has a Go toolchain (on Debian: apt-get install golang-go)', () => {
      expect(goMissing, 'the Go starter is tested in CI: install Debian’s golang-go').toBe(false);
    });

    it('builds with the standard library alone, starts, and fails with the first story left to implement', () => {
      const binary = join(work, 'go-jobstore');
      const build = spawnSync('go', ['build', '-o', binary, '.'], {
        cwd: join(ROOT, 'starters', 'go'),
        encoding: 'utf8',
        env: { ...process.env, GOFLAGS: '-mod=mod', GOPROXY: 'off', GOCACHE: join(work, 'go-cache') },
        timeout: 120_000,
      });
      expect(build.status, build.stderr).toBe(0);
      expectSpeaksBothVersions(binary);
      expectFirstStory(check(binary, 'go'), 'go-starter');
    }, 240_000);
  });
});
