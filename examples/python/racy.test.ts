/**
 * The racy Python stores over jobcheck/2, each a real process checked by the CLI with four
 * competing workers: `jobcheck check --impl "<python> examples/python/broken/race_*.py" --workers 4`
 * (through runCli, the code of bin/jobcheck.js without a process start of its own; the reproduce
 * line runs bin/jobcheck.js under a shell). Each store lets go of its lock between a check and the
 * write that depends on it (or replies before its write is visible), with a short sleep in the
 * window, so the race is lost whenever two requests touching the same thing are in flight together;
 * one request at a time they keep the contract, so only the concurrent campaign can catch them.
 *
 * For each race the check must exit 1 with a story of lanes from the concurrent campaign, of at
 * most 12 requests, in which the request the checker is stuck at is of the kind the race spoils;
 * and the printed reproduce line, run by a shell as printed (with the sequential phases kept
 * small), must fail again with a story of the same length. A replay under real concurrency lets the
 * operating system choose the interleaving again, so it is given a few tries. The correct store is
 * the control: it must pass the same check. The run's page tells each race in the sentence of its
 * kind (cli/report/race/raceSentence.ts), never the neutral one. The sequential phases are kept
 * small (`--runs 5 --no-explore`): what is under test is the concurrent campaign over a process.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/cli.ts';
import { PYTHON_RACY, findPython, pythonCommand } from './interpreter.ts';

const python = findPython();
const dir = await mkdtemp(join(tmpdir(), 'jobcheck-racy-'));
afterAll(() => rm(dir, { recursive: true, force: true }));
const root = new URL('../../', import.meta.url);

/** The check, small in its sequential phases, with four workers; the seed is fixed so that a failure here can be looked at again. */
const CHECK = ['--runs', '5', '--no-explore', '--workers', '4', '--seed', '1'];
/** Scenarios given to a racy store (the campaign stops at the first failure; seed 1 needs a few dozen at most). */
const RACY_RUNS = ['--concurrent-runs', '300'];
/** Scenarios given to the correct store. */
const CONTROL_RUNS = ['--concurrent-runs', '50'];
/** The longest story allowed: a race must be told in a few requests. */
const MOST_REQUESTS = 12;
/** Tries of the reproduce line: the replay is the same scenario, but the interleaving is the operating system's. */
const REPLAYS = 3;
/** Generous upper bound of one test on a loaded machine: it catches a hang, not slowness. */
const HANG_MS = 600_000;

/**
 * What the story of each race shows: the kinds of request the checker may be stuck at (a request
 * no order of the model explains, given those before it).
 */
const STUCK: Record<(typeof PYTHON_RACY)[number]['race'], readonly string[]> = {
  // The ack that should have been refused, or what comes after the job it wrongly settled.
  'stale-ack': ['ack', 'claim', 'commit', 'fail', 'snapshot'],
  // The second commit that applied again (or the balance it left).
  'double-effect': ['commit', 'snapshot'],
  // The claim that got a job already handed out (or the settlement of a delivery that should not exist).
  'double-delivery': ['claim', 'ack', 'commit', 'fail', 'snapshot'],
  // The submit admitted beyond the capacity (or what a full store would have refused).
  capacity: ['submit', 'snapshot'],
  // The claim that did not see the job its own lane had just submitted.
  'lane-order': ['claim'],
};

/** The sentence the run's page opens the race with, for each race: what happened in the store's words. */
const SENTENCE: Record<(typeof PYTHON_RACY)[number]['race'], RegExp> = {
  // The ack of an old delivery accepted beside the new one, or an accepted ack the final snapshot does not show.
  'stale-ack':
    /^The ack #\d+ (with the old token \d+ settled job \w+, and the claim #\d+ by w\d took job \w+ again|by w\d was accepted \(job \w+ done\), yet the store's final snapshot \(#\d+\) has job \w+ (ready|waiting|running|dead)\.$)/,
  'double-effect': /^Two (overlapping )?commits both applied the effect \w+\/\w+:/,
  'double-delivery': /^Two (overlapping )?claims both got job \w+:/,
  capacity: /submits? .*admitted, where the model refuses #\d+ .*with capacity_exceeded/,
  'lane-order':
    /^Lane \d+'s claim #\d+ got no job, though the same lane's submit #\d+ of job \w+ had been acknowledged before it was sent\.$/,
};

/** The sentence at the top of the race on the page of the newest run in `report`, its HTML entities read back. */
async function raceSentenceOf(report: string): Promise<string | undefined> {
  const html = await readFile(join(report, 'latest', 'index.html'), 'utf8');
  return /<p class="rwhat">(.*?)<\/p>/
    .exec(html)?.[1]
    ?.replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    isTTY: false,
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}

/** Runs a command line with the shell, as a user would paste it; `npx jobcheck` is this checkout's bin/jobcheck.js. */
function shell(line: string): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const node = `'${process.execPath.replace(/'/g, `'\\''`)}'`;
    const command = line.replace(/^npx jobcheck /, `${node} bin/jobcheck.js `);
    const child = spawn('sh', ['-c', command], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
  });
}

/** The length of the story shown, when it comes from the concurrent campaign. */
const storyRequests = (stdout: string): number | undefined => {
  const m = /the shortest story \((\d+) requests?\) comes from the concurrent campaign of competing workers/.exec(
    stdout,
  );
  return m === null ? undefined : Number(m[1]);
};

/** The kinds of the requests the checker is stuck at ("#7 ack token=1 by w1 (round 3, lane 1)" gives `ack`). */
const stuckKinds = (stdout: string): string[] => {
  const at = stdout.indexOf('no request that could come next is explained:');
  const after = at < 0 ? '' : (stdout.slice(at).split('\n\n')[0] ?? '');
  return [...after.matchAll(/^ {2}#\d+ (\w+)/gm)].map((m) => m[1] as string);
};

const title = `the racy Python stores over jobcheck/2${python === undefined ? ' (skipped: python3 is not installed)' : ''}`;
describe.skipIf(python === undefined)(title, () => {
  it(
    'passes the correct store with the same check',
    async () => {
      const impl = pythonCommand(python as string, 'examples/python/jobstore.py');
      const out = await cli('check', '--impl', impl, ...CHECK, ...CONTROL_RUNS, '--report', join(dir, 'correct'));
      expect(out.code, out.stdout).toBe(0);
      expect(out.stdout).toMatch(/concurrent +50 runs of 4 workers, seed 1: every history linearizable/);
    },
    HANG_MS,
  );

  it.each(PYTHON_RACY.map((v) => [v.race, v.script] as const))(
    'catches the %s race (%s) in a story of at most 12 requests that its reproduce line repeats',
    async (race, script) => {
      const impl = pythonCommand(python as string, script);
      const out = await cli('check', '--impl', impl, ...CHECK, ...RACY_RUNS, '--report', join(dir, race));
      expect(out.code, out.stdout).toBe(1);
      // One request at a time the store keeps the contract: only the concurrent campaign sees the race.
      expect(out.stdout).toMatch(/fixture stories +\d+\/\d+ agree/);
      expect(out.stdout).toMatch(/random campaign +5 runs, \d+ commands, seed 1: agree/);
      const requests = storyRequests(out.stdout);
      expect(requests, out.stdout).toBeDefined();
      expect(requests).toBeLessThanOrEqual(MOST_REQUESTS);
      const stuck = stuckKinds(out.stdout);
      expect(
        stuck.some((kind) => STUCK[race].includes(kind)),
        `stuck at ${stuck.join(', ')}:\n${out.stdout}`,
      ).toBe(true);
      expect(await raceSentenceOf(join(dir, race))).toMatch(SENTENCE[race]);

      const reproduce = /^reproduce: (npx jobcheck check .*)$/m.exec(out.stdout)?.[1];
      expect(reproduce, out.stdout).toBeDefined();
      expect(reproduce).toContain('--concurrent-path ');
      const tries: { code: number | null; requests: number | undefined }[] = [];
      for (let i = 0; i < REPLAYS && !tries.some((t) => t.code === 1); i++) {
        const again = await shell(
          `${reproduce as string} --runs 5 --no-explore --report '${join(dir, `${race}-again-${i}`)}'`,
        );
        tries.push({ code: again.code, requests: storyRequests(again.stdout) });
      }
      expect(
        tries.find((t) => t.code === 1),
        JSON.stringify(tries),
      ).toEqual({ code: 1, requests });
    },
    HANG_MS,
  );
});
