/** Misuse of the NATS JetStream adapter: a config JetStream cannot carry, no server, or a broker error. */

import { CodedError } from '../../contract/CodedError.ts';

/** Stable codes of NatsAdapterError. */
export type NatsAdapterErrorCode = 'unsupported_config' | 'no_server' | 'queue_error';

/**
 * A typed error of the NATS JetStream adapter. `unsupported_config`: a contract config JetStream
 * refuses (the message names the field and its value); `no_server`: no `nats://` URL was given and
 * `JOBCHECK_NATS_URL` is not set; `queue_error`: the broker answered something the adapter cannot
 * read as a reply (kept as `cause`), so the state it would report can no longer be trusted.
 */
export class NatsAdapterError extends CodedError<NatsAdapterErrorCode> {
  override name = 'NatsAdapterError' as const;
}
