/**
 * PostgresStore behind lanes that are separate OS processes (conformance/crash/pgLaneWorker.ts), each with a
 * connection and a store object of its own on one schema, as workers on different machines are:
 * nothing but the server orders their commands. The processes are started once, at the first run
 * that needs them, and serve every run after it, of any store variant (each run a new schema,
 * created here and opened by each lane); `dispose` ends them all.
 *
 * - A request that gets no answer (the process died or was ended) rejects with IndefiniteOutcome;
 *   an error of the lane's connection too. Any other error a store threw was rolled back: it
 *   becomes a store-error reply (laneErrors.ts), a departure the checker sees.
 * - Opening and closing a run's stores waits OPEN_MS at most; a lane that does not answer then is
 *   killed. `dispose` ends each process's stdin, then kills what still runs after END_MS.
 * - A process's stderr is kept (its last 2,000 characters) and named in errors, never printed.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Reply, Snapshot } from '../../contract/index.ts';
import { PostgresStore, postgresPool } from '../../impl/postgres/index.ts';
import type { PgPool, PostgresStoreClass } from '../../impl/postgres/index.ts';
import { IndefiniteOutcome } from '../concurrent/adapter.ts';
import type { ConcurrentAdapter, ConcurrentFactory } from '../concurrent/adapter.ts';
import { LaneAdapterError, asReply, checkLane, checkWorkers, storeErrorReply } from './laneErrors.ts';

/** How long a lane may take to open or close a run's store (ms). */
const OPEN_MS = 20_000;
/** How long a lane may take to end after its stdin did (ms), before it is killed. */
const END_MS = 2_000;

/** An answer of a lane process (conformance/crash/pgLaneWorker.ts). */
interface Answer {
  readonly id: number;
  readonly ok?: true;
  readonly reply?: Reply;
  readonly error?: string;
  readonly code?: string | null;
  readonly connection?: boolean;
  /** With a close's answer: the commands the store ran as one statement. */
  readonly fast?: number;
}

/** One lane process: requests one at a time, each answered by id. */
class LaneProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting = new Map<number, (a: Answer | Error) => void>();
  private nextId = 1;
  private stderr = '';
  private ended: Promise<void>;
  private exited = false;

  constructor(readonly lane: number) {
    const file = fileURLToPath(new URL('../crash/pgLaneWorker.ts', import.meta.url));
    this.child = spawn(process.execPath, ['--import', 'tsx', file], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.on('data', (d: Buffer) => {
      this.stderr = (this.stderr + d.toString('utf8')).slice(-2000);
    });
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      let a: Answer;
      try {
        a = JSON.parse(line) as Answer;
      } catch {
        return;
      }
      const settle = this.waiting.get(a.id);
      this.waiting.delete(a.id);
      settle?.(a);
    });
    this.ended = new Promise((resolve) => {
      this.child.on('close', () => {
        this.exited = true;
        const gone = new Error(`lane ${lane}'s process ended (stderr: ${JSON.stringify(this.stderr.slice(-300))})`);
        for (const settle of this.waiting.values()) settle(gone);
        this.waiting.clear();
        resolve();
      });
    });
    this.child.on('error', () => undefined);
    this.child.stdin.on('error', () => undefined);
  }

  /** Sends one request; its answer, or an Error when the process ended first (or `ms` passed: then it is killed). */
  request(body: Record<string, unknown>, ms?: number): Promise<Answer | Error> {
    if (this.exited) return Promise.resolve(new Error(`lane ${this.lane}'s process has ended`));
    const id = this.nextId++;
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      this.waiting.set(id, (a) => {
        clearTimeout(timer);
        resolve(a);
      });
      if (ms !== undefined)
        timer = setTimeout(() => {
          this.child.kill('SIGKILL');
        }, ms);
      this.child.stdin.write(`${JSON.stringify({ id, ...body })}\n`);
    });
  }

  /** Ends the process: stdin first, SIGKILL after END_MS. Resolves once it is gone. */
  async end(): Promise<void> {
    if (!this.exited) {
      this.child.stdin.end();
      const timer = setTimeout(() => this.child.kill('SIGKILL'), END_MS);
      await this.ended;
      clearTimeout(timer);
    }
  }
}

/** The answer `a` of an open or close, or a LaneAdapterError naming the lane. */
function expectOk(a: Answer | Error, lane: number, what: string): void {
  if (a instanceof Error)
    throw new LaneAdapterError('store_not_loadable', `lane ${lane} could not ${what}: ${a.message}`);
  if (a.ok !== true) throw new LaneAdapterError('store_not_loadable', `lane ${lane} could not ${what}: ${a.error}`);
}

/** One run's lanes: the processes, each with the run's schema open. */
class ProcessLanesAdapter implements ConcurrentAdapter {
  readonly concurrent = true;
  private closed = false;

  constructor(
    readonly name: string,
    private readonly lanes: readonly LaneProcess[],
    private readonly store: PostgresStore,
    /** Where the lanes' fast commands are counted when they close. */
    private readonly counted: { fast: number },
  ) {}

  async execute(lane: number, command: unknown): Promise<Reply> {
    checkLane(lane, this.lanes.length);
    if (this.closed) throw new IndefiniteOutcome('closed', `the adapter is closed (lane ${lane})`);
    const a = await (this.lanes[lane] as LaneProcess).request({ op: 'exec', command });
    if (a instanceof Error) throw new IndefiniteOutcome('process_died', a.message);
    if (a.reply !== undefined) return a.reply;
    if (a.connection === true)
      throw new IndefiniteOutcome('process_died', `lane ${lane}: the connection failed: ${a.error}`);
    const error = Object.assign(new Error(a.error ?? 'no reply'), a.code === null ? {} : { code: a.code });
    return asReply(storeErrorReply(error));
  }

  snapshot(): Promise<Snapshot> {
    return this.store.snapshot();
  }

  /** Closes each lane's store (the processes stay for the next run) and drops the schema. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      const answers = await Promise.all(this.lanes.map((l) => l.request({ op: 'close' }, OPEN_MS)));
      for (const a of answers) if (!(a instanceof Error)) this.counted.fast += a.fast ?? 0;
    } finally {
      await this.store.drop();
    }
  }
}

/** Factories of runs on one set of lane processes, what they ran, and the end of those processes. */
export interface ProcessLanes {
  /**
   * Runs over a store variant of conformance/broken/postgres/ (`name`, which each lane loads, and its
   * class `Store`, which creates each run's schema here); by default the correct store.
   */
  factory(variant?: { readonly name: string; readonly Store: PostgresStoreClass }): ConcurrentFactory;
  /** Commands the lanes' stores ran as one statement (impl/postgres/FastPath.ts), over the runs closed so far. */
  readonly fastCommands: number;
  /** Ends every lane process (waits for them to be gone). Idempotent. */
  dispose(): Promise<void>;
}

/** Lanes as processes, started when a run first needs them, on the server of libpq's environment (PGHOST and the rest). */
export function postgresProcessLanes(): ProcessLanes {
  const processes: LaneProcess[] = [];
  const counted = { fast: 0 };
  let pool: PgPool | undefined;
  const factory =
    (v = { name: 'postgres', Store: PostgresStore as PostgresStoreClass }): ConcurrentFactory =>
    async (config, { workers }) => {
      checkWorkers(workers);
      while (processes.length < workers) processes.push(new LaneProcess(processes.length));
      pool ??= postgresPool('', { max: 2, applicationName: 'jobcheck-lanes' });
      const store = await PostgresStore.create.call(v.Store, pool, config);
      const lanes = processes.slice(0, workers);
      try {
        const answers = await Promise.all(
          lanes.map((l) => l.request({ op: 'open', schema: store.schema, variant: v.name }, OPEN_MS)),
        );
        answers.forEach((a, i) => {
          expectOk(a, i, `open schema ${store.schema}`);
        });
      } catch (error) {
        await store.drop();
        throw error;
      }
      return new ProcessLanesAdapter(`${v.Store.name} (a process per lane)`, lanes, store, counted);
    };
  return {
    factory,
    get fastCommands() {
      return counted.fast;
    },
    async dispose() {
      await Promise.all(processes.splice(0).map((p) => p.end()));
      await pool?.end();
      pool = undefined;
    },
  };
}
