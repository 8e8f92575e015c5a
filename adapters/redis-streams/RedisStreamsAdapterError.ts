/** Misuse of the Redis Streams adapter: a config it cannot carry, a server address it cannot use, a reply Redis has no contract form for. */

import { CodedError } from '../../contract/CodedError.ts';

/** Stable codes of RedisStreamsAdapterError. */
export type RedisStreamsAdapterErrorCode = 'unsupported_config' | 'bad_target' | 'queue_error';

/**
 * A typed error of the Redis Streams adapter. `unsupported_config`: a contract config whose times
 * are no safe integer of milliseconds at the adapter's tick (the message names the field and its
 * value); `bad_target`: a server address that is not a redis:// URL on this machine's loopback;
 * `queue_error`: Redis answered in a way the contract has no reply for (kept as `cause`, the
 * message names the command).
 */
export class RedisStreamsAdapterError extends CodedError<RedisStreamsAdapterErrorCode> {
  override name = 'RedisStreamsAdapterError' as const;
}
