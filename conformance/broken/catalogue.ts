/**
 * The full catalogue of deliberately broken implementations that `jobcheck check` must catch:
 * the engine's three seed bugs (index.ts, which its path-suite self-test runs) plus the bugs
 * below, each one small change to impl/JobStore in its own file with a comment naming the bug.
 * Some of these are invisible to the path suite (they need two accounts, a second retry, a
 * resubmission or an aliasing check), which is why they are kept out of BROKEN_VARIANTS: the
 * whole check (fixture stories, paths, random campaign) is what catches them.
 * Broken variants of the Python example, reached through the protocol, are listed in
 * examples/python/broken/ and checked by cli/catalogue.test.ts.
 */
import { jobStoreFactory } from '../adapters/jobStore.ts';
import type { JobStoreClass } from '../adapters/jobStore.ts';
import { BackoffNotCapped } from './backoffNotCapped.ts';
import { CommitNotIdempotent } from './commitNotIdempotent.ts';
import { DeadJobBlocks } from './deadJobBlocks.ts';
import { GlobalFifo } from './globalFifo.ts';
import { BROKEN_VARIANTS } from './index.ts';
import type { BrokenVariant } from './index.ts';
import { LastAttemptRequeues } from './lastAttemptRequeues.ts';
import { LeaseBeforeDeadline } from './leaseBeforeDeadline.ts';
import { LeaseOneTickLate } from './leaseOneTickLate.ts';
import { PayloadConflictAccepted } from './payloadConflictAccepted.ts';
import { RestartForgetsLedger } from './restartForgetsLedger.ts';
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
  variant('restart-forgets-ledger', 'Restoring a snapshot keeps the balances but drops the effect ledger.', RestartForgetsLedger),
  variant('lease-one-tick-late', 'A lease is still valid at now == leaseUntil (expires one tick late).', LeaseOneTickLate),
  variant('last-attempt-requeues', "When the last attempt's lease expires, the job is requeued instead of dying.", LastAttemptRequeues),
  variant('global-fifo', 'Claims take the earliest ready job of the whole store, ignoring per-account order.', GlobalFifo),
  variant('waiting-does-not-block', "A job waiting for its backoff does not block its account's later jobs.", WaitingDoesNotBlock),
  variant('dead-job-blocks', "A dead job stays at the head of its account's queue and blocks it.", DeadJobBlocks),
  variant('commit-not-idempotent', 'A second commit of the same (account, key) adds the amount again.', CommitNotIdempotent),
  variant('payload-conflict-accepted', 'Resubmitting an id with another payload is answered as a duplicate, not a conflict.', PayloadConflictAccepted),
  variant('lease-before-deadline', 'When lease and deadline have both passed, the lease decides (lease_expired instead of deadline).', LeaseBeforeDeadline),
  variant('backoff-not-capped', 'The retry delay keeps doubling past backoffCap.', BackoffNotCapped),
  variant('snapshot-live-alias', 'snapshot() hands out the cached object itself, so changing it changes the store.', SnapshotLiveAlias),
];

/** The catalogue variant with this name, or undefined. */
export const catalogueVariant = (name: string): BrokenVariant | undefined => CATALOGUE.find((v) => v.name === name);
