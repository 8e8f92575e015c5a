/**
 * The in-process adapter for impl/sqlite's SqliteStore (and subclasses of it, such as the broken
 * variants of the crash tests). Each store lives in its own file in a scratch folder, removed
 * when the adapter closes. Two kinds of restart:
 * - `snapshot` (default), as for every adapter: snapshot -> JSON text -> parse -> restore into a
 *   NEW database file, which replaces the old one;
 * - `reopen`, the durable restart: close the connection and open the same file again, so that
 *   nothing but the file crosses the restart (what a new process does after the old one died).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Reply, Snapshot } from '../../contract/index.ts';
import { SqliteStore } from '../../impl/sqlite/index.ts';
import type { SqliteOptions, SqliteStoreClass } from '../../impl/sqlite/index.ts';
import type { Adapter, AdapterFactory, RestoreAnswer } from '../adapter.ts';
import { offerTo } from './offerRestore.ts';

/** How an SQLite adapter restarts. */
export type SqliteRestart = 'snapshot' | 'reopen';

/** Options of an SQLite adapter factory. */
export interface SqliteFactoryOptions {
  /** The store class (default SqliteStore). */
  readonly Store?: SqliteStoreClass;
  /** Name for reports (default `impl/SqliteStore`). */
  readonly name?: string;
  /** How restart() works (default `snapshot`). */
  readonly restart?: SqliteRestart;
  /** Connection settings (default: the store's, synchronous=FULL). */
  readonly sqlite?: SqliteOptions;
  /** Folder for the store files (default: a scratch folder of this process, removed once no store uses it). */
  readonly dir?: string;
}

let scratch: { readonly dir: string; held: number } | undefined;
let files = 0;

/**
 * The folder for a store's files: `dir` when given (release does nothing), else this process's
 * scratch folder, held until `release` and removed once nothing holds it (and at the process's
 * exit, for a holder that never released it).
 */
export function holdFolder(dir: string | undefined): { readonly dir: string; release(): void } {
  if (dir !== undefined) return { dir, release: () => undefined };
  if (scratch === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'jobcheck-sqlite-'));
    const held = { dir, held: 0 };
    scratch = held;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  const current = scratch;
  current.held++;
  let released = false;
  return {
    dir: current.dir,
    release() {
      if (released) return;
      released = true;
      if (--current.held === 0 && scratch === current) {
        scratch = undefined;
        rmSync(current.dir, { recursive: true, force: true });
      }
    },
  };
}

/** Removes a database file and its WAL and shared-memory files. Never throws. */
export function removeDatabase(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${path}${suffix}`, { force: true });
}

/** An adapter over one SqliteStore; a restart replaces the store (and, for `snapshot`, its file). */
export class SqliteAdapter implements Adapter {
  private closed = false;

  constructor(
    private store: SqliteStore,
    private readonly Store: SqliteStoreClass,
    readonly name: string,
    private readonly options: SqliteFactoryOptions,
    private readonly nextPath: () => string,
    private readonly release: () => void = () => undefined,
  ) {}

  /** The file the current store lives in. */
  get path(): string {
    return this.store.path;
  }

  /** Executes one command (validated by the store itself). */
  execute(command: unknown): Promise<Reply> {
    return Promise.resolve(this.store.execute(command));
  }

  /** The store's canonical snapshot. */
  snapshot(): Promise<Snapshot> {
    return Promise.resolve(this.store.snapshot());
  }

  /** A restart of the kind the factory chose (see the file comment). */
  restart(): Promise<void> {
    return this.options.restart === 'reopen' ? this.reopen() : this.restore();
  }

  /** Snapshot -> JSON text -> parse -> restore into a new file; the old file is removed. */
  restore(): Promise<void> {
    const text = JSON.stringify(this.store.snapshot());
    const old = this.store;
    this.store = SqliteStore.restore.call(this.Store, this.nextPath(), JSON.parse(text), this.options.sqlite);
    old.close();
    removeDatabase(old.path);
    return Promise.resolve();
  }

  /**
   * Restores the value of `text` into a new file, which replaces the old one (removed). A refusal
   * comes before the new file is touched (SqliteStore.restore validates first) and keeps the old store.
   */
  offerRestore(text: string): Promise<RestoreAnswer> {
    return offerTo(text, (value) => {
      const next = SqliteStore.restore.call(this.Store, this.nextPath(), value, this.options.sqlite);
      const old = this.store;
      this.store = next;
      old.close();
      removeDatabase(old.path);
    });
  }

  /** Closes the connection and opens the same file again. */
  reopen(): Promise<void> {
    const path = this.store.path;
    this.store.close();
    this.store = SqliteStore.open.call(this.Store, path, this.options.sqlite);
    return Promise.resolve();
  }

  /** Closes the store and removes its file. Idempotent. */
  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.store.close();
      removeDatabase(this.store.path);
      this.release();
    }
    return Promise.resolve();
  }
}

/** A factory of adapters over SqliteStore (or `options.Store`), each store in a new file. */
export function sqliteFactory(options: SqliteFactoryOptions = {}): AdapterFactory {
  const Store = options.Store ?? SqliteStore;
  const name = options.name ?? (options.restart === 'reopen' ? 'impl/SqliteStore (reopen)' : 'impl/SqliteStore');
  return (config) => {
    const folder = holdFolder(options.dir);
    const nextPath = (): string => join(folder.dir, `store-${process.pid}-${++files}.db`);
    try {
      const store = SqliteStore.create.call(Store, nextPath(), config, options.sqlite);
      return Promise.resolve(new SqliteAdapter(store, Store, name, options, nextPath, folder.release));
    } catch (error) {
      folder.release();
      throw error;
    }
  };
}
