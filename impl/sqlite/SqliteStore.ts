/**
 * The job store on SQLite: the contract of docs/contract.md (the same commands, replies,
 * rejection codes and canonical snapshot as impl/memory/JobStore and the reference model), with
 * its state in a database file that survives the process.
 *
 * - Steps 1b to 3 are the command core (impl/core) driven synchronously; this file answers its
 *   requests with prepared statements over the rows of schema.ts (their meaning: impl/durable).
 * - Every command that passes validation is one `BEGIN IMMEDIATE` transaction: it takes the
 *   write lock before its first read, so no competing writer changes what it read before it
 *   writes. A malformed command touches nothing and opens none.
 * - The logical `now` is always a bound parameter; the database's own clock is never used.
 * - WAL with `synchronous=FULL` by default: a reply handed back is on disk. A busy timeout lets
 *   the commands of several processes on one file queue up.
 * - The fault points of impl/faults.ts: after BEGIN, after the first write, after COMMIT.
 * - Cost per command (n resident jobs, k jobs the clock moves): O((k + 1) log n) through the
 *   indexes of schema.ts; the snapshot reads every row, O(n + e log e) for e ledger entries.
 */
import { statSync } from 'node:fs';
import type { Command, Config, Reply, Snapshot } from '../../contract/index.ts';
import { parseCommand, parseConfig, parseSnapshot } from '../../contract/index.ts';
import { runCommand, runSync } from '../core/index.ts';
import type { AccountHead, CoreRun, StorageRequest } from '../core/index.ts';
import { DECISIONS } from '../decisions/index.ts';
import type { Decisions } from '../decisions/index.ts';
import { RowCodec, configOfMeta, EMPTY_COUNTERS, metaValues } from '../durable/index.ts';
import type { BalanceRow, Counters, DerivedColumns, EffectRow, Job, JobRow, MetaRow } from '../durable/index.ts';
import { FAULT_POINTS, faultPoint } from '../faults.ts';
import { openSqliteDatabase } from './loadSqlite.ts';
import { DEFAULT_BUSY_TIMEOUT_MS, SCHEMA_SQL, SCHEMA_VERSION } from './schema.ts';
import type { SqliteOptions } from './schema.ts';
import type { SqliteDatabase, SqliteStatement, SqliteTransaction } from './SqliteDatabase.ts';
import { SqliteStoreError } from './SqliteStoreError.ts';
import { fromStored, toStored } from './strings.ts';
import type { StoredString } from './strings.ts';

/** The rows of this store: strings as TEXT or BLOB (strings.ts), `claimable` 1 or NULL. */
const ROWS = new RowCodec<StoredString>(fromStored, toStored, 1);

const JOB_COLUMNS =
  'seq, id, account, key, amount, deadline, status, attempts, token, owner, lease_until AS leaseUntil, not_before AS notBefore, reason, last_error AS lastError, claimable';
const META_COLUMNS =
  'schema AS layout, capacity, max_attempts AS maxAttempts, lease_ticks AS leaseTicks, backoff_base AS backoffBase, backoff_cap AS backoffCap, clock, next_token AS nextToken, next_seq AS nextSeq, unresolved';

/** The SQL of every statement a store prepares (exported for the query-plan test and the benchmark). */
export const QUERIES = {
  counters: 'SELECT clock, next_token AS nextToken, next_seq AS nextSeq, unresolved FROM meta WHERE id = 1',
  setCounters: 'UPDATE meta SET clock = ?, next_token = ?, next_seq = ?, unresolved = ? WHERE id = 1',
  due: `SELECT ${JOB_COLUMNS} FROM jobs INDEXED BY jobs_due WHERE due <= ?`,
  byId: `SELECT ${JOB_COLUMNS} FROM jobs WHERE id = ?`,
  byToken: `SELECT ${JOB_COLUMNS} FROM jobs INDEXED BY jobs_token WHERE token = ?`,
  claimHead: `SELECT ${JOB_COLUMNS} FROM jobs INDEXED BY jobs_claimable WHERE claimable = 1 ORDER BY seq LIMIT 1`,
  accountHead:
    'SELECT seq, status FROM jobs INDEXED BY jobs_account WHERE account = ? AND due IS NOT NULL ORDER BY seq LIMIT 1',
  insertJob:
    'INSERT INTO jobs (seq, id, account, key, amount, deadline, status, attempts, token, owner, lease_until, not_before, reason, last_error, due, claimable) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  saveJob:
    'UPDATE jobs SET status = ?, attempts = ?, token = ?, owner = ?, lease_until = ?, not_before = ?, reason = ?, last_error = ?, due = ?, claimable = ? WHERE seq = ?',
  makeClaimable: 'UPDATE jobs SET claimable = 1 WHERE seq = ?',
  effect: 'SELECT amount FROM effects WHERE account = ? AND key = ?',
  balance: 'SELECT balance FROM balances WHERE account = ?',
  setBalance:
    'INSERT INTO balances (account, balance) VALUES (?, ?) ON CONFLICT (account) DO UPDATE SET balance = excluded.balance',
  insertEffect: 'INSERT INTO effects (account, key, amount, job, token) VALUES (?, ?, ?, ?, ?)',
  /** Only for a broken commit plan that overwrites a ledger row (the contract's never does). */
  replaceEffect:
    'INSERT INTO effects (account, key, amount, job, token) VALUES (?, ?, ?, ?, ?) ON CONFLICT (account, key) DO UPDATE SET amount = excluded.amount, job = excluded.job, token = excluded.token',
  /** Only for a broken admission that asks how many jobs run (the contract's never does). */
  countRunning: 'SELECT count(*) AS n FROM jobs INDEXED BY jobs_token WHERE token IS NOT NULL',
  meta: `SELECT ${META_COLUMNS} FROM meta WHERE id = 1`,
  allJobs: `SELECT ${JOB_COLUMNS} FROM jobs ORDER BY seq`,
  allBalances: 'SELECT account, balance FROM balances',
  allEffects: 'SELECT account, key, amount, job, token FROM effects',
  insertMeta:
    'INSERT INTO meta (id, schema, capacity, max_attempts, lease_ticks, backoff_base, backoff_cap, clock, next_token, next_seq, unresolved) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
} as const;

/** The rows each reading statement returns (a write's: none). */
interface RowsOf {
  counters: Counters;
  due: JobRow<StoredString>;
  byId: JobRow<StoredString>;
  byToken: JobRow<StoredString>;
  claimHead: JobRow<StoredString>;
  accountHead: AccountHead;
  effect: { amount: number };
  balance: { balance: number };
  countRunning: { n: number };
  meta: MetaRow;
  allJobs: JobRow<StoredString>;
  allBalances: BalanceRow<StoredString>;
  allEffects: EffectRow<StoredString>;
}

type Statements = {
  readonly [K in keyof typeof QUERIES]: SqliteStatement<K extends keyof RowsOf ? RowsOf[K] : unknown>;
};

/** Opens a connection with the store's settings (WAL, synchronous, busy timeout). */
function connect(path: string, options: SqliteOptions): SqliteDatabase {
  const db = openSqliteDatabase(path);
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS))}`);
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal')
      throw new SqliteStoreError('unusable_file', `${path}: cannot switch to WAL journal mode (got ${String(mode)})`);
    db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Whether the database holds any table (a store or something else). */
const hasTables = (db: SqliteDatabase): boolean =>
  db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' LIMIT 1").get() !== undefined;

/**
 * A job store in one SQLite file. Several stores (in one process or several) may open the same
 * file: each command is one write transaction, so they queue up. Methods are overridable and
 * internals protected, so that test variants can be built by subclassing.
 */
export class SqliteStore {
  /** The decision functions this store runs: the contract's, unless a test variant replaced one (`withDecisions`). */
  readonly decisions: Decisions = DECISIONS;
  protected readonly st: Statements;
  /** Whether the running transaction has written yet (for the fault point after the first write). */
  protected wrote = false;
  protected readonly inTransaction: SqliteTransaction<[Command], Reply>;
  protected readonly readSnapshot: SqliteTransaction<[], Snapshot>;

  /** Wraps an open connection to a file that holds a store (the static constructors call it). */
  constructor(
    protected readonly db: SqliteDatabase,
    protected readonly cfg: Config,
    /** The file the store lives in. */
    readonly path: string,
  ) {
    // The rows of each statement are as its SQL selects them from schema.ts's tables (RowsOf).
    this.st = Object.fromEntries(Object.entries(QUERIES).map(([name, sql]) => [name, db.prepare(sql)])) as Statements;
    this.inTransaction = db.transaction((command: Command) => this.apply(command));
    this.readSnapshot = db.transaction(() => this.readAll());
    this.answerRequest = (request) => this.answer(request);
  }

  /** `answer`, bound once (the driver calls it for every request). */
  private readonly answerRequest: (request: StorageRequest) => unknown;

  /**
   * A new, empty store in `path` (created if missing). Throws JobcheckError `invalid_config` for
   * a bad config, SqliteStoreError `store_exists` when the file already holds tables.
   */
  static create<T extends SqliteStore>(
    this: SqliteStoreClass<T>,
    path: string,
    config: unknown,
    options: SqliteOptions = {},
  ): T {
    const cfg = parseConfig(config);
    return build(this, path, options, (db) => {
      db.exec(SCHEMA_SQL);
      db.prepare(QUERIES.insertMeta).run(SCHEMA_VERSION, ...metaValues(cfg, EMPTY_COUNTERS));
    });
  }

  /**
   * A new store in `path` holding exactly `snapshot` (a restore). Validates the whole snapshot
   * first (JobcheckError `invalid_snapshot` naming the field, before the file is touched), then
   * writes every row in one transaction. Throws SqliteStoreError `store_exists` for a file that
   * already holds tables. Keeps no reference to the caller's object.
   */
  static restore<T extends SqliteStore>(
    this: SqliteStoreClass<T>,
    path: string,
    snapshot: unknown,
    options: SqliteOptions = {},
  ): T {
    const s = parseSnapshot(snapshot);
    return build(this, path, options, (db) => {
      db.exec(SCHEMA_SQL);
      const values = ROWS.restoreValues(s, SCHEMA_VERSION);
      const insertJob = db.prepare(QUERIES.insertJob);
      for (const row of values.jobs) insertJob.run(...row);
      db.prepare(QUERIES.insertMeta).run(...values.meta);
      const setBalance = db.prepare(QUERIES.setBalance);
      for (const row of values.balances) setBalance.run(...row);
      const insertEffect = db.prepare(QUERIES.insertEffect);
      for (const row of values.effects) insertEffect.run(...row);
    });
  }

  /**
   * The store already in `path` (a reopen: what a new process does after the old one died).
   * Throws SqliteStoreError `no_store` when the file holds none, `schema_mismatch` for another layout.
   */
  static open<T extends SqliteStore>(this: SqliteStoreClass<T>, path: string, options: SqliteOptions = {}): T {
    const db = connect(path, options);
    try {
      return new this(db, readConfig(db, path), path);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /**
   * The store already in `path`, checked before it is served again (a resume after a crash): `path`
   * must be a regular file (not a folder, FIFO or device), SQLite must read it (not truncated or
   * malformed), and its rows must be a store's, held to the contract's snapshot schema as `restore`
   * holds a snapshot, derived columns included (impl/durable/storedRows.ts). Reads every row: O(n).
   * Throws SqliteStoreError: `unusable_file`, `no_store`, `schema_mismatch`, `invalid_store`.
   */
  static resume<T extends SqliteStore>(this: SqliteStoreClass<T>, path: string, options: SqliteOptions = {}): T {
    let kind: string;
    try {
      const stat = statSync(path);
      kind = stat.isFile()
        ? 'file'
        : stat.isDirectory()
          ? 'folder'
          : stat.isFIFO()
            ? 'FIFO'
            : stat.isSocket()
              ? 'socket'
              : 'device';
    } catch (error) {
      throw new SqliteStoreError('unusable_file', `${path}: cannot be read (${(error as Error).message})`, {
        cause: error,
      });
    }
    if (kind !== 'file') throw new SqliteStoreError('unusable_file', `${path} is a ${kind}, not a store's file`);
    let db: SqliteDatabase;
    try {
      db = connect(path, options);
    } catch (error) {
      if (error instanceof SqliteStoreError) throw error;
      throw new SqliteStoreError('unusable_file', `${path}: SQLite cannot use it (${(error as Error).message})`, {
        cause: error,
      });
    }
    try {
      const check = db.pragma('quick_check', { simple: true });
      if (check !== 'ok')
        throw new SqliteStoreError('unusable_file', `${path} is damaged (quick_check: ${String(check)})`);
      let store: T;
      try {
        store = new this(db, readConfig(db, path), path);
      } catch (error) {
        if (error instanceof SqliteStoreError) throw error;
        throw new SqliteStoreError(
          'schema_mismatch',
          `${path} holds a store of another layout (${(error as Error).message})`,
          { cause: error },
        );
      }
      const derived = db.prepare<DerivedColumns>('SELECT seq, due, claimable FROM jobs').all();
      const meta = db.prepare<{ unresolved: unknown }>('SELECT unresolved FROM meta WHERE id = 1').get();
      const checked = ROWS.checkRows(store.snapshot(), derived, meta?.unresolved);
      if (!checked.ok)
        throw new SqliteStoreError(
          'invalid_store',
          `${path} holds rows no store could have written: ${checked.problem}`,
        );
      return store;
    } catch (error) {
      db.close();
      if (error instanceof SqliteStoreError) throw error;
      throw new SqliteStoreError(
        'invalid_store',
        `${path} holds rows that cannot be read as a store's (${(error as Error).message})`,
        { cause: error },
      );
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Commands

  /**
   * Executes one command: validates it (step 1; a malformed command touches nothing), then runs
   * steps 1b to 3 in one immediate transaction. Never throws for bad input; throws for a failure
   * of the database itself (a full disk, a lock held past the busy timeout).
   */
  execute(command: unknown): Reply {
    const parsed = parseCommand(command);
    if (!parsed.ok) return parsed.rejection;
    const reply = this.transact(parsed.command);
    faultPoint(FAULT_POINTS.afterCommit);
    return reply;
  }

  /** Runs one validated command in its transaction (BEGIN IMMEDIATE ... COMMIT). */
  protected transact(command: Command): Reply {
    return this.inTransaction.immediate(command);
  }

  /** Steps 1b (the clock), 2 and 3 of one command, inside its transaction: the core, driven synchronously. */
  protected apply(c: Command): Reply {
    this.wrote = false;
    faultPoint(FAULT_POINTS.afterBegin);
    const m = this.st.counters.get();
    if (m === undefined) throw new SqliteStoreError('invalid_store', `${this.path} lost its meta row`);
    return runSync(this.run(m, c), this.answerRequest);
  }

  /** The core's run of one command over counters `m` (a hook for the broken variants). */
  protected run(m: Counters, c: Command): CoreRun<Reply> {
    return runCommand({ cfg: this.cfg, decisions: this.decisions }, m, c);
  }

  /** Runs a writing statement; the first write of a transaction passes the fault point after it. */
  protected write(statement: SqliteStatement, ...params: unknown[]): void {
    statement.run(...params);
    if (!this.wrote) {
      this.wrote = true;
      faultPoint(FAULT_POINTS.afterFirstWrite);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The core's requests, answered with this store's statements

  /** Answers one request of the core (impl/core/StorageRequest.ts). */
  protected answer(r: StorageRequest): unknown {
    switch (r.op) {
      case 'due':
        return this.st.due.all(r.now).map((row) => ROWS.toJob(row));
      case 'byId':
        return ROWS.jobOf(this.st.byId.get(toStored(r.id)));
      case 'byToken':
        return ROWS.jobOf(this.st.byToken.get(r.token));
      case 'claimHead':
        return ROWS.jobOf(this.st.claimHead.get());
      case 'accountHead':
        return this.st.accountHead.get(toStored(r.account));
      case 'effect':
        return this.st.effect.get(toStored(r.account), toStored(r.key))?.amount;
      case 'balance':
        return this.st.balance.get(toStored(r.account))?.balance;
      case 'countRunning':
        return this.st.countRunning.get()?.n;
      case 'insertJob':
        return this.insert(r.job);
      case 'saveJob':
        return this.save(r.job);
      case 'makeClaimable':
        return this.write(this.st.makeClaimable, r.seq);
      case 'recordEffect':
        return this.recordEffect(r.job, r.guard.token, r.balance, r.replaces);
      case 'setCounters': {
        const m = r.counters;
        return this.write(this.st.setCounters, m.clock, m.nextToken, m.nextSeq, m.unresolved);
      }
    }
  }

  /** Inserts a newly admitted job. */
  protected insert(job: Job): void {
    this.write(this.st.insertJob, ...ROWS.insertValues(job));
  }

  /** Writes a job's changing columns, with its `due` derived from them. */
  protected save(job: Job): void {
    this.write(this.st.saveJob, ...ROWS.saveValues(job));
  }

  /** Applies a job's effect: the new balance and the ledger row, in the command's transaction. */
  protected recordEffect(job: Job, token: number, balance: number, replaces = false): void {
    const account = toStored(job.account);
    this.write(this.st.setBalance, account, balance);
    this.write(
      replaces ? this.st.replaceEffect : this.st.insertEffect,
      account,
      toStored(job.key),
      job.amount,
      toStored(job.id),
      token,
    );
  }

  // ---------------------------------------------------------------------------------------------
  // Reading

  /** The store's config (a copy). */
  get config(): Config {
    return { ...this.cfg };
  }

  /** The canonical snapshot, read in one transaction: a fresh JSON value (jobs in seq order, accounts and keys sorted). */
  snapshot(): Snapshot {
    return this.readSnapshot.deferred();
  }

  private readAll(): Snapshot {
    const meta = this.st.meta.get();
    if (meta === undefined) throw new SqliteStoreError('invalid_store', `${this.path} lost its meta row`);
    return ROWS.snapshot(this.cfg, meta, this.st.allJobs.all(), this.st.allBalances.all(), this.st.allEffects.all());
  }

  /** Closes the connection (the file stays). Idempotent. */
  close(): void {
    if (this.db.open) this.db.close();
  }
}

/** The constructor of SqliteStore or of a subclass of it (the broken variants of the crash tests). */
export type SqliteStoreClass<T extends SqliteStore = SqliteStore> = new (
  db: SqliteDatabase,
  cfg: Config,
  path: string,
) => T;

/** Opens `path` and fills it in one immediate transaction, refusing a file that holds tables. */
function build<T extends SqliteStore>(
  Store: SqliteStoreClass<T>,
  path: string,
  options: SqliteOptions,
  fill: (db: SqliteDatabase) => void,
): T {
  const db = connect(path, options);
  try {
    db.transaction(() => {
      if (hasTables(db))
        throw new SqliteStoreError('store_exists', `${path} already holds a database; a new store needs an empty file`);
      fill(db);
    }).immediate();
    return new Store(db, readConfig(db, path), path);
  } catch (error) {
    db.close();
    throw error;
  }
}

/** The config in a store file's `meta` row; throws SqliteStoreError for a file that holds no store of this layout. */
function readConfig(db: SqliteDatabase, path: string): Config {
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'meta'").get() !== undefined;
  if (!hasMeta) throw new SqliteStoreError('no_store', `${path} holds no job store`);
  return configOfMeta(
    db.prepare<MetaRow>(QUERIES.meta).get(),
    SCHEMA_VERSION,
    path,
    (code, message, options) => new SqliteStoreError(code, message, options),
  );
}
