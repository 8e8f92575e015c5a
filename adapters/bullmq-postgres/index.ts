/**
 * BullMQ (PostgreSQL backend) behind the contract: the adapter factory, competing workers (BullMQ's
 * clients per lane) and the profile target.
 * clock.ts and tables.ts are internals of the adapter and not exported.
 */
export type { BullmqFactoryOptions } from './adapter.ts';
export { BullmqPostgresAdapter, bullmqPostgresFactory } from './adapter.ts';
export type { BullmqPostgresConcurrentAdapter, BullmqConcurrentOptions } from './concurrent.ts';
export { bullmqPostgresConcurrentFactory } from './concurrent.ts';
export type { BullmqAdapterErrorCode } from './BullmqAdapterError.ts';
export { BullmqAdapterError } from './BullmqAdapterError.ts';
export {
  BULLMQ_DECLARATIONS,
  BULLMQ_UPSTREAM,
  BULLMQ_VERSION,
  bullmqPostgres,
  bullmqPostgresTarget,
} from './profile.ts';
