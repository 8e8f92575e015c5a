/**
 * The registry of broken variants: the one module through which anything outside broken/ reaches
 * them (biome.jsonc refuses every other path into broken/). Only check/ and entry points (cli/,
 * scripts/, bench/, docs/tools/, tests) import it; a production target takes a store class
 * instead, which an entry point may pick here by name.
 *
 * - seed.ts: the three seed bugs the path suite's self-test runs; catalogue.ts: every broken
 *   in-process variant `jobcheck check` must catch;
 * - concurrent/: races of the in-process async store, caught by competing workers;
 * - sqlite/, postgres/: bugs of the durable stores' own storage, caught by a real kill or by
 *   competing connections.
 */
export type { BrokenVariant } from './seed.ts';
export { BROKEN_VARIANTS, brokenVariant, decisionVariant } from './seed.ts';
export { CATALOGUE, catalogueVariant } from './catalogue.ts';
export type { ConcurrentBrokenVariant } from './concurrent/index.ts';
export { CONCURRENT_BROKEN_VARIANTS, concurrentBrokenVariant } from './concurrent/index.ts';
export type { SqliteVariant } from './sqlite/index.ts';
export { SQLITE_VARIANTS, sqliteVariant } from './sqlite/index.ts';
export type { PostgresVariant } from './postgres/index.ts';
export { POSTGRES_VARIANTS, postgresVariant } from './postgres/index.ts';

// The classes and decision records that tests drive by name, beyond the tables above.
export { CapacityForgetsRunning, RestartResetsTokens, RetryForgetsDeadline } from './seed.ts';
export { capacityForgetsRunning, retryForgetsDeadline } from './seed.ts';
export { GlobalFifo } from './globalFifo.ts';
export { AckChecksThenSettles } from './concurrent/index.ts';
