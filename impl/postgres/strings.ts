/**
 * Strings as PostgreSQL values, losslessly. PostgreSQL's text is UTF-8 and cannot hold a lone
 * UTF-16 surrogate, yet a JSON string may carry one (`"\ud800"`) and the contract allows any
 * non-empty string as an id, account, key, worker or error. Every string column is therefore
 * `bytea`: a string with no surrogate is stored as its UTF-8 bytes (so `convert_from(col, 'UTF8')`
 * shows nearly every row in psql), one with any surrogate as the byte 0xFF followed by its UTF-16LE
 * code units. UTF-8 never contains 0xFF, so the two forms never collide and each string has
 * exactly one encoding: equality, uniqueness and the indexes work on the stored bytes. Pure.
 * (The SQLite store does the same with TEXT and BLOB values, impl/sqlite/strings.ts.)
 */

const SURROGATE = /[\uD800-\uDFFF]/;
const TAG = 0xff;

/** The stored bytes of a string. Pure. */
export function toBytes(s: string): Buffer {
  if (!SURROGATE.test(s)) return Buffer.from(s, 'utf8');
  const units = Buffer.from(s, 'utf16le');
  return Buffer.concat([Buffer.from([TAG]), units]);
}

/** The string stored bytes hold. Pure. */
export function fromBytes(b: Buffer): string {
  return b.length > 0 && b[0] === TAG ? b.subarray(1).toString('utf16le') : b.toString('utf8');
}
