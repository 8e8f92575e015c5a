/** Misuse of the pg-boss adapter: a config pg-boss cannot carry, or a server it cannot reach. */

import { CodedError } from '../../contract/CodedError.ts';

/** Stable codes of PgBossAdapterError. */
export type PgBossAdapterErrorCode = 'unsupported_config' | 'bad_target' | 'queue_error';

/**
 * A typed error of the pg-boss adapter. `unsupported_config`: a contract config pg-boss refuses
 * (the message names the field and its value); `bad_target`: a server address that is neither a
 * postgres:// URL nor a socket folder; `queue_error`: pg-boss reported an error in the background
 * (kept as `cause`), so the state the adapter would report can no longer be trusted.
 */
export class PgBossAdapterError extends CodedError<PgBossAdapterErrorCode> {
  override name = 'PgBossAdapterError' as const;
}
