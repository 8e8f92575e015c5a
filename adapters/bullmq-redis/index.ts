/**
 * BullMQ on Redis behind the contract: the adapter factories (sequential and competing workers),
 * the profile target, and where the tests find a server.
 */
export type { BullmqRedisOptions, JobData } from './adapter.ts';
export {
  BullmqRedisAdapter,
  BullmqRedisBroker,
  BullmqRedisConcurrentAdapter,
  DEFAULT_OFFSET_MS,
  DEFAULT_STALLED_INTERVAL_MS,
  DEFAULT_TICK_MS,
  bullmqRedisConcurrentFactory,
  bullmqRedisFactory,
  lockMillis,
  redisConnection,
} from './adapter.ts';
export type { BullmqRedisAdapterErrorCode } from './BullmqRedisAdapterError.ts';
export { BullmqRedisAdapterError } from './BullmqRedisAdapterError.ts';
export {
  BULLMQ_REDIS_DECLARATIONS,
  BULLMQ_REDIS_TOLERANCES,
  BULLMQ_REDIS_VERSION,
  bullmqRedisTarget,
  profileTarget,
} from './profile.ts';
export { redisMissing, redisRequired, redisUrl } from './redisEnv.ts';
