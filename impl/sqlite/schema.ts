/**
 * The SQLite store's tables and indexes. One row per job, one per ledger entry, one per account
 * balance, and one row (`meta`) for the config, the clock and the counters.
 *
 * Derived columns keep the hot queries on an index (n = resident jobs, terminal ones included):
 * - `due`: the next instant at which an unresolved job moves by itself (ready: its deadline;
 *   running: min(leaseUntil, deadline); waiting: notBefore, which is below the deadline), NULL
 *   once terminal. Step 2 asks `due <= now` through `jobs_due`, which holds unresolved jobs only.
 * - `claimable`: 1 exactly when the job is ready and the head of its account (the account's
 *   unresolved job with the lowest seq), else NULL. A claim takes the lowest seq of `jobs_claimable`.
 * - `jobs_account` (account, seq) over unresolved jobs finds an account's head when its old head
 *   resolves, or tells a submit whether the account already has unresolved work.
 * - `jobs_token` finds the running job holding a token (only running jobs have one).
 * Partial indexes hold only the rows a query can want, so terminal jobs cost them nothing.
 *
 * Strings (ids, accounts, keys, workers, errors) are stored as TEXT, except one holding a UTF-16
 * surrogate, stored as a BLOB of its UTF-16 code units (strings.ts): SQLite's TEXT is UTF-8, which
 * cannot hold a lone surrogate, and the contract allows any non-empty JSON string.
 */

/** The tag of this layout, kept in `meta.schema`; a file with another one is not opened. */
export const SCHEMA_VERSION = 'jobcheck.sqlite/1';

/** The statements that create an empty store's tables and indexes. */
export const SCHEMA_SQL = `
CREATE TABLE meta (
  id            INTEGER PRIMARY KEY CHECK (id = 1),
  schema        TEXT    NOT NULL,
  capacity      INTEGER NOT NULL,
  max_attempts  INTEGER NOT NULL,
  lease_ticks   INTEGER NOT NULL,
  backoff_base  INTEGER NOT NULL,
  backoff_cap   INTEGER NOT NULL,
  clock         INTEGER NOT NULL,
  next_token    INTEGER NOT NULL,
  next_seq      INTEGER NOT NULL,
  unresolved    INTEGER NOT NULL
);
CREATE TABLE jobs (
  seq         INTEGER PRIMARY KEY,
  id          TEXT    NOT NULL UNIQUE,
  account     TEXT    NOT NULL,
  key         TEXT    NOT NULL,
  amount      INTEGER NOT NULL,
  deadline    INTEGER NOT NULL,
  status      TEXT    NOT NULL,
  attempts    INTEGER NOT NULL,
  token       INTEGER,
  owner       TEXT,
  lease_until INTEGER,
  not_before  INTEGER,
  reason      TEXT,
  last_error  TEXT,
  due         INTEGER,
  claimable   INTEGER
);
CREATE UNIQUE INDEX jobs_token ON jobs (token) WHERE token IS NOT NULL;
CREATE INDEX jobs_due ON jobs (due) WHERE due IS NOT NULL;
CREATE INDEX jobs_account ON jobs (account, seq) WHERE due IS NOT NULL;
CREATE INDEX jobs_claimable ON jobs (seq) WHERE claimable = 1;
CREATE TABLE balances (
  account TEXT    PRIMARY KEY,
  balance INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE effects (
  account TEXT    NOT NULL,
  key     TEXT    NOT NULL,
  amount  INTEGER NOT NULL,
  job     TEXT    NOT NULL,
  token   INTEGER NOT NULL,
  PRIMARY KEY (account, key)
) WITHOUT ROWID;
`;

/** How hard a commit waits for the disk (SQLite's `synchronous`); FULL is the default and the only one that survives power loss in every case. */
export type Synchronous = 'FULL' | 'NORMAL' | 'OFF';

/** Connection settings of a store. */
export interface SqliteOptions {
  /** `PRAGMA synchronous` (default FULL: every commit waits for the disk). */
  readonly synchronous?: Synchronous;
  /** How long a command waits for another connection's write lock, in ms (default 5000). */
  readonly busyTimeoutMs?: number;
}

/** The default busy timeout, in ms. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;
