/**
 * The in-process adapter for impl/postgres's PostgresStore. Each adapter has a pool of its own
 * (one connection: one lane) and each store a schema of its own, dropped when the adapter closes.
 * Two kinds of restart:
 * - `snapshot` (default), as for every adapter: snapshot -> JSON text -> parse -> restore into a
 *   NEW schema, which replaces the old one (dropped);
 * - `reopen`, the durable restart: end the pool (every connection) and open the same schema from
 *   a new one, so that nothing but the database crosses the restart.
 */
import type { PgPool } from '../../impl/postgres/index.ts';
import type { Reply, Snapshot } from '../../contract/index.ts';
import { PostgresStore, postgresPool } from '../../impl/postgres/index.ts';
import type { PostgresStoreClass } from '../../impl/postgres/index.ts';
import type { Adapter, AdapterFactory, RestoreAnswer } from '../adapter.ts';
import { offerTo } from './offerRestore.ts';

/** How a PostgreSQL adapter restarts. */
export type PostgresRestart = 'snapshot' | 'reopen';

/** Options of a PostgreSQL adapter factory. */
export interface PostgresFactoryOptions {
  /** Where the server is: a postgres:// URL, a unix socket folder, or empty for PGHOST and the rest (default). */
  readonly target?: string;
  /** The store class (default PostgresStore; e.g. one running broken decisions). */
  readonly Store?: PostgresStoreClass;
  /** Name for reports (default `impl/PostgresStore`). */
  readonly name?: string;
  /** How restart() works (default `snapshot`). */
  readonly restart?: PostgresRestart;
}

/** An adapter over one PostgresStore; a restart replaces the store (and, for `reopen`, the pool). */
export class PostgresAdapter implements Adapter {
  private closed = false;

  constructor(
    private pool: PgPool,
    private store: PostgresStore,
    readonly name: string,
    private readonly options: PostgresFactoryOptions,
  ) {}

  /** The schema the current store lives in. */
  get schema(): string {
    return this.store.schema;
  }

  execute(command: unknown): Promise<Reply> {
    return this.store.execute(command);
  }

  snapshot(): Promise<Snapshot> {
    return this.store.snapshot();
  }

  restart(): Promise<void> {
    return this.options.restart === 'reopen' ? this.reopen() : this.restore();
  }

  /** Snapshot -> JSON text -> parse -> restore into a new schema; the old one is dropped. */
  async restore(): Promise<void> {
    const text = JSON.stringify(await this.store.snapshot());
    const old = this.store;
    this.store = await PostgresStore.restore.call(this.options.Store ?? PostgresStore, this.pool, JSON.parse(text));
    await old.drop();
  }

  /**
   * Restores the value of `text` into a new schema, which replaces the old one (dropped). A refusal
   * comes before the new schema is made (PostgresStore.restore validates first) and keeps the old store.
   */
  offerRestore(text: string): Promise<RestoreAnswer> {
    return offerTo(text, async (value) => {
      const next = await PostgresStore.restore.call(this.options.Store ?? PostgresStore, this.pool, value);
      const old = this.store;
      this.store = next;
      await old.drop();
    });
  }

  /** Ends every connection and opens the same schema through a new pool. */
  async reopen(): Promise<void> {
    const schema = this.store.schema;
    await this.store.close();
    await this.pool.end();
    this.pool = postgresPool(this.options.target, { max: 1 });
    this.store = await PostgresStore.open.call(this.options.Store ?? PostgresStore, this.pool, schema);
  }

  /** Drops the store's schema and ends the pool. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.store.drop();
    } finally {
      await this.pool.end();
    }
  }
}

/** A factory of adapters over PostgresStore (or `options.Store`), each store in a new schema. */
export function postgresFactory(options: PostgresFactoryOptions = {}): AdapterFactory {
  const name = options.name ?? (options.restart === 'reopen' ? 'impl/PostgresStore (reopen)' : 'impl/PostgresStore');
  return async (config) => {
    const pool = postgresPool(options.target, { max: 1 });
    try {
      return new PostgresAdapter(
        pool,
        await PostgresStore.create.call(options.Store ?? PostgresStore, pool, config),
        name,
        options,
      );
    } catch (error) {
      await pool.end();
      throw error;
    }
  };
}
