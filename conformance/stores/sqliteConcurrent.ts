/**
 * impl/sqlite's SqliteStore (or a subclass, such as a broken variant) as a ConcurrentAdapter: one database file, and
 * per worker lane a worker thread (node:worker_threads) with a connection of its own to that file.
 * better-sqlite3 is synchronous, so commands of two lanes can only overlap when they run on two
 * threads; the adapter posts a lane's request to its thread and resolves with the reply it posts
 * back. The file is in WAL mode with the store's busy timeout, so the correct store's
 * `BEGIN IMMEDIATE` transactions queue on the write lock and the history is linearizable because
 * of it.
 *
 * The broken variant `deferred-claim` (conformance/broken/sqlite/) claims in a deferred
 * transaction: when another lane wrote between its read and its write, SQLite refuses the write
 * with SQLITE_BUSY at once, whatever the busy timeout. The transaction was rolled back, so that
 * is a definite outcome: the lane replies with a store-error reply (laneErrors.ts), which matches
 * no reply of the model, so the checker sees a departure at that request; it is never retried.
 * A thread that dies leaves its requests' outcomes unknown: they reject with IndefiniteOutcome.
 *
 * This module is also the lanes' entry: a thread started with LANE_ROLE in its workerData opens
 * the store and serves requests (from the sources it first registers tsx, as the exploration's
 * workers do; in the built package it is plain JavaScript), and imports a subclass's module.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { Reply, Snapshot } from '../../contract/index.ts';
import { SqliteStore } from '../../impl/sqlite/index.ts';
import type { SqliteOptions, SqliteStoreClass } from '../../impl/sqlite/index.ts';
import { IndefiniteOutcome } from '../concurrent/adapter.ts';
import type { ConcurrentAdapter, ConcurrentFactory } from '../concurrent/adapter.ts';
import { LaneAdapterError, checkLane, checkWorkers, storeErrorReply } from './laneErrors.ts';
import { holdFolder, removeDatabase } from './sqlite.ts';

/** The workerData tag of a lane thread. */
const LANE_ROLE = 'jobcheck-sqlite-lane';

interface LaneData {
  readonly role: typeof LANE_ROLE;
  readonly file: string;
  /** Where the thread finds a subclass to open (null: SqliteStore itself). */
  readonly store: { readonly module: string; readonly name: string } | null;
  readonly sqlite: SqliteOptions;
}

type ToLane = { readonly id: number; readonly command: unknown } | { readonly close: true };
type FromLane =
  | { readonly ready: true }
  | { readonly refused: string }
  | { readonly id: number; readonly reply: unknown };

/** Options of a concurrent SQLite adapter factory. */
export interface SqliteConcurrentOptions {
  /** The store class (default SqliteStore); another class needs `module`. */
  readonly Store?: SqliteStoreClass;
  /** The file URL of a module that exports Store under its class name: each lane's thread imports it. */
  readonly module?: string;
  /** Name for reports (default `impl/SqliteStore (lanes)`, or the class's name). */
  readonly name?: string;
  /** Connection settings of every lane (default: the store's, synchronous=FULL, busy timeout 5000 ms). */
  readonly sqlite?: SqliteOptions;
  /** Folder for the store files (default: the in-process SQLite adapter's scratch folder). */
  readonly dir?: string;
}

// From the sources the thread registers tsx before it loads this module again; built, it is JavaScript.
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const ENTRY = `
const { workerData } = require('node:worker_threads');
(async () => {
  if (workerData.tsx !== null) (await import(workerData.tsx)).register();
  await import(workerData.module);
})();
`;

/** The file URL of tsx's ESM API (`tsx/esm/api`, its `import` export), found through tsx's package.json. */
function tsxApi(): string {
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
  const exports = (
    JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> }
  ).exports;
  const entry = exports['./esm/api']?.import.default;
  if (entry === undefined) throw new Error(`tsx at ${dirname(manifest)} has no ESM API (tsx/esm/api)`);
  return pathToFileURL(join(dirname(manifest), entry)).href;
}

/** One lane: a thread with its own connection, and the requests it has not answered yet. */
class Lane {
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  private next = 0;
  private dead: string | undefined;
  readonly ready: Promise<void>;

  constructor(
    private readonly thread: Worker,
    readonly index: number,
  ) {
    this.ready = new Promise<void>((resolve, reject) => {
      thread.on('message', (m: FromLane) => {
        if ('ready' in m) return resolve();
        if ('refused' in m) {
          this.dead = m.refused;
          return reject(new LaneAdapterError('store_not_loadable', m.refused));
        }
        const waiting = this.pending.get(m.id);
        this.pending.delete(m.id);
        waiting?.resolve(m.reply as Reply);
      });
      const die = (why: string): void => {
        this.dead ??= why;
        reject(new IndefiniteOutcome('process_died', `lane ${index}: ${why}`));
        for (const w of this.pending.values()) w.reject(new IndefiniteOutcome('process_died', `lane ${index}: ${why}`));
        this.pending.clear();
      };
      thread.on('error', (e) => die(`its thread failed: ${e.message}`));
      thread.on('exit', (code) => die(`its thread ended (exit code ${code})`));
    });
  }

  execute(command: unknown): Promise<Reply> {
    if (this.dead !== undefined)
      return Promise.reject(new IndefiniteOutcome('process_died', `lane ${this.index}: ${this.dead}`));
    const id = this.next++;
    return new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.thread.postMessage({ id, command } satisfies ToLane);
    });
  }

  /** Asks the thread to close its connection and waits for it to end. */
  async close(): Promise<void> {
    if (this.dead !== undefined) return;
    const ended = new Promise<void>((resolve) => this.thread.once('exit', () => resolve()));
    this.thread.postMessage({ close: true } satisfies ToLane);
    await ended;
  }
}

/** Lanes on one file, each its own thread and connection (see the file comment). */
export class SqliteConcurrentAdapter implements ConcurrentAdapter {
  readonly concurrent = true;
  private closed = false;

  constructor(
    readonly name: string,
    /** The database file the lanes share. */
    readonly path: string,
    private readonly lanes: readonly Lane[],
    private readonly reader: SqliteStore,
    private readonly release: () => void = () => undefined,
  ) {}

  /** Executes one command on `lane`'s thread; rejects with LaneAdapterError `bad_lane` for a lane out of range. */
  async execute(lane: number, command: unknown): Promise<Reply> {
    checkLane(lane, this.lanes.length);
    if (this.closed) throw new IndefiniteOutcome('closed', `the adapter is closed (lane ${lane})`);
    return (this.lanes[lane] as Lane).execute(command);
  }

  /** The canonical snapshot, read in one transaction on a connection of this thread. */
  snapshot(): Promise<Snapshot> {
    return Promise.resolve(this.reader.snapshot());
  }

  /** Ends every lane's thread and removes the file. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await Promise.all(this.lanes.map((l) => l.close()));
    } finally {
      this.reader.close();
      removeDatabase(this.path);
      this.release();
    }
  }
}

let files = 0;

/**
 * A factory of concurrent adapters over SqliteStore (or a subclass), each run a new file with
 * `workers` lanes. Throws LaneAdapterError `store_not_loadable` for a subclass without its
 * `module`; the factory rejects with it when a lane finds no such class there, and with
 * `bad_workers` for a lane count that is not a positive integer.
 */
export function sqliteConcurrentFactory(options: SqliteConcurrentOptions = {}): ConcurrentFactory {
  const Store = options.Store ?? SqliteStore;
  if (Store !== SqliteStore && options.module === undefined)
    throw new LaneAdapterError(
      'store_not_loadable',
      `the store class ${Store.name} comes without the module that exports it (option module): a lane's thread cannot load it`,
    );
  const store = Store === SqliteStore ? null : { module: options.module as string, name: Store.name };
  const name = options.name ?? (Store === SqliteStore ? 'impl/SqliteStore (lanes)' : `${Store.name} (lanes)`);
  const sqlite = options.sqlite ?? {};
  return async (config, { workers }) => {
    checkWorkers(workers);
    const folder = holdFolder(options.dir);
    const path = join(folder.dir, `lanes-${process.pid}-${++files}.db`);
    let reader: SqliteStore;
    try {
      reader = SqliteStore.create.call(Store, path, config, sqlite);
    } catch (error) {
      folder.release();
      throw error;
    }
    const tsx = FROM_SOURCE ? tsxApi() : null;
    const data = (): LaneData & { tsx: string | null; module: string } => ({
      role: LANE_ROLE,
      file: path,
      store,
      sqlite,
      tsx,
      module: import.meta.url,
    });
    const lanes = Array.from(
      { length: workers },
      (_, i) => new Lane(new Worker(ENTRY, { eval: true, workerData: data() }), i),
    );
    try {
      await Promise.all(lanes.map((l) => l.ready));
    } catch (error) {
      await Promise.all(lanes.map((l) => l.close().catch(() => undefined)));
      reader.close();
      removeDatabase(path);
      folder.release();
      throw error;
    }
    return new SqliteConcurrentAdapter(name, path, lanes, reader, folder.release);
  };
}

/** The class a lane opens: SqliteStore, or the subclass its module exports under that name (else a refusal's text). */
async function laneStore(from: LaneData['store']): Promise<SqliteStoreClass | string> {
  if (from === null) return SqliteStore;
  const found = ((await import(from.module)) as Record<string, unknown>)[from.name];
  if (typeof found === 'function' && (found === SqliteStore || found.prototype instanceof SqliteStore))
    return found as SqliteStoreClass;
  return `the module ${from.module} exports no subclass of SqliteStore named ${JSON.stringify(from.name)}`;
}

/** The body of a lane thread: opens the store and answers each request with its reply, or a store-error reply. */
async function serveLane(data: LaneData): Promise<void> {
  const port = parentPort;
  if (port === null) return;
  const Store = await laneStore(data.store);
  if (typeof Store === 'string') {
    port.postMessage({ refused: Store } satisfies FromLane);
    port.close();
    return;
  }
  const store = SqliteStore.open.call(Store, data.file, data.sqlite);
  port.on('message', (m: ToLane) => {
    if ('close' in m) {
      store.close();
      port.close();
      return;
    }
    let reply: unknown;
    try {
      reply = store.execute(m.command);
    } catch (error) {
      reply = storeErrorReply(error);
    }
    port.postMessage({ id: m.id, reply } satisfies FromLane);
  });
  port.postMessage({ ready: true } satisfies FromLane);
}

// A failure to open the store ends the thread with an error, which its lane reports as the outcome of every request.
if (!isMainThread && (workerData as Partial<LaneData> | null)?.role === LANE_ROLE)
  void serveLane(workerData as LaneData);
