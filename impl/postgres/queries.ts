/**
 * The statements of a PostgreSQL store in its schema (schema.ts), and the rows they return: the
 * SQL of each (`queries`), the subset that runs prepared on each connection (`preparedTexts`,
 * Prepared.ts), and the decoding of the job rows they read (impl/durable/RowCodec.ts: strings as
 * bytea, strings.ts; `claimable` true or NULL). Pure.
 */
import { RowCodec } from '../durable/index.ts';
import type { Job, JobRow } from '../durable/index.ts';
import { fromBytes, toBytes } from './strings.ts';
import { guardedSqlAt, readAheadGuardSql } from './Tx.ts';

/** The rows of this store: strings as bytea (strings.ts), `claimable` true or NULL. */
export const ROWS = new RowCodec<Buffer>(fromBytes, toBytes, true);

/** The jobs of rows a job statement (`JOB_COLUMNS`) returned. */
export const jobsOf = (rows: readonly unknown[]): Job[] =>
  (rows as readonly JobRow<Buffer>[]).map((r) => ROWS.toJob(r));

/** The job of the first row a job statement returned, or undefined for none. */
export const firstJob = (rows: readonly unknown[]): Job | undefined =>
  rows[0] === undefined ? undefined : ROWS.toJob(rows[0] as JobRow<Buffer>);

/** Unresolved jobs of an account read with BEGIN (Prefetch.ts). */
export const HEADS_LIMIT = 3;

const JOB_COLUMNS =
  'seq, id, account, key, amount, deadline, status, attempts, token, owner, lease_until AS "leaseUntil", not_before AS "notBefore", reason, last_error AS "lastError", claimable';
const COUNTER_COLUMNS = 'clock, next_token AS "nextToken", next_seq AS "nextSeq", unresolved';
const META_COLUMNS = `layout, capacity, max_attempts AS "maxAttempts", lease_ticks AS "leaseTicks", backoff_base AS "backoffBase", backoff_cap AS "backoffCap", ${COUNTER_COLUMNS}`;

/** The SQL of every statement of a store in schema `s` (quoted). */
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
    /** A ledger row of a restore (no delivery to guard it). */
    restoreEffect: `INSERT INTO ${s}.effects (account, key, amount, job, token) VALUES ($1, $2, $3, $4, $5)`,
    insertMeta: `INSERT INTO ${s}.meta (id, layout, capacity, max_attempts, lease_ticks, backoff_base, backoff_cap, clock, next_token, next_seq, unresolved) VALUES (1, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
  } as const;
}

/** The statements of one store. */
export type Queries = ReturnType<typeof queries>;

/**
 * The statements of a store's commands that run prepared (Prepared.ts), by key: those of `queries`
 * with every parameter a `$n` (arrays and limits included), typed where the server cannot tell.
 */
export function preparedTexts(s: string, q: Queries) {
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
export type PreparedKey = keyof ReturnType<typeof preparedTexts>;
