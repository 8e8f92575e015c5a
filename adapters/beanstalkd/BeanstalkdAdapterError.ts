/** Misuse of the beanstalkd adapter: a config beanstalkd cannot carry, a server it cannot reach, or a reply it cannot read. */

import { CodedError } from '../../contract/CodedError.ts';

/** Stable codes of BeanstalkdAdapterError. */
export type BeanstalkdAdapterErrorCode =
  | 'unsupported_config'
  | 'bad_target'
  | 'no_clock'
  | 'connection_failed'
  | 'protocol_error';

/**
 * A typed error of the beanstalkd adapter. `unsupported_config`: a contract config beanstalkd
 * refuses (the message names the field and its value); `bad_target`: an address that is not
 * `host:port`; `no_clock`: no libfaketime timestamp file to move the server's clock with;
 * `connection_failed`: the server cannot be reached or closed the connection (kept as `cause`);
 * `protocol_error`: a reply the adapter did not expect (the message quotes it).
 */
export class BeanstalkdAdapterError extends CodedError<BeanstalkdAdapterErrorCode> {
  override name = 'BeanstalkdAdapterError' as const;
}
