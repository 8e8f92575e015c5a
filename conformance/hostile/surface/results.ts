/**
 * Hostile cases of results read back and of the run history: a merge file that says `agree` over a
 * diverging part made `github` print AGREE and exit-code 0; a merge file of the wrong shape
 * crashed it; the check's own result for a 1 MB hello name was refused by `merge` and `github`
 * (the name clipped to 203 characters, the schema's limit 200); run folders named by a clock ahead
 * made `--keep-runs` delete the run just made; a result's reproduce field and target made `github`
 * tell a reader to run commands of the file's. Verdicts are now worked out from the parts, names
 * are clipped to what the schema accepts, pruning never touches the run just made, nor a name in
 * the future, and a repeat command is only ever one the check itself writes.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HostileCase } from '../case.ts';
import { copyCheck } from './checkOutputs.ts';

const NO_GITHUB = { GITHUB_STEP_SUMMARY: '', GITHUB_OUTPUT: '' };

/** A merge file of the diverging check, edited to say `agree` wherever it states a verdict. */
async function forgedMerge(tmp: string, python: string): Promise<void> {
  await copyCheck('broken', python, tmp);
  const result = JSON.parse(readFileSync(join(tmp, 'result.json'), 'utf8')) as Record<string, unknown>;
  const merge = {
    format: 'jobcheck.merge/1',
    verdict: 'agree',
    target: result['target'],
    seed: result['seed'],
    runs: result['runs'],
    parts: [{ label: 'result.json', file: 'result.json', verdict: 'agree', stoppedByTimeLimit: false }],
    coverage: result['coverage'],
    results: [{ ...result, verdict: 'agree' }],
    report: { dir: tmp, coverageMd: join(tmp, 'coverage.md') },
  };
  writeFileSync(join(tmp, 'merge.json'), JSON.stringify(merge));
}

/**
 * The diverging check's result, its fields that name commands forged: a reproduce line that runs
 * commands of its own after `;`, and a target whose command substitutions a shell would run.
 */
async function forgedRepeat(tmp: string, python: string): Promise<void> {
  await copyCheck('broken', python, tmp);
  const result = JSON.parse(readFileSync(join(tmp, 'result.json'), 'utf8')) as Record<string, unknown>;
  const failure = result['failure'] as Record<string, unknown>;
  failure['reproduce'] = 'npx jobcheck check --builtin ; touch PWNED ; echo --seed 1 --path 1';
  result['target'] = 'python3 x.py $(touch PWNED2) `touch PWNED3`';
  writeFileSync(join(tmp, 'result.json'), JSON.stringify(result));
}

/**
 * What is wrong with the commands `github` tells a reader to run (the summary's `Repeat it:`, each
 * annotation's `repeat:`): run through `sh` as the words of printf in `tmp`, each must run nothing
 * (no PWNED file) and stay one `npx jobcheck check` command.
 */
function repeatProblems(tmp: string, stdout: string): string[] {
  const commands = [
    ...stdout
      .split('\n')
      .filter((l) => l.startsWith('Repeat it: '))
      .map((l) => (/^Repeat it: (`+) ?(.*?) ?\1$/.exec(l)?.[2] ?? l).replaceAll('\\|', '|')),
    ...stdout
      .split('\n')
      .filter((l) => l.startsWith('::error '))
      .map((l) => (/%0Arepeat: (.*)$/.exec(l)?.[1] ?? l).replaceAll('%25', '%')),
  ];
  if (commands.length < 2) return [`github printed ${commands.length} repeat commands`];
  const problems: string[] = [];
  for (const command of commands) {
    const r = spawnSync('sh', ['-c', `printf '%s\\0' ${command}`], { cwd: tmp, encoding: 'utf8' });
    const words = (r.stdout ?? '').split('\0').slice(0, 3);
    const ran = readdirSync(tmp).filter((f) => f.startsWith('PWNED'));
    if (ran.length > 0 || words.join(' ') !== 'npx jobcheck check')
      problems.push(`github says to run ${JSON.stringify(command.slice(0, 120))}: it runs ${JSON.stringify(ran)}`);
  }
  return problems;
}

export const RESULT_CASES: readonly HostileCase[] = [
  {
    name: 'github-forged-repeat',
    what: 'a result whose reproduce line runs commands of its own after `;`, and whose target holds `$(...)`',
    argv: ['github', '--from', '{tmp}/result.json'],
    setup: forgedRepeat,
    env: NO_GITHUB,
    flags: [],
    exit: 0,
    outcome: 'DIVERGE; every repeat command one jobcheck command that runs nothing else',
    pattern: /## jobcheck: DIVERGE/,
    readBack: (tmp, out) => repeatProblems(tmp, out.stdout),
  },
  {
    name: 'github-forged-verdict',
    what: "a merge file that says `agree` (and so does its part) over the part's diverging result",
    argv: ['github', '--from', '{tmp}/merge.json'],
    setup: forgedMerge,
    env: NO_GITHUB,
    flags: [],
    exit: 0,
    outcome: 'DIVERGE, exit-code 1: worked out from the part',
    pattern: /## jobcheck: DIVERGE[^\n]*\n\nTarget [^\n]*exit code 1\./,
  },
  {
    name: 'github-merge-minimal',
    what: 'a merge file holding its format and `"verdict": "agree"` alone',
    argv: ['github', '--from', '{tmp}/merge.json'],
    setup: (tmp) => writeFileSync(join(tmp, 'merge.json'), '{"format":"jobcheck.merge/1","verdict":"agree"}'),
    env: NO_GITHUB,
    flags: [],
    exit: 2,
    outcome: 'refused: not a valid merge result',
    pattern: /github: .*merge\.json is not a valid merge result: target: /,
  },
  {
    name: 'github-merge-wrong-types',
    what: 'a merge file whose results is a string and whose parts hold numbers',
    argv: ['github', '--from', '{tmp}/merge.json'],
    setup: async (tmp, python) => {
      await forgedMerge(tmp, python);
      const merge = JSON.parse(readFileSync(join(tmp, 'merge.json'), 'utf8')) as Record<string, unknown>;
      writeFileSync(join(tmp, 'merge.json'), JSON.stringify({ ...merge, parts: [1, 2], results: 'all agree' }));
    },
    env: NO_GITHUB,
    flags: [],
    exit: 2,
    outcome: 'refused: not a valid merge result',
    pattern: /github: .*merge\.json is not a valid merge result: parts\.0: /,
  },
  {
    name: 'merge-own-huge-name',
    what: "`merge` of the check's own result for an implementation called by a 1 MB name",
    argv: ['merge', '{tmp}/result.json', '{tmp}/coverage.json', '--report', '{tmp}/merged'],
    setup: (tmp, python) => copyCheck('huge-name', python, tmp),
    flags: [],
    exit: 0,
    outcome: 'agree: its own output accepted',
    pattern: /verdict: AGREE \(1 part merged/,
  },
  {
    name: 'github-own-huge-name',
    what: "`github` of the check's own result for an implementation called by a 1 MB name",
    argv: ['github', '--from', '{tmp}/result.json'],
    setup: (tmp, python) => copyCheck('huge-name', python, tmp),
    env: NO_GITHUB,
    flags: [],
    exit: 0,
    outcome: 'agree: its own output accepted',
    pattern: /## jobcheck: AGREE/,
  },
  {
    name: 'runs-from-the-future',
    what: 'a report directory holding three finished runs named in 2097, and `--keep-runs 3`',
    argv: [
      'check',
      '--builtin',
      '--runs',
      '1',
      '--seed',
      '1',
      '--no-explore',
      '--keep-runs',
      '3',
      '--report',
      '{tmp}/report',
    ],
    setup: (tmp) => {
      for (const day of ['01', '02', '03'])
        mkdirSync(join(tmp, 'report', 'runs', `2097-01-${day}T00-00-00.000Z-agree`), { recursive: true });
    },
    inspect: (tmp) => {
      const page = existsSync(join(tmp, 'report', 'latest', 'index.html')) ? 'kept' : 'gone';
      const future = readdirSync(join(tmp, 'report', 'runs')).filter((n) => n.startsWith('2097-')).length;
      return `the run's page through latest: ${page}; run folders of 2097: ${future}`;
    },
    flags: [],
    exit: 0,
    outcome: "agree, the run's page kept, the 2097 folders untouched",
    pattern: /AGREE[\s\S]*the run's page through latest: kept; run folders of 2097: 3/,
  },
];
