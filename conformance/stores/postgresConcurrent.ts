/**
 * impl/postgres's PostgresStore (or a subclass, such as a broken variant) as a ConcurrentAdapter: one schema, and per
 * worker lane a pool of exactly one connection and a store object of its own opened on that
 * schema, so that requests of different lanes travel on different connections at the same time,
 * as workers on different machines do. Nothing in this process orders them.
 *
 * The correct store still runs them one at a time, on purpose: every command's transaction first
 * takes the meta row `FOR UPDATE` (one logical clock and one token counter, docs/contract.md),
 * so competing lanes queue on that lock in the server, and the history is linearizable because
 * of it. The broken variant `pg-claim-without-locks` (conformance/broken/postgres/) takes no lock
 * for a claim, and two lanes claiming at once get the same delivery.
 *
 * A command the store throws for inside its transaction (a unique violation, a lost guard) was
 * rolled back: it becomes a store-error reply (laneErrors.ts), a departure the checker sees,
 * never retried. An error of the connection itself (no SQLSTATE, or the connection ended) leaves
 * the outcome unknown: it rejects with IndefiniteOutcome.
 */
import type { PgPool } from '../../impl/postgres/index.ts';
import type { Reply, Snapshot } from '../../contract/index.ts';
import { PostgresStore, postgresPool } from '../../impl/postgres/index.ts';
import type { PostgresStoreClass } from '../../impl/postgres/index.ts';
import { IndefiniteOutcome } from '../concurrent/adapter.ts';
import type { ConcurrentAdapter, ConcurrentFactory } from '../concurrent/adapter.ts';
import { asReply, checkLane, checkWorkers, storeErrorReply } from './laneErrors.ts';
import { messageOf } from '../../contract/index.ts';

/** Options of a concurrent PostgreSQL adapter factory. */
export interface PostgresConcurrentOptions {
  /** The store class (default PostgresStore). */
  readonly Store?: PostgresStoreClass;
  /** Where the server is: a postgres:// URL, a unix socket folder, or empty for PGHOST and the rest (default). */
  readonly target?: string;
  /** Name for reports (default `impl/PostgresStore (lanes)`, or the class's name). */
  readonly name?: string;
}

/**
 * Whether a store's error left the outcome unknown: the connection itself failed (a system error,
 * or node-postgres's "Connection terminated"), so the COMMIT may or may not have happened. Any
 * other error was thrown inside the transaction, which the store rolled back. Pure.
 */
const isConnectionError = (error: unknown): boolean =>
  (error as { syscall?: unknown } | null)?.syscall !== undefined ||
  /Connection terminated|connection (is )?closed/i.test(error instanceof Error ? error.message : '');

/** Lanes on one schema, each its own connection (see the file comment). */
export class PostgresConcurrentAdapter implements ConcurrentAdapter {
  readonly concurrent = true;
  private closed = false;

  constructor(
    readonly name: string,
    private readonly pools: readonly PgPool[],
    private readonly stores: readonly PostgresStore[],
  ) {}

  /** The schema the lanes share. */
  get schema(): string {
    return (this.stores[0] as PostgresStore).schema;
  }

  /** Executes one command on `lane`'s connection; rejects with LaneAdapterError `bad_lane` for a lane out of range. */
  async execute(lane: number, command: unknown): Promise<Reply> {
    checkLane(lane, this.stores.length);
    const store = this.stores[lane] as PostgresStore;
    if (this.closed) throw new IndefiniteOutcome('closed', `the adapter is closed (lane ${lane})`);
    try {
      return await store.execute(command);
    } catch (error) {
      if (!isConnectionError(error)) return asReply(storeErrorReply(error));
      throw new IndefiniteOutcome('process_died', `lane ${lane}: the connection failed: ${messageOf(error)}`);
    }
  }

  /** The canonical snapshot (one REPEATABLE READ transaction on lane 0's connection). */
  snapshot(): Promise<Snapshot> {
    return (this.stores[0] as PostgresStore).snapshot();
  }

  /** Drops the schema and ends every lane's pool. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await (this.stores[0] as PostgresStore).drop();
    } finally {
      await Promise.all(this.pools.map((p) => p.end()));
    }
  }
}

/**
 * A factory of concurrent adapters over PostgresStore (or a subclass), each run a new schema with
 * `workers` lanes. The factory rejects with LaneAdapterError `bad_workers` for a lane count that
 * is not a positive integer.
 */
export function postgresConcurrentFactory(options: PostgresConcurrentOptions = {}): ConcurrentFactory {
  const Store = options.Store ?? PostgresStore;
  const name = options.name ?? (Store === PostgresStore ? 'impl/PostgresStore (lanes)' : `${Store.name} (lanes)`);
  return async (config, { workers }) => {
    checkWorkers(workers);
    const pools = Array.from({ length: workers }, () => postgresPool(options.target, { max: 1 }));
    try {
      const first = await PostgresStore.create.call(Store, pools[0] as PgPool, config);
      const rest = await Promise.all(pools.slice(1).map((p) => PostgresStore.open.call(Store, p, first.schema)));
      return new PostgresConcurrentAdapter(name, pools, [first, ...rest]);
    } catch (error) {
      await Promise.all(pools.map((p) => p.end()));
      throw error;
    }
  };
}
