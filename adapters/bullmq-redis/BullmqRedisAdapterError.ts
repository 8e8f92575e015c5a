/** Misuse of the BullMQ-on-Redis adapter: a config BullMQ cannot carry, a server address it cannot use, an id it refuses. */

import { CodedError } from '../../contract/CodedError.ts';

/** Stable codes of BullmqRedisAdapterError. */
export type BullmqRedisAdapterErrorCode = 'unsupported_config' | 'bad_target' | 'queue_error';

/**
 * A typed error of the BullMQ-on-Redis adapter. `unsupported_config`: a contract config whose
 * times BullMQ cannot hold in milliseconds at the adapter's tick (the message names the field and
 * its value); `bad_target`: a server address that is not a redis:// URL on this machine's
 * loopback; `queue_error`: BullMQ or Redis failed in a way the contract has no reply for (kept as
 * `cause`, the message names the command).
 */
export class BullmqRedisAdapterError extends CodedError<BullmqRedisAdapterErrorCode> {
  override name = 'BullmqRedisAdapterError' as const;
}
