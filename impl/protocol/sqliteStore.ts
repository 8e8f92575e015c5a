/**
 * The SQLite store as a protocol server's store (`jobcheck serve --store sqlite:<file>`).
 *
 * The protocol's `hello` starts an empty store, and a check runs several processes of the same
 * command at once, so `<file>` names a family of files rather than one: each store this process
 * makes (hello or restore) gets a new file beside it, `<stem>-<pid>-<n><ext>` (`jobs.db` gives
 * `jobs-4242-1.db`, `jobs-4242-2.db`, ...). These are the served stores' own files: one is removed
 * when its store is replaced or the process ends normally. Only a process that is killed leaves
 * its file behind, and that is the point: the store is durable, its hello reply names the file,
 * and a new process started with the same command reopens it when a hello says `resume`, without
 * a snapshot crossing (docs/protocol.md, "Crash restarts"). The resumed file then belongs to the
 * new process.
 *
 * Storage that fails never ends the process: a store that cannot be made (`<file>` names a folder
 * or a FIFO, its folder is missing or unwritable) refuses the `hello` or `restore` with
 * `storage_unavailable`, and a storage a `resume` names that is not a sound store file (a folder,
 * a FIFO, a truncated or malformed file, another schema, rows no store could have written, a meta
 * row with a bad config) refuses it with `invalid_argument`, as docs/protocol.md says of storage
 * that cannot be resumed. The rows of a resumed file are checked as `restore` checks a snapshot.
 */
import { existsSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import type { Config } from '../../contract/index.ts';
import { JobcheckError, parseConfig } from '../../contract/index.ts';
import { SqliteStore, SqliteStoreError } from '../sqlite/index.ts';
import type { SqliteOptions, SqliteStoreClass } from '../sqlite/index.ts';
import type { ServedStore, StoreMaker } from './server.ts';

/** Options of the SQLite store maker. */
export interface SqliteMakerOptions {
  /** Connection settings (default: synchronous=FULL). */
  readonly sqlite?: SqliteOptions;
  /** The store class (default SqliteStore; a broken variant in the crash tests). */
  readonly Store?: SqliteStoreClass;
  /** The name in the hello reply (default `jobcheck-sqlite`). */
  readonly name?: string;
}

/** Removes a database file with its WAL and shared-memory files. */
async function removeFiles(path: string): Promise<void> {
  await Promise.all(['', '-wal', '-shm', '-journal'].map((suffix) => rm(`${path}${suffix}`, { force: true })));
}

/** A served store over one SqliteStore file, its storage named `storage`; closing it removes the file. */
function served(store: SqliteStore, storage: string): ServedStore {
  return {
    storage,
    execute: (command) => store.execute(command),
    snapshot: () => store.snapshot(),
    close: async () => {
      store.close();
      await removeFiles(store.path);
    },
  };
}

/**
 * Makes a store with `make`, turning a failure of the storage (anything but the contract's own
 * JobcheckError, which `make` throws for a bad config or snapshot before touching a file) into
 * JobcheckError `storage_unavailable` naming `file`.
 */
function madeOn<T>(file: string, make: () => T): T {
  try {
    return make();
  } catch (error) {
    if (error instanceof JobcheckError) throw error;
    const why = error instanceof SqliteStoreError ? `${error.code}: ${error.message}` : (error as Error).message;
    throw new JobcheckError(
      'storage_unavailable',
      '',
      `storage: cannot make a store file beside ${JSON.stringify(file)} (${why})`,
      { cause: error },
    );
  }
}

/** Why `target` (the family's name) cannot name store files: it is a folder, a FIFO or another non-file. Undefined when it may. */
function badTarget(target: string): string | undefined {
  let stat: Stats;
  try {
    stat = statSync(target);
  } catch {
    return undefined; // Absent is the usual case: the family's files are made beside it.
  }
  if (stat.isFile()) return undefined;
  const kind = stat.isDirectory() ? 'a folder' : stat.isFIFO() ? 'a FIFO' : stat.isSocket() ? 'a socket' : 'a device';
  return `storage: ${JSON.stringify(target)} is ${kind}; --store sqlite:<file> names a file to make store files beside (e.g. sqlite:jobs.db)`;
}

/** A StoreMaker of SQLite stores, one new file per store in the family of `file` (see the file comment). */
export function sqliteStoreMaker(file: string, options: SqliteMakerOptions = {}): StoreMaker {
  const Store = options.Store ?? SqliteStore;
  const target = resolve(file);
  const dir = dirname(target);
  const ext = extname(target);
  const stem = basename(target, ext);
  let made = 0;
  const next = (): string => {
    // A file of the same name may be left by a killed process whose pid this one now has: skip it.
    for (;;) {
      const path = join(dir, `${stem}-${process.pid}-${++made}${ext}`);
      if (!existsSync(path)) return path;
    }
  };
  // The storage is named as the command named the file (relative stays relative): a new process
  // started with the same command in the same folder finds it, and no report shows more.
  const named = (store: SqliteStore): ServedStore => served(store, join(dirname(file), basename(store.path)));
  /** Whether `path` is a file of this family (so that a resume opens nothing else). */
  const ofFamily = (path: string): boolean => {
    const name = basename(path);
    return (
      dirname(path) === dir &&
      name.startsWith(`${stem}-`) &&
      name.endsWith(ext) &&
      /^\d+-\d+$/.test(name.slice(stem.length + 1, name.length - ext.length))
    );
  };
  return {
    name: options.name ?? 'jobcheck-sqlite',
    create: (config: Config) => {
      const cfg = parseConfig(config);
      const bad = badTarget(target);
      if (bad !== undefined) throw new JobcheckError('storage_unavailable', '', bad);
      return named(madeOn(file, () => SqliteStore.create.call(Store, next(), cfg, options.sqlite)));
    },
    restore: (snapshot: unknown) => {
      const bad = badTarget(target);
      if (bad !== undefined) throw new JobcheckError('storage_unavailable', '', bad);
      return named(madeOn(file, () => SqliteStore.restore.call(Store, next(), snapshot, options.sqlite)));
    },
    resume: (storage: string, config: Config) => {
      const cfg = parseConfig(config);
      const path = resolve(storage);
      if (!ofFamily(path)) return `${JSON.stringify(storage)} is not a store file of ${JSON.stringify(file)}`;
      if (!existsSync(path)) return `${JSON.stringify(storage)} does not exist`;
      let store: SqliteStore;
      try {
        store = SqliteStore.resume.call(Store, path, options.sqlite);
      } catch (error) {
        if (error instanceof SqliteStoreError) return `${error.code}: ${error.message}`;
        throw new JobcheckError(
          'storage_unavailable',
          '',
          `storage: cannot resume ${JSON.stringify(storage)} (${(error as Error).message})`,
          { cause: error },
        );
      }
      const held = store.config;
      if ((Object.keys(cfg) as (keyof Config)[]).some((k) => held[k] !== cfg[k])) {
        store.close();
        return `${JSON.stringify(storage)} holds a store with another config (${JSON.stringify(held)})`;
      }
      return named(store);
    },
  };
}
