/**
 * The SQLite store: the contract's job store with its state in one database file (WAL,
 * synchronous=FULL, one BEGIN IMMEDIATE transaction per command). `openSqliteStore` is the
 * library entry point; `SqliteStore` has the constructors for a fresh file, a restore and a reopen.
 */
import type { Config } from '../../contract/index.ts';
import { SqliteStore } from './SqliteStore.ts';
import type { SqliteOptions } from './schema.ts';
import { SqliteStoreError } from './SqliteStoreError.ts';

export type { Counters, Job } from '../durable/index.ts';
export type { SqliteStoreClass } from './SqliteStore.ts';
export { QUERIES, SqliteStore } from './SqliteStore.ts';
export type { SqliteOptions, Synchronous } from './schema.ts';
export { DEFAULT_BUSY_TIMEOUT_MS, SCHEMA_SQL, SCHEMA_VERSION } from './schema.ts';
export type { SqliteStoreErrorCode } from './SqliteStoreError.ts';
export { SqliteStoreError } from './SqliteStoreError.ts';
export type { StoredString } from './strings.ts';
export type { SqliteDatabase, SqliteRunResult, SqliteStatement, SqliteTransaction } from './SqliteDatabase.ts';
export { openSqliteDatabase } from './loadSqlite.ts';
export type { DriverName } from '../DriverMissingError.ts';
export { DRIVER_VERSIONS, DriverMissingError, driverInstallCommand } from '../DriverMissingError.ts';
export { fromStored, toStored } from './strings.ts';

/**
 * The store in the file at `path`: the one it holds, or, for a file that holds nothing yet, a new
 * empty store with `config`. Throws JobcheckError `invalid_config` for a bad config and
 * SqliteStoreError `config_mismatch` when the file's store has another config.
 */
export function openSqliteStore(path: string, config: Config, options: SqliteOptions = {}): SqliteStore {
  try {
    return SqliteStore.create(path, config, options);
  } catch (error) {
    if (!(error instanceof SqliteStoreError) || error.code !== 'store_exists') throw error;
  }
  const store = SqliteStore.open(path, options);
  const held = store.config;
  const same =
    (Object.keys(held) as (keyof Config)[]).every((k) => held[k] === config[k]) &&
    Object.keys(config).length === Object.keys(held).length;
  if (!same) {
    store.close();
    throw new SqliteStoreError(
      'config_mismatch',
      `${path} holds a store with config ${JSON.stringify(held)}, not ${JSON.stringify(config)}`,
    );
  }
  return store;
}
