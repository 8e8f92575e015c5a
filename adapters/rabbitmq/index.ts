/**
 * The RabbitMQ adapter: a quorum queue driven through the contract's commands with amqplib, its
 * competing workers (one channel per worker), the connection its instances share, and its profile target.
 */
export type { RabbitmqFactoryOptions } from './adapter.ts';
export {
  CONSUMER_TIMEOUT_MS,
  RabbitmqAdapter,
  consumerTimeoutOf,
  queueArguments,
  rabbitmqFactory,
  urlOf,
} from './adapter.ts';
export { rabbitmqConcurrentFactory } from './concurrent.ts';
export { LINGER_MS, SharedConnection } from './SharedConnection.ts';
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
