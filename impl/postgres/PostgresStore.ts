/**
 * The job store on PostgreSQL: the contract of docs/contract.md (the same commands, replies,
 * rejection codes and canonical snapshot as impl/memory/JobStore and impl/sqlite/SqliteStore),
 * with its state in a schema of its own, for workers on many machines.
 *
 * - Validation is the contract's schema; steps 1b to 3 are the command core shared with the
 *   SQLite store (impl/core: a generator of storage requests over impl/decisions' pure
 *   decisions), driven asynchronously here (SQLite drives the same generator synchronously, so
 *   its hot path makes no promise); this file answers the requests with its statements.
 * - Commands are totally ordered: the contract has one logical clock and one token counter (both
 *   in the snapshot), kept in the meta row, and every transaction takes that row `FOR UPDATE`
 *   before it reads anything (`BEGIN ISOLATION LEVEL READ COMMITTED`, set explicitly, whatever the
 *   server's default), so READ COMMITTED sees the last commit. The lock is that order, as BEGIN
 *   IMMEDIATE is the SQLite store's. Stores in other processes or on other machines opening the
 *   same schema queue on it in the server.
 * - Group commit: the commands of one store object that wait while its transaction runs form the
 *   next group (GroupQueue.ts; GROUP_MAX at most), run through the core one after the other in
 *   one transaction under one meta row lock, the counters passed from each command to the next,
 *   and their replies are handed back only after that transaction's COMMIT: an acknowledged reply
 *   is durable, a failed COMMIT fails every command of the group, and the order inside the group
 *   (queue order) is the total order. Every command of a group was waiting before any of them took
 *   effect and none has replied before all have, so any order of them is a linearization. A
 *   failure before COMMIT rolls the group back and runs its commands again one per transaction,
 *   so that it lands on the command that caused it alone.
 * - Few round trips while the lock is held: with BEGIN and the lock travel the reads the group's
 *   commands will ask for (the due jobs, the first claimable jobs, each delivery's job by token
 *   and its account's first unresolved jobs, each submitted id), and the core's reads are answered
 *   from those rows with the transaction's own writes laid over them (Prefetch.ts), a read only
 *   when that answer is not certain. The writes the core needs no answer for wait and travel with
 *   the next read or with COMMIT, several statements a message, their parameters written as
 *   literals (Tx.ts, literal.ts). A group is then two round trips, whatever its size: BEGIN with
 *   its reads, then its writes with COMMIT; a commit command adds one (its ledger and balance
 *   reads, together), and so does a group with several guarded writes (commit, ack, fail): a
 *   single guarded write is checked by the server in the message with COMMIT, so that a lost guard
 *   stops it before COMMIT, and several are checked here between their message and COMMIT's,
 *   which measured faster than a server check for each (Tx.ts).
 * - One round trip a command when nobody else wrote since (the read-ahead path): a group does
 *   not read what its store already knows. The rows a transaction read and wrote (its Prefetch,
 *   which follows its own writes) are still the schema's rows after its COMMIT unless another
 *   transaction writes, and every writer of this layout changes the meta row whenever it writes
 *   (schema.ts's SCHEMA_VERSION), so the row's xmin is the schema's version. With COMMIT travel
 *   what that knowledge lacks for a likely next group (`readsBehind`: more claimable jobs when
 *   few are left, the next due jobs when the clock moved, the first unresolved jobs of the
 *   accounts of the deliveries just made), read after the writes and under the lock, and, on the
 *   locked path, the meta row's version. The next group of the store runs its commands on those
 *   rows and the counters committed, and sends BEGIN with a guarded `UPDATE meta … WHERE xmin =
 *   <version> AND <the counters>` (the lock, and the check that nobody wrote since) in front of
 *   its first message: when every read is answered, that is its only message (the guard writing
 *   the new counters itself, its writes, the reads behind, COMMIT), and the guard's row gives the
 *   transaction's id, the row's next version, so nothing reads it. A stale guard fails in the
 *   server, so nothing after it runs: the store rolls back and runs the group on the locked path
 *   below (correctness never rests on the rows kept), and backs off (the next 2, 4, … 64 groups
 *   locked) while other writers keep making them stale. A subclass that changes how a transaction
 *   opens or reads the claimable head (the broken variants of the locks) runs every group on the
 *   locked path, where its change applies. What was measured (claim + ack loops at 1 worker, this
 *   path against the two-round-trip one, side by side, on a shared machine at load 3 to 5): reading
 *   everything a next command might need behind every COMMIT (meta, due, claimable, tokens, heads:
 *   five statements more) cost the server more than the round trip it saved (192 against 265
 *   claims/s); keeping the rows already known and reading only what they lack, with the guard
 *   writing the counters, is what docs/durable-bench.md records: a lifecycle command 1,409 ->
 *   1,105 µs at synchronous_commit off and 2,113 -> 2,035 µs at on, claims/s 1.27x at 4 workers
 *   and 1.13x at 16, and the same median at 1 worker (421 against 420; pg-boss 479). At
 *   synchronous_commit on the COMMIT's flush is most of a single worker's command, the same on
 *   both paths and for pg-boss, which still led there. The rows kept and the backoff are
 *   ReadAhead.ts.
 * - Statements parsed and planned once per connection (Prepared.ts): the statements of the store's
 *   own commands are prepared on each connection before its first transaction for the store
 *   (`PREPARE`, one round trip), and the messages carry `EXECUTE name(<literals>)` in their place,
 *   several a message as before (a subclass that changes `beginSql`, `claimHeadSql` or
 *   `readAheadGuard`, a broken variant, sends its own text there). Where a single worker's
 *   command went, measured before this (claim + ack loops at 1 worker against pg-boss's fetch +
 *   complete, side by side, load 3 to 6):
 *   both sides flush once a command and write the same WAL (528 bytes a command here, 534 to 570
 *   for pg-boss, from pg_current_wal_lsn() around 3,000 commands), but every statement's text was
 *   parsed, analysed and planned again each time, and the server's CPU per command was 820 to 870
 *   µs against pg-boss's 800 to 890; this process's 570 to 590 against its 460 to 470 (the
 *   profile's largest part is the socket write that wakes the server, not the store's code).
 *   Prepared: the server's CPU 380 to 600 µs a command, this process's 340 to 450 (shorter
 *   messages, no statement text to build), the same WAL. One statement was still planned at every
 *   claim: the heads read behind it, whose arrays of tokens and accounts keep the server on custom
 *   plans; a claim's read of its one token's heads is a statement of its own (`headsOfToken`),
 *   which runs on one generic plan. docs/durable-bench.md records the result, side by side with
 *   the tree before this change at load 1.6 to 2.8: claims/s 374 -> 506 at 1 worker (pg-boss 359:
 *   1.41x, from 0.88x), 867 -> 1,112 at 4 (2.03x) and 2,505 -> 3,474 at 16 (6.00x); a lifecycle
 *   command 1,552 -> 1,402 µs at synchronous_commit on and 948 -> 807 µs at off.
 * - Why these and not a server-side function doing a whole command in one statement: the
 *   decisions stay in impl/decisions and the order of reads and writes in impl/core, shared with
 *   the SQLite and memory stores and checked against the model; a PL/pgSQL copy of them would be a
 *   second implementation to keep in step. Measured (docs/durable-bench.md, `npm run
 *   bench:durable:pg`, claim + ack loops against pg-boss's fetch + complete): with every command
 *   its own transaction, the meta lock held across about seven round trips and the COMMIT's flush,
 *   claims per second fell as workers were added. Grouping shares one lock, one flush and one
 *   connection among the waiting commands, and the reads sent with BEGIN make a group few round
 *   trips whatever its size, so claims per second rise with workers and pass pg-boss's at 4 and
 *   16. A single worker has nothing to group: what it waits for is its round trips, the server's
 *   statements and this process's CPU between them, and the flush (which pg-boss pays as well, once
 *   a statement). Two changes were measured for it, and both kept: the writes travel with COMMIT
 *   (two round trips a command, from three; its one guard check moved to the server for it), and the
 *   driver is loaded once (loadPg.ts: resolving it again for every column parser and string literal
 *   was half of this process's CPU per command). Workers that each open a store object of their
 *   own (separate processes or machines) get the fewer round trips but no grouping; they still
 *   queue on the meta row lock one command at a time.
 * - A claim takes the lowest-seq claimable job `FOR UPDATE`, not `SKIP LOCKED`: the contract
 *   says which job a claim gets (the lowest seq among the account heads), and skipping a row would
 *   hand out another; the per-account head rule is the `claimable` column, kept under the lock.
 * - Token guards: the writes of commit, ack and fail name the delivery's token in their WHERE
 *   (the job row `AND token = $t AND owner = $w`, the ledger insert `WHERE EXISTS` that row) and
 *   throw PostgresStoreError `lost_guard` if the row no longer matches.
 * - The ledger row is `INSERT … ON CONFLICT (account, key) DO NOTHING RETURNING`: read first
 *   under the meta row's lock, a repeat never reaches it, and a guarded insert that adds no row
 *   has lost its delivery (`lost_guard`). Guarded writes are checked before COMMIT runs: by the
 *   server in COMMIT's message when there is one, else by this process before COMMIT is sent (Tx.ts).
 * - `now` is always the command's own integer; the server's clock is never used.
 * - The fault points of impl/faults.ts: after BEGIN and the lock (once a transaction), after the
 *   first write has run (Tx.ts: when that point is armed, the first writes go in a message of
 *   their own, without COMMIT, so that it finds the transaction open), after COMMIT (before each reply
 *   is handed back). A killed client's open transaction is rolled back by the server when the
 *   connection drops.
 */
import type { PgPool, PgPoolClient } from './PgPool.ts';
import type { Command, Config, DeadReason, JobStatus, Reply, Snapshot } from '../../contract/index.ts';
import { JobcheckError, parseCommand, parseConfig, parseSnapshot } from '../../contract/index.ts';
import { runAsync, runCommand } from '../core/index.ts';
import type { AccountHead, CoreRun, Guard, StorageRequest } from '../core/index.ts';
import { DECISIONS, dueOf } from '../decisions/index.ts';
import type { Decisions } from '../decisions/index.ts';
import { FAULT_POINTS, faultArmed, faultPoint } from '../faults.ts';
import { jobRecord } from '../jobRecord.ts';
import type { Counters, Job } from '../rows.ts';
import { EMPTY_COUNTERS, metaValues, restoreRows, snapshotOf } from '../snapshotRows.ts';
import { checkStoredRows } from '../storedRows.ts';
import { PostgresStoreError } from './PostgresStoreError.ts';
import { SCHEMA_PREFIX, SCHEMA_VERSION, quoteIdent, schemaSql } from './schema.ts';
import { inline } from './literal.ts';
import type { Prefetch } from './Prefetch.ts';
import { GroupQueue } from './GroupQueue.ts';
import type { Queued } from './GroupQueue.ts';
import { Prepared } from './Prepared.ts';
import { CARRIED_MAX, ReadAheadKeeper, readAheadOf } from './ReadAhead.ts';
import type { Read, ReadAhead } from './ReadAhead.ts';
import { fromBytes, toBytes, toBytesOrNull } from './strings.ts';
import { StaleReadAhead, Tx, guardedSqlAt, readAheadGuardSql, xminOf } from './Tx.ts';

export type { Counters, Job } from '../rows.ts';
// Kept importable from here, where they were defined before the stores shared them.
export { dueOf } from '../decisions/index.ts';
export { jobRecord } from '../jobRecord.ts';

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

/** Unresolved jobs of an account read with BEGIN (Prefetch.ts). */
const HEADS_LIMIT = 3;

const JOB_COLUMNS =
  'seq, id, account, key, amount, deadline, status, attempts, token, owner, lease_until AS "leaseUntil", not_before AS "notBefore", reason, last_error AS "lastError", claimable';
const COUNTER_COLUMNS = 'clock, next_token AS "nextToken", next_seq AS "nextSeq", unresolved';
const META_COLUMNS = `layout, capacity, max_attempts AS "maxAttempts", lease_ticks AS "leaseTicks", backoff_base AS "backoffBase", backoff_cap AS "backoffCap", ${COUNTER_COLUMNS}`;

/** The SQL of every statement of a store in schema `s` (quoted); exported for the benchmark. */
export function queries(s: string) {
  return {
    begin: `BEGIN ISOLATION LEVEL READ COMMITTED; SELECT ${COUNTER_COLUMNS} FROM ${s}.meta WHERE id = 1 FOR UPDATE`,
    /** The meta row's version (its xmin: every transaction that writes changes the row) and counters, read behind a COMMIT. */
    metaVersion: `SELECT xmin::text AS version, ${COUNTER_COLUMNS} FROM ${s}.meta WHERE id = 1`,
    /** The lock of a transaction opened on rows read ahead, taken only while the meta row is as they left it. */
    readAheadGuard: `UPDATE ${s}.meta SET clock = $6, next_token = $7, next_seq = $8, unresolved = $9 WHERE id = 1 AND xmin = $1::xid AND clock = $2 AND next_token = $3 AND next_seq = $4 AND unresolved = $5 RETURNING id`,
    /** Changes the meta row's version (a transaction that wrote but left the counters as they were). */
    touchMeta: `UPDATE ${s}.meta SET clock = clock WHERE id = 1`,
    claimableFirst: `SELECT ${JOB_COLUMNS} FROM ${s}.jobs WHERE claimable ORDER BY seq LIMIT $1`,
    dueFirst: `SELECT ${JOB_COLUMNS} FROM ${s}.jobs WHERE due IS NOT NULL ORDER BY due LIMIT $1`,
    setCounters: `UPDATE ${s}.meta SET clock = $1, next_token = $2, next_seq = $3, unresolved = $4 WHERE id = 1`,
    due: `SELECT ${JOB_COLUMNS} FROM ${s}.jobs WHERE due IS NOT NULL AND due <= $1::bigint`,
    byId: `SELECT ${JOB_COLUMNS} FROM ${s}.jobs WHERE id = $1`,
    byToken: `SELECT ${JOB_COLUMNS} FROM ${s}.jobs WHERE token = $1::bigint`,
    /** Followed by an array of tokens in parentheses. */
    byTokens: `SELECT ${JOB_COLUMNS} FROM ${s}.jobs WHERE token = ANY`,
    /** Followed by an array of ids in parentheses. */
    byIds: `SELECT ${JOB_COLUMNS} FROM ${s}.jobs WHERE id = ANY`,
    /** The first unresolved jobs of the accounts of the jobs holding $TOKENS and of the accounts $ACCOUNTS (each an array). */
    heads: `SELECT a.account, j.seq, j.status FROM (SELECT account FROM ${s}.jobs WHERE token = ANY($TOKENS) UNION SELECT unnest($ACCOUNTS)) a CROSS JOIN LATERAL (SELECT seq, status FROM ${s}.jobs WHERE account = a.account AND due IS NOT NULL ORDER BY seq LIMIT ${HEADS_LIMIT}) j ORDER BY a.account, j.seq`,
    claimHead: `SELECT ${JOB_COLUMNS} FROM ${s}.jobs WHERE claimable ORDER BY seq LIMIT 1 FOR UPDATE`,
    accountHead: `SELECT seq, status FROM ${s}.jobs WHERE account = $1 AND due IS NOT NULL ORDER BY seq LIMIT 1`,
    insertJob: `INSERT INTO ${s}.jobs (seq, id, account, key, amount, deadline, status, attempts, token, owner, lease_until, not_before, reason, last_error, due, claimable) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
    saveJob: `UPDATE ${s}.jobs SET status = $1, attempts = $2, token = $3, owner = $4, lease_until = $5, not_before = $6, reason = $7, last_error = $8, due = $9, claimable = $10 WHERE seq = $11`,
    saveGuarded: `UPDATE ${s}.jobs SET status = $1, attempts = $2, token = $3, owner = $4, lease_until = $5, not_before = $6, reason = $7, last_error = $8, due = $9, claimable = $10 WHERE seq = $11 AND token = $12::bigint AND owner = $13 RETURNING seq`,
    makeClaimable: `UPDATE ${s}.jobs SET claimable = true WHERE seq = $1`,
    effect: `SELECT amount FROM ${s}.effects WHERE account = $1 AND key = $2`,
    balance: `SELECT balance FROM ${s}.balances WHERE account = $1`,
    setBalance: `INSERT INTO ${s}.balances (account, balance) VALUES ($1, $2) ON CONFLICT (account) DO UPDATE SET balance = excluded.balance`,
    insertEffect: `INSERT INTO ${s}.effects (account, key, amount, job, token) SELECT $1, $2, $3, $4, $5::bigint WHERE EXISTS (SELECT 1 FROM ${s}.jobs WHERE token = $5::bigint AND owner = $6) ON CONFLICT (account, key) DO NOTHING RETURNING amount`,
    /** Only for a broken commit plan that overwrites a ledger row (the contract's never does). */
    replaceEffect: `INSERT INTO ${s}.effects (account, key, amount, job, token) SELECT $1, $2, $3, $4, $5::bigint WHERE EXISTS (SELECT 1 FROM ${s}.jobs WHERE token = $5::bigint AND owner = $6) ON CONFLICT (account, key) DO UPDATE SET amount = excluded.amount, job = excluded.job, token = excluded.token RETURNING amount`,
    /** Only for a broken admission that asks how many jobs run (the contract's never does). */
    countRunning: `SELECT count(*)::integer AS n FROM ${s}.jobs WHERE token IS NOT NULL`,
    meta: `SELECT ${META_COLUMNS} FROM ${s}.meta WHERE id = 1`,
    allJobs: `SELECT ${JOB_COLUMNS} FROM ${s}.jobs ORDER BY seq`,
    allBalances: `SELECT account, balance FROM ${s}.balances`,
    allEffects: `SELECT account, key, amount, job, token FROM ${s}.effects`,
    insertMeta: `INSERT INTO ${s}.meta (id, layout, capacity, max_attempts, lease_ticks, backoff_base, backoff_cap, clock, next_token, next_seq, unresolved) VALUES (1, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
  } as const;
}

/** The statements of one store. */
export type Queries = ReturnType<typeof queries>;

/**
 * The statements of a store's commands that run prepared (Prepared.ts), by key: those of `queries`
 * with every parameter a `$n` (arrays and limits included), typed where the server cannot tell.
 */
function preparedTexts(s: string, q: Queries) {
  return {
    lock: `SELECT ${COUNTER_COLUMNS} FROM ${s}.meta WHERE id = 1 FOR UPDATE`,
    guard: readAheadGuardSql(q.readAheadGuard),
    metaVersion: q.metaVersion,
    touchMeta: q.touchMeta,
    setCounters: q.setCounters,
    claimable: q.claimableFirst,
    claimHead: `SELECT ${JOB_COLUMNS} FROM ${s}.jobs WHERE claimable ORDER BY seq LIMIT $1 FOR UPDATE`,
    dueFirst: q.dueFirst,
    due: q.due,
    byId: q.byId,
    byToken: q.byToken,
    byTokens: `${q.byTokens}($1::bigint[])`,
    byIds: `${q.byIds}($1::bytea[])`,
    heads: q.heads.replace('$TOKENS', '$1::bigint[]').replace('$ACCOUNTS', '$2::bytea[]'),
    // The heads of one token's account (a claim's, read behind its COMMIT): the same rows as
    // `heads` for that token alone, in a form whose plan does not depend on its argument, so that
    // the server keeps one generic plan instead of planning the lateral join again each time.
    headsOfToken: `SELECT j.account, j.seq, j.status FROM ${s}.jobs t CROSS JOIN LATERAL (SELECT account, seq, status FROM ${s}.jobs WHERE account = t.account AND due IS NOT NULL ORDER BY seq LIMIT ${HEADS_LIMIT}) j WHERE t.token = $1::bigint ORDER BY j.seq`,
    accountHead: q.accountHead,
    insertJob: q.insertJob,
    saveJob: q.saveJob,
    saveGuarded: q.saveGuarded,
    saveChecked: guardedSqlAt(q.saveGuarded, 14),
    makeClaimable: q.makeClaimable,
    effect: q.effect,
    balance: q.balance,
    setBalance: q.setBalance,
    insertEffect: q.insertEffect,
    insertEffectChecked: guardedSqlAt(q.insertEffect, 7),
  } as const;
}

/** The keys of a store's prepared statements. */
type PreparedKey = keyof ReturnType<typeof preparedTexts>;

/** The job of the first row, or undefined for none. */
const jobOf = (rows: readonly JobRow[]): Job | undefined => (rows[0] === undefined ? undefined : toJob(rows[0]));

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

/** Whether JOBCHECK_FAULT arms after-begin in this process: a transaction then opens in a message of its own. */
const AFTER_BEGIN_ARMED = faultArmed(FAULT_POINTS.afterBegin);

/**
 * Whether JOBCHECK_FAULT arms after-first-write in this process: the counters are then written by
 * a write of their own, as on the locked path, so that a command whose only write is its counters
 * still passes that point (Tx.ts) rather than writing them with the guard in its opening.
 */
const FIRST_WRITE_ARMED = faultArmed(FAULT_POINTS.afterFirstWrite);

/** What a failed transaction leaves for its group: whether COMMIT was in flight, and a broken connection. */
interface Outcome {
  committing: boolean;
  broken: Error | undefined;
}

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
  /** The commands waiting for their group (GroupQueue.ts). */
  private readonly groupQueue: GroupQueue;
  private roundTrips = 0;
  private groups = 0;
  private commands = 0;
  private heldMs = 0;
  /** The clock as this store's last transaction committed it (-1 before any). */
  private lastClock = -1;
  /** The rows read behind this store's last COMMIT, for the next group (ReadAhead.ts). */
  private readonly readAhead = new ReadAheadKeeper();
  /**
   * Whether groups may open on rows read ahead: not when a subclass changes how a transaction
   * opens or reads the claimable head (the broken variants of the lock), which only the locked
   * path runs.
   */
  private readonly readAheadAllowed =
    this.beginSql === PostgresStore.prototype.beginSql && this.claimHeadSql === PostgresStore.prototype.claimHeadSql;
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
    this.groupQueue = new GroupQueue(pool, (client, group) => this.runGroup(client, group));
  }

  /** A new, empty store in a new schema. Throws JobcheckError `invalid_config` for a bad config. */
  static async create<T extends PostgresStore>(this: PostgresStoreClass<T>, pool: PgPool, config: unknown): Promise<T> {
    const cfg = parseConfig(config);
    const schema = newSchemaName();
    await build(pool, schema, async (client, q) => {
      await client.query(q.insertMeta, [SCHEMA_VERSION, ...metaValues(cfg, EMPTY_COUNTERS)]);
    });
    return new this(pool, cfg, schema);
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
    await build(pool, schema, async (client, q) => {
      const { rows, unresolved } = restoreRows(s);
      for (const r of rows) {
        await client.query(q.insertJob, [
          r.seq,
          toBytes(r.id),
          toBytes(r.account),
          toBytes(r.key),
          r.amount,
          r.deadline,
          r.status,
          r.attempts,
          r.token,
          toBytesOrNull(r.owner ?? undefined),
          r.leaseUntil,
          r.notBefore,
          r.reason,
          toBytesOrNull(r.lastError ?? undefined),
          r.due,
          r.claimable ? true : null,
        ]);
      }
      const c = s.config;
      await client.query(q.insertMeta, [
        SCHEMA_VERSION,
        ...metaValues(c, { clock: s.clock, nextToken: s.nextToken, nextSeq: s.nextSeq, unresolved }),
      ]);
      for (const [account, balance] of Object.entries(s.balances))
        await client.query(q.setBalance, [toBytes(account), balance]);
      for (const [account, ledger] of Object.entries(s.effects)) {
        for (const [key, e] of Object.entries(ledger)) {
          await client.query(
            `INSERT INTO ${quoteIdent(schema)}.effects (account, key, amount, job, token) VALUES ($1, $2, $3, $4, $5)`,
            [toBytes(account), toBytes(key), e.amount, toBytes(e.job), e.token],
          );
        }
      }
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
    const rows = (await pool.query(queries(quoteIdent(schema)).meta)).rows as MetaRow[];
    const meta = rows[0];
    if (meta === undefined)
      throw new PostgresStoreError('no_store', `schema ${schema} holds no job store (its meta row is missing)`);
    if (meta.layout !== SCHEMA_VERSION)
      throw new PostgresStoreError(
        'schema_mismatch',
        `schema ${schema} holds a store of layout ${JSON.stringify(meta.layout)}, not ${SCHEMA_VERSION}`,
      );
    let cfg: Config;
    try {
      cfg = parseConfig({
        capacity: meta.capacity,
        maxAttempts: meta.maxAttempts,
        leaseTicks: meta.leaseTicks,
        backoffBase: meta.backoffBase,
        backoffCap: meta.backoffCap,
      });
    } catch (error) {
      // The config of a stored store is the schema's fault, not the caller's: not the caller's `invalid_config`.
      if (error instanceof JobcheckError)
        throw new PostgresStoreError(
          'invalid_store',
          `schema ${schema} holds a meta row no store could have written: ${error.message}`,
          { cause: error },
        );
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
  static async resume<T extends PostgresStore>(this: PostgresStoreClass<T>, pool: PgPool, schema: string): Promise<T> {
    const store = (await PostgresStore.open.call(this, pool, schema)) as T;
    const s = quoteIdent(schema);
    let checked: ReturnType<typeof checkStoredRows>;
    try {
      const rows = (await pool.query(`SELECT seq, due, claimable FROM ${s}.jobs`)).rows as {
        seq: unknown;
        due: unknown;
        claimable: unknown;
      }[];
      const meta = (await pool.query(`SELECT unresolved FROM ${s}.meta WHERE id = 1`)).rows as {
        unresolved: unknown;
      }[];
      const derived = rows.map((r) => ({
        seq: Number(r.seq),
        due: r.due === null ? null : Number(r.due),
        claimable: r.claimable === true,
      }));
      checked = checkStoredRows(await store.snapshot(), derived, Number(meta[0]?.unresolved));
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
   * in one transaction, in queue order; see the header). Resolves after the group's COMMIT.
   * Never rejects for bad input; rejects for a failure of the database itself (a lost
   * connection, a failed COMMIT: then every command of its group rejects).
   */
  execute(command: unknown): Promise<Reply> {
    const parsed = parseCommand(command);
    if (!parsed.ok) return Promise.resolve(parsed.rejection);
    return this.groupQueue.push(parsed.command);
  }

  /**
   * One group on `client`: in one transaction opened on the rows read behind this store's last
   * COMMIT when it has them (`transaction`), else, or when those rows were stale, in one on the
   * locked path; then each reply. A failure before COMMIT rolls back and, for a group of several,
   * puts its commands back at the queue's head to run alone (so the failure lands on the command
   * that caused it, and the others, which took no effect, run again); a failure of the COMMIT
   * message fails them all. Settles every command of the group; never rejects.
   */
  private async runGroup(client: PgPoolClient, group: Queued[]): Promise<void> {
    const outcome: Outcome = { committing: false, broken: undefined };
    let replies: Reply[] | undefined;
    try {
      const cached = this.readAhead.take();
      if (cached !== undefined) {
        try {
          replies = await this.transaction(client, group, cached, outcome);
        } catch (error) {
          if (!(error instanceof StaleReadAhead) || outcome.broken !== undefined) throw error;
          this.readAhead.stale();
        }
      }
      replies ??= await this.transaction(client, group, undefined, outcome);
    } catch (error) {
      outcome.broken ??= error as Error;
      if (outcome.committing || group.length === 1) for (const q of group) q.reject(error);
      else this.groupQueue.retryAlone(group);
      return;
    } finally {
      // A connection whose transaction failed is dropped rather than reused.
      client.release(outcome.broken);
    }
    group.forEach((q, i) => {
      faultPoint(FAULT_POINTS.afterCommit);
      q.resolve((replies as Reply[])[i] as Reply);
    });
  }

  /**
   * One transaction of a group, each command through the core in order, COMMIT with the reads
   * behind it (`readsBehind`), and the replies. On the locked path (`cached` undefined): BEGIN and
   * the meta row's lock with the reads its commands will ask for (`readsAhead`). Opened on rows
   * read ahead (`cached`): the counters and rows come from them, and BEGIN with the guarded lock
   * (`readAheadGuard`) travels in front of the first message, a message of its own only when the
   * group needs reads those rows do not hold (then with them) or after-begin is armed; a stale
   * guard fails with StaleReadAhead and nothing of the transaction ran. A failure before COMMIT
   * rolls back; `outcome` says whether COMMIT was in flight and whether the connection broke.
   */
  private async transaction(
    client: PgPoolClient,
    group: readonly Queued[],
    cached: ReadAhead | undefined,
    outcome: Outcome,
  ): Promise<Reply[]> {
    const tx = new Tx(client, cached?.prefetch);
    const replies: Reply[] = [];
    try {
      if (await this.p.ensure(client)) this.roundTrips += 1;
      const commands = group.map((q) => q.command);
      let m: Counters;
      // BEGIN and the guarded lock writing counters `to`, for a transaction opened on rows read ahead.
      let opening: ((to: Counters) => string) | undefined;
      if (cached === undefined) {
        const ahead = this.readsAhead(commands);
        const rows = await tx.begin(
          this.lockPrepared
            ? `BEGIN ISOLATION LEVEL READ COMMITTED; ${this.p.exec('lock')}`
            : this.beginSql(commands[0] as Command),
          ahead.map((a) => a.sql),
        );
        faultPoint(FAULT_POINTS.afterBegin);
        m = rows[0]?.[0] as Counters;
        ahead.forEach((a, i) => {
          a.keep(tx.prefetch, rows[1 + i] ?? []);
        });
      } else {
        m = { ...cached.counters };
        opening = (to: Counters): string =>
          `BEGIN ISOLATION LEVEL READ COMMITTED; ${this.guardStatement(cached.version, cached.counters, to)}`;
        const ahead = this.readsAhead(commands, tx.prefetch);
        if (ahead.length > 0 || AFTER_BEGIN_ARMED) {
          const rows = await tx.begin(
            opening(cached.counters),
            ahead.map((a) => a.sql),
          );
          tx.openedRows = rows[0] ?? [];
          faultPoint(FAULT_POINTS.afterBegin);
          ahead.forEach((a, i) => {
            a.keep(tx.prefetch, rows[1 + i] ?? []);
          });
        } else tx.beginLater(opening(cached.counters));
      }
      const clock = m.clock;
      for (const command of commands) replies.push(await this.apply(tx, m, command));
      // Every transaction that writes changes the meta row, so that its version tells other stores.
      if (cached === undefined && tx.anyWrite && !tx.metaWritten) tx.defer(this.p.exec('touchMeta'));
      // Opened on rows read ahead and nothing sent yet: the guard writes the new counters itself,
      // one statement fewer in the only message.
      if (opening !== undefined && !FIRST_WRITE_ARMED && tx.openingHeld && tx.dropPending('counters'))
        tx.beginLater(opening(m));
      // Opened on rows read ahead, the guard wrote the meta row: its version is this transaction's id.
      const behind = this.readsBehind(tx, commands.length, m.clock > clock ? m.clock : undefined, cached !== undefined);
      const rows = await tx.commit((behind ?? []).map((b) => b.sql));
      this.lastClock = m.clock;
      if (cached !== undefined) this.readAhead.fresh();
      const version = cached === undefined ? undefined : xminOf(tx.openedRows);
      this.readAhead.keep(
        behind === undefined || (cached !== undefined && version === undefined)
          ? undefined
          : readAheadOf(behind, rows, tx.prefetch, m, version),
      );
      return replies;
    } catch (error) {
      outcome.committing = tx.committing;
      if (!tx.committing) await client.query('ROLLBACK').catch((e: unknown) => (outcome.broken = e as Error));
      throw error;
    } finally {
      this.roundTrips += tx.roundTrips;
      this.groups += 1;
      this.commands += group.length;
      this.heldMs += tx.heldMs;
    }
  }

  /**
   * The reads that travel with a COMMIT, so that the next group can open on what this one read
   * and wrote (none when it will not: while backing off, for a subclass that changes the lock,
   * after a write Prefetch could not follow, past CARRIED_MAX): the meta row's version first
   * unless `versionKnown` (the transaction opened on rows read ahead: its guard's row gives it);
   * then only what that knowledge lacks for a likely next group: more claimable jobs when fewer
   * than this group's size plus one are left (eight at least), the jobs due next when this group
   * moved the clock (to `movedTo`) and the next `now` would find them unknown, and the first
   * unresolved jobs of the accounts of the jobs holding the tokens this group's writes left (the
   * next ack or fail of each). Those jobs are known already: this group wrote them.
   */
  private readsBehind(tx: Tx, size: number, movedTo: number | undefined, versionKnown: boolean): Read[] | undefined {
    const known = tx.prefetch;
    const { followed, tokens } = known.writtenTokens();
    if (!followed || !this.readAheadAllowed || this.readAhead.backingOff || known.size > CARRIED_MAX) return undefined;
    const p = this.p;
    const out: Read[] = [];
    if (!versionKnown) out.push({ sql: p.exec('metaVersion'), keep: () => undefined });
    if (!known.knowsClaimable(size + 1)) {
      const limit = Math.max(8, size + 1);
      out.push({
        sql: p.exec('claimable', [limit]),
        keep: (p, rows) => p.setClaimable((rows as JobRow[]).map(toJob), limit),
      });
    }
    if (movedTo !== undefined && !known.knowsDue(movedTo + 1)) {
      const limit = Math.max(4, size + 1);
      out.push({
        sql: p.exec('dueFirst', [limit]),
        keep: (p, rows) => p.setDueFirst((rows as JobRow[]).map(toJob), limit),
      });
    }
    for (const t of tokens) known.knowToken(t);
    const heads = tokens.filter((t) => {
      const job = known.byToken(t);
      return job !== undefined && job !== null && !known.knowsHeads(job.account);
    });
    if (heads.length > 0) out.push(...this.tokenReads([], heads, []));
    return out;
  }

  /** The jobs holding `tokens`, and the first unresolved jobs of the accounts of those holding `resolving` and of `accounts`. */
  private tokenReads(tokens: readonly number[], resolving: readonly number[], accounts: readonly string[]): Read[] {
    const p = this.p;
    const out: Read[] = [];
    if (tokens.length > 0) {
      out.push({
        sql: p.exec('byTokens', [tokens]),
        keep: (p, rows) => {
          const found = new Map((rows as JobRow[]).map((r) => [r.token, toJob(r)]));
          for (const t of tokens) p.setToken(t, found.get(t));
        },
      });
    }
    if (resolving.length > 0 || accounts.length > 0) {
      out.push({
        sql:
          resolving.length === 1 && accounts.length === 0
            ? p.exec('headsOfToken', resolving)
            : p.exec('heads', [resolving, accounts.map(toBytes)]),
        keep: (p, rows) => {
          const by = new Map<string, AccountHead[]>(accounts.map((a) => [a, []]));
          for (const r of rows as { account: Buffer; seq: number; status: JobStatus }[]) {
            const a = fromBytes(r.account);
            by.set(a, [...(by.get(a) ?? []), { seq: r.seq, status: r.status }]);
          }
          for (const [a, heads] of by) p.setHeads(a, heads, HEADS_LIMIT);
        },
      });
    }
    return out;
  }

  /**
   * The reads sent with BEGIN for a group (Prefetch.ts says how they answer the core's reads
   * later): the jobs due by the group's latest `now` (unless no `now` passes the clock this store
   * last committed); the first claimable jobs, one more than the group has claims; the jobs
   * holding the tokens of its commits, acks and fails, with the first unresolved jobs of the
   * accounts of its acks and fails; the jobs of its submitted ids, with the first unresolved jobs
   * of their accounts. A read that turns out not to be needed costs the server a lookup,
   * never a round trip. With `known` (a transaction opened on rows read ahead), only the reads
   * those rows cannot answer.
   */
  protected readsAhead(commands: readonly Command[], known?: Prefetch): Read[] {
    const p = this.p;
    const now = Math.max(...commands.map((c) => c.now));
    const submits = commands.flatMap((c) => (c.type === 'submit' ? [c] : []));
    const claims = commands.filter((c) => c.type === 'claim').length;
    const out: Read[] = [];
    // The clock never goes back: a group whose every `now` is at most the clock this store last
    // committed will not ask for the due jobs.
    if (now > this.lastClock && known?.knowsDue(now) !== true)
      out.push({ sql: p.exec('due', [now]), keep: (k, rows) => k.setDue(now, (rows as JobRow[]).map(toJob)) });
    if (claims > 0 && known?.knowsClaimable(claims + 1) !== true) {
      const limit = claims + 1;
      out.push({
        sql: this.claimHeadPrepared
          ? p.exec('claimHead', [limit])
          : this.claimHeadSql().replace(/ LIMIT 1\b/, ` LIMIT ${limit}`),
        keep: (p, rows) => p.setClaimable((rows as JobRow[]).map(toJob), limit),
      });
    }
    const accounts = [...new Set(submits.map((c) => c.account))];
    // Rows read ahead answer a token whose job is known, and its account's heads when those were read too.
    const unknown = (t: number): boolean => known?.byToken(t) === undefined;
    const headsUnknown = (t: number): boolean => {
      const job = known?.byToken(t);
      if (job === undefined) return true;
      return job !== null && known?.knowsHeads(job.account) !== true;
    };
    const tokens = [...new Set(commands.flatMap((c) => ('token' in c ? [c.token] : [])))].filter(unknown);
    // Only an ack or a fail may resolve its job and ask for its account's next one.
    const resolving = [
      ...new Set(commands.flatMap((c) => (c.type === 'ack' || c.type === 'fail' ? [c.token] : []))),
    ].filter(headsUnknown);
    out.push(...this.tokenReads(tokens, resolving, accounts));
    if (submits.length > 0) {
      const ids = [...new Set(submits.map((c) => c.id))];
      out.push({
        sql: p.exec('byIds', [ids.map(toBytes)]),
        keep: (k, rows) => {
          const found = new Map((rows as JobRow[]).map((r) => [fromBytes(r.id), toJob(r)]));
          for (const id of ids) k.setId(id, found.get(id));
        },
      });
    }
    return out;
  }

  /**
   * What this store's transactions cost so far (for the benchmark's profile): round trips to the
   * server, groups (transactions) and the commands in them (a group failed before COMMIT counts
   * again when its commands rerun), and milliseconds from BEGIN sent to COMMIT answered, summed
   * over the committed groups.
   */
  get traffic(): {
    readonly roundTrips: number;
    readonly groups: number;
    readonly commands: number;
    readonly heldMs: number;
    readonly readAheadGroups: number;
    readonly staleGroups: number;
  } {
    return {
      roundTrips: this.roundTrips,
      groups: this.groups,
      commands: this.commands,
      heldMs: this.heldMs,
      readAheadGroups: this.readAhead.groups,
      staleGroups: this.readAhead.staleGroups,
    };
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
        return known.due(r.now) ?? ((await tx.read(p.exec('due', [r.now]))) as JobRow[]).map(toJob);
      case 'byId': {
        const hit = known.byId(r.id);
        return hit !== undefined
          ? (hit ?? undefined)
          : jobOf((await tx.read(p.exec('byId', [toBytes(r.id)]))) as JobRow[]);
      }
      case 'byToken': {
        const hit = known.byToken(r.token);
        return hit !== undefined
          ? (hit ?? undefined)
          : jobOf((await tx.read(p.exec('byToken', [r.token]))) as JobRow[]);
      }
      case 'claimHead': {
        const hit = known.claimHead();
        if (hit !== undefined) return hit ?? undefined;
        if (this.claimHeadPrepared) return jobOf((await tx.read(p.exec('claimHead', [1]))) as JobRow[]);
        return jobOf(await this.read<JobRow>(tx, this.claimHeadSql(), []));
      }
      case 'accountHead': {
        const hit = known.accountHead(r.account);
        if (hit !== undefined) return hit ?? undefined;
        return (
          (await tx.read(p.exec('accountHead', [toBytes(r.account)]))) as { seq: number; status: JobStatus }[]
        )[0];
      }
      case 'effect': {
        // The core asks for the balance next (a commit reads both): it travels with this read.
        const account = toBytes(r.account);
        const rows = (await tx.read(p.exec('effect', [account, toBytes(r.key)]), [p.exec('balance', [account])])) as {
          amount: number;
        }[];
        return rows[0]?.amount;
      }
      case 'balance':
        return ((await tx.read(p.exec('balance', [toBytes(r.account)]))) as { balance: number }[])[0]?.balance;
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
    const params = [
      job.seq,
      toBytes(job.id),
      toBytes(job.account),
      toBytes(job.key),
      job.amount,
      job.deadline,
      job.status,
      job.attempts,
    ];
    tx.prefetch.wrote(job);
    tx.defer(
      this.p.exec('insertJob', [
        ...params,
        null,
        null,
        null,
        null,
        null,
        null,
        dueOf(job),
        job.claimable ? true : null,
      ]),
    );
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
    const params: unknown[] = [
      job.status,
      job.attempts,
      job.token,
      toBytesOrNull(job.owner),
      job.leaseUntil,
      job.notBefore,
      job.reason,
      toBytesOrNull(job.lastError),
      dueOf(job),
      job.claimable ? true : null,
      job.seq,
    ];
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
    let broken: Error | undefined;
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const meta = (await client.query(this.q.meta)).rows[0] as MetaRow;
      const jobRows = (await client.query(this.q.allJobs)).rows as JobRow[];
      const balanceRows = (await client.query(this.q.allBalances)).rows as { account: Buffer; balance: number }[];
      const effectRows = (await client.query(this.q.allEffects)).rows as {
        account: Buffer;
        key: Buffer;
        amount: number;
        job: Buffer;
        token: number;
      }[];
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
export type PostgresStoreClass<T extends PostgresStore = PostgresStore> = new (
  pool: PgPool,
  cfg: Config,
  schema: string,
) => T;

/** The canonical snapshot of a store's rows. Pure. */
function assemble(
  cfg: Config,
  meta: MetaRow,
  jobRows: readonly JobRow[],
  balanceRows: readonly { account: Buffer; balance: number }[],
  effectRows: readonly { account: Buffer; key: Buffer; amount: number; job: Buffer; token: number }[],
): Snapshot {
  return snapshotOf(
    cfg,
    meta,
    jobRows.map((row) => ({ id: fromBytes(row.id), record: jobRecord(toJob(row)) })),
    balanceRows.map((r) => ({ account: fromBytes(r.account), balance: r.balance })),
    effectRows.map((r) => ({
      account: fromBytes(r.account),
      key: fromBytes(r.key),
      effect: { amount: r.amount, job: fromBytes(r.job), token: r.token },
    })),
  );
}

/** Creates `schema` with the store's tables and fills it, in one transaction. */
async function build(
  pool: PgPool,
  schema: string,
  fill: (client: PgPoolClient, q: Queries) => Promise<void>,
): Promise<void> {
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
