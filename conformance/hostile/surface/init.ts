/**
 * Hostile cases of `jobcheck init`, which writes a starter or the example into the project it runs
 * in: a folder on the way that is a link out of the project (a checkout can hold one) once carried
 * the files there, and a name the file system cannot take was told as a file that "already exists".
 * Each must end with exit 2, a typed one-line error naming the path and what is wrong with it, and
 * nothing written anywhere.
 */
import { mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { HostileCase } from '../case.ts';

/** Every file and folder under `dir`, as paths relative to it, sorted (a link is listed, not followed). */
function tree(dir: string, under = ''): string[] {
  return readdirSync(join(dir, under), { withFileTypes: true })
    .flatMap((e) => {
      const path = under === '' ? e.name : `${under}/${e.name}`;
      return e.isDirectory() ? [path, ...tree(dir, path)] : [path];
    })
    .sort();
}

/** What is wrong when `dir` does not hold exactly `expected`. */
const holds = (where: string, dir: string, expected: readonly string[]): string[] => {
  const found = tree(dir);
  return JSON.stringify(found) === JSON.stringify(expected) ? [] : [`${where} holds ${JSON.stringify(found)}`];
};

export const INIT_CASES: readonly HostileCase[] = [
  {
    name: 'init-link-out',
    what: '`init --starter python` in a project whose `starters` folder is a link to a folder outside it',
    setup: (tmp) => {
      mkdirSync(join(tmp, 'project'));
      mkdirSync(join(tmp, 'elsewhere'));
      symlinkSync('../elsewhere', join(tmp, 'project', 'starters'));
    },
    cwd: '{tmp}/project',
    argv: ['init', '--starter', 'python'],
    flags: [],
    withinMs: 5_000,
    exit: 2,
    outcome: 'refused: a link on the way, nothing written',
    pattern: /init: cannot write the folder .*\/project\/starters: it is a symbolic link/,
    readBack: (tmp) => [
      ...holds('the folder the link leads to', join(tmp, 'elsewhere'), []),
      ...holds('the project', join(tmp, 'project'), ['starters']),
    ],
  },
  {
    name: 'init-name-too-long',
    what: '`init --starter python --dir` a name longer than the file system takes (255 bytes)',
    argv: ['init', '--starter', 'python', '--dir', `{tmp}/${'n'.repeat(300)}`],
    flags: [],
    withinMs: 5_000,
    exit: 2,
    outcome: 'refused: the name too long, not "already exists"',
    pattern: /init: cannot use the folder .*: .*ENAMETOOLONG/,
    readBack: (tmp, out) => [
      ...holds('the run folder', tmp, []),
      ...(/already exist/.test(out.stderr) ? [`init says the files exist: ${out.stderr.slice(0, 120)}`] : []),
    ],
  },
];
