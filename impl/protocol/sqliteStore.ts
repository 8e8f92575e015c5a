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
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import type { Config } from '../../contract/index.ts';
import { parseConfig } from '../../contract/index.ts';
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
    return dirname(path) === dir && name.startsWith(`${stem}-`) && name.endsWith(ext) && /^\d+-\d+$/.test(name.slice(stem.length + 1, name.length - ext.length));
  };
  return {
    name: options.name ?? 'jobcheck-sqlite',
    create: (config: Config) => named(SqliteStore.create.call(Store, next(), config, options.sqlite)),
    restore: (snapshot: unknown) => named(SqliteStore.restore.call(Store, next(), snapshot, options.sqlite)),
    resume: (storage: string, config: Config) => {
      const cfg = parseConfig(config);
      const path = resolve(storage);
      if (!ofFamily(path)) return `${JSON.stringify(storage)} is not a store file of ${JSON.stringify(file)}`;
      if (!existsSync(path)) return `${JSON.stringify(storage)} does not exist`;
      let store: SqliteStore;
      try {
        store = SqliteStore.open.call(Store, path, options.sqlite);
      } catch (error) {
        if (error instanceof SqliteStoreError) return error.message;
        throw error;
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
