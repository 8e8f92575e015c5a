/**
 * The PostgreSQL store's tables and indexes, one schema per store (`jobcheck_<random>`): the same
 * layout as the SQLite store's (impl/sqlite/schema.ts, which explains the derived `due` and
 * `claimable` columns and the partial indexes), with every integer a `bigint` (the contract's
 * integers go up to 2^53 - 1) and every string `bytea` (strings.ts).
 */
import type pg from 'pg';
import { fastPathSql } from './FastPath.ts';
import { loadPg } from './loadPg.ts';
import type { PgPool } from './PgPool.ts';
import { PostgresStoreError } from './PostgresStoreError.ts';

/**
 * The tag of this layout, kept in `meta.layout`; a schema with another one is not opened. The
 * tables of `/2` are those of `/1`; what changed is a promise every writer keeps: each transaction
 * that writes anything also writes the meta row, so that the row's version (its xmin) changes,
 * and a store that opens a transaction on rows read behind its last COMMIT can tell that nobody
 * wrote since (PostgresStore.ts). A `/1` writer does not keep it (a commit command wrote no meta
 * row), so the two must not share a schema. `/3` adds the fast path's functions (FastPath.ts),
 * which a `/2` schema lacks; `/4` the procedures that call them, commit and flush.
 */
export const SCHEMA_VERSION = 'jobcheck.postgres/4';

/** The prefix of every store's schema name. */
export const SCHEMA_PREFIX = 'jobcheck_';

/** Quotes an identifier for SQL text. Pure. */
export const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** The statements that create an empty store's tables, indexes and `functions` (the fast path's, by default) in schema `s` (quoted). */
export function schemaSql(s: string, functions = fastPathSql(s)): string {
  return `
CREATE SCHEMA ${s};
CREATE TABLE ${s}.meta (
  id            integer PRIMARY KEY CHECK (id = 1),
  layout        text    NOT NULL,
  capacity      bigint  NOT NULL,
  max_attempts  bigint  NOT NULL,
  lease_ticks   bigint  NOT NULL,
  backoff_base  bigint  NOT NULL,
  backoff_cap   bigint  NOT NULL,
  clock         bigint  NOT NULL,
  next_token    bigint  NOT NULL,
  next_seq      bigint  NOT NULL,
  unresolved    bigint  NOT NULL
);
CREATE TABLE ${s}.jobs (
  seq         bigint  PRIMARY KEY,
  id          bytea   NOT NULL UNIQUE,
  account     bytea   NOT NULL,
  key         bytea   NOT NULL,
  amount      bigint  NOT NULL,
  deadline    bigint  NOT NULL,
  status      text    NOT NULL,
  attempts    bigint  NOT NULL,
  token       bigint,
  owner       bytea,
  lease_until bigint,
  not_before  bigint,
  reason      text,
  last_error  bytea,
  due         bigint,
  claimable   boolean
);
CREATE UNIQUE INDEX jobs_token ON ${s}.jobs (token) WHERE token IS NOT NULL;
CREATE INDEX jobs_due ON ${s}.jobs (due) WHERE due IS NOT NULL;
CREATE INDEX jobs_account ON ${s}.jobs (account, seq) WHERE due IS NOT NULL;
CREATE INDEX jobs_claimable ON ${s}.jobs (seq) WHERE claimable;
CREATE TABLE ${s}.balances (
  account bytea  PRIMARY KEY,
  balance bigint NOT NULL
);
CREATE TABLE ${s}.effects (
  account bytea  NOT NULL,
  key     bytea  NOT NULL,
  amount  bigint NOT NULL,
  job     bytea  NOT NULL,
  token   bigint NOT NULL,
  PRIMARY KEY (account, key)
);
${functions}`;
}

/** A bigint column as a JS number; throws beyond the safe-integer range (the contract's limit). */
function parseInt8(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n))
    throw new PostgresStoreError('out_of_range', `bigint ${value} is outside the safe-integer range`);
  return n;
}

const INT8_OID = 20;

/** Type parsers of a store's pool: bigint as number (node-postgres gives a string by default), the rest as usual. */
export const STORE_TYPES: { readonly getTypeParser: (oid: number, format?: 'text' | 'binary') => unknown } = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary' ? parseInt8 : loadPg().types.getTypeParser(oid, format ?? 'text'),
};

/** Options of a store's connection pool. */
export interface PostgresPoolOptions {
  /** Connections at most, one per worker lane (default 4). */
  readonly max?: number;
  /** The application_name the server shows (default `jobcheck`). */
  readonly applicationName?: string;
  /** Let the process exit while connections idle in the pool (default false; a server process sets it). */
  readonly allowExitOnIdle?: boolean;
}

/**
 * A connection pool for stores, to `target`: a `postgres://` or `postgresql://` URL, a unix socket
 * folder (a path starting with `/`), or empty for libpq's environment (PGHOST, PGDATABASE, PGUSER,
 * ...). Throws PostgresStoreError `bad_target` for anything else. Connects lazily.
 */
export function postgresPool(target = '', options: PostgresPoolOptions = {}): PgPool {
  const common: pg.PoolConfig = {
    max: options.max ?? 4,
    application_name: options.applicationName ?? 'jobcheck',
    types: STORE_TYPES as pg.CustomTypesConfig,
    allowExitOnIdle: options.allowExitOnIdle ?? false,
  };
  let config: pg.PoolConfig;
  if (target === '') config = common;
  else if (/^postgres(ql)?:\/\//.test(target)) config = { ...common, connectionString: target };
  else if (target.startsWith('/')) config = { ...common, host: target };
  else
    throw new PostgresStoreError(
      'bad_target',
      `${JSON.stringify(target)} is neither a postgres:// URL nor a unix socket folder (an absolute path)`,
    );
  // The driver's own Pool, held here to the store's interface.
  const pool: pg.Pool = new (loadPg().Pool)(config);
  return pool;
}
