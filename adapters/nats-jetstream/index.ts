/**
 * The NATS JetStream adapter: the real broker driven through the contract's commands on its own
 * clock (a work-queue stream and a durable pull consumer per instance, lanes as separate
 * connections), and its profile target (versions, tick, declarations, tolerances).
 */
export type { NatsFactoryOptions } from './adapter.ts';
export {
  DEFAULT_TICK_MS,
  NatsJetStreamAdapter,
  accountToken,
  brokerNanos,
  natsJetStreamFactory,
  parseAckSubject,
  streamSettings,
} from './adapter.ts';
export { NatsConcurrentAdapter, natsConcurrentFactory } from './concurrent.ts';
export type { NatsAdapterErrorCode } from './NatsAdapterError.ts';
export { NatsAdapterError } from './NatsAdapterError.ts';
export { natsMissing, natsRequired, natsUrl } from './natsEnv.ts';
export {
  NATS_CLIENT_VERSION,
  NATS_DECLARATIONS,
  NATS_SERVER_VERSION,
  NATS_TOLERANCES,
  NATS_UPSTREAM,
  createAdapter,
  createConcurrentAdapter,
  natsJetStreamTarget,
  profileTarget,
} from './profile.ts';
// Not exported: records.ts, the adapter's reading of its own records, which nothing outside reads.
