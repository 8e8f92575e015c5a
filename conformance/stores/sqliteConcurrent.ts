/**
 * impl/sqlite's SqliteStore (or a broken variant) as a ConcurrentAdapter: one database file, and
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
 * workers do; in the built package it is plain JavaScript).
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { Reply, Snapshot } from '../../contract/index.ts';
import { SqliteStore } from '../../impl/sqlite/index.ts';
import type { SqliteOptions } from '../../impl/sqlite/index.ts';
import { sqliteVariant } from '../broken/sqlite/index.ts';
import { IndefiniteOutcome } from '../concurrent/adapter.ts';
import type { ConcurrentAdapter, ConcurrentFactory } from '../concurrent/adapter.ts';
import { LaneAdapterError, checkLane, checkWorkers, storeErrorReply } from './laneErrors.ts';
import { removeDatabase, scratchDir } from './sqlite.ts';

/** The workerData tag of a lane thread. */
const LANE_ROLE = 'jobcheck-sqlite-lane';

interface LaneData {
  readonly role: typeof LANE_ROLE;
  readonly file: string;
  readonly variant: string;
  readonly sqlite: SqliteOptions;
}

type ToLane = { readonly id: number; readonly command: unknown } | { readonly close: true };
type FromLane = { readonly ready: true } | { readonly id: number; readonly reply: unknown };

/** Options of a concurrent SQLite adapter factory. */
export interface SqliteConcurrentOptions {
  /** `sqlite` (default) or a broken variant's name (conformance/broken/sqlite/). */
  readonly variant?: string;
  /** Name for reports (default `impl/SqliteStore (lanes)`, or the variant's name). */
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
    }
  }
}

let files = 0;

/**
 * A factory of concurrent adapters over SqliteStore (or a broken variant), each run a new file
 * with `workers` lanes. Throws LaneAdapterError `unknown_variant` for an unknown variant and
 * `bad_workers` (from the factory) for a lane count that is not a positive integer.
 */
export function sqliteConcurrentFactory(options: SqliteConcurrentOptions = {}): ConcurrentFactory {
  const variant = options.variant ?? 'sqlite';
  const v = sqliteVariant(variant);
  if (v === undefined)
    throw new LaneAdapterError('unknown_variant', `no SQLite variant named ${JSON.stringify(variant)}`);
  const name = options.name ?? (variant === 'sqlite' ? 'impl/SqliteStore (lanes)' : `${variant} (lanes)`);
  const sqlite = options.sqlite ?? {};
  return async (config, { workers }) => {
    checkWorkers(workers);
    const path = join(options.dir ?? scratchDir(), `lanes-${process.pid}-${++files}.db`);
    const reader = SqliteStore.create.call(v.Store, path, config, sqlite);
    const tsx = FROM_SOURCE ? tsxApi() : null;
    const data = (): LaneData & { tsx: string | null; module: string } => ({
      role: LANE_ROLE,
      file: path,
      variant,
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
      throw error;
    }
    return new SqliteConcurrentAdapter(name, path, lanes, reader);
  };
}

/** The body of a lane thread: opens the store and answers each request with its reply, or a store-error reply. */
function serveLane(data: LaneData): void {
  const port = parentPort;
  if (port === null) return;
  const v = sqliteVariant(data.variant);
  if (v === undefined)
    throw new LaneAdapterError('unknown_variant', `no SQLite variant named ${JSON.stringify(data.variant)}`);
  const store = SqliteStore.open.call(v.Store, data.file, data.sqlite);
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

if (!isMainThread && (workerData as Partial<LaneData> | null)?.role === LANE_ROLE) serveLane(workerData as LaneData);
