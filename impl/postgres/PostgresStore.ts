/**
 * The job store on PostgreSQL: the contract of docs/contract.md (the same commands, replies,
 * rejection codes and canonical snapshot as the memory and SQLite stores), in a schema of its own,
 * for workers on many machines. Steps 1b to 3 are the command core (impl/core) driven asynchronously.
 *
 * - One total order: every transaction of every path and process takes the meta row `FOR UPDATE`
 *   (READ COMMITTED) before it reads anything, and that row holds the clock, the next token and the
 *   next seq, so tokens and seqs are handed out in the order the lock is granted, on one clock.
 * - A claim or an ack alone in its group is one CALL: the schema's procedure takes the lock, decides,
 *   writes and commits on the server (FastPath.ts). Else the commands of one store object that wait
 *   form one transaction (GroupCommit.ts), reads with BEGIN and COMMIT, writes with the next message (Tx.ts).
 * - Durable before any reply: the CALL commits asynchronously, so the lock is not held across a WAL
 *   flush, then runs a barrier, a transaction that writes WAL and commits with a flush up to its own
 *   commit record. WAL is one sequence, and whatever saw a commit committed after it: every reply,
 *   a snapshot's too (it ends with the barrier), waits for a flush past everything it saw.
 * - A claim takes the lowest-seq claimable job `FOR UPDATE`, never `SKIP LOCKED`; commit, ack and
 *   fail write under the delivery's token and owner (`lost_guard`); `now` is the command's own. Fault
 *   points (impl/faults.ts): after BEGIN, after the first write (no CALL while either is armed), after
 *   COMMIT. Why it is built so, and what each choice measured: docs/durable-bench.md, "Design notes".
 */
import type { Command, Config, Reply, Snapshot } from '../../contract/index.ts';
import { parseCommand, parseConfig, parseSnapshot } from '../../contract/index.ts';
import { runAsync, runCommand } from '../core/index.ts';
import type { AccountHead, CoreRun, Guard, StorageRequest } from '../core/index.ts';
import { DECISIONS } from '../decisions/index.ts';
import type { Decisions } from '../decisions/index.ts';
import { configOfMeta, EMPTY_COUNTERS, metaValues } from '../durable/index.ts';
import type { BalanceRow, Counters, DerivedColumns, EffectRow, Job, JobRow, MetaRow } from '../durable/index.ts';
import { GroupCommit } from './GroupCommit.ts';
import { ignoreTakenError } from './GroupQueue.ts';
import type { Traffic } from './GroupCommit.ts';
import { GroupReads } from './GroupReads.ts';
import { BARRIER_CALL, fastCallOf, fastCallStatement, fastPathSql } from './FastPath.ts';
import type { FastCall } from './FastPath.ts';
import { FAULT_POINTS, faultArmed } from '../faults.ts';
import { inline } from './literal.ts';
import type { PgPool, PgPoolClient } from './PgPool.ts';
import { PostgresStoreError } from './PostgresStoreError.ts';
import { Prepared } from './Prepared.ts';
import { ROWS, firstJob, jobsOf, preparedTexts, queries } from './queries.ts';
import type { PreparedKey, Queries } from './queries.ts';
import { SCHEMA_PREFIX, SCHEMA_VERSION, quoteIdent, schemaSql } from './schema.ts';
import { toBytes } from './strings.ts';
import { readAheadGuardSql } from './Tx.ts';
import type { Tx } from './Tx.ts';

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
function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  // node-postgres passes socket errors on as they are (`code` like ECONNREFUSED); a server's error has a SQLSTATE of 5 characters.
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return true;
  if (typeof code === 'string' && /^(08|57P)/.test(code)) return true;
  return /Connection terminated|connection timeout|Client has encountered a connection error/i.test(error.message);
}

/** Whether JOBCHECK_FAULT arms a point inside a transaction, which the one-statement path never passes. */
const FAST_FAULTS_ARMED = faultArmed(FAULT_POINTS.afterBegin) || faultArmed(FAULT_POINTS.afterFirstWrite);

/** The hooks whose override sends every command on the locked path (the fast path repeats their rules on the server). */
const LOCKED_PATH_HOOKS = [
  'apply',
  'run',
  'answer',
  'insert',
  'save',
  'recordEffect',
  'write',
  'read',
  'beginSql',
  'claimHeadSql',
  'readAheadGuard',
] as const;

/** Whether `name` can be a store's schema (so that no other text reaches SQL as an identifier). Pure. */
export const isStoreSchema = (name: string): boolean => new RegExp(`^${SCHEMA_PREFIX}[0-9a-f]{16}$`).test(name);

/** The read-ahead guard's arguments: the meta row's version, the counters read, the counters to write. Pure. */
const guardArgs = (version: string, c: Counters, to: Counters): readonly unknown[] => [
  version,
  c.clock,
  c.nextToken,
  c.nextSeq,
  c.unresolved,
  to.clock,
  to.nextToken,
  to.nextSeq,
  to.unresolved,
];

/**
 * A job store in one PostgreSQL schema. Several stores (in one process or on several machines)
 * may open the same schema: each transaction holds the meta row's lock, so they queue up. One
 * store object runs one transaction at a time, on a connection taken from the pool for it, with
 * every command that waited for it (a group). Methods are overridable and internals protected,
 * so that test variants can be built by subclassing.
 */
export class PostgresStore {
  /** The decision functions this store runs: the contract's, unless a test variant replaced one (`withDecisions`). */
  readonly decisions: Decisions = DECISIONS;
  protected readonly q: Queries;
  /** The statements of `q` the store's own commands run prepared on each connection (Prepared.ts). */
  private readonly p: Prepared<PreparedKey>;
  private closed = false;
  /** The commands waiting for their group, and the groups' transactions (GroupCommit.ts). */
  private readonly groups: GroupCommit;
  /** Whether the lock, the claimable head and the read-ahead guard run prepared: not when a subclass changed their hook. */
  private readonly lockPrepared = this.beginSql === PostgresStore.prototype.beginSql;
  private readonly claimHeadPrepared = this.claimHeadSql === PostgresStore.prototype.claimHeadSql;
  private readonly guardPrepared = this.readAheadGuard === PostgresStore.prototype.readAheadGuard;

  /** Wraps a pool and a schema that holds a store (the static constructors call it). */
  constructor(
    protected readonly pool: PgPool,
    protected readonly cfg: Config,
    /** The schema the store lives in. */
    readonly schema: string,
  ) {
    this.q = queries(quoteIdent(schema));
    this.p = new Prepared(schema, preparedTexts(quoteIdent(schema), this.q));
    const reads = new GroupReads(this.p, (limit) =>
      this.claimHeadPrepared
        ? this.p.exec('claimHead', [limit])
        : this.claimHeadSql().replace(/ LIMIT 1\b/, ` LIMIT ${limit}`),
    );
    const store = {
      lock: (commands: readonly Command[]): string =>
        this.lockPrepared
          ? `BEGIN ISOLATION LEVEL READ COMMITTED; ${this.p.exec('lock')}`
          : this.beginSql(commands[0] as Command),
      guard: (version: string, c: Counters, to: Counters): string => this.guardStatement(version, c, to),
      apply: (tx: Tx, m: Counters, c: Command): Promise<Reply> => this.apply(tx, m, c),
      fast: (c: Command): FastCall | undefined =>
        this.fastAllowed() ? fastCallOf(c, (command) => this.fastSql(command)) : undefined,
    };
    // Groups open on rows read ahead only when no subclass changed how a transaction opens or
    // reads the claimable head (the broken variants of the lock), which only the locked path runs.
    this.groups = new GroupCommit(pool, this.p, reads, store, this.lockPrepared && this.claimHeadPrepared);
  }

  /** A new, empty store in a new schema. Throws JobcheckError `invalid_config` for a bad config. */
  static async create<T extends PostgresStore>(this: PostgresStoreClass<T>, pool: PgPool, config: unknown): Promise<T> {
    const cfg = parseConfig(config);
    const schema = newSchemaName();
    await build(pool, schema, this, async (client, q) => {
      await client.query(q.insertMeta, [SCHEMA_VERSION, ...metaValues(cfg, EMPTY_COUNTERS)]);
    });
    return new this(pool, cfg, schema);
  }

  /** The fast path's functions in schema `s` (quoted) that a new schema gets (FastPath.ts; a hook for the broken variants). */
  static fastPathSql(s: string): string {
    return fastPathSql(s);
  }

  /**
   * A new store in a new schema holding exactly `snapshot` (a restore). Validates the whole
   * snapshot first (JobcheckError `invalid_snapshot` naming the field, before anything is
   * written), then writes every row in one transaction. Keeps no reference to the caller's object.
   */
  static async restore<T extends PostgresStore>(
    this: PostgresStoreClass<T>,
    pool: PgPool,
    snapshot: unknown,
  ): Promise<T> {
    const s = parseSnapshot(snapshot);
    const schema = newSchemaName();
    await build(pool, schema, this, async (client, q) => {
      const values = ROWS.restoreValues(s, SCHEMA_VERSION);
      for (const row of values.jobs) await client.query(q.insertJob, row);
      await client.query(q.insertMeta, [...values.meta]);
      for (const row of values.balances) await client.query(q.setBalance, row);
      for (const row of values.effects) await client.query(q.restoreEffect, row);
    });
    return new this(pool, s.config, schema);
  }

  /**
   * The store already in `schema` (a reopen: what a new process does after the old one died).
   * Throws PostgresStoreError `no_store` when the schema holds none, `schema_mismatch` for another layout.
   */
  static async open<T extends PostgresStore>(this: PostgresStoreClass<T>, pool: PgPool, schema: string): Promise<T> {
    if (!isStoreSchema(schema))
      throw new PostgresStoreError(
        'no_store',
        `${JSON.stringify(schema)} is not the name of a store's schema (${SCHEMA_PREFIX}<16 hex digits>)`,
      );
    const found = await pool.query("SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = $1 AND tablename = 'meta'", [
      schema,
    ]);
    if (found.rowCount === 0) throw new PostgresStoreError('no_store', `schema ${schema} holds no job store`);
    const meta = (await pool.query<MetaRow>(queries(quoteIdent(schema)).meta)).rows[0];
    const cfg = configOfMeta(
      meta,
      SCHEMA_VERSION,
      `schema ${schema}`,
      (code, message, options) => new PostgresStoreError(code, message, options),
    );
    return new this(pool, cfg, schema);
  }

  /**
   * The store already in `schema`, checked before it is served again (a resume after a crash): its
   * rows must be a store's, held to the contract's snapshot schema as `restore` holds a snapshot,
   * derived columns included (impl/durable/storedRows.ts). Reads every row: O(n). Throws PostgresStoreError
   * `no_store`, `schema_mismatch`, `invalid_store`; a failure to reach the server propagates as it is.
   */
  static async resume<T extends PostgresStore>(this: PostgresStoreClass<T>, pool: PgPool, schema: string): Promise<T> {
    const store = (await PostgresStore.open.call(this, pool, schema)) as T;
    const s = quoteIdent(schema);
    let checked: ReturnType<typeof ROWS.checkRows>;
    try {
      const derived = (await pool.query<DerivedColumns>(`SELECT seq, due, claimable FROM ${s}.jobs`)).rows;
      const meta = (await pool.query<{ unresolved: unknown }>(`SELECT unresolved FROM ${s}.meta WHERE id = 1`)).rows;
      checked = ROWS.checkRows(await store.snapshot(), derived, meta[0]?.unresolved);
    } catch (error) {
      if (isConnectionFailure(error)) throw error;
      throw new PostgresStoreError(
        'invalid_store',
        `schema ${schema} holds rows that cannot be read as a store's (${(error as Error).message})`,
        { cause: error },
      );
    }
    if (!checked.ok)
      throw new PostgresStoreError(
        'invalid_store',
        `schema ${schema} holds rows no store could have written: ${checked.problem}`,
      );
    return store;
  }

  // ---------------------------------------------------------------------------------------------
  // Commands

  /**
   * Executes one command: validates it (step 1; a malformed command touches nothing and opens no
   * transaction), then queues it for the next group (steps 1b to 3 of every command of a group
   * in one transaction, in queue order; GroupCommit.ts). Resolves after the group's COMMIT.
   * Never rejects for bad input; rejects for a failure of the database itself (a lost
   * connection, a failed COMMIT: then every command of its group rejects).
   */
  execute(command: unknown): Promise<Reply> {
    const parsed = parseCommand(command);
    if (!parsed.ok) return Promise.resolve(parsed.rejection);
    return this.groups.push(parsed.command);
  }

  /** What this store's transactions cost so far (for the benchmark's profile; GroupCommit.ts). */
  get traffic(): Traffic {
    return this.groups.traffic;
  }

  /**
   * The statements that open a transaction and read the counters: BEGIN and the meta row `FOR
   * UPDATE`, two statements, for the group's first command (a hook for the broken variants).
   */
  protected beginSql(_command: Command): string {
    return this.q.begin;
  }

  /**
   * The update that takes the meta row's lock for a transaction opened on rows read ahead, and
   * writes counters `to` into the row only while its version (xmin) and counters `c` are as they
   * were read (a hook for the tests' broken variants).
   */
  protected readAheadGuard(version: string, c: Counters, to: Counters): string {
    return inline(this.q.readAheadGuard, guardArgs(version, c, to));
  }

  /** The read-ahead guard as sent: prepared, unless a subclass changed `readAheadGuard`. */
  private guardStatement(version: string, c: Counters, to: Counters): string {
    if (!this.guardPrepared) return readAheadGuardSql(this.readAheadGuard(version, c, to));
    return this.p.exec('guard', guardArgs(version, c, to));
  }

  /**
   * Whether a claim or an ack alone in its group runs as one statement (FastPath.ts): only while
   * the store decides as the contract does (no subclass changed a decision or a hook of the
   * locked path, whose rules the functions repeat) and no fault point inside a transaction is armed.
   */
  private fastAllowed(): boolean {
    this.fastOk ??=
      !FAST_FAULTS_ARMED &&
      this.decisions === DECISIONS &&
      LOCKED_PATH_HOOKS.every((k) => this[k] === PostgresStore.prototype[k]);
    return this.fastOk;
  }
  private fastOk: boolean | undefined;

  /**
   * The statement of a claim or an ack run alone (FastPath.ts): a CALL of the schema's procedure
   * (a hook for the broken variants; any other command is never asked for).
   */
  protected fastSql(c: Command): string {
    return fastCallStatement(quoteIdent(this.schema), c);
  }

  /** The statement that reads the lowest-seq claimable job, locking it (a hook for the broken variants). */
  protected claimHeadSql(): string {
    return this.q.claimHead;
  }

  /** Runs one read of the transaction (with the writes held back before it, and `more` reads sent ahead after it); rows as `T`. */
  protected async read<T>(
    tx: Tx,
    sql: string,
    params: readonly unknown[],
    more: readonly (readonly [string, readonly unknown[]])[] = [],
  ): Promise<T[]> {
    return (await tx.read(
      inline(sql, params),
      more.map(([s, p]) => inline(s, p)),
    )) as T[];
  }

  /**
   * Holds a write back until the transaction's next message (Tx.ts), for subclasses (the store's
   * own writes say which job they leave, Prefetch.ts, and go to `tx.defer`); with `lost`, the write
   * is guarded (its text ends in RETURNING, and a write that returns no row fails the command with
   * `lost`'s error, checked by the server before COMMIT), and a `key` replaces an earlier held-back
   * write of the same key. The first write of a transaction passes the fault point after it.
   */
  protected write(
    tx: Tx,
    sql: string,
    params: readonly unknown[],
    lost?: (cause: unknown) => Error,
    key?: string,
  ): Promise<void> {
    tx.defer(inline(sql, params), lost, key);
    // A write named only by its text may touch any job: what BEGIN read answers nothing more.
    tx.prefetch.unknownWrite();
    return Promise.resolve();
  }

  /** Steps 1b (the clock), 2 and 3 of one command, inside its transaction: the core, driven asynchronously. */
  protected apply(tx: Tx, m: Counters, c: Command): Promise<Reply> {
    return runAsync(this.run(m, c), (request) => this.answer(tx, request));
  }

  /** The core's run of one command over counters `m` (a hook for the broken variants). */
  protected run(m: Counters, c: Command): CoreRun<Reply> {
    return runCommand({ cfg: this.cfg, decisions: this.decisions }, m, c);
  }

  // ---------------------------------------------------------------------------------------------
  // The core's requests, answered with this store's statements

  /** Answers one request of the core (impl/core/StorageRequest.ts) on the command's connection: from what BEGIN read when it can (Prefetch.ts), else with a read. */
  protected async answer(tx: Tx, r: StorageRequest): Promise<unknown> {
    const known = tx.prefetch;
    const p = this.p;
    switch (r.op) {
      case 'due':
        return known.due(r.now) ?? jobsOf(await tx.read(p.exec('due', [r.now])));
      case 'byId': {
        const hit = known.byId(r.id);
        return hit !== undefined ? (hit ?? undefined) : firstJob(await tx.read(p.exec('byId', [toBytes(r.id)])));
      }
      case 'byToken': {
        const hit = known.byToken(r.token);
        return hit !== undefined ? (hit ?? undefined) : firstJob(await tx.read(p.exec('byToken', [r.token])));
      }
      case 'claimHead': {
        const hit = known.claimHead();
        if (hit !== undefined) return hit ?? undefined;
        if (this.claimHeadPrepared) return firstJob(await tx.read(p.exec('claimHead', [1])));
        return firstJob(await this.read(tx, this.claimHeadSql(), []));
      }
      case 'accountHead': {
        const hit = known.accountHead(r.account);
        if (hit !== undefined) return hit ?? undefined;
        return (await tx.read<AccountHead>(p.exec('accountHead', [toBytes(r.account)])))[0];
      }
      case 'effect': {
        // The core asks for the balance next (a commit reads both): it travels with this read.
        const account = toBytes(r.account);
        const rows = await tx.read<{ amount: number }>(p.exec('effect', [account, toBytes(r.key)]), [
          p.exec('balance', [account]),
        ]);
        return rows[0]?.amount;
      }
      case 'balance':
        return (await tx.read<{ balance: number }>(p.exec('balance', [toBytes(r.account)])))[0]?.balance;
      case 'countRunning':
        return (await this.read<{ n: number }>(tx, this.q.countRunning, []))[0]?.n;
      case 'insertJob':
        return this.insert(tx, r.job);
      case 'saveJob':
        return this.save(tx, r.job, r.guard);
      case 'makeClaimable':
        tx.defer(p.exec('makeClaimable', [r.seq]));
        known.madeClaimable(r.seq);
        return undefined;
      case 'recordEffect':
        return this.recordEffect(tx, r.job, r.guard, r.balance, r.replaces);
      case 'setCounters': {
        const m = r.counters;
        // Only the last counters of a transaction matter: a later write replaces a held-back one.
        tx.defer(p.exec('setCounters', [m.clock, m.nextToken, m.nextSeq, m.unresolved]), undefined, 'counters');
        return undefined;
      }
    }
  }

  /** Inserts a newly admitted job. */
  protected async insert(tx: Tx, job: Job): Promise<void> {
    tx.prefetch.wrote(job);
    tx.defer(this.p.exec('insertJob', ROWS.insertValues(job)));
  }

  /**
   * Applies a job's effect: the ledger row (guarded by the delivery) and then the new balance.
   * The ledger was read under the meta row's lock and held no row, so an insert that adds none
   * has lost its delivery.
   */
  protected async recordEffect(tx: Tx, job: Job, guard: Guard, balance: number, replaces = false): Promise<void> {
    const account = toBytes(job.account);
    const params = [account, toBytes(job.key), job.amount, toBytes(job.id), guard.token, toBytes(guard.worker)];
    // The ledger and the balances hold no job row: what BEGIN read stays true.
    tx.defer(
      replaces ? inline(this.q.replaceEffect, params) : this.p.exec('insertEffect', params),
      (cause) => {
        const pair = `(${JSON.stringify(job.account)}, ${JSON.stringify(job.key)})`;
        return new PostgresStoreError(
          'lost_guard',
          `the ledger insert for token ${guard.token} found neither its delivery nor a row for ${pair}`,
          { cause },
        );
      },
      undefined,
      replaces ? undefined : (index) => this.p.exec('insertEffectChecked', [...params, String(index)]),
    );
    tx.defer(this.p.exec('setBalance', [account, balance]));
  }

  /** Writes a job's changing columns with its `due`; with `guard`, only while the row still holds that delivery. */
  protected async save(tx: Tx, job: Job, guard?: Guard): Promise<void> {
    const params = ROWS.saveValues(job);
    tx.prefetch.wrote(job);
    if (guard === undefined) {
      tx.defer(this.p.exec('saveJob', params));
      return;
    }
    const guarded = [...params, guard.token, toBytes(guard.worker)];
    tx.defer(
      this.p.exec('saveGuarded', guarded),
      (cause) =>
        new PostgresStoreError(
          'lost_guard',
          `job ${JSON.stringify(job.id)} no longer holds token ${guard.token} of ${JSON.stringify(guard.worker)}`,
          { cause },
        ),
      undefined,
      (index) => this.p.exec('saveChecked', [...guarded, String(index)]),
    );
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
    // A server that goes while the connection is taken fails its query: the event is not the process's.
    client.on?.('error', ignoreTakenError);
    let broken: Error | undefined;
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const meta = (await client.query<MetaRow>(this.q.meta)).rows[0];
      const jobRows = (await client.query<JobRow<Buffer>>(this.q.allJobs)).rows;
      const balanceRows = (await client.query<BalanceRow<Buffer>>(this.q.allBalances)).rows;
      const effectRows = (await client.query<EffectRow<Buffer>>(this.q.allEffects)).rows;
      // What it read may hold commits not flushed yet (the fast path's): the barrier's flush covers them.
      await client.query(`COMMIT;\nSELECT ${BARRIER_CALL}`);
      if (meta === undefined) throw new PostgresStoreError('invalid_store', `schema ${this.schema} lost its meta row`);
      return ROWS.snapshot(this.cfg, meta, jobRows, balanceRows, effectRows);
    } catch (error) {
      broken = error as Error;
      throw error;
    } finally {
      client.off?.('error', ignoreTakenError);
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
export type PostgresStoreClass<T extends PostgresStore = PostgresStore> = new (
  pool: PgPool,
  cfg: Config,
  schema: string,
) => T;

/** Creates `schema` with the store's tables and `Store`'s functions and fills it, in one transaction. */
async function build(
  pool: PgPool,
  schema: string,
  Store: PostgresStoreClass,
  fill: (client: PgPoolClient, q: Queries) => Promise<void>,
): Promise<void> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
    try {
      const s = quoteIdent(schema);
      await client.query(schemaSql(s, (Store as unknown as typeof PostgresStore).fastPathSql(s)));
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
