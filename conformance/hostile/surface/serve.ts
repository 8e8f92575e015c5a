/**
 * Hostile cases of `jobcheck serve` with a store it cannot open, driven as a checker drives it:
 * `jobcheck check --impl "node bin/jobcheck.js serve --store …"`. The served process must refuse
 * the `hello` with `storage_unavailable` (and stay up), so that the check stops at once with a
 * typed handshake failure naming the storage, exit 2, rather than an untyped crash of the server
 * read as `spawn_failed`. The runner gives the harness no stdin, so a resume of a file with bad
 * rows, which needs a hello the harness only sends after a crash restart, is held in
 * impl/protocol/resumeRows.test.ts instead, and serve's staying up in cli/serveStorage.test.ts.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { HostileCase } from '../case.ts';

/** The check line around a served store: a short run, and the report in the case's folder. */
const checkServe = (store: string): readonly string[] => [
  'check',
  '--impl',
  `node bin/jobcheck.js serve --store ${store}`,
  '--runs',
  '5',
  '--seed',
  '1',
  '--time-limit',
  '30',
  '--no-explore',
  '--report',
  '{tmp}/report',
];

/** The one-line setup error of a refused hello, naming the storage problem. */
const refused = (problem: string): RegExp =>
  new RegExp(
    `cannot start the implementation .*handshake_failed: hello refused \\(storage_unavailable: storage: ${problem}`,
  );

/** A place no store file can be written: a folder without write permission, or for root (whom permissions do not stop) a read-only file system. */
const ROOT_USER = process.getuid?.() === 0;

export const SERVE_CASES: readonly HostileCase[] = [
  {
    name: 'serve-sqlite-folder',
    what: '`serve --store sqlite:<a folder>`',
    argv: checkServe('sqlite:{tmp}/folder'),
    setup: (tmp) => mkdirSync(join(tmp, 'folder')),
    flags: [],
    exit: 2,
    outcome: 'setup error: storage_unavailable (a folder)',
    pattern: refused('"[^"]*folder" is a folder'),
  },
  {
    name: 'serve-sqlite-fifo',
    what: '`serve --store sqlite:<a FIFO>`',
    argv: checkServe('sqlite:{tmp}/fifo'),
    setup: (tmp) => execFileSync('mkfifo', [join(tmp, 'fifo')]),
    flags: [],
    exit: 2,
    outcome: 'setup error: storage_unavailable (a FIFO)',
    pattern: refused('"[^"]*fifo" is a FIFO'),
  },
  {
    name: 'serve-sqlite-missing-folder',
    what: '`serve --store sqlite:<missing folder>/jobs.db`',
    argv: checkServe('sqlite:{tmp}/missing/jobs.db'),
    flags: [],
    exit: 2,
    outcome: 'setup error: storage_unavailable (no folder)',
    pattern: refused('cannot make a store file beside "[^"]*missing/jobs\\.db"'),
  },
  {
    name: 'serve-sqlite-in-a-file',
    what: '`serve --store sqlite:<a regular file>/jobs.db`',
    argv: checkServe('sqlite:{tmp}/plain.txt/jobs.db'),
    setup: (tmp) => writeFileSync(join(tmp, 'plain.txt'), 'not a folder\n'),
    flags: [],
    exit: 2,
    outcome: 'setup error: storage_unavailable (not a folder)',
    pattern: refused('cannot make a store file beside "[^"]*plain\\.txt/jobs\\.db"'),
  },
  {
    name: 'serve-sqlite-unwritable',
    what: '`serve --store sqlite:<a folder that cannot be written>/jobs.db` (for root, a read-only file system)',
    argv: checkServe(ROOT_USER ? 'sqlite:/proc/jobcheck/jobs.db' : 'sqlite:{tmp}/locked/jobs.db'),
    setup: (tmp) => {
      mkdirSync(join(tmp, 'locked'));
      chmodSync(join(tmp, 'locked'), 0o555);
    },
    flags: [],
    exit: 2,
    outcome: 'setup error: storage_unavailable (unwritable)',
    pattern: refused('cannot make a store file beside "[^"]*/jobs\\.db"'),
  },
  {
    name: 'serve-postgres-no-server',
    what: '`serve --store postgres:<a socket folder where no server runs>`',
    argv: checkServe('postgres:{tmp}/no-server'),
    setup: (tmp) => mkdirSync(join(tmp, 'no-server')),
    flags: [],
    exit: 2,
    outcome: 'setup error: storage_unavailable (no server)',
    pattern: refused('the PostgreSQL server at "[^"]*no-server" cannot be used \\(connect ENOENT'),
  },
];
