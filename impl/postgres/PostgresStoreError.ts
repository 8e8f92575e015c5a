import { CodedError } from '../../contract/CodedError.ts';

/**
 * Codes of the PostgreSQL store's own errors (a bad config or snapshot is a JobcheckError, as for every store);
 * `invalid_store`: the schema holds a store whose rows no store could have written (seen when it is resumed).
 */
export type PostgresStoreErrorCode =
  | 'no_store'
  | 'schema_mismatch'
  | 'config_mismatch'
  | 'bad_target'
  | 'lost_guard'
  | 'out_of_range'
  | 'invalid_store';

/**
 * A typed error about the store's database: no store in the named schema, another layout or
 * config there, a connection target that cannot be used, or a guarded write that found its row
 * changed (which the store's locking rules out; seeing it means another writer broke them).
 * `code` is stable; the message names the schema or the value.
 */
export class PostgresStoreError extends CodedError<PostgresStoreErrorCode> {
  override name = 'PostgresStoreError' as const;
}
