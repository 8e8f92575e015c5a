import { CodedError } from '../../contract/CodedError.ts';

/**
 * Codes of the SQLite store's own errors (a bad config or snapshot is a JobcheckError, as for every store);
 * `invalid_store`: the file holds a store whose rows no store could have written (seen when it is resumed).
 */
export type SqliteStoreErrorCode =
  | 'store_exists'
  | 'no_store'
  | 'schema_mismatch'
  | 'config_mismatch'
  | 'unusable_file'
  | 'invalid_store';

/**
 * A typed error about the store's file: it holds something else than asked for (a store where an
 * empty file was wanted, none where one was wanted, another layout or config), or SQLite cannot
 * use it the way the store needs. `code` is stable; the message names the file.
 */
export class SqliteStoreError extends CodedError<SqliteStoreErrorCode> {
  override name = 'SqliteStoreError' as const;
}
