/**
 * A Redis Streams consumer group behind the contract: the adapter factories (sequential and
 * competing workers), the profile target, and its declarations.
 */
export type { RedisStreamsOptions } from './adapter.ts';
export {
  DEFAULT_TICK_MS,
  GROUP,
  KEY_PREFIX,
  RedisStreamsAdapter,
  RedisStreamsBroker,
  RedisStreamsConcurrentAdapter,
  compareIds,
  minIdleMillis,
  redisStreamsConcurrentFactory,
  redisStreamsFactory,
  streamsConnection,
} from './adapter.ts';
export type { RedisStreamsAdapterErrorCode } from './RedisStreamsAdapterError.ts';
export { RedisStreamsAdapterError } from './RedisStreamsAdapterError.ts';
export {
  IOREDIS_VERSION,
  REDIS_SERVER_VERSION,
  REDIS_STREAMS_DECLARATIONS,
  REDIS_STREAMS_TOLERANCES,
  profileTarget,
  redisStreamsTarget,
} from './profile.ts';
