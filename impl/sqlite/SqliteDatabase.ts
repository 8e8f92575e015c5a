/**
 * The part of better-sqlite3 the SQLite store and its variants use, as interfaces of our own.
 * The store's declarations name these, not the driver's types, so that the published .d.ts files
 * stand alone: a project that type-checks with `skipLibCheck: false` needs neither better-sqlite3
 * nor @types/better-sqlite3 (the driver is an optional peer dependency). A better-sqlite3
 * `Database` is one of these: loadSqlite.ts assigns the driver's own type to SqliteDatabase, so
 * the compiler holds the two together where a connection is opened.
 */

/** What a write statement reports. */
export interface SqliteRunResult {
  readonly changes: number;
  readonly lastInsertRowid: number | bigint;
}

/**
 * A prepared statement (better-sqlite3's `Statement`). Its rows are `Row`, as the statement's SQL
 * and the schema it runs on say (the driver checks nothing): unknown unless the store names them.
 */
export interface SqliteStatement<Row = unknown> {
  run(...params: unknown[]): SqliteRunResult;
  get(...params: unknown[]): Row | undefined;
  all(...params: unknown[]): Row[];
}

/** A function wrapped in a transaction (better-sqlite3's `Transaction`): BEGIN by default, or the named kind. */
export interface SqliteTransaction<A extends unknown[], R> {
  (...args: A): R;
  deferred(...args: A): R;
  immediate(...args: A): R;
  exclusive(...args: A): R;
}

/** An open connection (better-sqlite3's `Database`). */
export interface SqliteDatabase {
  readonly open: boolean;
  readonly inTransaction: boolean;
  /** `Row`: the rows the statement returns, as its SQL says (the driver checks nothing). */
  prepare<Row = unknown>(source: string): SqliteStatement<Row>;
  exec(source: string): unknown;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): SqliteTransaction<A, R>;
  close(): unknown;
}
