/**
 * Strings as SQLite values, losslessly. SQLite's TEXT is UTF-8, which cannot hold a lone UTF-16
 * surrogate, yet a JSON string may carry one (`"\ud800"`) and the contract allows any non-empty
 * string as an id, account, key, worker or error. A string with no surrogate at all is stored as
 * TEXT (nearly every string: readable in the sqlite3 shell); one with any surrogate is stored as a
 * BLOB of its UTF-16LE code units. TEXT and BLOB never compare equal, and each string has exactly
 * one encoding, so equality and the indexes work on the stored value. Pure.
 */

/** A string as it is stored. */
export type StoredString = string | Buffer;

const SURROGATE = /[\uD800-\uDFFF]/;

/** The stored form of a string. Pure. */
export const toStored = (s: string): StoredString => (SURROGATE.test(s) ? Buffer.from(s, 'utf16le') : s);

/** The string a stored value holds. Pure. */
export const fromStored = (v: StoredString): string => (typeof v === 'string' ? v : v.toString('utf16le'));
