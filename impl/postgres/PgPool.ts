/**
 * The part of node-postgres (pg) the PostgreSQL store and its variants use, as interfaces of our
 * own. The store's declarations name these, not the driver's types, so that the published .d.ts
 * files stand alone: a project that type-checks with `skipLibCheck: false` needs neither pg nor
 * @types/pg (the driver is an optional peer dependency). A `pg.Pool` is a PgPool and a
 * `pg.PoolClient` a PgPoolClient (schema.ts makes pools with the driver's own types, so the
 * compiler holds the two together there).
 */

/** What a statement returns: its rows (untyped unless the caller names their type) and the rows it touched. */
export interface PgQueryResult<R = unknown> {
  readonly rows: R[];
  readonly rowCount: number | null;
}

/** Something statements can be sent to: a pool or one of its connections. */
export interface PgQueryable {
  query<R = unknown>(text: string, values?: unknown[]): Promise<PgQueryResult<R>>;
}

/** A connection taken from a pool (pg's `PoolClient`), given back with `release`. */
export interface PgPoolClient extends PgQueryable {
  release(destroy?: boolean | Error): void;
  /** The driver's connection emits `error` when the server goes while it is taken (the pool listens only while it idles). */
  on?(event: 'error', listener: (error: Error) => void): unknown;
  off?(event: 'error', listener: (error: Error) => void): unknown;
}

/** A connection pool (pg's `Pool`). */
export interface PgPool extends PgQueryable {
  connect(): Promise<PgPoolClient>;
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): unknown;
}
