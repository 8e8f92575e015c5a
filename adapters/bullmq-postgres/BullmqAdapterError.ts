/** Misuse of the BullMQ adapter: a config BullMQ cannot carry, a server it cannot reach, an id it refuses. */

import { CodedError } from '../../contract/CodedError.ts';

/** Stable codes of BullmqAdapterError. */
export type BullmqAdapterErrorCode = 'unsupported_config' | 'bad_target' | 'queue_error';

/**
 * A typed error of the BullMQ adapter. `unsupported_config`: a contract config whose times BullMQ
 * cannot hold in milliseconds (the message names the field and its value); `bad_target`: a server
 * address that is neither a postgres:// URL nor a socket folder; `queue_error`: BullMQ failed in a
 * way the contract has no reply for (kept as `cause`, the message names the command).
 */
export class BullmqAdapterError extends CodedError<BullmqAdapterErrorCode> {
  override name = 'BullmqAdapterError' as const;
}
