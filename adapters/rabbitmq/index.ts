/**
 * The RabbitMQ adapter: a quorum queue driven through the contract's commands with amqplib, its
 * competing workers (one channel per worker), the connections its instances share, the server each
 * config runs on, and its profile target.
 */
export type { RabbitmqFactoryOptions } from './adapter.ts';
export {
  CONSUMER_TIMEOUT_MS,
  RabbitmqAdapter,
  consumerTimeoutOf,
  consumerTimeoutsOf,
  queueArguments,
  rabbitmqFactory,
  serversOf,
  urlOf,
} from './adapter.ts';
export { rabbitmqConcurrentFactory } from './concurrent.ts';
export { LINGER_MS, SharedConnection, SharedConnections } from './SharedConnection.ts';
export type { AmqpServer } from './servers.ts';
export { CHANNEL_TICK_INTERVAL_MS, PICKED_TICK_MS, describeServers, parseServers, serverFor } from './servers.ts';
export type { RabbitmqAdapterErrorCode } from './RabbitmqAdapterError.ts';
export { RabbitmqAdapterError } from './RabbitmqAdapterError.ts';
export {
  AMQPLIB_VERSION,
  NOMINAL_TICK_MS,
  RABBITMQ_VERSION,
  createAdapter,
  createConcurrentAdapter,
  profileTarget,
  rabbitmqTarget,
} from './profile.ts';
