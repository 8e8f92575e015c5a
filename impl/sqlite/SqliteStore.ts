/**
 * The job store on SQLite: the contract of docs/contract.md (the same commands, replies,
 * rejection codes and canonical snapshot as impl/memory/JobStore and the reference model), with
 * its state in a database file that survives the process.
 *
 * - Validation and the decisions are TypeScript (the contract's schema, then the same decision
 *   lists as JobStore); the state is rows (schema.ts), read and written by prepared statements.
 * - Every command that passes validation is one `BEGIN IMMEDIATE` transaction: it takes the
 *   write lock before its first read, so that no competing writer can change what it read before
 *   it writes (a deferred transaction that reads and then writes fails with SQLITE_BUSY when
 *   another connection wrote in between). A malformed command touches nothing and opens none.
 * - The logical `now` is always a bound parameter; the database's own clock is never used.
 * - The file is in WAL mode with `synchronous=FULL` by default: a command whose reply was handed
 *   back is on disk. A busy timeout lets commands of several processes on one file queue up.
 * - The named fault points of impl/faults.ts mark the moments a crash test kills the process at:
 *   after BEGIN, after the first write, after COMMIT (before the reply is returned).
 *
 * Cost per command (n resident jobs, k jobs that the clock moves): O((k + 1) log n) through the
 * indexes of schema.ts; the snapshot reads every row, O(n + e log e) for e ledger entries.
 *
 * Step 2 handles the due jobs in `due` order rather than seq order, which is equivalent for the
 * reason impl/memory/JobStore.ts gives: each job's outcome depends only on its own fields and
 * `now`, and each moves at most once per advance.
 */
import { statSync } from 'node:fs';
import Database from 'better-sqlite3';
import type {
  ClaimCommand,
  Command,
  CommitCommand,
  Config,
  DeadReason,
  FailCommand,
  JobRecord,
  JobStatus,
  Rejection,
  RejectionCode,
  Reply,
  Snapshot,
  SubmitCommand,
  AckCommand,
} from '../../contract/index.ts';
import { JobcheckError, SNAPSHOT_FORMAT, parseCommand, parseConfig, parseSnapshot } from '../../contract/index.ts';
import { FAULT_POINTS, faultPoint } from '../faults.ts';
import { addTime, retryDelay } from '../memory/JobEntry.ts';
import type { Counters, Job } from '../rows.ts';
import { checkStoredRows } from '../storedRows.ts';
import { DEFAULT_BUSY_TIMEOUT_MS, SCHEMA_SQL, SCHEMA_VERSION } from './schema.ts';
import type { SqliteOptions } from './schema.ts';
import { SqliteStoreError } from './SqliteStoreError.ts';
import { fromStored, toStored, toStoredOrNull } from './strings.ts';
import type { StoredString } from './strings.ts';

export type { Counters, Job } from '../rows.ts';

interface JobRow {
  seq: number;
  id: StoredString;
  account: StoredString;
  key: StoredString;
  amount: number;
  deadline: number;
  status: JobStatus;
  attempts: number;
  token: number | null;
  owner: StoredString | null;
  leaseUntil: number | null;
  notBefore: number | null;
  reason: DeadReason | null;
  lastError: StoredString | null;
  claimable: number | null;
}

interface MetaRow {
  schema: string;
  capacity: number;
  maxAttempts: number;
  leaseTicks: number;
  backoffBase: number;
  backoffCap: number;
  clock: number;
  nextToken: number;
  nextSeq: number;
  unresolved: number;
}

const JOB_COLUMNS =
  'seq, id, account, key, amount, deadline, status, attempts, token, owner, lease_until AS leaseUntil, not_before AS notBefore, reason, last_error AS lastError, claimable';
const META_COLUMNS =
  'schema, capacity, max_attempts AS maxAttempts, lease_ticks AS leaseTicks, backoff_base AS backoffBase, backoff_cap AS backoffCap, clock, next_token AS nextToken, next_seq AS nextSeq, unresolved';

/** The SQL of every statement a store prepares (exported for the query-plan test and the benchmark). */
export const QUERIES = {
  counters: 'SELECT clock, next_token AS nextToken, next_seq AS nextSeq, unresolved FROM meta WHERE id = 1',
  setCounters: 'UPDATE meta SET clock = ?, next_token = ?, next_seq = ?, unresolved = ? WHERE id = 1',
  due: `SELECT ${JOB_COLUMNS} FROM jobs INDEXED BY jobs_due WHERE due <= ?`,
  byId: `SELECT ${JOB_COLUMNS} FROM jobs WHERE id = ?`,
  byToken: `SELECT ${JOB_COLUMNS} FROM jobs INDEXED BY jobs_token WHERE token = ?`,
  claimHead: `SELECT ${JOB_COLUMNS} FROM jobs INDEXED BY jobs_claimable WHERE claimable = 1 ORDER BY seq LIMIT 1`,
  accountHead: 'SELECT seq, status FROM jobs INDEXED BY jobs_account WHERE account = ? AND due IS NOT NULL ORDER BY seq LIMIT 1',
  insertJob:
    'INSERT INTO jobs (seq, id, account, key, amount, deadline, status, attempts, token, owner, lease_until, not_before, reason, last_error, due, claimable) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  saveJob:
    'UPDATE jobs SET status = ?, attempts = ?, token = ?, owner = ?, lease_until = ?, not_before = ?, reason = ?, last_error = ?, due = ?, claimable = ? WHERE seq = ?',
  makeClaimable: 'UPDATE jobs SET claimable = 1 WHERE seq = ?',
  effect: 'SELECT amount FROM effects WHERE account = ? AND key = ?',
  balance: 'SELECT balance FROM balances WHERE account = ?',
  setBalance: 'INSERT INTO balances (account, balance) VALUES (?, ?) ON CONFLICT (account) DO UPDATE SET balance = excluded.balance',
  insertEffect: 'INSERT INTO effects (account, key, amount, job, token) VALUES (?, ?, ?, ?, ?)',
  meta: `SELECT ${META_COLUMNS} FROM meta WHERE id = 1`,
  allJobs: `SELECT ${JOB_COLUMNS} FROM jobs ORDER BY seq`,
  allBalances: 'SELECT account, balance FROM balances',
  allEffects: 'SELECT account, key, amount, job, token FROM effects',
  insertMeta:
    'INSERT INTO meta (id, schema, capacity, max_attempts, lease_ticks, backoff_base, backoff_cap, clock, next_token, next_seq, unresolved) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
} as const;

type Statements = { readonly [K in keyof typeof QUERIES]: Database.Statement };

const reject = (code: RejectionCode, message: string): Rejection => ({ ok: false, code, message });

/** Sets `obj[key] = value` as an own data property, even for the key `__proto__`. */
function put<V>(obj: Record<string, V>, key: string, value: V): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

const isUnresolved = (status: JobStatus): boolean => status === 'ready' || status === 'waiting' || status === 'running';

/** The next instant at which an unresolved job moves by itself, or null once it is terminal. Pure. */
export function dueOf(job: Pick<Job, 'status' | 'deadline' | 'leaseUntil' | 'notBefore'>): number | null {
  switch (job.status) {
    case 'running':
      return Math.min(job.leaseUntil as number, job.deadline);
    case 'waiting':
      return Math.min(job.notBefore as number, job.deadline);
    case 'ready':
      return job.deadline;
    default:
      return null;
  }
}

function toJob(row: JobRow): Job {
  return {
    seq: row.seq,
    id: fromStored(row.id),
    account: fromStored(row.account),
    key: fromStored(row.key),
    amount: row.amount,
    deadline: row.deadline,
    status: row.status,
    attempts: row.attempts,
    token: row.token,
    owner: row.owner === null ? null : fromStored(row.owner),
    leaseUntil: row.leaseUntil,
    notBefore: row.notBefore,
    reason: row.reason,
    lastError: row.lastError === null ? null : fromStored(row.lastError),
    claimable: row.claimable === 1,
  };
}

/** The canonical record of a job. Pure. */
export function jobRecord(job: Job): JobRecord {
  const record: { -readonly [K in keyof JobRecord]: JobRecord[K] } = {
    payload: { account: job.account, key: job.key, amount: job.amount, deadline: job.deadline },
    seq: job.seq,
    status: job.status,
    attempts: job.attempts,
  };
  if (job.status === 'running') {
    record.token = job.token as number;
    record.owner = job.owner as string;
    record.leaseUntil = job.leaseUntil as number;
  } else if (job.status === 'waiting') {
    record.notBefore = job.notBefore as number;
  } else if (job.status === 'dead') {
    record.reason = job.reason as DeadReason;
  }
  if (job.lastError !== null) record.lastError = job.lastError;
  return record;
}

/** Opens a connection with the store's settings (WAL, synchronous, busy timeout). */
function connect(path: string, options: SqliteOptions): Database.Database {
  const db = new Database(path);
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS))}`);
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal') throw new SqliteStoreError('unusable_file', `${path}: cannot switch to WAL journal mode (got ${String(mode)})`);
    db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Whether the database holds any table (a store or something else). */
const hasTables = (db: Database.Database): boolean => db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' LIMIT 1").get() !== undefined;

/**
 * A job store in one SQLite file. Several stores (in one process or several) may open the same
 * file: each command is one write transaction, so they queue up. Methods are overridable and
 * internals protected, so that test variants can be built by subclassing.
 */
export class SqliteStore {
  protected readonly st: Statements;
  /** Whether the running transaction has written yet (for the fault point after the first write). */
  protected wrote = false;
  protected readonly inTransaction: Database.Transaction<(command: Command) => Reply>;
  protected readonly readSnapshot: Database.Transaction<() => Snapshot>;

  /** Wraps an open connection to a file that holds a store (the static constructors call it). */
  constructor(
    protected readonly db: Database.Database,
    protected readonly cfg: Config,
    /** The file the store lives in. */
    readonly path: string,
  ) {
    const st: Partial<Record<keyof typeof QUERIES, Database.Statement>> = {};
    for (const [name, sql] of Object.entries(QUERIES)) st[name as keyof typeof QUERIES] = db.prepare(sql);
    this.st = st as Statements;
    this.inTransaction = db.transaction((command: Command) => this.apply(command));
    this.readSnapshot = db.transaction(() => this.readAll());
  }

  /**
   * A new, empty store in `path` (created if missing). Throws JobcheckError `invalid_config` for
   * a bad config, SqliteStoreError `store_exists` when the file already holds tables.
   */
  static create<T extends SqliteStore>(this: SqliteStoreClass<T>, path: string, config: unknown, options: SqliteOptions = {}): T {
    const cfg = parseConfig(config);
    return build(this, path, options, (db) => {
      db.exec(SCHEMA_SQL);
      db.prepare(QUERIES.insertMeta).run(SCHEMA_VERSION, cfg.capacity, cfg.maxAttempts, cfg.leaseTicks, cfg.backoffBase, cfg.backoffCap, 0, 1, 1, 0);
    });
  }

  /**
   * A new store in `path` holding exactly `snapshot` (a restore). Validates the whole snapshot
   * first (JobcheckError `invalid_snapshot` naming the field, before the file is touched), then
   * writes every row in one transaction. Throws SqliteStoreError `store_exists` for a file that
   * already holds tables. Keeps no reference to the caller's object.
   */
  static restore<T extends SqliteStore>(this: SqliteStoreClass<T>, path: string, snapshot: unknown, options: SqliteOptions = {}): T {
    const s = parseSnapshot(snapshot);
    return build(this, path, options, (db) => {
      db.exec(SCHEMA_SQL);
      const insertJob = db.prepare(QUERIES.insertJob);
      const jobs = Object.entries(s.jobs).sort(([, a], [, b]) => a.seq - b.seq);
      const accountsWithHead = new Set<string>();
      let unresolved = 0;
      for (const [id, r] of jobs) {
        const p = r.payload;
        let claimable: 1 | null = null;
        if (isUnresolved(r.status)) {
          unresolved += 1;
          if (!accountsWithHead.has(p.account)) {
            accountsWithHead.add(p.account);
            if (r.status === 'ready') claimable = 1;
          }
        }
        const due = dueOf({ status: r.status, deadline: p.deadline, leaseUntil: r.leaseUntil ?? null, notBefore: r.notBefore ?? null });
        insertJob.run(
          r.seq, toStored(id), toStored(p.account), toStored(p.key), p.amount, p.deadline, r.status, r.attempts,
          r.token ?? null, toStoredOrNull(r.owner), r.leaseUntil ?? null, r.notBefore ?? null, r.reason ?? null, toStoredOrNull(r.lastError), due, claimable,
        );
      }
      const c = s.config;
      db.prepare(QUERIES.insertMeta).run(SCHEMA_VERSION, c.capacity, c.maxAttempts, c.leaseTicks, c.backoffBase, c.backoffCap, s.clock, s.nextToken, s.nextSeq, unresolved);
      const setBalance = db.prepare(QUERIES.setBalance);
      for (const [account, balance] of Object.entries(s.balances)) setBalance.run(toStored(account), balance);
      const insertEffect = db.prepare(QUERIES.insertEffect);
      for (const [account, ledger] of Object.entries(s.effects)) {
        for (const [key, e] of Object.entries(ledger)) insertEffect.run(toStored(account), toStored(key), e.amount, toStored(e.job), e.token);
      }
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
   * holds a snapshot, derived columns included (impl/storedRows.ts). Reads every row: O(n).
   * Throws SqliteStoreError: `unusable_file`, `no_store`, `schema_mismatch`, `invalid_store`.
   */
  static resume<T extends SqliteStore>(this: SqliteStoreClass<T>, path: string, options: SqliteOptions = {}): T {
    let kind: string;
    try {
      const stat = statSync(path);
      kind = stat.isFile() ? 'file' : stat.isDirectory() ? 'folder' : stat.isFIFO() ? 'FIFO' : stat.isSocket() ? 'socket' : 'device';
    } catch (error) {
      throw new SqliteStoreError('unusable_file', `${path}: cannot be read (${(error as Error).message})`, { cause: error });
    }
    if (kind !== 'file') throw new SqliteStoreError('unusable_file', `${path} is a ${kind}, not a store's file`);
    let db: Database.Database;
    try {
      db = connect(path, options);
    } catch (error) {
      if (error instanceof SqliteStoreError) throw error;
      throw new SqliteStoreError('unusable_file', `${path}: SQLite cannot use it (${(error as Error).message})`, { cause: error });
    }
    try {
      const check = db.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new SqliteStoreError('unusable_file', `${path} is damaged (quick_check: ${String(check)})`);
      let store: T;
      try {
        store = new this(db, readConfig(db, path), path);
      } catch (error) {
        if (error instanceof SqliteStoreError) throw error;
        throw new SqliteStoreError('schema_mismatch', `${path} holds a store of another layout (${(error as Error).message})`, { cause: error });
      }
      const rows = (db.prepare('SELECT seq, due, claimable FROM jobs').all() as { seq: unknown; due: unknown; claimable: unknown }[]).map((r) => ({
        seq: Number(r.seq),
        due: r.due === null ? null : Number(r.due),
        claimable: r.claimable === 1,
      }));
      const unresolved = (db.prepare('SELECT unresolved FROM meta WHERE id = 1').get() as { unresolved: unknown }).unresolved;
      const checked = checkStoredRows(store.snapshot(), rows, Number(unresolved));
      if (!checked.ok) throw new SqliteStoreError('invalid_store', `${path} holds rows no store could have written: ${checked.problem}`);
      return store;
    } catch (error) {
      db.close();
      if (error instanceof SqliteStoreError) throw error;
      throw new SqliteStoreError('invalid_store', `${path} holds rows that cannot be read as a store's (${(error as Error).message})`, { cause: error });
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

  /** Steps 1b (the clock), 2 and 3 of one command, inside its transaction. */
  protected apply(c: Command): Reply {
    this.wrote = false;
    faultPoint(FAULT_POINTS.afterBegin);
    const m = this.st.counters.get() as Counters;
    if (c.now < m.clock) return reject('clock_regressed', `now: ${c.now} is before the clock (${m.clock})`);
    const before = { ...m };
    if (c.now > m.clock) {
      m.clock = c.now;
      this.advance(m, c.now);
    }
    const reply = this.decide(m, c);
    if (m.clock !== before.clock || m.nextToken !== before.nextToken || m.nextSeq !== before.nextSeq || m.unresolved !== before.unresolved) {
      this.write(this.st.setCounters, m.clock, m.nextToken, m.nextSeq, m.unresolved);
    }
    return reply;
  }

  /** Step 3: the command's decision list. */
  protected decide(m: Counters, c: Command): Reply {
    switch (c.type) {
      case 'submit':
        return this.applySubmit(m, c);
      case 'claim':
        return this.applyClaim(m, c);
      case 'commit':
        return this.applyCommit(m, c);
      case 'ack':
        return this.applyAck(m, c);
      case 'fail':
        return this.applyFail(m, c);
      case 'tick':
        return { ok: true, type: 'tick', clock: m.clock };
    }
  }

  /** Runs a writing statement; the first write of a transaction passes the fault point after it. */
  protected write(statement: Database.Statement, ...params: unknown[]): void {
    statement.run(...params);
    if (!this.wrote) {
      this.wrote = true;
      faultPoint(FAULT_POINTS.afterFirstWrite);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Step 2: the clock

  /** Lets every job whose time has come by `now` move (deadline first), through the `due` index. */
  protected advance(m: Counters, now: number): void {
    const due = this.st.due.all(now) as JobRow[];
    for (const row of due) this.expire(m, toJob(row), now);
  }

  /** One unresolved job hears the clock: deadline, else lease expiry, else end of backoff. */
  protected expire(m: Counters, job: Job, now: number): void {
    if (now >= job.deadline) {
      this.kill(m, job, 'deadline');
    } else if (job.status === 'running' && now >= (job.leaseUntil as number)) {
      if (job.attempts >= this.cfg.maxAttempts) {
        this.kill(m, job, 'lease_expired');
      } else {
        this.endDelivery(job);
        this.makeReady(job);
      }
    } else if (job.status === 'waiting' && now >= (job.notBefore as number)) {
      job.notBefore = null;
      this.makeReady(job);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Step 3: the commands

  protected applySubmit(m: Counters, c: SubmitCommand): Reply {
    const row = this.st.byId.get(toStored(c.id)) as JobRow | undefined;
    if (row !== undefined) {
      const existing = toJob(row);
      if (existing.account === c.account && existing.key === c.key && existing.amount === c.amount && existing.deadline === c.deadline) {
        return { ok: true, type: 'submit', id: c.id, seq: existing.seq, duplicate: true };
      }
      return reject('conflict', `job ${JSON.stringify(c.id)} already exists with another payload (${JSON.stringify(jobRecord(existing).payload)})`);
    }
    if (m.unresolved >= this.cfg.capacity) return reject('capacity_exceeded', `capacity ${this.cfg.capacity} is full: ${m.unresolved} unresolved jobs`);
    if (m.nextSeq >= Number.MAX_SAFE_INTEGER) {
      return reject('out_of_range', `nextSeq is ${m.nextSeq}: a new admission number would leave the safe-integer range`);
    }
    const seq = m.nextSeq++;
    const account = toStored(c.account);
    const head = this.st.accountHead.get(account) === undefined;
    this.write(this.st.insertJob, seq, toStored(c.id), account, toStored(c.key), c.amount, c.deadline, 'ready', 0, null, null, null, null, null, null, c.deadline, head ? 1 : null);
    m.unresolved += 1;
    return { ok: true, type: 'submit', id: c.id, seq, duplicate: false };
  }

  protected applyClaim(m: Counters, c: ClaimCommand): Reply {
    const row = this.st.claimHead.get() as JobRow | undefined;
    if (row === undefined) return { ok: true, type: 'claim', job: null };
    if (m.nextToken >= Number.MAX_SAFE_INTEGER) {
      return reject('out_of_range', `nextToken is ${m.nextToken}: a new token would leave the safe-integer range`);
    }
    const job = toJob(row);
    const token = m.nextToken++;
    job.attempts += 1;
    job.token = token;
    job.owner = c.worker;
    job.leaseUntil = addTime(c.now, this.cfg.leaseTicks);
    job.status = 'running';
    job.claimable = false;
    this.save(job);
    return {
      ok: true,
      type: 'claim',
      job: { id: job.id, token, attempt: job.attempts, leaseUntil: job.leaseUntil, payload: { account: job.account, key: job.key, amount: job.amount, deadline: job.deadline } },
    };
  }

  /** The running job holding the command's token for its worker, or the rejection to reply with. */
  protected delivery(c: CommitCommand | AckCommand | FailCommand): Job | Rejection {
    const row = this.st.byToken.get(c.token) as JobRow | undefined;
    if (row === undefined) return reject('stale_token', `token ${c.token} is not the current delivery of any running job`);
    const job = toJob(row);
    if (job.owner !== c.worker) return reject('not_owner', `token ${c.token} is held by worker ${JSON.stringify(job.owner)}, not ${JSON.stringify(c.worker)}`);
    return job;
  }

  protected applyCommit(_m: Counters, c: CommitCommand): Reply {
    const job = this.delivery(c);
    if ('ok' in job) return job;
    const account = toStored(job.account);
    const key = toStored(job.key);
    const recorded = this.st.effect.get(account, key) as { amount: number } | undefined;
    const balanceRow = this.st.balance.get(account) as { balance: number } | undefined;
    if (recorded !== undefined) {
      if (recorded.amount === job.amount) return { ok: true, type: 'commit', id: job.id, applied: false, balance: balanceRow?.balance ?? 0 };
      return reject('conflict', `effect (${JSON.stringify(job.account)}, ${JSON.stringify(job.key)}) was recorded with amount ${recorded.amount}, not ${job.amount}`);
    }
    const before = balanceRow?.balance ?? 0;
    const balance = before + job.amount;
    if (!Number.isSafeInteger(balance)) {
      return reject('out_of_range', `balance of ${JSON.stringify(job.account)} (${before}) + amount ${job.amount} would leave the safe-integer range`);
    }
    this.recordEffect(job, c.token, balance);
    return { ok: true, type: 'commit', id: job.id, applied: true, balance };
  }

  /** Applies a job's effect: the new balance and the ledger row, in the command's transaction. */
  protected recordEffect(job: Job, token: number, balance: number): void {
    const account = toStored(job.account);
    this.write(this.st.setBalance, account, balance);
    this.write(this.st.insertEffect, account, toStored(job.key), job.amount, toStored(job.id), token);
  }

  protected applyAck(m: Counters, c: AckCommand): Reply {
    const job = this.delivery(c);
    if ('ok' in job) return job;
    this.endDelivery(job);
    this.resolve(m, job, 'done');
    return { ok: true, type: 'ack', id: job.id };
  }

  protected applyFail(m: Counters, c: FailCommand): Reply {
    const job = this.delivery(c);
    if ('ok' in job) return job;
    this.endDelivery(job);
    job.lastError = c.error;
    let reason: DeadReason;
    if (c.kind === 'permanent') {
      reason = 'permanent';
    } else if (job.attempts >= this.cfg.maxAttempts) {
      reason = 'attempts_exhausted';
    } else {
      const notBefore = addTime(c.now, retryDelay(this.cfg.backoffBase, this.cfg.backoffCap, job.attempts));
      if (notBefore < job.deadline) {
        job.notBefore = notBefore;
        job.status = 'waiting';
        this.save(job);
        return { ok: true, type: 'fail', id: job.id, status: 'waiting', notBefore };
      }
      reason = 'no_time_for_retry';
    }
    job.reason = reason;
    this.resolve(m, job, 'dead');
    return { ok: true, type: 'fail', id: job.id, status: 'dead', reason };
  }

  // ---------------------------------------------------------------------------------------------
  // Lifecycle helpers

  /** Writes a job's changing columns, with its `due` derived from them. */
  protected save(job: Job): void {
    this.write(
      this.st.saveJob,
      job.status, job.attempts, job.token, toStoredOrNull(job.owner ?? undefined), job.leaseUntil, job.notBefore, job.reason,
      toStoredOrNull(job.lastError ?? undefined), dueOf(job), job.claimable ? 1 : null, job.seq,
    );
  }

  /** Ends the current delivery: the token is no longer current (the caller saves). */
  protected endDelivery(job: Job): void {
    job.token = null;
    job.owner = null;
    job.leaseUntil = null;
  }

  /** An unresolved job dies (from any unresolved status). */
  protected kill(m: Counters, job: Job, reason: DeadReason): void {
    if (job.status === 'running') this.endDelivery(job);
    job.notBefore = null;
    job.reason = reason;
    this.resolve(m, job, 'dead');
  }

  /** An unresolved job becomes terminal: it stops counting, and its account's next job may become claimable. */
  protected resolve(m: Counters, job: Job, status: 'done' | 'dead'): void {
    job.status = status;
    job.claimable = false;
    this.save(job);
    m.unresolved -= 1;
    const head = this.st.accountHead.get(toStored(job.account)) as { seq: number; status: JobStatus } | undefined;
    if (head !== undefined && head.status === 'ready') this.write(this.st.makeClaimable, head.seq);
  }

  /** A running or waiting job becomes ready again; being its account's head, it is claimable. */
  protected makeReady(job: Job): void {
    job.status = 'ready';
    job.claimable = true;
    this.save(job);
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
    const meta = this.st.meta.get() as MetaRow;
    const jobs: Record<string, JobRecord> = {};
    for (const row of this.st.allJobs.all() as JobRow[]) {
      const job = toJob(row);
      put(jobs, job.id, jobRecord(job));
    }
    const balanceRows = (this.st.allBalances.all() as { account: StoredString; balance: number }[]).map((r) => [fromStored(r.account), r.balance] as const);
    balanceRows.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const balances: Record<string, number> = {};
    for (const [account, balance] of balanceRows) put(balances, account, balance);
    const effectRows = (this.st.allEffects.all() as { account: StoredString; key: StoredString; amount: number; job: StoredString; token: number }[]).map((r) => ({
      account: fromStored(r.account),
      key: fromStored(r.key),
      effect: { amount: r.amount, job: fromStored(r.job), token: r.token },
    }));
    effectRows.sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const effects: Record<string, Record<string, { amount: number; job: string; token: number }>> = {};
    for (const { account, key, effect } of effectRows) {
      let ledger = Object.hasOwn(effects, account) ? effects[account] : undefined;
      if (ledger === undefined) {
        ledger = {};
        put(effects, account, ledger);
      }
      put(ledger, key, effect);
    }
    return {
      format: SNAPSHOT_FORMAT,
      config: { ...this.cfg },
      clock: meta.clock,
      nextToken: meta.nextToken,
      nextSeq: meta.nextSeq,
      jobs,
      balances,
      effects,
    };
  }

  /** Closes the connection (the file stays). Idempotent. */
  close(): void {
    if (this.db.open) this.db.close();
  }
}

/** The constructor of SqliteStore or of a subclass of it (the broken variants of the crash tests). */
export type SqliteStoreClass<T extends SqliteStore = SqliteStore> = new (db: Database.Database, cfg: Config, path: string) => T;

/** Opens `path` and fills it in one immediate transaction, refusing a file that holds tables. */
function build<T extends SqliteStore>(Store: SqliteStoreClass<T>, path: string, options: SqliteOptions, fill: (db: Database.Database) => void): T {
  const db = connect(path, options);
  try {
    db.transaction(() => {
      if (hasTables(db)) throw new SqliteStoreError('store_exists', `${path} already holds a database; a new store needs an empty file`);
      fill(db);
    }).immediate();
    return new Store(db, readConfig(db, path), path);
  } catch (error) {
    db.close();
    throw error;
  }
}

/** The config in a store file's `meta` row; throws SqliteStoreError for a file that holds no store of this layout. */
function readConfig(db: Database.Database, path: string): Config {
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'meta'").get() !== undefined;
  if (!hasMeta) throw new SqliteStoreError('no_store', `${path} holds no job store`);
  const meta = db.prepare(QUERIES.meta).get() as MetaRow | undefined;
  if (meta === undefined) throw new SqliteStoreError('no_store', `${path} holds no job store (its meta row is missing)`);
  if (meta.schema !== SCHEMA_VERSION) throw new SqliteStoreError('schema_mismatch', `${path} holds a store of layout ${JSON.stringify(meta.schema)}, not ${SCHEMA_VERSION}`);
  try {
    return parseConfig({ capacity: meta.capacity, maxAttempts: meta.maxAttempts, leaseTicks: meta.leaseTicks, backoffBase: meta.backoffBase, backoffCap: meta.backoffCap });
  } catch (error) {
    // The config of a stored store is the file's fault, not the caller's: not the caller's `invalid_config`.
    if (error instanceof JobcheckError) throw new SqliteStoreError('invalid_store', `${path} holds a meta row no store could have written: ${error.message}`, { cause: error });
    throw error;
  }
}
