/**
 * The optimised implementation: a JobStore that speaks the contract (contract/) with O(log n)
 * commands. Imports only the neutral wire format, never the reference model.
 */
export type { AccountLedger, AccountQueue, ArgsOf, Effect, StatusCounts } from './memory/JobStore.ts';
export { JobStore } from './memory/JobStore.ts';
// These and the storage types above are exported for subclasses and tests that build variants of
// the store; using it needs only JobStore.
export { JobEntry, NO_TIME, NO_TOKEN } from './memory/JobEntry.ts';
export { TIME_MAX, addTime, isUnresolvedStatus, retryDelay } from './decisions/index.ts';
// The decisions every store runs, for variants that replace one (conformance/broken/).
export type { Decisions } from './decisions/index.ts';
export { DECISIONS, withDecisions } from './decisions/index.ts';
export { MinHeap } from './memory/heap.ts';
// The SQLite store has its own index (impl/sqlite/index.ts: SqliteStore, openSqliteStore), so that
// importing the in-memory store never loads the native better-sqlite3 module.
