/**
 * The PostgreSQL store: the contract's job store with its state in a schema of its own
 * (`jobcheck_<random>`), concurrent commands grouped into one READ COMMITTED transaction holding
 * the meta row's lock, a few round trips each (`Tx`: held-back writes, reads sent ahead), and one
 * when nobody else wrote since the store's last COMMIT (its rows kept, the lock guarded).
 * `postgresPool` makes the connection pool; `PostgresStore` has the constructors for a new schema,
 * a restore and a reopen.
 */
export type { Counters, Job } from '../durable/index.ts';
export type { PostgresStoreClass } from './PostgresStore.ts';
export type { Queries } from './queries.ts';
export type { Traffic } from './GroupCommit.ts';
export { Tx } from './Tx.ts';
export { BARRIER } from './FastPath.ts';
export { PostgresStore, isStoreSchema } from './PostgresStore.ts';
export type { PostgresPoolOptions } from './schema.ts';
export { SCHEMA_PREFIX, SCHEMA_VERSION, STORE_TYPES, postgresPool, quoteIdent, schemaSql } from './schema.ts';
export type { PostgresStoreErrorCode } from './PostgresStoreError.ts';
export { PostgresStoreError } from './PostgresStoreError.ts';
export { fromBytes, toBytes } from './strings.ts';
export type { PgPool, PgPoolClient, PgQueryable, PgQueryResult } from './PgPool.ts';
export type { DriverName } from '../DriverMissingError.ts';
export { DRIVER_VERSIONS, DriverMissingError, driverInstallCommand } from '../DriverMissingError.ts';
