/**
 * A statement's parameters written into its text as SQL literals, so that several statements can
 * travel in one simple-protocol message (one round trip): node-postgres sends a parameterised
 * statement alone and waits for its answer before the next, so a command of five statements cost
 * five round trips under the meta row's lock. Only values the store itself produces reach here:
 * safe integers (the contract's integers), booleans, NULL, the bytes of a string (strings.ts,
 * written as a hex `bytea` literal), the store's own words (`status`, `reason`), quoted with
 * node-postgres' `escapeLiteral`, and arrays of integers or of bytes (the arguments of prepared
 * statements, Prepared.ts). Anything else is refused, so no text of a caller's choosing is
 * ever spliced in unquoted. Pure.
 */
import { loadPg } from './loadPg.ts';

/** One value as an SQL literal. Pure; throws for a value the store never binds. */
export function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new RangeError(`${value} is not a safe integer`);
    // A negative number in parentheses, so that `- $1` can never become the comment `--`.
    return value < 0 ? `(${value})` : String(value);
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Buffer.isBuffer(value)) return `E'\\\\x${value.toString('hex')}'::bytea`;
  if (typeof value === 'string') return loadPg().escapeLiteral(value);
  // An array of integers or of bytes, as an argument of a prepared statement whose parameter says
  // its type (Prepared.ts); the empty array as the untyped '{}', which takes that type.
  if (Array.isArray(value)) {
    if (value.length === 0) return "'{}'";
    if (value.every((v) => typeof v === 'number')) return `ARRAY[${value.map(literal).join(', ')}]::bigint[]`;
    if (value.every((v) => Buffer.isBuffer(v))) return `ARRAY[${value.map(literal).join(', ')}]::bytea[]`;
    throw new TypeError('an array of other values than integers or bytes cannot be written as an SQL literal');
  }
  throw new TypeError(`a ${typeof value} cannot be written as an SQL literal`);
}

/** `sql` with every `$n` replaced by the literal of `params[n - 1]`. Pure; throws for a missing parameter. */
export function inline(sql: string, params: readonly unknown[]): string {
  if (params.length === 0) return sql;
  return sql.replace(/\$(\d+)/g, (_, n: string) => {
    const i = Number(n) - 1;
    if (i >= params.length) throw new RangeError(`no parameter $${n} for ${JSON.stringify(sql.slice(0, 60))}`);
    return literal(params[i]);
  });
}
