/**
 * Broken variants of impl/sqlite's SqliteStore, each one small change in its own file with a
 * comment naming the bug. Their replies and snapshots agree with the model command by command:
 * only a real kill (conformance/crash/) or a competing writer in another process tells them apart.
 */
import type { SqliteStoreClass } from '../../../impl/sqlite/index.ts';
import { SqliteStore } from '../../../impl/sqlite/index.ts';
import { AckBeforeDurable } from './ackBeforeDurable.ts';
import { AckOutsideGuard } from './ackOutsideGuard.ts';
import { DeferredClaim } from './deferredClaim.ts';
import { EffectApartFromLedger } from './effectApartFromLedger.ts';

/** One SQLite store, correct or broken, by name. */
export interface SqliteVariant {
  readonly name: string;
  readonly description: string;
  readonly Store: SqliteStoreClass;
  /** The file URL of a module exporting Store under its class name, for a thread or process that loads it itself. */
  readonly module: string;
}

/** The correct store and every broken SQLite variant, by name. */
export const SQLITE_VARIANTS: readonly SqliteVariant[] = [
  { name: 'sqlite', description: 'impl/SqliteStore, correct.', Store: SqliteStore, module: import.meta.url },
  {
    name: 'effect-apart-from-ledger',
    description: 'A commit writes the effect and its ledger row in two transactions.',
    Store: EffectApartFromLedger,
    module: import.meta.url,
  },
  {
    name: 'ack-outside-guard',
    description: 'An ack checks the token in one transaction and marks the job done by id in another.',
    Store: AckOutsideGuard,
    module: import.meta.url,
  },
  {
    name: 'deferred-claim',
    description: 'A claim runs in a deferred transaction, which fails under a competing writer.',
    Store: DeferredClaim,
    module: import.meta.url,
  },
  {
    name: 'ack-before-durable',
    description: 'Commands commit in groups of three, so replies come before their command is on disk.',
    Store: AckBeforeDurable,
    module: import.meta.url,
  },
];

/** The variant with this name, or undefined. */
export const sqliteVariant = (name: string): SqliteVariant | undefined => SQLITE_VARIANTS.find((v) => v.name === name);

export { AckBeforeDurable, AckOutsideGuard, DeferredClaim, EffectApartFromLedger, SqliteStore };
