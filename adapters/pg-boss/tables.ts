/**
 * The adapter's own tables, beside pg-boss's in the same schema (one schema per adapter instance),
 * and the query that reads pg-boss's job table back as the contract's job records.
 *
 * They hold only what the contract needs and pg-boss has no place for:
 * - `jobcheck_meta`: the contract's clock (the test clock's time in ticks), its two counters, and
 *   the config's capacity (reported back in the snapshot, never enforced);
 * - `jobcheck_ids`: the contract's job id -> the uuid pg-boss knows the job by, and its `seq`;
 * - `jobcheck_claims`: the contract's token -> the attempt pg-boss handed out (job uuid and
 *   `retryCount`, the pair pg-boss fences a settle on), the worker that fetched it and the data it
 *   fetched (what a worker holds in memory between fetch and settle);
 * - `jobcheck_effects`, `jobcheck_balances`: the effect ledger a worker keeps, keyed
 *   (account, key), written in one transaction.
 *
 * Nothing here is a second copy of a job's lifecycle: status, attempts, lease, backoff and the last
 * error are read from pg-boss's own columns every time (see `JOB_ROWS`).
 */

/** The name the adapter's queue has inside its schema. */
export const QUEUE = 'jobcheck';

/**
 * Tick 0 as a wall time: 2026-01-01T00:00:00Z, in seconds. One tick is one second, the unit of every
 * time pg-boss stores (expireInSeconds, retryDelay, retryDelayMax).
 */
export const EPOCH_SECONDS = 1_767_225_600;

/** The wall time (milliseconds) of a tick. Pure. */
export const tickMillis = (tick: number): number => (EPOCH_SECONDS + tick) * 1000;

/** DDL of the adapter's tables in `schema` (an identifier the adapter made). */
export function tablesSql(schema: string): string {
  return `
    CREATE TABLE ${schema}.jobcheck_meta (
      one boolean PRIMARY KEY DEFAULT true CHECK (one),
      capacity bigint NOT NULL,
      clock bigint NOT NULL,
      next_token bigint NOT NULL,
      next_seq bigint NOT NULL
    );
    CREATE TABLE ${schema}.jobcheck_ids (
      id text PRIMARY KEY,
      job uuid NOT NULL UNIQUE,
      seq bigint NOT NULL UNIQUE
    );
    CREATE TABLE ${schema}.jobcheck_claims (
      token bigint PRIMARY KEY,
      job uuid NOT NULL,
      retry_count int NOT NULL,
      worker text NOT NULL,
      data jsonb NOT NULL
    );
    CREATE TABLE ${schema}.jobcheck_effects (
      account text NOT NULL,
      key text NOT NULL,
      amount bigint NOT NULL,
      job text NOT NULL,
      token bigint NOT NULL,
      PRIMARY KEY (account, key)
    );
    CREATE TABLE ${schema}.jobcheck_balances (
      account text PRIMARY KEY,
      balance bigint NOT NULL
    );
  `;
}

/** One job as pg-boss holds it, with the adapter's id, seq and current claim beside it. */
export interface JobRow {
  id: string;
  seq: string;
  data: { account: string; key: string; amount: number; deadline: number };
  state: 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';
  retry_count: number;
  started: boolean;
  /** `started_on + expire_seconds` in ticks (null before the first fetch). */
  lease_until: string | null;
  /** `start_after` in ticks, rounded up: the first tick at which a fetch can see the job. */
  ready_at: string;
  output: unknown;
  token: string | null;
  worker: string | null;
}

/**
 * Every job the adapter submitted, in seq order, read from pg-boss's job table ($1: queue name).
 * A row pg-boss deleted (its retention) is missing from the result. The claim joined to an active
 * job is the one whose attempt (`retry_count`) is the job's current one.
 */
export function jobRowsSql(schema: string): string {
  return `
    SELECT i.id, i.seq::text AS seq, j.data, j.state::text AS state, j.retry_count,
      j.started_on IS NOT NULL AS started,
      (round(extract(epoch FROM j.started_on) - ${EPOCH_SECONDS})::bigint + j.expire_seconds)::text AS lease_until,
      ceil(extract(epoch FROM j.start_after) - ${EPOCH_SECONDS})::bigint::text AS ready_at,
      j.output, c.token::text AS token, c.worker
    FROM ${schema}.jobcheck_ids i
    JOIN ${schema}.job j ON j.name = $1 AND j.id = i.job
    LEFT JOIN LATERAL (
      SELECT token, worker FROM ${schema}.jobcheck_claims c
      WHERE c.job = i.job AND c.retry_count = j.retry_count
      ORDER BY token DESC LIMIT 1
    ) c ON j.state = 'active'
    ORDER BY i.seq
  `;
}

/** The text pg-boss keeps in a job's output after a failure, if any: a fail's `message`, or expiry's. Pure. */
export function failureText(output: unknown): string | undefined {
  if (typeof output !== 'object' || output === null) return undefined;
  const o = output as { message?: unknown; value?: { message?: unknown } };
  if (typeof o.message === 'string') return o.message;
  if (typeof o.value === 'object' && o.value !== null && typeof o.value.message === 'string') return o.value.message;
  return undefined;
}

/** The output pg-boss's expiry sweep writes into a job it fails for its lease (plans.failJobsByTimeout). */
export const EXPIRY_TEXT = 'job timed out';
