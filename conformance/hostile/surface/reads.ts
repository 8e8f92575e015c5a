/**
 * Hostile cases of what `report --list` and `merge` read: a run.json linked to /dev/zero was read
 * whole before its size was checked; a FIFO as latest.txt or run.json blocked the list; a `runs`
 * that is a file crashed it; `merge` read every file of its folders at once, followed links into
 * loops, and parsed every `.xml` with a reader quadratic in its `<testsuite>` elements. Now each
 * file is read within its limit as it comes, walks follow no link, and JUnit is read in linear
 * time, and only for `--junit`.
 */
import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HostileCase } from '../case.ts';
import { copyCheck } from './checkOutputs.ts';

/** A run folder, as `check` names them, under `{tmp}/report/runs`; returns its path. */
const runFolder = (tmp: string): string => {
  const dir = join(tmp, 'report', 'runs', '2026-01-02T03-04-05.678Z-agree');
  mkdirSync(dir, { recursive: true });
  return dir;
};
const LIST = ['report', '--list', '--report', '{tmp}/report'];

/** 200,000 `<testsuite>` elements never closed, in 2.2 MB: the old reader looked for each one's end from every start. */
const quadraticJunit = (): string =>
  `<?xml version="1.0"?>\n<testsuites name="jobcheck">\n${'<testsuite>'.repeat(200_000)}\n</testsuites>\n`;

/** A merge part (the built-in check's files) in `{tmp}/parts`, its JUnit file that quadratic one. */
async function partWithQuadraticJunit(tmp: string, python: string): Promise<void> {
  await copyCheck('builtin', python, join(tmp, 'parts'));
  writeFileSync(join(tmp, 'parts', 'junit.xml'), quadraticJunit());
}

export const READ_CASES: readonly HostileCase[] = [
  {
    name: 'report-list-dev-zero',
    what: 'a run.json that is a link to /dev/zero',
    argv: LIST,
    setup: (tmp) => symlinkSync('/dev/zero', join(runFolder(tmp), 'run.json')),
    flags: [],
    peakBoundMiB: 256,
    exit: 0,
    outcome: 'listed as unreadable, without reading it',
    pattern: /run_record_unreadable: cannot read .*run\.json: it is a character device, not a regular file/,
  },
  {
    name: 'report-list-fifo-run-json',
    what: 'a run.json that is a FIFO',
    argv: LIST,
    setup: (tmp) => {
      execFileSync('mkfifo', [join(runFolder(tmp), 'run.json')]);
    },
    flags: [],
    withinMs: 5_000,
    exit: 0,
    outcome: 'listed as unreadable, without opening it',
    pattern: /run_record_unreadable: cannot read .*run\.json: it is a FIFO \(named pipe\), not a regular file/,
  },
  {
    name: 'report-list-fifo-latest',
    what: 'latest.txt is a FIFO',
    argv: LIST,
    setup: (tmp) => {
      runFolder(tmp);
      execFileSync('mkfifo', [join(tmp, 'report', 'latest.txt')]);
    },
    flags: [],
    withinMs: 5_000,
    exit: 2,
    outcome: 'refused: not a regular file',
    pattern: /report: cannot read .*latest\.txt: it is a FIFO \(named pipe\), not a regular file/,
  },
  {
    name: 'report-list-runs-file',
    what: '`runs` in the report directory is a file',
    argv: LIST,
    setup: (tmp) => {
      mkdirSync(join(tmp, 'report'));
      writeFileSync(join(tmp, 'report', 'runs'), 'not a folder\n');
    },
    flags: [],
    exit: 2,
    outcome: 'refused: not a folder',
    pattern: /report: cannot list .*runs: it is not a folder/,
  },
  {
    name: 'merge-hard-links',
    what: 'a folder of 60 hard links to one 5 MB check result',
    argv: ['merge', '{tmp}/parts', '--report', '{tmp}/merged'],
    setup: async (tmp, python) => {
      await copyCheck('builtin', python, join(tmp, 'parts'));
      const result = JSON.parse(readFileSync(join(tmp, 'parts', 'result.json'), 'utf8')) as Record<string, unknown>;
      writeFileSync(join(tmp, 'parts', 'r00.json'), JSON.stringify({ ...result, padding: 'x'.repeat(5_000_000) }));
      for (let i = 1; i < 60; i++)
        linkSync(join(tmp, 'parts', 'r00.json'), join(tmp, 'parts', `r${String(i).padStart(2, '0')}.json`));
    },
    flags: [],
    peakBoundMiB: 256,
    exit: 2,
    outcome: 'refused at the second copy, read one at a time',
    pattern: /merge: 2 results of a check that was not split/,
  },
  {
    name: 'merge-link-loop',
    what: "a folder holding a check's files and links to itself and to its parent",
    argv: ['merge', '{tmp}/parts', '--report', '{tmp}/merged'],
    setup: async (tmp, python) => {
      await copyCheck('builtin', python, join(tmp, 'parts'));
      symlinkSync('.', join(tmp, 'parts', 'self'));
      symlinkSync('..', join(tmp, 'parts', 'up'));
    },
    flags: [],
    withinMs: 10_000,
    peakBoundMiB: 256,
    exit: 0,
    outcome: 'agree: the links are not followed',
    pattern: /verdict: AGREE \(1 part merged/,
  },
  {
    name: 'merge-junit-quadratic',
    what: '`merge --junit` of a part whose JUnit file opens 200,000 `<testsuite>` elements and closes none',
    argv: ['merge', '{tmp}/parts', '--report', '{tmp}/merged', '--junit', '{tmp}/merged.xml'],
    setup: partWithQuadraticJunit,
    flags: [],
    withinMs: 10_000,
    exit: 2,
    outcome: 'refused at once: an element not closed',
    pattern: /junit\.xml looks like a JUnit file but is not one: a <testsuite> element is not closed/,
  },
  {
    name: 'merge-xml-without-junit',
    what: '`merge` without `--junit` of a folder holding that JUnit file',
    argv: ['merge', '{tmp}/parts', '--report', '{tmp}/merged'],
    setup: partWithQuadraticJunit,
    flags: [],
    withinMs: 10_000,
    exit: 0,
    outcome: 'agree: no .xml file is read',
    pattern: /verdict: AGREE \(1 part merged/,
  },
];
