/**
 * The full catalogue of deliberately broken implementations that `jobcheck check` must catch:
 * the engine's three seed bugs (seed.ts, which its path-suite self-test runs) plus the bugs
 * below, each one small change in its own file with a comment naming the bug.
 *
 * Decision bugs (capacity-forgets-running, retry-forgets-deadline, lease-one-tick-late,
 * last-attempt-requeues, commit-not-idempotent, payload-conflict-accepted, lease-before-deadline,
 * backoff-not-capped) replace one function of the contract's decisions (impl/decisions); the same
 * broken record runs on the memory, SQLite and PostgreSQL stores (`npm run catalogue` checks all
 * three). The others subclass the memory store, breaking its own structures: the claimable index
 * (global-fifo, waiting-does-not-block), the account FIFO (dead-job-blocks), the count of unresolved
 * jobs (dead-job-holds-slot), the snapshot object
 * (snapshot-live-alias), the restore (restart-resets-tokens, restart-forgets-ledger,
 * restore-accepts-anything); the durable stores' versions are in conformance/broken/sqlite/ and
 * postgres/. Some are invisible to the path suite (they need two accounts, a second retry, a
 * resubmission or an aliasing check), so they stay out of BROKEN_VARIANTS: the whole check is what
 * catches them. The Python example's broken variants are in examples/python/broken/, checked by
 * scripts/catalogue.test.ts.
 */
import { jobStoreFactory } from '../stores/jobStore.ts';
import type { JobStoreClass } from '../stores/jobStore.ts';
import { backoffNotCapped } from './backoffNotCapped.ts';
import { commitNotIdempotent } from './commitNotIdempotent.ts';
import { DeadJobBlocks } from './deadJobBlocks.ts';
import { DeadJobHoldsSlot } from './deadJobHoldsSlot.ts';
import { GlobalFifo } from './globalFifo.ts';
import { BROKEN_VARIANTS, decisionVariant } from './seed.ts';
import type { BrokenVariant } from './seed.ts';
import { lastAttemptRequeues } from './lastAttemptRequeues.ts';
import { leaseBeforeDeadline } from './leaseBeforeDeadline.ts';
import { leaseOneTickLate } from './leaseOneTickLate.ts';
import { payloadConflictAccepted } from './payloadConflictAccepted.ts';
import { RestartForgetsLedger } from './restartForgetsLedger.ts';
import { RestoreAcceptsAnything } from './restoreAcceptsAnything.ts';
import { SnapshotLiveAlias } from './snapshotLiveAlias.ts';
import { WaitingDoesNotBlock } from './waitingDoesNotBlock.ts';

const variant = (name: string, description: string, Store: JobStoreClass): BrokenVariant => ({
  name,
  description,
  factory: jobStoreFactory(Store, `broken/${name}`),
});

/** Every broken in-process variant, seed bugs first, in catalogue order. */
export const CATALOGUE: readonly BrokenVariant[] = [
  ...BROKEN_VARIANTS,
  variant(
    'restart-forgets-ledger',
    'Restoring a snapshot keeps the balances but drops the effect ledger.',
    RestartForgetsLedger,
  ),
  decisionVariant(
    'lease-one-tick-late',
    'A lease is still valid at now == leaseUntil (expires one tick late).',
    leaseOneTickLate,
  ),
  decisionVariant(
    'last-attempt-requeues',
    "When the last attempt's lease expires, the job is requeued instead of dying.",
    lastAttemptRequeues,
  ),
  variant(
    'global-fifo',
    'Claims take the earliest ready job of the whole store, ignoring per-account order.',
    GlobalFifo,
  ),
  variant(
    'waiting-does-not-block',
    "A job waiting for its backoff does not block its account's later jobs.",
    WaitingDoesNotBlock,
  ),
  variant('dead-job-blocks', "A dead job stays at the head of its account's queue and blocks it.", DeadJobBlocks),
  variant(
    'dead-job-holds-slot',
    'A dead job still counts against capacity, so new jobs are refused for a slot it no longer needs.',
    DeadJobHoldsSlot,
  ),
  decisionVariant(
    'commit-not-idempotent',
    'A second commit of the same (account, key) adds the amount again.',
    commitNotIdempotent,
  ),
  decisionVariant(
    'payload-conflict-accepted',
    'Resubmitting an id with another payload is answered as a duplicate, not a conflict.',
    payloadConflictAccepted,
  ),
  decisionVariant(
    'lease-before-deadline',
    'When lease and deadline have both passed, the lease decides (lease_expired instead of deadline).',
    leaseBeforeDeadline,
  ),
  decisionVariant('backoff-not-capped', 'The retry delay keeps doubling past backoffCap.', backoffNotCapped),
  variant(
    'snapshot-live-alias',
    'snapshot() hands out the cached object itself, so changing it changes the store.',
    SnapshotLiveAlias,
  ),
  variant(
    'restore-accepts-anything',
    'restore never refuses: a snapshot no store could have written leaves an empty store instead.',
    RestoreAcceptsAnything,
  ),
];

/** The catalogue variant with this name, or undefined. */
export const catalogueVariant = (name: string): BrokenVariant | undefined => CATALOGUE.find((v) => v.name === name);
