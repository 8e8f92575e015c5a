/**
 * The SQLite store as a crash target (crashRun.ts): each run's store is a file in a scratch
 * folder, the worker is worker.ts, the storage is checked with `PRAGMA integrity_check` and the
 * ledger on the rows of the file itself; the contention check runs worker processes against one
 * file, writing as fast as they can, so that a transaction that should have taken the write lock
 * first (BEGIN IMMEDIATE) and did not fails with SQLITE_BUSY.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Reply } from '../../contract/index.ts';
import { SqliteStore, openSqliteDatabase } from '../../impl/sqlite/index.ts';
import type { SqliteDatabase } from '../../impl/sqlite/index.ts';
import { sqliteVariant } from '../broken/index.ts';
import { contentionEndProblems, runWorker } from './crashRun.ts';
import type { ContentionResult, CrashTarget } from './crashRun.ts';
import { messageOf } from '../../contract/index.ts';

/** Opens a raw connection and runs `fn` on it (integrity and ledger checks look at the file itself). */
function withRaw<T>(file: string, fn: (db: SqliteDatabase) => T): T {
  const db = openSqliteDatabase(file, 'the SQLite crash campaign');
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** `PRAGMA integrity_check` of the file: undefined when ok, else what it said. */
export function integrityProblem(file: string): string | undefined {
  try {
    const rows = withRaw(file, (db) => db.pragma('integrity_check') as { integrity_check: string }[]);
    const said = rows.map((r) => r.integrity_check);
    return said.length === 1 && said[0] === 'ok' ? undefined : said.slice(0, 3).join('; ');
  } catch (error) {
    return `cannot open the file: ${messageOf(error)}`;
  }
}

/** The ledger checked on the rows themselves: duplicate (account, key) rows, balances that are not their ledger's sum. */
export function ledgerProblems(file: string): string[] {
  return withRaw(file, (db) => {
    const problems: string[] = [];
    for (const r of db
      .prepare('SELECT account, key, COUNT(*) AS n FROM effects GROUP BY account, key HAVING COUNT(*) > 1')
      .all() as { account: unknown; key: unknown; n: number }[]) {
      problems.push(`${r.n} ledger rows for (${String(r.account)}, ${String(r.key)})`);
    }
    const sums = db
      .prepare(
        `SELECT b.account AS account, b.balance AS balance, e.total AS total FROM balances b LEFT JOIN (SELECT account, SUM(amount) AS total FROM effects GROUP BY account) e ON e.account = b.account
         UNION ALL SELECT e.account, NULL, e.total FROM (SELECT account, SUM(amount) AS total FROM effects GROUP BY account) e WHERE e.account NOT IN (SELECT account FROM balances)`,
      )
      .all() as { account: unknown; balance: number | null; total: number | null }[];
    for (const r of sums) {
      if (r.balance !== r.total)
        problems.push(
          `balance of ${String(r.account)} is ${r.balance ?? 'missing'}, its ledger sums to ${r.total ?? 'nothing'}`,
        );
    }
    return problems;
  });
}

/** Worker processes of the contention check: with two, one often sleeps in its busy handler while the other runs alone. */
const CONTENDERS = 3;

/** Worker processes on one file at once; checks that every command got a contract reply and nothing was handed out twice. */
export async function runContention(variant: string, dir: string, rounds: number): Promise<ContentionResult> {
  const v = sqliteVariant(variant);
  if (v === undefined) throw new Error(`no SQLite variant named ${JSON.stringify(variant)}`);
  const file = join(dir, 'contention.db');
  SqliteStore.create
    .call(v.Store, file, { capacity: 10_000, maxAttempts: 3, leaseTicks: 1_000_000, backoffBase: 1, backoffCap: 1 })
    .close();
  let release = (): void => undefined;
  const go = new Promise<void>((resolve) => (release = resolve));
  let ready = 0;
  const names = ['a', 'b', 'c', 'd'].slice(0, CONTENDERS);
  const gate = { ready: () => (++ready === names.length ? release() : undefined), go };
  const outs = await Promise.all(
    names.map((worker) => runWorker({ mode: 'contend', file, variant, worker, rounds }, undefined, gate)),
  );
  const errors: string[] = [];
  const problems: string[] = [];
  const tokens = new Map<number, string>();
  let claims = 0;
  let commands = 0;
  outs.forEach((out, w) => {
    if (out.code !== 0)
      problems.push(
        `worker ${names[w]} ended with ${out.signal ?? `exit code ${out.code}`}: ${out.stderr.split('\n').slice(-3).join(' ')}`,
      );
    for (const line of out.lines) {
      commands += 1;
      const l = line as { error?: string; code?: string; command?: unknown } & Reply;
      if (l.error !== undefined) {
        errors.push(`${l.code ?? 'error'}: ${l.error} (during ${JSON.stringify(l.command)})`);
        continue;
      }
      if (l.ok && l.type === 'claim' && l.job !== null) {
        claims += 1;
        const seen = tokens.get(l.job.token);
        if (seen !== undefined) problems.push(`token ${l.job.token} was handed out twice (${seen} and ${l.job.id})`);
        tokens.set(l.job.token, l.job.id);
      }
    }
  });
  const store = SqliteStore.open(file);
  try {
    problems.push(...contentionEndProblems(store.snapshot(), claims));
  } finally {
    store.close();
  }
  return { setup: `${names.length} worker processes on one file`, errors, problems, commands };
}

/** The SQLite store `variant` (`sqlite` or a broken variant of conformance/broken/sqlite/) as a crash target, its files in a new scratch folder. */
export function sqliteCrashTarget(variant = 'sqlite'): CrashTarget {
  const v = sqliteVariant(variant);
  if (v === undefined) throw new Error(`no SQLite variant named ${JSON.stringify(variant)}`);
  const dir = mkdtempSync(join(tmpdir(), 'jobcheck-crash-'));
  return {
    name: variant,
    create: (index, config) => {
      const file = join(dir, `crash-${index + 1}.db`);
      SqliteStore.create.call(v.Store, file, config).close();
      return Promise.resolve(file);
    },
    work: (file, commands, fault) => runWorker({ mode: 'script', file, variant, commands }, fault),
    integrity: (file) => {
      const problem = integrityProblem(file);
      return Promise.resolve(problem === undefined ? undefined : `integrity_check: ${problem}`);
    },
    open: (file) => {
      const store = SqliteStore.open.call(v.Store, file);
      return Promise.resolve({
        config: store.config,
        execute: (command: unknown) => Promise.resolve(store.execute(command)),
        snapshot: () => Promise.resolve(store.snapshot()),
        close: () => Promise.resolve(store.close()),
      });
    },
    ledger: (file) => Promise.resolve(ledgerProblems(file)),
    discard: (file) => {
      for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${file}${suffix}`, { force: true });
      return Promise.resolve();
    },
    contention: (rounds) => runContention(variant, dir, rounds),
    close: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
  };
}
