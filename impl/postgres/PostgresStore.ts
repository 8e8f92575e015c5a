/**
 * The job store on PostgreSQL: the contract of docs/contract.md (the same commands, replies,
 * rejection codes and canonical snapshot as impl/memory/JobStore and impl/sqlite/SqliteStore),
 * with its state in a schema of its own, for workers on many machines.
 *
 * - The decision logic mirrors impl/sqlite/SqliteStore.ts step by step (validation by the
 *   contract's schema, then the same decision lists), made async because node-postgres is. It is
 *   a mirror rather than shared code: SqliteStore's steps are synchronous statements inside a
 *   better-sqlite3 transaction function, and sharing them would make SQLite's hot path async.
 * - Every command that passes validation is one transaction on one pooled connection:
 *   `BEGIN ISOLATION LEVEL READ COMMITTED` (set explicitly, whatever the server's default), then
 *   `SELECT … FROM meta FOR UPDATE`. The contract has one logical clock and one token counter
 *   (both in the snapshot), so commands are totally ordered; the meta row lock is that order, as
 *   BEGIN IMMEDIATE is the SQLite store's. Competing workers (each lane its own connection) queue
 *   on it, and a command reads nothing before it holds it, so READ COMMITTED sees the last commit.
 * - A claim takes the lowest-seq claimable job `FOR UPDATE`, not `SKIP LOCKED`: the contract
 *   says which job a claim gets (the lowest seq among the account heads), and skipping a row would
 *   hand out another; the per-account head rule is the `claimable` column, kept under the lock.
 * - Token guards: the writes of commit, ack and fail name the delivery's token in their WHERE
 *   (the job row `AND token = $t AND owner = $w`, the ledger insert `WHERE EXISTS` that row) and
 *   throw PostgresStoreError `lost_guard` if the row no longer matches.
 * - The ledger row is `INSERT … ON CONFLICT (account, key) DO NOTHING RETURNING`: a repeat finds
 *   the row instead of failing on it.
 * - `now` is always a bigint parameter; the server's clock is never used.
 * - The fault points of impl/faults.ts: after BEGIN and the lock, after the first write, after
 *   COMMIT (before the reply is returned). A killed client's open transaction is rolled back by
 *   the server when the connection drops.
 */
import type pg from 'pg';
import type {
  AckCommand,
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
} from '../../contract/index.ts';
import { JobcheckError, SNAPSHOT_FORMAT, parseCommand, parseConfig, parseSnapshot } from '../../contract/index.ts';
import { FAULT_POINTS, faultPoint } from '../faults.ts';
import { addTime, retryDelay } from '../memory/JobEntry.ts';
import type { Counters, Job } from '../rows.ts';
import { checkStoredRows } from '../storedRows.ts';
import { PostgresStoreError } from './PostgresStoreError.ts';
import { SCHEMA_PREFIX, SCHEMA_VERSION, quoteIdent, schemaSql } from './schema.ts';
import { fromBytes, toBytes, toBytesOrNull } from './strings.ts';

export type { Counters, Job } from '../rows.ts';

interface JobRow {
  seq: number;
  id: Buffer;
  account: Buffer;
  key: Buffer;
  amount: number;
  deadline: number;
  status: JobStatus;
  attempts: number;
  token: number | null;
  owner: Buffer | null;
  leaseUntil: number | null;
  notBefore: number | null;
  reason: DeadReason | null;
  lastError: Buffer | null;
  claimable: boolean | null;
}

interface MetaRow extends Counters {
  layout: string;
  capacity: number;
  maxAttempts: number;
  leaseTicks: number;
  backoffBase: number;
  backoffCap: number;
}

const JOB_COLUMNS =
  'seq, id, account, key, amount, deadline, status, attempts, token, owner, lease_until AS "leaseUntil", not_before AS "notBefore", reason, last_error AS "lastError", claimable';
const COUNTER_COLUMNS = 'clock, next_token AS "nextToken", next_seq AS "nextSeq", unresolved';
const META_COLUMNS = `layout, capacity, max_attempts AS "maxAttempts", lease_ticks AS "leaseTicks", backoff_base AS "backoffBase", backoff_cap AS "backoffCap", ${COUNTER_COLUMNS}`;

/** The SQL of every statement of a store in schema `s` (quoted); exported for the benchmark. */
export function queries(s: string) {
  return {
    begin: `BEGIN ISOLATION LEVEL READ COMMITTED; SELECT ${COUNTER_COLUMNS} FROM ${s}.meta WHERE id = 1 FOR UPDATE`,
    setCounters: `UPDATE ${s}.meta SET clock = $1, next_token = $2, next_seq = $3, unresolved = $4 WHERE id = 1`,
    due: `SELECT ${JOB_COLUMNS} FROM ${s}.jobs WHERE due IS NOT NULL AND due <= $1::bigint`,
    byId: `SELECT ${JOB_COLUMNS} FROM ${s}.jobs WHERE id = $1`,
    byToken: `SELECT ${JOB_COLUMNS} FROM ${s}.jobs WHERE token = $1::bigint`,
    claimHead: `SELECT ${JOB_COLUMNS} FROM ${s}.jobs WHERE claimable ORDER BY seq LIMIT 1 FOR UPDATE`,
    accountHead: `SELECT seq, status FROM ${s}.jobs WHERE account = $1 AND due IS NOT NULL ORDER BY seq LIMIT 1`,
    insertJob: `INSERT INTO ${s}.jobs (seq, id, account, key, amount, deadline, status, attempts, token, owner, lease_until, not_before, reason, last_error, due, claimable) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
    saveJob: `UPDATE ${s}.jobs SET status = $1, attempts = $2, token = $3, owner = $4, lease_until = $5, not_before = $6, reason = $7, last_error = $8, due = $9, claimable = $10 WHERE seq = $11`,
    saveGuarded: `UPDATE ${s}.jobs SET status = $1, attempts = $2, token = $3, owner = $4, lease_until = $5, not_before = $6, reason = $7, last_error = $8, due = $9, claimable = $10 WHERE seq = $11 AND token = $12::bigint AND owner = $13`,
    makeClaimable: `UPDATE ${s}.jobs SET claimable = true WHERE seq = $1`,
    effect: `SELECT amount FROM ${s}.effects WHERE account = $1 AND key = $2`,
    balance: `SELECT balance FROM ${s}.balances WHERE account = $1`,
    setBalance: `INSERT INTO ${s}.balances (account, balance) VALUES ($1, $2) ON CONFLICT (account) DO UPDATE SET balance = excluded.balance`,
    insertEffect: `INSERT INTO ${s}.effects (account, key, amount, job, token) SELECT $1, $2, $3, $4, $5::bigint WHERE EXISTS (SELECT 1 FROM ${s}.jobs WHERE token = $5::bigint AND owner = $6) ON CONFLICT (account, key) DO NOTHING RETURNING amount`,
    meta: `SELECT ${META_COLUMNS} FROM ${s}.meta WHERE id = 1`,
    allJobs: `SELECT ${JOB_COLUMNS} FROM ${s}.jobs ORDER BY seq`,
    allBalances: `SELECT account, balance FROM ${s}.balances`,
    allEffects: `SELECT account, key, amount, job, token FROM ${s}.effects`,
    insertMeta: `INSERT INTO ${s}.meta (id, layout, capacity, max_attempts, lease_ticks, backoff_base, backoff_cap, clock, next_token, next_seq, unresolved) VALUES (1, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
  } as const;
}

/** The statements of one store. */
export type Queries = ReturnType<typeof queries>;

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
    id: fromBytes(row.id),
    account: fromBytes(row.account),
    key: fromBytes(row.key),
    amount: row.amount,
    deadline: row.deadline,
    status: row.status,
    attempts: row.attempts,
    token: row.token,
    owner: row.owner === null ? null : fromBytes(row.owner),
    leaseUntil: row.leaseUntil,
    notBefore: row.notBefore,
    reason: row.reason,
    lastError: row.lastError === null ? null : fromBytes(row.lastError),
    claimable: row.claimable === true,
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

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A fresh schema name, `jobcheck_<16 hex digits>`. */
function newSchemaName(): string {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return `${SCHEMA_PREFIX}${Buffer.from(bytes).toString('hex')}`;
}

/**
 * Whether `error` is a failure to reach or keep the server (a socket error such as ECONNREFUSED or
 * ENOENT, or a connection ended), as opposed to an error of a query the server answered. Pure.
 */
export function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  // node-postgres passes socket errors on as they are (`code` like ECONNREFUSED); a server's error has a SQLSTATE of 5 characters.
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return true;
  if (typeof code === 'string' && /^(08|57P)/.test(code)) return true;
  return /Connection terminated|connection timeout|Client has encountered a connection error/i.test(error.message);
}

/** Whether `name` can be a store's schema (so that no other text reaches SQL as an identifier). Pure. */
export const isStoreSchema = (name: string): boolean => new RegExp(`^${SCHEMA_PREFIX}[0-9a-f]{16}$`).test(name);

/** The connection one command runs on, with the per-transaction state. */
export interface Tx {
  readonly client: pg.PoolClient;
  wrote: boolean;
}

/**
 * A job store in one PostgreSQL schema. Several stores (in one process or on several machines)
 * may open the same schema: each command is one transaction holding the meta row's lock, so they
 * queue up. Each concurrent `execute` takes a connection of its own from the pool. Methods are
 * overridable and internals protected, so that test variants can be built by subclassing.
 */
export class PostgresStore {
  protected readonly q: Queries;
  private closed = false;

  /** Wraps a pool and a schema that holds a store (the static constructors call it). */
  constructor(
    protected readonly pool: pg.Pool,
    protected readonly cfg: Config,
    /** The schema the store lives in. */
    readonly schema: string,
  ) {
    this.q = queries(quoteIdent(schema));
  }

  /** A new, empty store in a new schema. Throws JobcheckError `invalid_config` for a bad config. */
  static async create<T extends PostgresStore>(this: PostgresStoreClass<T>, pool: pg.Pool, config: unknown): Promise<T> {
    const cfg = parseConfig(config);
    const schema = newSchemaName();
    await build(pool, schema, async (client, q) => {
      await client.query(q.insertMeta, [SCHEMA_VERSION, cfg.capacity, cfg.maxAttempts, cfg.leaseTicks, cfg.backoffBase, cfg.backoffCap, 0, 1, 1, 0]);
    });
    return new this(pool, cfg, schema);
  }

  /**
   * A new store in a new schema holding exactly `snapshot` (a restore). Validates the whole
   * snapshot first (JobcheckError `invalid_snapshot` naming the field, before anything is
   * written), then writes every row in one transaction. Keeps no reference to the caller's object.
   */
  static async restore<T extends PostgresStore>(this: PostgresStoreClass<T>, pool: pg.Pool, snapshot: unknown): Promise<T> {
    const s = parseSnapshot(snapshot);
    const schema = newSchemaName();
    await build(pool, schema, async (client, q) => {
      const jobs = Object.entries(s.jobs).sort(([, a], [, b]) => a.seq - b.seq);
      const accountsWithHead = new Set<string>();
      let unresolved = 0;
      for (const [id, r] of jobs) {
        const p = r.payload;
        let claimable: boolean | null = null;
        if (isUnresolved(r.status)) {
          unresolved += 1;
          if (!accountsWithHead.has(p.account)) {
            accountsWithHead.add(p.account);
            if (r.status === 'ready') claimable = true;
          }
        }
        const due = dueOf({ status: r.status, deadline: p.deadline, leaseUntil: r.leaseUntil ?? null, notBefore: r.notBefore ?? null });
        await client.query(q.insertJob, [
          r.seq, toBytes(id), toBytes(p.account), toBytes(p.key), p.amount, p.deadline, r.status, r.attempts,
          r.token ?? null, toBytesOrNull(r.owner), r.leaseUntil ?? null, r.notBefore ?? null, r.reason ?? null, toBytesOrNull(r.lastError), due, claimable,
        ]);
      }
      const c = s.config;
      await client.query(q.insertMeta, [SCHEMA_VERSION, c.capacity, c.maxAttempts, c.leaseTicks, c.backoffBase, c.backoffCap, s.clock, s.nextToken, s.nextSeq, unresolved]);
      for (const [account, balance] of Object.entries(s.balances)) await client.query(q.setBalance, [toBytes(account), balance]);
      for (const [account, ledger] of Object.entries(s.effects)) {
        for (const [key, e] of Object.entries(ledger)) {
          await client.query(`INSERT INTO ${quoteIdent(schema)}.effects (account, key, amount, job, token) VALUES ($1, $2, $3, $4, $5)`, [toBytes(account), toBytes(key), e.amount, toBytes(e.job), e.token]);
        }
      }
    });
    return new this(pool, s.config, schema);
  }

  /**
   * The store already in `schema` (a reopen: what a new process does after the old one died).
   * Throws PostgresStoreError `no_store` when the schema holds none, `schema_mismatch` for another layout.
   */
  static async open<T extends PostgresStore>(this: PostgresStoreClass<T>, pool: pg.Pool, schema: string): Promise<T> {
    if (!isStoreSchema(schema)) throw new PostgresStoreError('no_store', `${JSON.stringify(schema)} is not the name of a store's schema (${SCHEMA_PREFIX}<16 hex digits>)`);
    const found = await pool.query("SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = $1 AND tablename = 'meta'", [schema]);
    if (found.rowCount === 0) throw new PostgresStoreError('no_store', `schema ${schema} holds no job store`);
    const rows = (await pool.query(queries(quoteIdent(schema)).meta)).rows as MetaRow[];
    const meta = rows[0];
    if (meta === undefined) throw new PostgresStoreError('no_store', `schema ${schema} holds no job store (its meta row is missing)`);
    if (meta.layout !== SCHEMA_VERSION) throw new PostgresStoreError('schema_mismatch', `schema ${schema} holds a store of layout ${JSON.stringify(meta.layout)}, not ${SCHEMA_VERSION}`);
    let cfg: Config;
    try {
      cfg = parseConfig({ capacity: meta.capacity, maxAttempts: meta.maxAttempts, leaseTicks: meta.leaseTicks, backoffBase: meta.backoffBase, backoffCap: meta.backoffCap });
    } catch (error) {
      // The config of a stored store is the schema's fault, not the caller's: not the caller's `invalid_config`.
      if (error instanceof JobcheckError) throw new PostgresStoreError('invalid_store', `schema ${schema} holds a meta row no store could have written: ${error.message}`, { cause: error });
      throw error;
    }
    return new this(pool, cfg, schema);
  }

  /**
   * The store already in `schema`, checked before it is served again (a resume after a crash): its
   * rows must be a store's, held to the contract's snapshot schema as `restore` holds a snapshot,
   * derived columns included (impl/storedRows.ts). Reads every row: O(n). Throws PostgresStoreError
   * `no_store`, `schema_mismatch`, `invalid_store`; a failure to reach the server propagates as it is.
   */
  static async resume<T extends PostgresStore>(this: PostgresStoreClass<T>, pool: pg.Pool, schema: string): Promise<T> {
    const store = (await PostgresStore.open.call(this, pool, schema)) as T;
    const s = quoteIdent(schema);
    let checked: ReturnType<typeof checkStoredRows>;
    try {
      const rows = (await pool.query(`SELECT seq, due, claimable FROM ${s}.jobs`)).rows as { seq: unknown; due: unknown; claimable: unknown }[];
      const meta = (await pool.query(`SELECT unresolved FROM ${s}.meta WHERE id = 1`)).rows as { unresolved: unknown }[];
      const derived = rows.map((r) => ({ seq: Number(r.seq), due: r.due === null ? null : Number(r.due), claimable: r.claimable === true }));
      checked = checkStoredRows(await store.snapshot(), derived, Number(meta[0]?.unresolved));
    } catch (error) {
      if (isConnectionFailure(error)) throw error;
      throw new PostgresStoreError('invalid_store', `schema ${schema} holds rows that cannot be read as a store's (${(error as Error).message})`, { cause: error });
    }
    if (!checked.ok) throw new PostgresStoreError('invalid_store', `schema ${schema} holds rows no store could have written: ${checked.problem}`);
    return store;
  }

  // ---------------------------------------------------------------------------------------------
  // Commands

  /**
   * Executes one command: validates it (step 1; a malformed command touches nothing and opens no
   * transaction), then runs steps 1b to 3 in one transaction. Never rejects for bad input;
   * rejects for a failure of the database itself (a lost connection), after rolling back.
   */
  async execute(command: unknown): Promise<Reply> {
    const parsed = parseCommand(command);
    if (!parsed.ok) return parsed.rejection;
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      const results = (await client.query(this.beginSql(parsed.command))) as unknown as pg.QueryResult[];
      const tx: Tx = { client, wrote: false };
      faultPoint(FAULT_POINTS.afterBegin);
      let reply: Reply;
      try {
        reply = await this.apply(tx, results[1]?.rows[0] as Counters, parsed.command);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch((e: unknown) => (broken = e as Error));
        throw error;
      }
      faultPoint(FAULT_POINTS.afterCommit);
      return reply;
    } catch (error) {
      broken ??= error as Error;
      throw error;
    } finally {
      // A connection whose transaction failed is dropped rather than reused.
      client.release(broken);
    }
  }

  /**
   * The statements that open a command's transaction and read the counters: BEGIN and the meta
   * row `FOR UPDATE`, for every command (a hook for the broken variants of the concurrency tests).
   */
  protected beginSql(_command: Command): string {
    return this.q.begin;
  }

  /** The statement that reads the lowest-seq claimable job, locking it (a hook for the broken variants). */
  protected claimHeadSql(): string {
    return this.q.claimHead;
  }

  /** Runs one statement of the command's transaction; rows as `T`. */
  protected async read<T>(tx: Tx, sql: string, params: readonly unknown[]): Promise<T[]> {
    return (await tx.client.query(sql, params as unknown[])).rows as T[];
  }

  /** Runs a writing statement; the first write of a transaction passes the fault point after it. Returns the rows it returned and how many it touched. */
  protected async write(tx: Tx, sql: string, params: readonly unknown[]): Promise<pg.QueryResult> {
    const result = await tx.client.query(sql, params as unknown[]);
    if (!tx.wrote) {
      tx.wrote = true;
      faultPoint(FAULT_POINTS.afterFirstWrite);
    }
    return result;
  }

  /** Steps 1b (the clock), 2 and 3 of one command, inside its transaction. */
  protected async apply(tx: Tx, m: Counters, c: Command): Promise<Reply> {
    if (c.now < m.clock) return reject('clock_regressed', `now: ${c.now} is before the clock (${m.clock})`);
    const before = { ...m };
    if (c.now > m.clock) {
      m.clock = c.now;
      for (const row of await this.read<JobRow>(tx, this.q.due, [c.now])) await this.expire(tx, m, toJob(row), c.now);
    }
    const reply = await this.decide(tx, m, c);
    if (m.clock !== before.clock || m.nextToken !== before.nextToken || m.nextSeq !== before.nextSeq || m.unresolved !== before.unresolved) {
      await this.write(tx, this.q.setCounters, [m.clock, m.nextToken, m.nextSeq, m.unresolved]);
    }
    return reply;
  }

  /** Step 3: the command's decision list. */
  protected decide(tx: Tx, m: Counters, c: Command): Promise<Reply> {
    switch (c.type) {
      case 'submit':
        return this.applySubmit(tx, m, c);
      case 'claim':
        return this.applyClaim(tx, m, c);
      case 'commit':
        return this.applyCommit(tx, c);
      case 'ack':
        return this.applyAck(tx, m, c);
      case 'fail':
        return this.applyFail(tx, m, c);
      case 'tick':
        return Promise.resolve({ ok: true, type: 'tick', clock: m.clock });
    }
  }

  /** One unresolved job hears the clock: deadline, else lease expiry, else end of backoff. */
  protected async expire(tx: Tx, m: Counters, job: Job, now: number): Promise<void> {
    if (now >= job.deadline) {
      await this.kill(tx, m, job, 'deadline');
    } else if (job.status === 'running' && now >= (job.leaseUntil as number)) {
      if (job.attempts >= this.cfg.maxAttempts) {
        await this.kill(tx, m, job, 'lease_expired');
      } else {
        this.endDelivery(job);
        await this.makeReady(tx, job);
      }
    } else if (job.status === 'waiting' && now >= (job.notBefore as number)) {
      job.notBefore = null;
      await this.makeReady(tx, job);
    }
  }

  protected async applySubmit(tx: Tx, m: Counters, c: SubmitCommand): Promise<Reply> {
    const [row] = await this.read<JobRow>(tx, this.q.byId, [toBytes(c.id)]);
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
    const account = toBytes(c.account);
    const head = (await this.read(tx, this.q.accountHead, [account])).length === 0;
    await this.write(tx, this.q.insertJob, [seq, toBytes(c.id), account, toBytes(c.key), c.amount, c.deadline, 'ready', 0, null, null, null, null, null, null, c.deadline, head ? true : null]);
    m.unresolved += 1;
    return { ok: true, type: 'submit', id: c.id, seq, duplicate: false };
  }

  protected async applyClaim(tx: Tx, m: Counters, c: ClaimCommand): Promise<Reply> {
    const [row] = await this.read<JobRow>(tx, this.claimHeadSql(), []);
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
    await this.save(tx, job);
    return {
      ok: true,
      type: 'claim',
      job: { id: job.id, token, attempt: job.attempts, leaseUntil: job.leaseUntil, payload: { account: job.account, key: job.key, amount: job.amount, deadline: job.deadline } },
    };
  }

  /** The running job holding the command's token for its worker, or the rejection to reply with. */
  protected async delivery(tx: Tx, c: CommitCommand | AckCommand | FailCommand): Promise<Job | Rejection> {
    const [row] = await this.read<JobRow>(tx, this.q.byToken, [c.token]);
    if (row === undefined) return reject('stale_token', `token ${c.token} is not the current delivery of any running job`);
    const job = toJob(row);
    if (job.owner !== c.worker) return reject('not_owner', `token ${c.token} is held by worker ${JSON.stringify(job.owner)}, not ${JSON.stringify(c.worker)}`);
    return job;
  }

  protected async applyCommit(tx: Tx, c: CommitCommand): Promise<Reply> {
    const job = await this.delivery(tx, c);
    if ('ok' in job) return job;
    const account = toBytes(job.account);
    const key = toBytes(job.key);
    const [balanceRow] = await this.read<{ balance: number }>(tx, this.q.balance, [account]);
    const before = balanceRow?.balance ?? 0;
    const balance = before + job.amount;
    const known = async (): Promise<Reply> => {
      const [recorded] = await this.read<{ amount: number }>(tx, this.q.effect, [account, key]);
      if (recorded === undefined) throw new PostgresStoreError('lost_guard', `the ledger insert for token ${c.token} found neither its delivery nor a row for (${JSON.stringify(job.account)}, ${JSON.stringify(job.key)})`);
      if (recorded.amount === job.amount) return { ok: true, type: 'commit', id: job.id, applied: false, balance: before };
      return reject('conflict', `effect (${JSON.stringify(job.account)}, ${JSON.stringify(job.key)}) was recorded with amount ${recorded.amount}, not ${job.amount}`);
    };
    if (!Number.isSafeInteger(balance)) {
      const [recorded] = await this.read(tx, this.q.effect, [account, key]);
      if (recorded !== undefined) return known();
      return reject('out_of_range', `balance of ${JSON.stringify(job.account)} (${before}) + amount ${job.amount} would leave the safe-integer range`);
    }
    const inserted = await this.recordEffect(tx, job, c, balance);
    if (!inserted) return known();
    return { ok: true, type: 'commit', id: job.id, applied: true, balance };
  }

  /** Applies a job's effect: the ledger row (guarded by the delivery, none on a repeat) and then the new balance. Returns whether the row was new. */
  protected async recordEffect(tx: Tx, job: Job, c: CommitCommand, balance: number): Promise<boolean> {
    const account = toBytes(job.account);
    const result = await this.write(tx, this.q.insertEffect, [account, toBytes(job.key), job.amount, toBytes(job.id), c.token, toBytes(c.worker)]);
    if (result.rowCount === 0) return false;
    await this.write(tx, this.q.setBalance, [account, balance]);
    return true;
  }

  protected async applyAck(tx: Tx, m: Counters, c: AckCommand): Promise<Reply> {
    const job = await this.delivery(tx, c);
    if ('ok' in job) return job;
    this.endDelivery(job);
    await this.resolve(tx, m, job, 'done', c);
    return { ok: true, type: 'ack', id: job.id };
  }

  protected async applyFail(tx: Tx, m: Counters, c: FailCommand): Promise<Reply> {
    const job = await this.delivery(tx, c);
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
        await this.save(tx, job, c);
        return { ok: true, type: 'fail', id: job.id, status: 'waiting', notBefore };
      }
      reason = 'no_time_for_retry';
    }
    job.reason = reason;
    await this.resolve(tx, m, job, 'dead', c);
    return { ok: true, type: 'fail', id: job.id, status: 'dead', reason };
  }

  // ---------------------------------------------------------------------------------------------
  // Lifecycle helpers

  /** Writes a job's changing columns with its `due`; with `guard`, only while the row still holds that delivery. */
  protected async save(tx: Tx, job: Job, guard?: { readonly token: number; readonly worker: string }): Promise<void> {
    const params: unknown[] = [
      job.status, job.attempts, job.token, toBytesOrNull(job.owner), job.leaseUntil, job.notBefore, job.reason,
      toBytesOrNull(job.lastError), dueOf(job), job.claimable ? true : null, job.seq,
    ];
    if (guard === undefined) {
      await this.write(tx, this.q.saveJob, params);
      return;
    }
    const result = await this.write(tx, this.q.saveGuarded, [...params, guard.token, toBytes(guard.worker)]);
    if (result.rowCount !== 1) throw new PostgresStoreError('lost_guard', `job ${JSON.stringify(job.id)} no longer holds token ${guard.token} of ${JSON.stringify(guard.worker)}`);
  }

  /** Ends the current delivery: the token is no longer current (the caller saves). */
  protected endDelivery(job: Job): void {
    job.token = null;
    job.owner = null;
    job.leaseUntil = null;
  }

  /** An unresolved job dies (from any unresolved status). */
  protected async kill(tx: Tx, m: Counters, job: Job, reason: DeadReason): Promise<void> {
    if (job.status === 'running') this.endDelivery(job);
    job.notBefore = null;
    job.reason = reason;
    await this.resolve(tx, m, job, 'dead');
  }

  /** An unresolved job becomes terminal: it stops counting, and its account's next job may become claimable. */
  protected async resolve(tx: Tx, m: Counters, job: Job, status: 'done' | 'dead', guard?: { readonly token: number; readonly worker: string }): Promise<void> {
    job.status = status;
    job.claimable = false;
    await this.save(tx, job, guard);
    m.unresolved -= 1;
    const [head] = await this.read<{ seq: number; status: JobStatus }>(tx, this.q.accountHead, [toBytes(job.account)]);
    if (head !== undefined && head.status === 'ready') await this.write(tx, this.q.makeClaimable, [head.seq]);
  }

  /** A running or waiting job becomes ready again; being its account's head, it is claimable. */
  protected async makeReady(tx: Tx, job: Job): Promise<void> {
    job.status = 'ready';
    job.claimable = true;
    await this.save(tx, job);
  }

  // ---------------------------------------------------------------------------------------------
  // Reading

  /** The store's config (a copy). */
  get config(): Config {
    return { ...this.cfg };
  }

  /** The canonical snapshot, read in one REPEATABLE READ transaction: a fresh JSON value (jobs in seq order, accounts and keys sorted). */
  async snapshot(): Promise<Snapshot> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const meta = (await client.query(this.q.meta)).rows[0] as MetaRow;
      const jobRows = (await client.query(this.q.allJobs)).rows as JobRow[];
      const balanceRows = (await client.query(this.q.allBalances)).rows as { account: Buffer; balance: number }[];
      const effectRows = (await client.query(this.q.allEffects)).rows as { account: Buffer; key: Buffer; amount: number; job: Buffer; token: number }[];
      await client.query('COMMIT');
      return assemble(this.cfg, meta, jobRows, balanceRows, effectRows);
    } catch (error) {
      broken = error as Error;
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /** Forgets the pool (the schema stays; the pool is the caller's). Idempotent. */
  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }

  /** Whether close() was called. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Drops the store's schema with everything in it. Idempotent. */
  async drop(): Promise<void> {
    await this.pool.query(`DROP SCHEMA IF EXISTS ${quoteIdent(this.schema)} CASCADE`);
    this.closed = true;
  }
}

/** The constructor of PostgresStore or of a subclass of it (the broken variants of the crash and concurrency tests). */
export type PostgresStoreClass<T extends PostgresStore = PostgresStore> = new (pool: pg.Pool, cfg: Config, schema: string) => T;

/** The canonical snapshot of a store's rows. Pure. */
function assemble(
  cfg: Config,
  meta: MetaRow,
  jobRows: readonly JobRow[],
  balanceRows: readonly { account: Buffer; balance: number }[],
  effectRows: readonly { account: Buffer; key: Buffer; amount: number; job: Buffer; token: number }[],
): Snapshot {
  const jobs: Record<string, JobRecord> = {};
  for (const row of jobRows) {
    const job = toJob(row);
    put(jobs, job.id, jobRecord(job));
  }
  const sortedBalances = balanceRows.map((r) => [fromBytes(r.account), r.balance] as const).sort(([a], [b]) => compare(a, b));
  const balances: Record<string, number> = {};
  for (const [account, balance] of sortedBalances) put(balances, account, balance);
  const sortedEffects = effectRows
    .map((r) => ({ account: fromBytes(r.account), key: fromBytes(r.key), effect: { amount: r.amount, job: fromBytes(r.job), token: r.token } }))
    .sort((a, b) => compare(a.account, b.account) || compare(a.key, b.key));
  const effects: Record<string, Record<string, { amount: number; job: string; token: number }>> = {};
  for (const { account, key, effect } of sortedEffects) {
    let ledger = Object.hasOwn(effects, account) ? effects[account] : undefined;
    if (ledger === undefined) {
      ledger = {};
      put(effects, account, ledger);
    }
    put(ledger, key, effect);
  }
  return { format: SNAPSHOT_FORMAT, config: { ...cfg }, clock: meta.clock, nextToken: meta.nextToken, nextSeq: meta.nextSeq, jobs, balances, effects };
}

/** Creates `schema` with the store's tables and fills it, in one transaction. */
async function build(pool: pg.Pool, schema: string, fill: (client: pg.PoolClient, q: Queries) => Promise<void>): Promise<void> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
    try {
      await client.query(schemaSql(quoteIdent(schema)));
      await fill(client, queries(quoteIdent(schema)));
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch((e: unknown) => (broken = e as Error));
      throw error;
    }
  } catch (error) {
    broken ??= error as Error;
    throw error;
  } finally {
    client.release(broken);
  }
}
