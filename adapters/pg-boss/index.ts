/**
 * The pg-boss adapter: the real pg-boss queue driven through the contract's commands, one queue per
 * instance in a schema of its own, competing workers on it (a pg-boss instance per lane), and its
 * profile target (version, declarations, upstream links).
 */
export type { PgBossFactoryOptions } from './adapter.ts';
export { PgBossAdapter, nameUuid, pgBossFactory, queueOptions } from './adapter.ts';
export type { PgBossConcurrentAdapter, PgBossConcurrentOptions } from './concurrent.ts';
export { pgBossConcurrentFactory } from './concurrent.ts';
export type { PgBossAdapterErrorCode } from './PgBossAdapterError.ts';
export { PgBossAdapterError } from './PgBossAdapterError.ts';
export { PG_BOSS_VERSION, pgBossProfile, pgBossTarget } from './profile.ts';
// Not exported: tables.ts, the adapter's own SQL, which nothing outside the adapter reads.
