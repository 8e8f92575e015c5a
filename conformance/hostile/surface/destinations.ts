/**
 * Hostile cases of the paths jobcheck writes to: a FIFO where a report file, a JUnit file, the
 * profile's Markdown, the lab's page or a GitHub file goes once blocked the process for good, deaf
 * to SIGTERM (a blocking open(2) in a thread process.exit waits for); a link carried a write out of
 * the report directory; /proc/x made the lab spin; a folder or /dev/full as a GitHub file crashed.
 * Each is refused before any work, exit 2 within 5 s, naming the path and what it is
 * (conformance/outside/outputFile.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HostileCase } from '../case.ts';
import { copyCheck } from './checkOutputs.ts';

/** Makes a FIFO at `path`, its folder first (mkfifo(1): node has no call for it). */
const fifo = (path: string): void => {
  mkdirSync(join(path, '..'), { recursive: true });
  execFileSync('mkfifo', [path]);
};

/** A quick check of the built-in store, its report in `{tmp}/report`. */
const CHECK = ['check', '--builtin', '--runs', '1', '--seed', '1', '--no-explore', '--report', '{tmp}/report'];
/** The GitHub files unset, unless a case sets one: a case never writes into the summary of a CI run it runs in. */
const NO_GITHUB = { GITHUB_STEP_SUMMARY: '', GITHUB_OUTPUT: '' };
const WITHIN = 5_000;
const refused = (what: string, kind: string): RegExp =>
  new RegExp(`cannot write ${what} .*: it is ${kind}, not a regular file \\(refused without opening it\\)`);
const FIFO = 'a FIFO \\(named pipe\\)';

export const DESTINATION_CASES: readonly HostileCase[] = [
  {
    name: 'fifo-junit',
    what: 'the `--junit` file of a check is a FIFO nobody reads',
    argv: [...CHECK, '--junit', '{tmp}/junit.xml'],
    setup: (tmp) => fifo(join(tmp, 'junit.xml')),
    flags: [],
    withinMs: WITHIN,
    exit: 2,
    outcome: 'refused before any work: not a regular file',
    pattern: refused('the JUnit file', FIFO),
  },
  {
    name: 'fifo-report-file',
    what: "coverage.md in a check's report directory is a FIFO",
    argv: CHECK,
    setup: (tmp) => fifo(join(tmp, 'report', 'coverage.md')),
    flags: [],
    withinMs: WITHIN,
    exit: 2,
    outcome: 'refused before any work: not a regular file',
    pattern: refused('the report file', FIFO),
  },
  {
    name: 'link-report-file',
    what: "coverage.json in a check's report directory is a link to a file outside it",
    argv: CHECK,
    setup: (tmp) => {
      mkdirSync(join(tmp, 'report'));
      writeFileSync(join(tmp, 'elsewhere.txt'), "not jobcheck's\n");
      symlinkSync(join(tmp, 'elsewhere.txt'), join(tmp, 'report', 'coverage.json'));
    },
    flags: [],
    withinMs: WITHIN,
    exit: 2,
    outcome: 'refused before any work: a link',
    pattern: /cannot write the report file .*coverage\.json: it is a symbolic link/,
  },
  {
    name: 'link-runs',
    what: "a check's report directory holds `runs` as a link to a folder outside it",
    argv: CHECK,
    setup: (tmp) => {
      mkdirSync(join(tmp, 'report'));
      mkdirSync(join(tmp, 'elsewhere'));
      symlinkSync(join(tmp, 'elsewhere'), join(tmp, 'report', 'runs'));
    },
    flags: [],
    withinMs: WITHIN,
    exit: 2,
    outcome: 'refused before any work: a link',
    pattern: /cannot write the run folders' folder .*runs: it is a symbolic link/,
  },
  {
    name: 'fifo-merge-junit',
    what: "`merge --junit` names a FIFO (the parts' files are real)",
    argv: ['merge', '{tmp}/part', '--report', '{tmp}/merged', '--junit', '{tmp}/merged.xml'],
    setup: async (tmp, python) => {
      await copyCheck('builtin', python, join(tmp, 'part'));
      fifo(join(tmp, 'merged.xml'));
    },
    flags: [],
    withinMs: WITHIN,
    exit: 2,
    outcome: 'refused before any work: not a regular file',
    pattern: refused('the JUnit file', FIFO),
  },
  {
    name: 'fifo-merge-report',
    what: "coverage.json in `merge`'s report directory is a FIFO",
    argv: ['merge', '{tmp}/part', '--report', '{tmp}/merged'],
    setup: async (tmp, python) => {
      await copyCheck('builtin', python, join(tmp, 'part'));
      fifo(join(tmp, 'merged', 'coverage.json'));
    },
    flags: [],
    withinMs: WITHIN,
    exit: 2,
    outcome: 'refused before any work: not a regular file',
    pattern: refused('the report file', FIFO),
  },
  {
    name: 'fifo-profile-markdown',
    what: '`profile --markdown` names a FIFO',
    argv: ['profile', '--builtin', '--runs', '5', '--seed', '1', '--markdown', '{tmp}/profile.md'],
    setup: (tmp) => fifo(join(tmp, 'profile.md')),
    flags: [],
    withinMs: WITHIN,
    exit: 2,
    outcome: 'refused before any work: not a regular file',
    pattern: refused('the Markdown file', FIFO),
  },
  {
    name: 'fifo-lab-out',
    what: '`lab --out` names a FIFO (the write was synchronous: not even a signal handler ran)',
    argv: ['lab', '--out', '{tmp}/lab.html'],
    setup: (tmp) => fifo(join(tmp, 'lab.html')),
    flags: [],
    withinMs: WITHIN,
    exit: 2,
    outcome: 'refused before any work: not a regular file',
    pattern: refused('the page', FIFO),
  },
  {
    name: 'lab-out-proc',
    what: '`lab --out /proc/jobcheck-lab/index.html` (a recursive mkdir spun there for ever)',
    argv: ['lab', '--out', '/proc/jobcheck-lab/index.html'],
    flags: [],
    withinMs: WITHIN,
    exit: 2,
    outcome: 'refused before any work: no folder can be made',
    pattern: /lab: cannot use the directory of the page \/proc\/jobcheck-lab: cannot make the folder/,
  },
  {
    name: 'fifo-step-summary',
    what: '`github` with $GITHUB_STEP_SUMMARY a FIFO',
    argv: ['github', '--from', '{tmp}/result.json'],
    setup: async (tmp, python) => {
      await copyCheck('builtin', python, tmp);
      fifo(join(tmp, 'summary.md'));
    },
    env: { ...NO_GITHUB, GITHUB_STEP_SUMMARY: '{tmp}/summary.md' },
    flags: [],
    withinMs: WITHIN,
    exit: 2,
    outcome: 'refused before any work: not a regular file',
    pattern: refused('\\$GITHUB_STEP_SUMMARY', FIFO),
  },
  {
    name: 'fifo-github-output',
    what: '`github` with $GITHUB_OUTPUT a FIFO',
    argv: ['github', '--from', '{tmp}/result.json'],
    setup: async (tmp, python) => {
      await copyCheck('builtin', python, tmp);
      fifo(join(tmp, 'output.txt'));
    },
    env: { ...NO_GITHUB, GITHUB_OUTPUT: '{tmp}/output.txt' },
    flags: [],
    withinMs: WITHIN,
    exit: 2,
    outcome: 'refused before any work: not a regular file',
    pattern: refused('\\$GITHUB_OUTPUT', FIFO),
  },
  {
    name: 'step-summary-folder',
    what: '`github` with $GITHUB_STEP_SUMMARY a folder',
    argv: ['github', '--from', '{tmp}/result.json'],
    setup: (tmp, python) => copyCheck('builtin', python, tmp),
    env: { ...NO_GITHUB, GITHUB_STEP_SUMMARY: '{tmp}' },
    flags: [],
    withinMs: WITHIN,
    exit: 2,
    outcome: 'refused before any work: not a regular file',
    pattern: refused('\\$GITHUB_STEP_SUMMARY', 'a folder'),
  },
  {
    name: 'github-output-dev-full',
    what: '`github` with $GITHUB_OUTPUT /dev/full (every write fails)',
    argv: ['github', '--from', '{tmp}/result.json'],
    setup: (tmp, python) => copyCheck('builtin', python, tmp),
    env: { ...NO_GITHUB, GITHUB_OUTPUT: '/dev/full' },
    flags: [],
    withinMs: WITHIN,
    exit: 2,
    outcome: 'refused before any work: not a regular file',
    pattern: refused('\\$GITHUB_OUTPUT', 'a character device'),
  },
];
