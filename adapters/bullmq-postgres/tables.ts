/**
 * The adapter's own tables and the query that reads BullMQ's job table back. Each adapter has a
 * schema of its own (`bullmq_jc_<16 hex digits>`): BullMQ's tables and functions, created there by
 * BullMQ's own `runMigrations`, and beside them the adapter's tables (prefixed `jobcheck_`). So no
 * two adapters share a row, a sequence or an advisory lock, and closing drops the schema.
 *
 * The adapter's tables hold only what the contract needs and BullMQ has no place for:
 * - `jobcheck_meta`: the config, the contract's clock (ticks) and its two counters (`nextToken`, `nextSeq`);
 * - `jobcheck_deliveries`: the contract's token -> the BullMQ job id and the lock token the claim passed to
 *   `getNextJob` (what a worker keeps in memory between fetch and settle), and the worker;
 * - `jobcheck_reasons`: why a job BullMQ moved to `failed` died, as the fail that moved it said
 *   (`permanent` or `attempts_exhausted`): BullMQ keeps the error text, not the category;
 * - `jobcheck_effects`, `jobcheck_balances`: the effect ledger a worker keeps, keyed (account, key).
 *
 * Status, attempts, lock, retry time, the last error and the payload are read from BullMQ's own
 * `job` row every time (`jobRows`); the contract's admission number travels in the job's data.
 */

/** The prefix of an adapter's schema. */
export const SCHEMA_PREFIX = 'bullmq_jc_';

/** The name of the one BullMQ queue in an adapter's schema. */
export const QUEUE = 'jobcheck-bullmq';

/** DDL of the adapter's tables in `s` (a quoted identifier the adapter made, BullMQ's schema). */
export function tablesSql(s: string): string {
  return `
    CREATE TABLE ${s}.jobcheck_meta (
      one boolean PRIMARY KEY DEFAULT true CHECK (one),
      config jsonb NOT NULL,
      clock bigint NOT NULL,
      next_token bigint NOT NULL,
      next_seq bigint NOT NULL
    );
    CREATE TABLE ${s}.jobcheck_deliveries (
      token bigint PRIMARY KEY,
      job text NOT NULL,
      lock_token text NOT NULL UNIQUE,
      worker text NOT NULL
    );
    CREATE TABLE ${s}.jobcheck_reasons (
      job text PRIMARY KEY,
      reason text NOT NULL
    );
    CREATE TABLE ${s}.jobcheck_effects (
      account text NOT NULL,
      key text NOT NULL,
      amount bigint NOT NULL,
      job text NOT NULL,
      token bigint NOT NULL,
      PRIMARY KEY (account, key)
    );
    CREATE TABLE ${s}.jobcheck_balances (
      account text PRIMARY KEY,
      balance bigint NOT NULL
    );
  `;
}

/** The job's data the adapter submits: the contract's payload and admission number. */
export interface JobData {
  readonly account: string;
  readonly key: string;
  readonly amount: number;
  readonly deadline: number;
  readonly seq: number;
}

/** One job as BullMQ's `job` table holds it (times in BullMQ's milliseconds). */
export interface BullmqRow {
  id: string;
  state: 'waiting' | 'active' | 'completed' | 'failed' | 'delayed' | 'waiting-children';
  data: JobData;
  attempts_started: number;
  lock_token: string | null;
  locked_until_ms: number | null;
  process_at_ms: number | null;
  failed_reason: string | null;
  processed_by: string | null;
}

/** Every job of the queue, straight from BullMQ's table in schema `s` (quoted). */
export const jobRows = (s: string): string =>
  `SELECT id, state::text AS state, data, attempts_started, lock_token, locked_until_ms, process_at_ms, failed_reason, processed_by FROM ${s}.job WHERE queue = '${QUEUE}'`;
