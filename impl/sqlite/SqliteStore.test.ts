/**
 * The SQLite store on its own: its file (WAL, synchronous, reopen, the errors for a file that
 * holds something else), strings SQLite's TEXT cannot hold, and the query plans that keep claim,
 * token look-up and timer expiry on an index at any number of resident jobs. Agreement with the
 * model is checked in conformance/stores/sqlite.test.ts (impl/ never imports the model).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { QUERIES, SCHEMA_SQL, SqliteStore, SqliteStoreError, openSqliteStore } from './index.ts';

const dir = mkdtempSync(join(tmpdir(), 'jobcheck-sqlite-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const file = (): string => join(dir, `unit-${++n}.db`);
const config = { capacity: 4, maxAttempts: 2, leaseTicks: 5, backoffBase: 1, backoffCap: 4 };

describe('the SQLite store file', () => {
  it('is in WAL mode with synchronous=FULL and a busy timeout', () => {
    const path = file();
    SqliteStore.create(path, config).close();
    const db = new Database(path);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
    const store = SqliteStore.open(path) as unknown as { db: Database.Database };
    expect(store.db.pragma('synchronous', { simple: true })).toBe(2); // FULL
    expect(store.db.pragma('busy_timeout', { simple: true })).toBe(5000);
    (store as unknown as SqliteStore).close();
  });

  it('keeps every acknowledged command across a close and a reopen', () => {
    const path = file();
    const a = openSqliteStore(path, config);
    a.execute({ type: 'submit', id: 'a', account: 'acme', key: 'k', amount: 5, deadline: 50, now: 0 });
    a.execute({ type: 'claim', worker: 'w1', now: 1 });
    a.execute({ type: 'commit', worker: 'w1', token: 1, now: 2 });
    const before = a.snapshot();
    a.close();
    const b = openSqliteStore(path, config);
    expect(b.snapshot()).toEqual(before);
    expect(b.execute({ type: 'commit', worker: 'w1', token: 1, now: 3 })).toEqual({
      ok: true,
      type: 'commit',
      id: 'a',
      applied: false,
      balance: 5,
    });
    b.close();
  });

  it('refuses a file that holds a store with another config, another database, or no store', () => {
    const path = file();
    openSqliteStore(path, config).close();
    expect(() => openSqliteStore(path, { ...config, capacity: 9 })).toThrow(
      expect.objectContaining({ code: 'config_mismatch' }),
    );
    expect(() => SqliteStore.create(path, config)).toThrow(expect.objectContaining({ code: 'store_exists' }));
    const other = file();
    const db = new Database(other);
    db.exec('CREATE TABLE t (x)');
    db.close();
    expect(() => SqliteStore.open(other)).toThrow(SqliteStoreError);
    expect(() => SqliteStore.open(file())).toThrow(expect.objectContaining({ code: 'no_store' }));
  });

  it('refuses a bad config and a bad snapshot before it touches the file', () => {
    const path = file();
    expect(() => SqliteStore.create(path, { ...config, backoffCap: 0 })).toThrow(
      expect.objectContaining({ code: 'invalid_config', path: 'backoffCap' }),
    );
    expect(() => SqliteStore.restore(path, { format: 'nope' })).toThrow(
      expect.objectContaining({ code: 'invalid_snapshot' }),
    );
    const store = SqliteStore.create(path, config); // the file is still empty
    store.close();
  });

  it('stores ids, accounts and keys with lone surrogates and awkward names unchanged', () => {
    const store = SqliteStore.create(file(), config);
    const id = 'a\ud800';
    const account = '__proto__';
    const key = '\udfff';
    store.execute({ type: 'submit', id, account, key, amount: 1, deadline: 50, now: 0 });
    store.execute({ type: 'claim', worker: 'w\ud83d', now: 0 });
    expect(store.execute({ type: 'commit', worker: 'w\ud83d', token: 1, now: 0 })).toMatchObject({
      ok: true,
      applied: true,
    });
    const snap = JSON.parse(JSON.stringify(store.snapshot()));
    expect(Object.keys(snap.jobs)).toEqual([id]);
    expect(snap.jobs[id].owner).toBe('w\ud83d');
    expect(Object.keys(snap.effects)).toEqual([account]);
    expect(Object.keys(snap.effects[account])).toEqual([key]);
    const copy = SqliteStore.restore(file(), snap);
    expect(copy.snapshot()).toEqual(store.snapshot());
    store.close();
    copy.close();
  });

  it('writes nothing and opens no transaction for a malformed command', () => {
    const path = file();
    const store = SqliteStore.create(path, config);
    writeFileSync(`${path}.marker`, '');
    expect(store.execute({ type: 'claim', worker: '', now: 0 })).toMatchObject({ ok: false, code: 'invalid_argument' });
    expect(store.execute({ type: 'tick', now: -1 })).toMatchObject({ ok: false, code: 'invalid_argument' });
    expect(store.snapshot().clock).toBe(0);
    store.close();
  });
});

describe('query plans', () => {
  // The plans at a size where a scan would be the cheaper choice for a planner without statistics.
  const db = new Database(':memory:');
  db.exec(SCHEMA_SQL);
  const plan = (sql: string, ...params: unknown[]): string =>
    (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join(' | ');

  it('claim takes the lowest seq of the claimable index, never scanning jobs', () => {
    const p = plan(QUERIES.claimHead);
    expect(p).toMatch(
      /SEARCH jobs USING (COVERING )?INDEX jobs_claimable|SCAN jobs USING (COVERING )?INDEX jobs_claimable/,
    );
    expect(p).not.toMatch(/SCAN jobs(?! USING)/);
    expect(p).not.toMatch(/TEMP B-TREE/);
  });

  it('a token is looked up through its index', () => {
    expect(plan(QUERIES.byToken, 1)).toMatch(/SEARCH jobs USING INDEX jobs_token \(token=\?\)/);
  });

  it('timer expiry searches the due index for due <= now', () => {
    expect(plan(QUERIES.due, 1)).toMatch(/SEARCH jobs USING INDEX jobs_due \(due<\?\)/);
  });

  it("an account's head, a job id and a ledger row are index searches too", () => {
    expect(plan(QUERIES.accountHead, 'a')).toMatch(/SEARCH jobs USING (COVERING )?INDEX jobs_account \(account=\?\)/);
    expect(plan(QUERIES.byId, 'a')).toMatch(/SEARCH jobs USING INDEX sqlite_autoindex_jobs_1 \(id=\?\)/);
    expect(plan(QUERIES.effect, 'a', 'k')).toMatch(/SEARCH effects USING PRIMARY KEY \(account=\? AND key=\?\)/);
    expect(plan(QUERIES.balance, 'a')).toMatch(/SEARCH balances USING PRIMARY KEY \(account=\?\)/);
  });
});
