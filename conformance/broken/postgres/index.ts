/**
 * Broken variants of impl/postgres's PostgresStore, each one small change in its own file with a
 * comment naming the bug, as conformance/broken/sqlite/ has for SQLite. Their replies and
 * snapshots agree with the model command by command: only a real kill (conformance/crash/) or
 * competing workers (the campaign's contention check, the concurrent lanes) tell them apart.
 */
import type { PostgresStoreClass } from '../../../impl/postgres/index.ts';
import { PostgresStore } from '../../../impl/postgres/index.ts';
import { AckOutsideGuard } from './ackOutsideGuard.ts';
import { AsyncWithoutBarrier } from './asyncWithoutBarrier.ts';
import { ClaimWithoutLocks } from './claimWithoutLocks.ts';
import { EffectApartFromLedger } from './effectApartFromLedger.ts';
import { FastClaimWithoutLocks } from './fastClaimWithoutLocks.ts';

/** One PostgreSQL store, correct or broken, by name. */
export interface PostgresVariant {
  readonly name: string;
  readonly description: string;
  readonly Store: PostgresStoreClass;
}

/** The correct store and every broken PostgreSQL variant, by name. */
export const POSTGRES_VARIANTS: readonly PostgresVariant[] = [
  { name: 'postgres', description: 'impl/PostgresStore, correct.', Store: PostgresStore },
  {
    name: 'pg-effect-apart-from-ledger',
    description: 'A commit writes the effect and its ledger row in two transactions.',
    Store: EffectApartFromLedger,
  },
  {
    name: 'pg-ack-outside-guard',
    description: 'An ack checks the token in one transaction and marks the job done by seq in another.',
    Store: AckOutsideGuard,
  },
  {
    name: 'pg-claim-without-locks',
    description:
      'A claim reads the counters and the claimable head without FOR UPDATE, so two at once deliver one job twice.',
    Store: ClaimWithoutLocks,
  },
  {
    name: 'pg-fast-claim-without-locks',
    description:
      'The one-statement claim does not lock the meta row, so two at once in two processes deliver one job twice.',
    Store: FastClaimWithoutLocks,
  },
  {
    name: 'pg-async-without-barrier',
    description:
      'The one-statement claim and ack commit asynchronously and reply with no flush behind them, so a server crash loses acknowledged ones.',
    Store: AsyncWithoutBarrier,
  },
];

/** The variant with this name, or undefined. */
export const postgresVariant = (name: string): PostgresVariant | undefined =>
  POSTGRES_VARIANTS.find((v) => v.name === name);

export { AckOutsideGuard, AsyncWithoutBarrier, ClaimWithoutLocks, EffectApartFromLedger, FastClaimWithoutLocks };
