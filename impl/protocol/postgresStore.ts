/**
 * The PostgreSQL store as a protocol server's store (`jobcheck serve --store postgres:<target>`,
 * the target a postgres:// URL or a unix socket folder; `postgres:` alone uses PGHOST and the rest
 * of libpq's environment).
 *
 * Each store this process makes (hello or restore) gets a schema of its own, `jobcheck_<random>`,
 * and the hello reply names it as the store's storage. A schema is dropped when its store is
 * replaced or the process ends normally; only a process that is killed leaves it, and a new
 * process started with the same command reopens it when a hello says `resume` (docs/protocol.md,
 * "Crash restarts"), without a snapshot crossing.
 *
 * A server that cannot be reached (none at the target, a refused login, a lost connection) never
 * ends the process: the `hello` or `restore` that needed it is refused with `storage_unavailable`
 * and a later one tries again. A schema a `resume` names that holds no sound store (another
 * layout, rows no store could have written, checked as `restore` checks a snapshot) is refused
 * with `invalid_argument`, as docs/protocol.md says of storage that cannot be resumed.
 */
import type { Config } from '../../contract/index.ts';
import { JobcheckError, parseConfig } from '../../contract/index.ts';
import { PostgresStore, PostgresStoreError, isStoreSchema, postgresPool } from '../postgres/index.ts';
import type { ServedStore, StoreMaker } from './server.ts';

/**
 * Most connections one serving process holds: in a jobcheck/2 session each lane's command runs
 * on a pooled connection of its own, up to this many at once (more lanes queue for one).
 */
export const MAX_SERVE_CONNECTIONS = 8;

/**
 * A served store over one PostgresStore; closing it drops the schema. It is `concurrent`: each
 * command is a transaction of its own that first locks the store's meta row (impl/postgres), so
 * commands of several lanes may run at once and are serialised by the database.
 */
function served(store: PostgresStore): ServedStore {
  return {
    storage: store.schema,
    concurrent: true,
    execute: (command) => store.execute(command),
    snapshot: () => store.snapshot(),
    close: () => store.drop(),
  };
}

/**
 * Runs `make` (which needs the server), turning a failure to reach or use it (anything but the
 * contract's own JobcheckError for a bad config or snapshot) into JobcheckError `storage_unavailable`.
 */
async function onServer<T>(target: string, make: () => Promise<T>): Promise<T> {
  try {
    return await make();
  } catch (error) {
    if (error instanceof JobcheckError) throw error;
    const where = target === '' ? "libpq's environment (PGHOST)" : JSON.stringify(target);
    const why = error instanceof PostgresStoreError ? `${error.code}: ${error.message}` : (error as Error).message;
    throw new JobcheckError(
      'storage_unavailable',
      '',
      `storage: the PostgreSQL server at ${where} cannot be used (${why})`,
      { cause: error },
    );
  }
}

/** A StoreMaker of PostgreSQL stores on the server at `target`, one new schema per store (see the file comment). Connects lazily. */
export function postgresStoreMaker(target: string): StoreMaker {
  // The pool is made at the first store, so that a bad target is told as the hello's error.
  let pool: ReturnType<typeof postgresPool> | undefined;
  const db = (): ReturnType<typeof postgresPool> => {
    if (pool !== undefined) return pool;
    pool = postgresPool(target, { max: MAX_SERVE_CONNECTIONS, allowExitOnIdle: true });
    // An idle connection the server drops is reported by the pool as an event, which unhandled
    // would end the process: the next command's query fails instead, and is answered as such.
    pool.on('error', () => undefined);
    return pool;
  };
  return {
    name: 'jobcheck-postgres',
    create: async (config: Config) => served(await onServer(target, async () => PostgresStore.create(db(), config))),
    restore: async (snapshot: unknown) =>
      served(await onServer(target, async () => PostgresStore.restore(db(), snapshot))),
    resume: async (storage: string, config: Config) => {
      const cfg = parseConfig(config);
      if (!isStoreSchema(storage)) return `${JSON.stringify(storage)} is not the name of a store's schema`;
      const store: PostgresStore | string = await onServer(target, async () => {
        try {
          return await PostgresStore.resume(db(), storage);
        } catch (error) {
          if (error instanceof PostgresStoreError) return `${error.code}: ${error.message}`;
          throw error;
        }
      });
      if (typeof store === 'string') return store;
      const held = store.config;
      if ((Object.keys(cfg) as (keyof Config)[]).some((k) => held[k] !== cfg[k]))
        return `${JSON.stringify(storage)} holds a store with another config (${JSON.stringify(held)})`;
      return served(store);
    },
  };
}
