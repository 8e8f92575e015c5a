import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { ruleOf } from '../../contract/rules.ts';
import { listFixtures } from '../../model/fixtures.ts';
import { NOT_INTERACTIVE, runDemo } from './demo.ts';
import { parsePrediction, ruleLines, scorePrediction } from './predict.ts';

const dir = mkdtempSync(join(tmpdir(), 'jobcheck-demo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A small story written for these tests; its expected values follow from the contract by hand. */
const story = {
  name: 'lost-ack',
  title: 'A lost acknowledgement',
  source: '000',
  story: 'Job a adds 7 to alice; the first worker commits and never acknowledges.',
  config: { capacity: 2, maxAttempts: 3, leaseTicks: 5, backoffBase: 1, backoffCap: 4 },
  focus: { job: 'a', account: 'alice' },
  steps: [
    {
      do: { type: 'submit', id: 'a', account: 'alice', key: 'k', amount: 7, deadline: 50, now: 0 },
      expect: { ok: true },
    },
    { do: { type: 'claim', worker: 'w1', now: 1 }, expect: { ok: true } },
    {
      do: { type: 'commit', worker: 'w1', token: 1, now: 2 },
      expect: { ok: true, applied: true },
      note: 'the effect lands',
    },
    { restart: true },
    { do: { type: 'claim', worker: 'w2', now: 6 }, expect: { ok: true } },
    { do: { type: 'commit', worker: 'w2', token: 2, now: 7 }, expect: { ok: true, applied: false } },
    { do: { type: 'ack', worker: 'w2', token: 2, now: 8 }, expect: { ok: true } },
  ],
  final: { balances: { alice: 7 }, jobs: { a: { status: 'done', attempts: 2 } } },
};

function storyFile(name: string, value: unknown): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(value));
  return path;
}

async function demo(
  argv: string[],
  input: string[] = [],
  isTTY = false,
  stdoutIsTTY = false,
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runDemo(argv, {
    stdin: Readable.from(input),
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    isTTY,
    stdoutIsTTY,
  });
  return { code, out, err };
}

describe('jobcheck demo', () => {
  it('lists every fixture by name when no story is given', async () => {
    const { code, out } = await demo([]);
    expect(code).toBe(0);
    for (const name of listFixtures()) expect(out).toContain(`  ${name}`);
  });

  it('shows, after each step, the job status, token, attempts and balance the contract implies', async () => {
    const { code, out } = await demo([storyFile('lost-ack', story)]);
    expect(code).toBe(0);
    expect(out).toContain('job a: ready, token -, attempts 0; alice balance 0');
    expect(out).toContain('job a: running, token 1, attempts 1; alice balance 0');
    expect(out).toContain('job a: running, token 1, attempts 1; alice balance 7');
    // After the restart the lease (until 1 + 5 = 6) expires at 6 and the second claim gets token 2.
    expect(out).toContain('a: running --ADVANCE [leaseExpired]--> ready');
    expect(out).toContain('job a: running, token 2, attempts 2; alice balance 7');
    expect(out).toContain('job a: done, token -, attempts 2; alice balance 7');
    expect(out).toContain('note     the effect lands');
    expect(out).toContain('The model ends where the story says it ends.');
  });

  it('exits 1 and prints the mismatch when a story expects what the model does not do', async () => {
    const wrong = structuredClone(story);
    wrong.steps[5] = { do: { type: 'commit', worker: 'w2', token: 2, now: 7 }, expect: { ok: true, applied: true } };
    const { code, out } = await demo([storyFile('wrong', wrong)]);
    expect(code).toBe(1);
    expect(out).toMatch(/MISMATCH +step 6: expected reply \{"ok":true,"applied":true\}/);
  });

  it('with --all tells every fixture in turn and exits 0 when the model agrees with each', async () => {
    const { code, out } = await demo(['--all']);
    expect(code).toBe(0);
    for (const name of listFixtures()) expect(out).toContain(`Story ${name}:`);
    expect(out.match(/^The model ends where the story says it ends\.$/gm)?.length).toBe(listFixtures().length);
  });

  it('refuses --all together with a story name, with exit 2', async () => {
    const { code, err } = await demo(['--all', 'normal']);
    expect(code).toBe(2);
    expect(err).toMatch(/--all/);
  });

  it('refuses an unknown story with exit 2 and names the stories that exist', async () => {
    const { code, err } = await demo(['no-such-story']);
    expect(code).toBe(2);
    expect(err).toContain('"no-such-story"');
    expect(err).toContain(listFixtures()[0] ?? '(none)');
  });

  it('refuses an unknown flag with exit 2 and shows the usage', async () => {
    const { code, err } = await demo(['--bogus']);
    expect(code).toBe(2);
    expect(err).toContain('Usage: jobcheck demo');
  });

  it('says in one line that --predict will not pause when stdin is not a terminal, then prints the plain trace', async () => {
    const path = storyFile('lost-ack', story);
    const plain = await demo([path]);
    const predicted = await demo(['--predict', path], ['running 1 0\n']);
    expect(predicted.out).toBe(NOT_INTERACTIVE + plain.out);
  });

  it('on a terminal asks before each step, scores each answer and totals the score', async () => {
    const answers = ['ready - 0\n', 'running 1 7\n', 'nonsense\n', 'running 1 7\n', 'q\n'];
    const { code, out } = await demo(['--predict', storyFile('lost-ack', story)], answers, true);
    expect(code).toBe(0);
    expect(out).toContain('verdict  status right, token right, balance right');
    expect(out).toContain('balance wrong (you said 7, it is 0)');
    expect(out).toContain('could not read that: expected 3 values');
    // 3 + 2 + 3 points out of three scored steps; the rest of the story is still shown.
    expect(out).toContain('Score: 8 of 9 predictions right.');
    expect(out).toContain('job a: done, token -, attempts 2; alice balance 7');
  });

  it('answers a wrong guess with the contract rule that decides the step, and a right one without', async () => {
    // Step 3 commits: the classic mistake is to think the job is settled. Step 1 is guessed right.
    const answers = ['ready - 0\n', 'running 1 0\n', 'done - 7\n', 'q\n'];
    const { out } = await demo(['--predict', storyFile('lost-ack', story)], answers, true);
    const steps = out.split(/\nStep \d of \d+\n/);
    const commitKeeps = ruleOf('commit-keeps-delivery');
    expect(steps[3]).toContain(`rule     commit-keeps-delivery: ${commitKeeps.sentence}`);
    expect(steps[1]).not.toContain('rule ');
    expect(steps[2]).not.toContain('rule ');
  });

  it('answers a wrong guess on a step that moved nothing with why: the lease runs until 5; now is 4', async () => {
    // Step 3 is a claim at now=4 while worker-1's lease runs until 5: the guess "ready" is wrong.
    const answers = ['ready - 0\n', 'running 1 0\n', 'ready - 0\n', 'q\n'];
    const { out } = await demo(['--predict', 'lease-boundary-now4-now5'], answers, true);
    const steps = out.split(/\nStep \d of \d+\n/);
    expect(steps[3]).toContain('why      job J-12 is running under token 1: the lease runs until 5; now is 4');
    expect(steps[3]).toContain('rule     no contract rule decided this step');
    expect(out).not.toContain('nothing was due to change');
    expect(steps[2]).not.toContain('why ');
  });

  it('colours a terminal: right fields green, wrong red, the why yellow; NO_COLOR and pipes get plain text', async () => {
    vi.stubEnv('NO_COLOR', '');
    vi.stubEnv('FORCE_COLOR', '');
    vi.stubEnv('TERM', 'xterm');
    const answers = ['ready - 0\n', 'running 1 0\n', 'ready - 0\n', 'q\n'];
    const coloured = await demo(['--predict', 'lease-boundary-now4-now5'], answers, true, true);
    expect(coloured.out).toContain('\x1b[32mstatus right\x1b[39m');
    expect(coloured.out).toContain('\x1b[31mstatus wrong (you said ready, it is running)\x1b[39m');
    expect(coloured.out).toContain(
      '\x1b[33mjob J-12 is running under token 1: the lease runs until 5; now is 4\x1b[39m',
    );
    expect((await demo(['normal'], [], false, true)).out).toContain('\x1b[1mStep 1 of 5\x1b[22m');
    expect((await demo(['normal'], [], false, false)).out).not.toContain('\x1b[');
    vi.stubEnv('NO_COLOR', '1');
    expect((await demo(['--predict', 'lease-boundary-now4-now5'], answers, true, true)).out).not.toContain('\x1b[');
  });

  it('tells every fixture without disagreeing with it', async () => {
    for (const name of listFixtures()) {
      const { code, out } = await demo([name]);
      expect(out, name).not.toContain('MISMATCH');
      expect(code, name).toBe(0);
    }
  });
});

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('predictions', () => {
  it('reads status, token and balance, with - for no token or no job', () => {
    expect(parsePrediction('running 2 7')).toEqual({ status: 'running', token: 2, balance: 7 });
    expect(parsePrediction(' - -  -3 ')).toEqual({ status: null, token: null, balance: -3 });
  });

  it('names the part it cannot read', () => {
    expect(parsePrediction('sleeping 1 0')).toEqual({ error: expect.stringContaining('"sleeping"') });
    expect(parsePrediction('ready x 0')).toEqual({ error: expect.stringContaining('token "x"') });
    expect(parsePrediction('ready 1 lots')).toEqual({ error: expect.stringContaining('balance "lots"') });
  });

  it('names a rule with its sentence, without bold marks, and says so when no rule decided the step', () => {
    expect(ruleLines(['last-error-kept'])).toEqual([
      `  rule     last-error-kept: ${ruleOf('last-error-kept').sentence.replaceAll('**', '')} (docs/contract.md#rule-last-error-kept)`,
    ]);
    expect(ruleLines([])).toEqual([expect.stringContaining('no contract rule decided this step')]);
  });

  it('gives one point per field that matches', () => {
    const actual = { status: 'waiting' as const, token: null, attempts: 1, balance: 0 };
    expect(scorePrediction({ status: 'waiting', token: null, balance: 0 }, actual).points).toBe(3);
    expect(scorePrediction({ status: 'ready', token: 1, balance: 0 }, actual).points).toBe(1);
  });
});
