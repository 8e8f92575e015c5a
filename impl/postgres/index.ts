/**
 * The PostgreSQL store: the contract's job store with its state in a schema of its own
 * (`jobcheck_<random>`), one READ COMMITTED transaction per command holding the meta row's lock.
 * `postgresPool` makes the connection pool; `PostgresStore` has the constructors for a new schema,
 * a restore and a reopen.
 */
export type { Counters, Job, PostgresStoreClass, Queries, Tx } from './PostgresStore.ts';
export { PostgresStore, dueOf, isConnectionFailure, isStoreSchema, jobRecord, queries } from './PostgresStore.ts';
export type { PostgresPoolOptions } from './schema.ts';
export { SCHEMA_PREFIX, SCHEMA_VERSION, STORE_TYPES, postgresPool, quoteIdent, schemaSql } from './schema.ts';
export type { PostgresStoreErrorCode } from './PostgresStoreError.ts';
export { PostgresStoreError } from './PostgresStoreError.ts';
export { fromBytes, toBytes } from './strings.ts';
