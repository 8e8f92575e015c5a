/**
 * A served SQLite store resumed from a file it did not just write: the file is held to what a
 * store could have written before a single request is served (rows checked as `restore` checks a
 * snapshot, derived columns, the meta row's config, the file itself), and every failure is a
 * typed refusal of the `hello`, never a crash of the server. Each file here is made by a real
 * store, then changed behind its back as a crash, a bad disk or a hand with the sqlite3 shell would.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresMissing } from '../postgresEnv.ts';
import { PostgresStore, postgresPool, quoteIdent } from '../../impl/postgres/index.ts';
import { SqliteStore } from '../../impl/sqlite/index.ts';
import { answerLine, postgresStoreMaker, sqliteStoreMaker } from '../../impl/protocol/index.ts';
import type { Session } from '../../impl/protocol/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'jobcheck-resume-rows-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const config = { capacity: 4, maxAttempts: 2, leaseTicks: 5, backoffBase: 1, backoffCap: 4 };
const hello = (resume: string): string => JSON.stringify({ type: 'hello', protocol: 'jobcheck/1', config, resume });
let n = 0;

/** A file of the family `jobs.db` (as a killed server leaves it) holding one running and one ready job, changed by `edit`. */
function storeFile(edit: (db: Database.Database) => void): string {
  const path = join(dir, `jobs-1-${++n}.db`);
  const store = SqliteStore.create(path, config);
  store.execute({ type: 'submit', id: 'a', account: 'acme', key: 'k1', amount: 5, deadline: 50, now: 0 });
  store.execute({ type: 'submit', id: 'b', account: 'beta', key: 'k2', amount: 7, deadline: 50, now: 0 });
  store.execute({ type: 'claim', worker: 'w1', now: 1 });
  store.close();
  const db = new Database(path);
  edit(db);
  db.close();
  return path;
}

/** The reply of a new server process's session to a hello that resumes `path`, and what a snapshot gets next. */
async function resume(
  path: string,
): Promise<{ readonly hello: Record<string, unknown>; readonly next: Record<string, unknown> }> {
  const maker = sqliteStoreMaker(join(dir, 'jobs.db'));
  const session: Session = {};
  const reply = (await answerLine(session, hello(path), maker)) as Record<string, unknown>;
  const next = (await answerLine(session, '{"type":"snapshot"}', maker)) as Record<string, unknown>;
  await session.store?.close?.();
  return { hello: reply, next };
}

describe('resuming a SQLite store over the protocol', () => {
  it('serves a sound file as it was left (the control)', async () => {
    const path = storeFile(() => undefined);
    const r = await resume(path);
    expect(r.hello).toMatchObject({ ok: true, type: 'hello' });
    expect(r.next).toMatchObject({
      ok: true,
      snapshot: { jobs: { a: { status: 'running', token: 1 }, b: { status: 'ready' } } },
    });
  });

  it.each([
    [
      'a job whose status is "flying"',
      "UPDATE jobs SET status = 'flying' WHERE id = 'a'",
      /invalid_store: .*jobs\.a\.status/,
    ],
    ['a job with -3 attempts', "UPDATE jobs SET attempts = -3 WHERE id = 'b'", /invalid_store: .*jobs\.b\.attempts/],
    ['a running job without an owner', "UPDATE jobs SET owner = NULL WHERE id = 'a'", /invalid_store: .*jobs\.a/],
    ['a token at or past nextToken', 'UPDATE meta SET next_token = 1', /invalid_store: .*token/],
    [
      'a balance the ledger does not explain',
      "INSERT INTO balances (account, balance) VALUES ('acme', 99)",
      /invalid_store: .*balances/,
    ],
    [
      'a ready job that is not marked claimable',
      "UPDATE jobs SET claimable = NULL WHERE id = 'b'",
      /invalid_store: .*"b".*claimable column/,
    ],
    [
      'a job whose due column is not when it next moves',
      "UPDATE jobs SET due = 3 WHERE id = 'b'",
      /invalid_store: .*"b".*due column is 3/,
    ],
    [
      "a count of unresolved jobs that is not the jobs'",
      'UPDATE meta SET unresolved = 1',
      /invalid_store: .*unresolved jobs is 1, the jobs hold 2/,
    ],
    ['a meta row whose capacity is 0', 'UPDATE meta SET capacity = 0', /invalid_store: .*capacity/],
  ])('refuses a file holding %s with invalid_argument, serving nothing', async (_what, sql, message) => {
    const path = storeFile((db) => db.exec(sql));
    const r = await resume(path);
    expect(r.hello).toMatchObject({ ok: false, code: 'invalid_argument' });
    expect(String(r.hello['message'])).toMatch(message);
    expect(r.next).toMatchObject({
      ok: false,
      code: 'invalid_argument',
      message: expect.stringMatching(/send hello first/),
    });
  });

  it('refuses a folder, a FIFO, a truncated file and a database of another schema with invalid_argument', async () => {
    const folder = join(dir, `jobs-2-${++n}.db`);
    mkdirSync(folder);
    const fifo = join(dir, `jobs-2-${++n}.db`);
    execFileSync('mkfifo', [fifo]);
    const whole = storeFile(() => undefined);
    const truncated = join(dir, `jobs-2-${++n}.db`);
    writeFileSync(truncated, readFileSync(whole).subarray(0, 1500));
    const other = join(dir, `jobs-2-${++n}.db`);
    const db = new Database(other);
    db.exec('CREATE TABLE meta (x); CREATE TABLE jobs (y)');
    db.close();
    const cases: [string, RegExp][] = [
      [folder, /unusable_file: .* is a folder/],
      [fifo, /unusable_file: .* is a FIFO/],
      [truncated, /unusable_file: /],
      [other, /schema_mismatch: /],
    ];
    for (const [path, message] of cases) {
      const r = await resume(path);
      expect(r.hello, path).toMatchObject({
        ok: false,
        code: 'invalid_argument',
        message: expect.stringMatching(message),
      });
      expect(r.next).toMatchObject({ ok: false, code: 'invalid_argument' });
    }
  });
});

const pgMissing = postgresMissing();
describe.skipIf(pgMissing !== undefined)(
  `resuming a PostgreSQL store over the protocol${pgMissing === undefined ? '' : ` (skipped: ${pgMissing})`}`,
  () => {
    const pool = pgMissing === undefined ? postgresPool('', { max: 2 }) : undefined;
    afterAll(async () => pool?.end());

    it.each([
      ['nothing changed (the control)', '', undefined],
      [
        'a job whose status is "flying"',
        "UPDATE S.jobs SET status = 'flying' WHERE seq = 1",
        /invalid_store: .*jobs\.a\.status/,
      ],
      ['a job with -3 attempts', 'UPDATE S.jobs SET attempts = -3 WHERE seq = 2', /invalid_store: .*jobs\.b\.attempts/],
      [
        'a ready job that is not marked claimable',
        'UPDATE S.jobs SET claimable = NULL WHERE seq = 2',
        /invalid_store: .*"b".*claimable column/,
      ],
      ['a meta row whose capacity is 0', 'UPDATE S.meta SET capacity = 0', /invalid_store: .*capacity/],
      [
        'the layout before, whose fast path has no procedures',
        "DROP PROCEDURE S.fast_claim_call; DROP PROCEDURE S.fast_ack_call; UPDATE S.meta SET layout = 'jobcheck.postgres/3'",
        /schema_mismatch: .*layout "jobcheck\.postgres\/3", not jobcheck\.postgres\//,
      ],
    ])('answers a hello that resumes a schema holding %s', async (_what, sql, message) => {
      const db = pool as NonNullable<typeof pool>;
      const store = await PostgresStore.create(db, config);
      try {
        await store.execute({ type: 'submit', id: 'a', account: 'acme', key: 'k1', amount: 5, deadline: 50, now: 0 });
        await store.execute({ type: 'submit', id: 'b', account: 'beta', key: 'k2', amount: 7, deadline: 50, now: 0 });
        await store.execute({ type: 'claim', worker: 'w1', now: 1 });
        if (sql !== '') await db.query(sql.replaceAll('S.', `${quoteIdent(store.schema)}.`));
        const session: Session = {};
        const reply = (await answerLine(session, hello(store.schema), postgresStoreMaker(''))) as Record<
          string,
          unknown
        >;
        if (message === undefined)
          expect(reply).toMatchObject({ ok: true, type: 'hello', durable: { storage: store.schema } });
        else
          expect(reply).toMatchObject({ ok: false, code: 'invalid_argument', message: expect.stringMatching(message) });
        // A resumed store belongs to the session, which drops its schema when closed; a refused one is dropped below.
        await session.store?.close?.();
      } finally {
        await store.drop();
      }
    });
  },
);
