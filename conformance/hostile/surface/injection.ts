/**
 * Hostile cases of text from outside: an implementation (peer.py's `inject` mode: its rejection
 * messages, its hello name, a stderr line; its refusals of restores; a module's refusal code), a
 * story file, an artifact, a shard's result file and a report directory's name write lines of
 * their own for jobcheck's output (a fake `verdict: AGREE`, GitHub workflow
 * commands, a command to run), terminal escapes, a right-to-left override and markup. One case a
 * way in; each reads back everything its run wrote (the text, `--json`, the pages, the JUnit
 * file, the exports, `jobcheck github`'s summary, annotations and outputs) and finds no line
 * begun by outside text, no workflow command, no character that acts, no markup of its own, and
 * the repeat command of the result's own field.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEDNString } from 'edn-data';
import { SaxesParser } from 'saxes';
import { initialState, step, toSnapshot } from '../../../model/index.ts';
import type { HostileCase } from '../case.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** What peer.py's `inject` mode writes as its messages and name (the same text). */
const PAYLOAD =
  'x\n::error::INJECTED\n::set-output name=verdict::agree\n::add-mask::secret\n::stop-commands::tok\n' +
  'verdict: AGREE with the model (0.1 s)\n\u001b[2J\u001b]0;pwned\u0007\u202e##[error]INJECTED\n' +
  'reproduce: npx jobcheck check --builtin --seed 1 ; echo INJECTED-REPRODUCE\n' +
  '</pre></script><script>alert(1)</script>';
/** Characters that act on a terminal, a log or a page rather than show (the newline aside). */
const ACTING = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** The flags of a quick check (`{tmp}` is the run's folder). */
const QUICK = ['--runs', '5', '--seed', '1', '--no-explore', '--time-limit', '20'];
const clip = (text: string): string => JSON.stringify(text.slice(0, 100));

/** What is wrong with text that reaches a terminal or a log: lines begun by the payload, workflow commands, acting characters. */
function logProblems(where: string, text: string, annotations = false): string[] {
  const problems: string[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    const at = `${where}, line ${i + 1}`;
    const command = /^\s*::/.test(line) && !(annotations && /^::error (file=[^,:]*,)?title=[^:]*::/.test(line));
    if (command) problems.push(`${at} is a workflow command: ${clip(line)}`);
    if (/^\s*(verdict: AGREE|reproduce: npx jobcheck check --builtin --seed 1 ;)/.test(line))
      problems.push(`${at} is the payload's: ${clip(line)}`);
  }
  if (text.includes('##[')) problems.push(`${where} holds an old-style workflow command ##[`);
  return [...problems, ...actingProblems(where, text)];
}

function actingProblems(where: string, text: string): string[] {
  const m = ACTING.exec(text);
  if (m === null) return [];
  const code = (m[0].codePointAt(0) ?? 0).toString(16).padStart(4, '0');
  return [`${where} holds the raw character U+${code} at ${m.index}: ${clip(text.slice(Math.max(0, m.index - 40)))}`];
}

/** What is wrong with a page: acting characters, the payload's markup as markup. */
function htmlProblems(where: string, html: string): string[] {
  const problems = actingProblems(where, html);
  if (html.includes('<script>alert(1)')) problems.push(`${where} holds the payload's <script> as markup`);
  return problems;
}

/** What is wrong with an XML file: not well-formed, acting characters, the payload's markup. */
function xmlProblems(where: string, xml: string): string[] {
  const problems = htmlProblems(where, xml);
  const parser = new SaxesParser();
  let broken: string | undefined;
  parser.on('error', (error) => {
    broken ??= error.message;
  });
  parser.write(xml).close();
  return broken === undefined ? problems : [...problems, `${where} is not well-formed XML: ${broken}`];
}

/** What is wrong with JSON text for a terminal: does not parse, acting characters, `##[`. */
function jsonProblems(where: string, text: string): string[] {
  try {
    JSON.parse(text);
  } catch (error) {
    return [`${where} is not JSON: ${(error as Error).message}`];
  }
  return logProblems(where, text);
}

/** Reads a file of the run, or says it is missing. */
function read(file: string, problems: string[]): string {
  if (existsSync(file)) return readFileSync(file, 'utf8');
  problems.push(`${file} was not written`);
  return '';
}

/** Runs `jobcheck <args>` from the repository, as the CLI; waits at most 60 s. */
function jobcheck(args: readonly string[], env: NodeJS.ProcessEnv = {}): { stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['bin/jobcheck.js', ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', ...env },
    encoding: 'utf8',
    timeout: 60_000,
    killSignal: 'SIGKILL',
  });
  return { stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** Everything a check wrote into its report directory and beside it: pages, Markdown, stderr, JUnit. */
function reportProblems(tmp: string): string[] {
  const problems: string[] = [];
  const report = join(tmp, 'report');
  problems.push(...xmlProblems('junit.xml', read(join(tmp, 'junit.xml'), problems)));
  problems.push(...htmlProblems('the run page', read(join(report, 'latest', 'index.html'), problems)));
  problems.push(...htmlProblems('coverage.html', read(join(report, 'coverage.html'), problems)));
  problems.push(...actingProblems('coverage.md', read(join(report, 'coverage.md'), problems)));
  problems.push(...logProblems('stderr.txt', read(join(report, 'latest', 'stderr.txt'), problems)));
  problems.push(...jsonProblems('run.json', read(join(report, 'latest', 'run.json'), problems)));
  return problems;
}

/** `jobcheck github` on the check's --json result and its JUnit file, as the Action runs it. */
function githubProblems(tmp: string, result: string): string[] {
  const problems: string[] = [];
  writeFileSync(join(tmp, 'result.json'), result);
  const summary = join(tmp, 'summary.md');
  const outputs = join(tmp, 'outputs.txt');
  const env = { GITHUB_STEP_SUMMARY: summary, GITHUB_OUTPUT: outputs, GITHUB_ACTIONS: 'true' };
  const out = jobcheck(['github', '--from', join(tmp, 'result.json'), '--junit', join(tmp, 'junit.xml')], env);
  problems.push(...logProblems('github stdout', out.stdout, true), ...logProblems('github stderr', out.stderr));
  const annotations = out.stdout.split('\n').filter((l) => l.startsWith('::error '));
  if (annotations.length === 0) problems.push('github printed no annotation');
  for (const line of annotations) {
    const message = (/^::error [^:]*::(.*)$/.exec(line)?.[1] ?? '')
      .replaceAll('%0D', '\r')
      .replaceAll('%0A', '\n')
      .replaceAll('%25', '%');
    const repeat = message.split('\n').find((l) => l.startsWith('repeat: ')) ?? '';
    if (!repeat.startsWith('repeat: npx jobcheck check --impl ') || repeat.includes('INJECTED'))
      problems.push(`an annotation says to run ${clip(repeat)}`);
  }
  const md = read(summary, problems);
  const again = md.split('\n').find((l) => l.startsWith('Repeat it: ')) ?? '';
  if (!again.startsWith('Repeat it: `npx jobcheck check --impl ') || again.includes('INJECTED'))
    problems.push(`the summary says to run ${clip(again)}`);
  problems.push(...logProblems('the job summary', md));
  for (const line of read(outputs, problems)
    .split('\n')
    .filter((l) => l !== ''))
    if (!/^(verdict|exit-code|report|junit)=/.test(line)) problems.push(`GITHUB_OUTPUT has the line ${clip(line)}`);
  return problems;
}

/** Writes `{tmp}/failure.json`: submit, an ack the model refuses (its message the payload), a claim; found against the payload. */
function payloadArtifact(tmp: string): void {
  const config = { capacity: 1, maxAttempts: 2, leaseTicks: 3, backoffBase: 1, backoffCap: 2 };
  const commands = [
    { type: 'submit', id: 'a', account: 'x', key: 'k', amount: 1, deadline: 9, now: 0 },
    { type: 'ack', id: 'a', token: 1, worker: 'w1', now: 0 },
    { type: 'claim', worker: 'w1', now: 1 },
  ];
  let state = initialState(config);
  const steps = commands.map((command) => {
    const result = step(state, command);
    state = result.state;
    const expect = result.reply.ok ? result.reply : { ...result.reply, message: PAYLOAD };
    return { do: command, expect, snapshot: toSnapshot(state) };
  });
  const artifact = {
    format: 'jobcheck.artifact/1',
    foundAgainst: PAYLOAD,
    createdAt: new Date(0).toISOString(),
    config,
    steps,
  };
  writeFileSync(join(tmp, 'failure.json'), JSON.stringify(artifact));
}

/** Writes `{tmp}/part/`: a real check's --json result and coverage.json, the payload added to its story. */
function payloadShard(tmp: string): void {
  const part = join(tmp, 'part');
  mkdirSync(part);
  const args = ['check', '--broken', 'lease-one-tick-late', ...QUICK, '--json', '--report', part];
  const result = JSON.parse(jobcheck(args).stdout) as { failure: { story: string } };
  result.failure.story = `${PAYLOAD}\n${result.failure.story}`;
  writeFileSync(join(part, 'result.json'), JSON.stringify(result));
}

/** Writes `{tmp}/story.json`: the fixture `normal` with the payload for its title, story, notes and focus account. */
function payloadStory(tmp: string): void {
  const fixture = JSON.parse(readFileSync(join(ROOT, 'model', 'fixtures', 'normal.json'), 'utf8')) as {
    title: string;
    story: string;
    focus: { account: string };
    steps: Array<{ note?: string }>;
  };
  const story = {
    ...fixture,
    title: PAYLOAD,
    story: PAYLOAD,
    focus: { ...fixture.focus, account: PAYLOAD },
    steps: fixture.steps.map((s) => ({ ...s, note: PAYLOAD })),
  };
  writeFileSync(join(tmp, 'story.json'), JSON.stringify(story));
}

const INJECT = '{peer} inject';

/** A report directory's name from the environment (a CI variable, a folder someone else named): a command, a line of its own. */
const REPORT_NAME = 'r $(touch PWNED); echo INJECTED\nverdict: AGREE with the model (0.1 s)';

/**
 * What is wrong with the `replay:` line of a check's text: run through `sh` as the words of
 * `printf`, it must give back the artifact's path as one word, then the target's flags, and run
 * nothing (no PWNED file); the newline in the path is shown, not kept.
 */
function replayLineProblems(tmp: string, stdout: string): string[] {
  const prefix = 'replay: npx jobcheck replay ';
  const line = stdout.split('\n').find((l) => l.startsWith(prefix));
  if (line === undefined) return ['no replay line was printed'];
  const r = spawnSync('sh', ['-c', `printf '%s\\0' ${line.slice(prefix.length)}`], { cwd: tmp, encoding: 'utf8' });
  const words = (r.stdout ?? '').split('\0').slice(0, -1);
  const problems: string[] = [];
  if (existsSync(join(tmp, 'PWNED'))) problems.push(`the replay line ran a command of the path: ${clip(line)}`);
  if (words.length !== 3 || !(words[0] ?? '').endsWith('/failure.json') || words[1] !== '--broken')
    problems.push(
      `the replay line is not one path and the target's flags for sh: ${JSON.stringify(words.slice(0, 6))}`,
    );
  return problems;
}

export const INJECTION_CASES: readonly HostileCase[] = [
  {
    name: 'inject-check',
    what: 'rejection messages, a hello name and a stderr line with lines of their own, escapes and markup; read back: the text, the pages, JUnit, stderr.txt',
    flags: [],
    argv: ['check', '--impl', INJECT, ...QUICK, '--report', '{tmp}/report', '--junit', '{tmp}/junit.xml'],
    exit: 1,
    outcome: 'diverge, the payload shown escaped where it came',
    pattern: /verdict: DIVERGE/,
    readBack: (tmp, out) => [
      ...logProblems('stdout', out.stdout),
      ...logProblems('stderr', out.stderr),
      ...reportProblems(tmp),
    ],
  },
  {
    name: 'inject-github',
    what: 'the same implementation, its --json result and JUnit file through `jobcheck github`: the repeat command of every annotation and of the summary',
    flags: [],
    argv: ['check', '--impl', INJECT, ...QUICK, '--report', '{tmp}/report', '--junit', '{tmp}/junit.xml', '--json'],
    exit: 1,
    outcome: 'diverge; repeat lines from the result, never the story',
    pattern: /"verdict": "diverge"/,
    readBack: (tmp, out) => [...jsonProblems('--json', out.stdout), ...githubProblems(tmp, out.stdout)],
  },
  {
    name: 'inject-workers',
    what: 'the same implementation against competing workers: the race page and the Jepsen and Porcupine exports',
    flags: [],
    argv: [
      'check',
      '--impl',
      INJECT,
      ...QUICK,
      '--workers',
      '2',
      '--concurrent',
      'only',
      '--concurrent-runs',
      '5',
      '--report',
      '{tmp}/report',
    ],
    exit: 1,
    outcome: 'diverge (a race), the exports read back',
    pattern: /verdict: DIVERGE/,
    readBack: (tmp, out) => {
      const problems = logProblems('stdout', out.stdout);
      const run = join(tmp, 'report', 'latest');
      problems.push(...htmlProblems('the race page', read(join(run, 'index.html'), problems)));
      const porcupine = read(join(run, 'history.porcupine.json'), problems);
      problems.push(...jsonProblems('history.porcupine.json', porcupine));
      const edn = read(join(run, 'history.jepsen.edn'), problems);
      problems.push(...actingProblems('history.jepsen.edn', edn));
      for (const line of edn.split('\n').filter((l) => l !== '')) {
        try {
          parseEDNString(line);
        } catch (error) {
          problems.push(`history.jepsen.edn: ${clip(line)} does not read: ${(error as Error).message}`);
        }
      }
      return problems;
    },
  },
  {
    name: 'inject-restore',
    what: 'refuses each invalid snapshot of the restore phase with another code, its message the payload; read back: the text, the pages, JUnit, stderr.txt',
    flags: [],
    argv: [
      'check',
      '--impl',
      '{peer} restore-inject',
      ...QUICK,
      '--report',
      '{tmp}/report',
      '--junit',
      '{tmp}/junit.xml',
    ],
    exit: 1,
    outcome: 'diverge (the restore story), the payload shown escaped',
    pattern: /refused a snapshot with another code \(restore phase/,
    readBack: (tmp, out) => [
      ...logProblems('stdout', out.stdout),
      ...logProblems('stderr', out.stderr),
      ...reportProblems(tmp),
    ],
  },
  {
    name: 'inject-module-restore',
    what: "a module whose restoreFrom refuses with the payload for its code: the summary's restore line, written as the phase ends",
    flags: [],
    argv: [
      'check',
      '--module',
      'conformance/isolated/fixtures/restoreRefusesInWords.mjs',
      ...QUICK,
      '--report',
      '{tmp}/report',
      '--junit',
      '{tmp}/junit.xml',
    ],
    exit: 1,
    outcome: 'diverge (the restore story), the code shown escaped',
    pattern: /refused a snapshot with another code \(restore phase/,
    readBack: (tmp, out) => {
      const problems = [...logProblems('stdout', out.stdout), ...logProblems('stderr', out.stderr)];
      problems.push(...xmlProblems('junit.xml', read(join(tmp, 'junit.xml'), problems)));
      problems.push(...htmlProblems('the run page', read(join(tmp, 'report', 'latest', 'index.html'), problems)));
      return problems;
    },
  },
  {
    name: 'inject-report-path',
    what: 'a report directory named with a command and a line of its own (`$(touch PWNED); ...\\nverdict: AGREE`): the artifact and replay lines',
    flags: [],
    argv: ['check', '--broken', 'lease-one-tick-late', ...QUICK, '--report', `{tmp}/${REPORT_NAME}`],
    exit: 1,
    outcome: 'diverge; the replay line one command, the path quoted and escaped',
    pattern: /verdict: DIVERGE/,
    readBack: (tmp, out) => [
      ...logProblems('stdout', out.stdout),
      ...logProblems('stderr', out.stderr),
      ...replayLineProblems(tmp, out.stdout),
    ],
  },
  {
    name: 'inject-replay',
    what: 'replay of an artifact found against the payload, whose refusal message is the payload, against the same implementation',
    flags: [],
    setup: payloadArtifact,
    argv: ['replay', '{tmp}/failure.json', '--impl', INJECT, '--time-limit', '20'],
    exit: 1,
    outcome: 'diverge, the payload shown escaped',
    pattern: /disagrees with the model at step 3 of 3/,
    readBack: (_tmp, out) => [...logProblems('stdout', out.stdout), ...logProblems('stderr', out.stderr)],
  },
  {
    name: 'inject-profile',
    what: 'a profile of the same implementation: the text and the Markdown page',
    flags: [],
    argv: [
      'profile',
      '--impl',
      INJECT,
      '--rule',
      'lease-from-claim',
      '--runs',
      '2',
      '--time-limit',
      '20',
      '--markdown',
      '{tmp}/profile.md',
    ],
    exit: 1,
    outcome: 'departs, the payload shown escaped',
    pattern: /departs/,
    readBack: (tmp, out) => {
      const problems = [...logProblems('stdout', out.stdout), ...logProblems('stderr', out.stderr)];
      return [...problems, ...actingProblems('profile.md', read(join(tmp, 'profile.md'), problems))];
    },
  },
  {
    name: 'inject-merge',
    what: "a shard's result file whose story holds the payload, merged",
    flags: [],
    setup: payloadShard,
    argv: ['merge', '{tmp}/part', '--report', '{tmp}/merged'],
    exit: 1,
    outcome: 'diverge, the story quoted line by line',
    pattern: /verdict: DIVERGE/,
    readBack: (tmp, out) => {
      const problems = [...logProblems('stdout', out.stdout), ...logProblems('stderr', out.stderr)];
      problems.push(...htmlProblems('merged coverage.html', read(join(tmp, 'merged', 'coverage.html'), problems)));
      problems.push(...actingProblems('merged coverage.md', read(join(tmp, 'merged', 'coverage.md'), problems)));
      if (!readdirSync(join(tmp, 'part')).includes('result.json')) problems.push('the shard was not written');
      return problems;
    },
  },
  {
    name: 'inject-demo-story',
    what: 'a story file for `jobcheck demo` whose title, story, notes and focus account are the payload',
    flags: [],
    setup: payloadStory,
    argv: ['demo', '{tmp}/story.json'],
    exit: 0,
    outcome: 'the story told, the payload shown escaped',
    pattern: /Final state/,
    readBack: (_tmp, out) => [...logProblems('stdout', out.stdout), ...logProblems('stderr', out.stderr)],
  },
];
