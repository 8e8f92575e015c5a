/**
 * Hostile cases of input files that are not regular files, or are over their limits. A FIFO once
 * blocked `replay` and `coverage` for ever (its size reads 0, under the limit) and /dev/zero was
 * read without end; now every file a user names is checked before a byte is read
 * (conformance/outside/inputFile.ts) and refused with exit 2, naming the path and what it is.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HostileCase } from '../case.ts';

/** Makes a FIFO at `path` (mkfifo(1): node has no call for it). */
const fifo = (path: string): void => {
  execFileSync('mkfifo', [path]);
};

const NOT_A_FILE = (kind: string): RegExp =>
  new RegExp(`it is ${kind}, not a regular file \\(refused without reading it\\)`);

export const FILE_CASES: readonly HostileCase[] = [
  {
    name: 'replay-fifo',
    what: 'an artifact that is a FIFO nobody writes to',
    argv: ['replay', '{tmp}/failure.json', '--builtin'],
    setup: (tmp) => fifo(join(tmp, 'failure.json')),
    flags: [],
    exit: 2,
    outcome: 'usage error: not a regular file',
    pattern: /replay: .*failure\.json: cannot read artifact .*: it is a FIFO \(named pipe\), not a regular file/,
  },
  {
    name: 'replay-dev-zero',
    what: 'an artifact that is /dev/zero (endless, size 0)',
    argv: ['replay', '/dev/zero', '--builtin'],
    flags: [],
    exit: 2,
    outcome: 'usage error: not a regular file',
    pattern: NOT_A_FILE('a character device'),
  },
  {
    name: 'replay-folder',
    what: 'an artifact that is a folder',
    argv: ['replay', '{tmp}/artifact.json', '--builtin'],
    setup: (tmp) => mkdirSync(join(tmp, 'artifact.json')),
    flags: [],
    exit: 2,
    outcome: 'usage error: not a regular file',
    pattern: NOT_A_FILE('a folder'),
  },
  {
    name: 'coverage-fifo',
    what: 'a coverage file to merge that is a FIFO, beside a good one',
    argv: ['coverage', '{tmp}/good.json', '{tmp}/coverage.json', '--report', '{tmp}/merged'],
    setup: (tmp) => {
      writeFileSync(join(tmp, 'good.json'), '{}');
      fifo(join(tmp, 'coverage.json'));
    },
    flags: [],
    exit: 2,
    outcome: 'usage error: not a regular file',
    pattern: /coverage\.json: it is a FIFO \(named pipe\), not a regular file/,
  },
  {
    name: 'coverage-dev-zero',
    what: 'a coverage file to merge that is /dev/zero',
    argv: ['coverage', '/dev/zero', '--report', '{tmp}/merged'],
    flags: [],
    exit: 2,
    outcome: 'usage error: not a regular file',
    pattern: NOT_A_FILE('a character device'),
  },
  {
    name: 'demo-story-fifo',
    what: 'a story file for `jobcheck demo` that is a FIFO',
    argv: ['demo', '{tmp}/story.json'],
    setup: (tmp) => fifo(join(tmp, 'story.json')),
    flags: [],
    exit: 2,
    outcome: 'usage error: not a regular file',
    pattern: /story file ".*story\.json": it is a FIFO \(named pipe\), not a regular file/,
  },
  {
    name: 'module-fifo',
    what: 'a `--module` that is a FIFO',
    argv: ['check', '--module', '{tmp}/adapter.mjs', '--runs', '1', '--no-explore', '--report', '{tmp}/report'],
    setup: (tmp) => fifo(join(tmp, 'adapter.mjs')),
    flags: [],
    exit: 2,
    outcome: 'usage error: not a regular file',
    pattern: /--module .*adapter\.mjs: it is a FIFO \(named pipe\), not a regular file/,
  },
  {
    name: 'module-dev-zero',
    what: 'a `--module` that is /dev/zero',
    argv: ['check', '--module', '/dev/zero', '--runs', '1', '--no-explore', '--report', '{tmp}/report'],
    flags: [],
    exit: 2,
    outcome: 'usage error: not a regular file',
    pattern: /--module \/dev\/zero: it is a character device, not a regular file/,
  },
  {
    name: 'replay-over-limit',
    what: 'an artifact of 65 MiB (sparse), over the 64 MiB limit',
    argv: ['replay', '{tmp}/huge.json', '--builtin'],
    setup: (tmp) => {
      writeFileSync(join(tmp, 'huge.json'), '');
      truncateSync(join(tmp, 'huge.json'), 65 * 1024 * 1024);
    },
    flags: [],
    exit: 2,
    outcome: 'usage error: over the limit',
    pattern: /it has 68157440 bytes, more than the limit of 67108864/,
  },
];
