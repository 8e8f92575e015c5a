/** Misuse of the RabbitMQ adapter: a config RabbitMQ cannot carry, or a server it cannot reach. */

import { CodedError } from '../../contract/CodedError.ts';

/** Stable codes of RabbitmqAdapterError. */
export type RabbitmqAdapterErrorCode = 'unsupported_config' | 'no_server' | 'broker_error';

/**
 * A typed error of the RabbitMQ adapter. `unsupported_config`: a contract config the broker
 * cannot carry (the message names the field and its value); `no_server`: no AMQP URL was given
 * (JOBCHECK_AMQP_URL unset); `broker_error`: the connection itself failed (kept as `cause`), so the
 * state the adapter would report can no longer be trusted.
 */
export class RabbitmqAdapterError extends CodedError<RabbitmqAdapterErrorCode> {
  override name = 'RabbitmqAdapterError' as const;
}
