/**
 * The catalogue of deliberately broken concurrent implementations: each is an AsyncJobStore
 * (conformance/concurrent/inProcess.ts) with one race, one file per bug with a comment naming it.
 * Run one request at a time, each is the contract; only an interleaving shows the bug. The
 * concurrent campaign must catch every one of them.
 */
import { asyncJobStoreFactory } from '../../concurrent/inProcess.ts';
import type { AsyncJobStoreClass, SchedulableFactory } from '../../concurrent/inProcess.ts';
import { AccountCheckOutsideLock } from './accountCheckOutsideLock.ts';
import { AckChecksThenSettles } from './ackChecksThenSettles.ts';
import { CapacityCheckThenInsert } from './capacityCheckThenInsert.ts';
import { ClaimReadsThenWrites } from './claimReadsThenWrites.ts';

/** One broken concurrent implementation the engine must catch. */
export interface ConcurrentBrokenVariant {
  /** Stable kebab-case name, e.g. `claim-reads-then-writes`. */
  readonly name: string;
  /** The bug in one sentence. */
  readonly description: string;
  /** Creates the broken implementation (its await points can be given to fast-check's scheduler). */
  readonly factory: SchedulableFactory;
  /** The store class, which one request at a time keeps the contract (the sequential checks drive it so). */
  readonly Store: AsyncJobStoreClass;
}

const variant = (name: string, description: string, Store: AsyncJobStoreClass): ConcurrentBrokenVariant => ({
  name,
  description,
  factory: asyncJobStoreFactory(Store, `broken/${name}`),
  Store,
});

/** Every registered broken concurrent variant, in catalogue order. */
export const CONCURRENT_BROKEN_VARIANTS: readonly ConcurrentBrokenVariant[] = [
  variant(
    'claim-reads-then-writes',
    'A claim reads the head, awaits, then delivers it: two claims at once deliver one job twice.',
    ClaimReadsThenWrites,
  ),
  variant(
    'capacity-check-then-insert',
    'A submit checks the capacity, awaits, then inserts: two submits at once both take the last slot.',
    CapacityCheckThenInsert,
  ),
  variant(
    'ack-checks-then-settles',
    'An ack checks its token, awaits, then settles the job if it is running: a stale ack settles the delivery of a claim that took the job again at the lease boundary.',
    AckChecksThenSettles,
  ),
  variant(
    'account-check-outside-lock',
    "A claim reads which accounts are busy outside the critical section that delivers: an account's second job starts while its first runs.",
    AccountCheckOutsideLock,
  ),
];

/** The broken concurrent variant with this name, or undefined. */
export const concurrentBrokenVariant = (name: string): ConcurrentBrokenVariant | undefined =>
  CONCURRENT_BROKEN_VARIANTS.find((v) => v.name === name);

export { AccountCheckOutsideLock } from './accountCheckOutsideLock.ts';
export { AckChecksThenSettles } from './ackChecksThenSettles.ts';
export { CapacityCheckThenInsert } from './capacityCheckThenInsert.ts';
export { ClaimReadsThenWrites } from './claimReadsThenWrites.ts';
