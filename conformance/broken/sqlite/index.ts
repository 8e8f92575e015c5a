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
}

/** The correct store and every broken SQLite variant, by name. */
export const SQLITE_VARIANTS: readonly SqliteVariant[] = [
  { name: 'sqlite', description: 'impl/SqliteStore, correct.', Store: SqliteStore },
  {
    name: 'effect-apart-from-ledger',
    description: 'A commit writes the effect and its ledger row in two transactions.',
    Store: EffectApartFromLedger,
  },
  {
    name: 'ack-outside-guard',
    description: 'An ack checks the token in one transaction and marks the job done by id in another.',
    Store: AckOutsideGuard,
  },
  {
    name: 'deferred-claim',
    description: 'A claim runs in a deferred transaction, which fails under a competing writer.',
    Store: DeferredClaim,
  },
  {
    name: 'ack-before-durable',
    description: 'Commands commit in groups of three, so replies come before their command is on disk.',
    Store: AckBeforeDurable,
  },
];

/** The variant with this name, or undefined. */
export const sqliteVariant = (name: string): SqliteVariant | undefined => SQLITE_VARIANTS.find((v) => v.name === name);

export { AckBeforeDurable, AckOutsideGuard, DeferredClaim, EffectApartFromLedger };
