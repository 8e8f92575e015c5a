/**
 * The contract's commands on the real BullMQ, PostgreSQL backend, through its manual-fetching API
 * (README.md says rule by rule what is mapped, translated or declared, and why):
 * - submit -> `queue.add(name, data, {jobId, attempts, backoff})`; a known jobId is whatever BullMQ
 *   does with it (it keeps the first job and ignores the new data);
 * - claim -> `worker.getNextJob(lockToken, {block: false})` on a BullMQ Worker named after the
 *   contract's worker, with a fresh lock token per claim (the contract's token -> (job id, lock
 *   token) is kept in the adapter's `jobcheck_deliveries` table);
 * - commit -> the adapter's effect ledger, one transaction: what the contract asks of a worker.
 *   BullMQ has no fence for a worker's own writes, so none is added;
 * - ack -> `job.moveToCompleted(null, lockToken, false)`; fail -> `job.moveToFailed(err, lockToken)`
 *   with `UnrecoverableError` for a permanent failure. The stale-token check is BullMQ's own (the
 *   finish functions compare the row's lock token, SQLSTATE BM001 codes -1/-2/-3/-6);
 * - every command that passes validation first runs BullMQ's stalled-job sweep
 *   (`moveStalledJobsToWait`, the Worker's own backend call) at its `now`; due delayed jobs are
 *   promoted by BullMQ inside the next claim, so the snapshot reads a due delayed job as ready.
 * Time: every BullMQ call runs with `Date.now()` answering the command's `now` (clock.ts).
 * Isolation: each adapter has a schema of its own, BullMQ's tables (made by BullMQ's migrations)
 * and the adapter's (tables.ts); closing drops it.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Job, UnrecoverableError, createPostgresBackend, runMigrations, withBackend } from 'bullmq';
import type {
  JobProgress,
  PostgresConnectionOptions,
  PostgresPoolConfig,
  PostgresQueueBackend,
  Queue,
  Worker,
} from 'bullmq';
import type {
  AckCommand,
  ClaimCommand,
  CommitCommand,
  Config,
  DeadReason,
  FailCommand,
  JobRecord,
  Rejection,
  RejectionCode,
  Reply,
  Snapshot,
  SubmitCommand,
} from '../../contract/index.ts';
import { messageOf, parseCommand, parseConfig, SNAPSHOT_FORMAT } from '../../contract/index.ts';
import { claimReply, commitPlan, commitReply } from '../../impl/decisions/index.ts';
import { ledgerOf } from '../../impl/durable/index.ts';
import { postgresPool, quoteIdent } from '../../impl/postgres/index.ts';
import type { Adapter, AdapterFactory } from '../../conformance/adapter.ts';
import { staleToken } from '../ledger.ts';
import { Mutex } from '../mutex.ts';
import { postgresLoss, quietPool } from '../postgresLoss.ts';
import { lossAwareFactory } from '../../conformance/profile/lossAware.ts';
import { BullmqAdapterError } from './BullmqAdapterError.ts';
import { MS_PER_TICK, acquireClock, atTick, millisTick, tickMillis } from './clock.ts';
import { finisher } from './finish.ts';
import { QUEUE, SCHEMA_PREFIX, jobRows, tablesSql } from './tables.ts';
import type { BullmqRow, JobData } from './tables.ts';

/** Options of a BullMQ adapter factory. */
export interface BullmqFactoryOptions {
  /** Where the server is: a postgres:// URL, a unix socket folder, or empty for PGHOST and the rest (default). */
  readonly target?: string;
  /** Name for reports (default `bullmq <version> (PostgreSQL)`). */
  readonly name?: string;
}

/** The BullMQ job name every submit uses (BullMQ requires one; the contract has none). */
const JOB_NAME = 'jobcheck';

/** Largest value of a PostgreSQL `integer` column (BullMQ's `max_attempts`). */
const INT4_MAX = 2_147_483_647;

const reject = (code: RejectionCode, message: string): Rejection => ({ ok: false, code, message });

/** A BullMQ finish call (finish.ts): a lost lock is `stale_token`, any other error the adapter's `queue_error`. */
const finish = finisher((message, cause) => new BullmqAdapterError('queue_error', message, { cause }));

const quiet = (): undefined => undefined;

/**
 * pg's Client, listening for its own 'error': a server lost while BullMQ holds the client checked
 * out (its bootstrap, its migrations) fails the query in flight; the event alone, with no
 * listener, would end the process. BullMQ's close() removes every listener of its LISTEN client
 * before it ends it, so the quiet one is put back: a server lost during that end must not end us.
 */
export class QuietClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', quiet);
  }

  override removeAllListeners(event?: string | symbol): this {
    // EventEmitter reads an explicit `undefined` as an event's name: every listener goes only without one.
    if (event === undefined) super.removeAllListeners();
    else super.removeAllListeners(event);
    if (event === undefined || event === 'error') this.on('error', quiet);
    return this;
  }
}

/** The BullMQ connection option for `target`: a pool config BullMQ builds, its tables in `schema` (unquoted). */
function bullmqConnection(target: string, schema: string): PostgresPoolConfig {
  const common = { schema, max: 1, application_name: 'jobcheck-bullmq', Client: QuietClient };
  if (target === '') return common;
  if (/^postgres(ql)?:\/\//.test(target)) return { ...common, connectionString: target };
  if (target.startsWith('/')) return { ...common, host: target };
  throw new BullmqAdapterError(
    'bad_target',
    `${JSON.stringify(target)} is neither a postgres:// URL nor a unix socket folder (an absolute path)`,
  );
}

/** Creates BullMQ's tables and functions in a new schema, by BullMQ's own migrations. */
async function migrate(pool: pg.Pool, schema: string): Promise<void> {
  const client = await pool.connect();
  try {
    await runMigrations(client, schema);
  } finally {
    client.release();
  }
}

/** Refuses a config whose times BullMQ cannot hold exactly in milliseconds. */
function checkRepresentable(config: Config): void {
  for (const field of ['leaseTicks', 'backoffBase', 'backoffCap'] as const) {
    if (!Number.isSafeInteger(config[field] * MS_PER_TICK)) {
      throw new BullmqAdapterError(
        'unsupported_config',
        `${field}: ${config[field]} ticks of ${MS_PER_TICK} ms is not a safe integer of milliseconds, which BullMQ's times are`,
      );
    }
  }
  if (config.maxAttempts > INT4_MAX) {
    throw new BullmqAdapterError(
      'unsupported_config',
      `maxAttempts: ${config.maxAttempts} does not fit BullMQ's attempts column (at most ${INT4_MAX})`,
    );
  }
}

interface Meta {
  config: Config;
  clock: number;
  nextToken: number;
  nextSeq: number;
}

interface Delivery {
  token: number;
  job: string;
  lockToken: string;
  worker: string;
}

/**
 * BullMQ's PostgreSQL backend with its dedicated LISTEN client quiet too: BullMQ builds that client
 * from the pg module itself (not from the pool's `Client`) and listens for its 'error' only once
 * it has connected, so a server's "terminating connection" read in the same packet as the end of
 * the connect, with no listener yet, would end the process (seen once when a broker-loss test killed
 * the server). Where the connection does not have the shape this reads, it is left as it is.
 */
const quietBackend: typeof createPostgresBackend = (...args) => {
  const backend = createPostgresBackend(...args);
  const connection = (backend as unknown as { connection?: { pgModule?: object } }).connection;
  if (connection?.pgModule !== undefined)
    connection.pgModule = Object.assign(Object.create(connection.pgModule) as object, { Client: QuietClient });
  return backend;
};

/** BullMQ's classes bound to its PostgreSQL backend (BullMQ's documented way to type them). */
const PG = withBackend(quietBackend);

type BullmqQueue = Queue<
  JobData,
  unknown,
  string,
  JobData,
  unknown,
  string,
  PostgresQueueBackend,
  PostgresConnectionOptions
>;
type BullmqWorker = Worker<JobData, unknown, string, PostgresQueueBackend, JobProgress, PostgresConnectionOptions>;

/** The BullMQ clients of one adapter incarnation: a Queue (producer), a Worker per contract worker, and (on the owner) the Worker that sweeps. */
class Clients {
  readonly workers = new Map<string, BullmqWorker>();
  readonly queue: BullmqQueue;
  readonly sweeper: BullmqWorker | undefined;

  constructor(
    private readonly schema: string,
    private readonly config: Config,
    private readonly target: string,
    sweeps = true,
  ) {
    this.queue = new PG.Queue<JobData, unknown>(QUEUE, { connection: bullmqConnection(target, schema) });
    // Errors BullMQ emits also fail the calls waiting on them; as events they are dropped, never printed.
    this.queue.on('error', () => undefined);
    this.sweeper = sweeps ? this.newWorker(undefined) : undefined;
  }

  private newWorker(name: string | undefined): BullmqWorker {
    const worker = new PG.Worker<JobData, unknown>(QUEUE, undefined, {
      connection: bullmqConnection(this.target, this.schema),
      ...(name === undefined ? {} : { name }),
      autorun: false,
      // leaseTicks: the lock a claim takes, and the stalled check may run at every tick.
      lockDuration: this.config.leaseTicks * MS_PER_TICK,
      stalledInterval: MS_PER_TICK,
      // attempts count deliveries: BullMQ's counter of deliveries is attemptsStarted.
      maxStartedAttempts: this.config.maxAttempts,
      maxStalledCount: this.config.maxAttempts,
    });
    worker.on('error', () => undefined);
    return worker;
  }

  /** The BullMQ Worker standing for the contract's worker `name` (made on first use). */
  worker(name: string): BullmqWorker {
    let w = this.workers.get(name);
    if (w === undefined) {
      w = this.newWorker(name);
      this.workers.set(name, w);
    }
    return w;
  }

  async ready(): Promise<void> {
    await this.queue.waitUntilReady();
    await this.sweeper?.waitUntilReady();
  }

  /** Closes every client (and so every connection and timer BullMQ opened). */
  async close(): Promise<void> {
    const all = [...(this.sweeper === undefined ? [] : [this.sweeper]), ...this.workers.values()];
    await Promise.allSettled(all.map((w) => w.close()));
    await this.queue.close();
  }
}

/** What the lanes of one queue share (concurrent.ts); a sequential adapter has them to itself. */
interface Shared {
  /** Orders the clock's checks, moves and BullMQ's stalled-job sweep. */
  readonly time: Mutex;
  /** Orders the adapter's numbering (seq, token, ledger) as BullMQ took the commands. */
  readonly book: Mutex;
}

/** A fresh name: `<prefix><16 hex digits>`. */
const freshName = (prefix: string): string => `${prefix}${randomBytes(8).toString('hex')}`;

/** An adapter over one BullMQ queue on PostgreSQL, in a schema of its own; a restart closes every client and opens new ones on the same tables. */
export class BullmqPostgresAdapter implements Adapter {
  private closed = false;
  private readonly release: () => void;
  /** The schema, quoted for SQL text. */
  private readonly s: string;

  private constructor(
    readonly name: string,
    private pool: pg.Pool,
    private clients: Clients,
    /** The adapter's schema (BullMQ's tables and the adapter's), unquoted. */
    readonly schema: string,
    private readonly config: Config,
    private readonly target: string,
    /** The lane that owns the schema, moves the clock and sweeps; undefined for that lane itself. */
    private readonly owner: BullmqPostgresAdapter | undefined = undefined,
    private readonly shared: Shared = { time: new Mutex(), book: new Mutex() },
  ) {
    this.s = quoteIdent(schema);
    this.release = acquireClock();
  }

  /**
   * Another lane of this queue (concurrent.ts): BullMQ's clients (a Queue, a Worker per contract
   * worker) and a pool of its own on `target`, on this one's schema and locks. Closing it leaves
   * the schema to this one.
   */
  async lane(target: string): Promise<BullmqPostgresAdapter> {
    bullmqConnection(target, this.schema);
    const pool = quietPool(postgresPool(target, { max: 1, applicationName: 'jobcheck-bullmq-adapter' }) as pg.Pool);
    const clients = new Clients(this.schema, this.config, target, false);
    const lane = new BullmqPostgresAdapter(
      this.name,
      pool,
      clients,
      this.schema,
      this.config,
      target,
      this,
      this.shared,
    );
    try {
      await clients.ready();
      return lane;
    } catch (error) {
      await lane.close().catch(() => undefined);
      throw error;
    }
  }

  /** Creates a schema with BullMQ's tables (its own migrations) and the adapter's, and opens BullMQ's clients on it. */
  static async create(config: Config, options: BullmqFactoryOptions, version: string): Promise<BullmqPostgresAdapter> {
    const cfg = parseConfig(config);
    checkRepresentable(cfg);
    const target = options.target ?? '';
    const schema = freshName(SCHEMA_PREFIX);
    bullmqConnection(target, schema);
    const s = quoteIdent(schema);
    // postgresPool makes a pg.Pool; its declaration names only the part the stores use (PgPool).
    const pool = quietPool(postgresPool(target, { max: 1, applicationName: 'jobcheck-bullmq-adapter' }) as pg.Pool);
    let clients: Clients | undefined;
    try {
      await migrate(pool, schema);
      await pool.query(tablesSql(s));
      await pool.query(`INSERT INTO ${s}.jobcheck_meta (config, clock, next_token, next_seq) VALUES ($1, 0, 1, 1)`, [
        JSON.stringify(cfg),
      ]);
      clients = new Clients(schema, cfg, target);
      await clients.ready();
      return new BullmqPostgresAdapter(
        options.name ?? `bullmq ${version} (PostgreSQL)`,
        pool,
        clients,
        schema,
        cfg,
        target,
      );
    } catch (error) {
      await clients?.close().catch(() => undefined);
      await pool.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`).catch(() => undefined);
      await pool.end();
      throw error;
    }
  }

  private async meta(): Promise<Meta> {
    const { rows } = await this.pool.query<Meta>(
      `SELECT config, clock, next_token AS "nextToken", next_seq AS "nextSeq" FROM ${this.s}.jobcheck_meta`,
    );
    const row = rows[0];
    if (row === undefined)
      throw new BullmqAdapterError('queue_error', `the adapter's meta row in ${this.s} is missing`);
    return row;
  }

  private async delivery(token: number): Promise<Delivery | undefined> {
    const { rows } = await this.pool.query<Delivery>(
      `SELECT token, job, lock_token AS "lockToken", worker FROM ${this.s}.jobcheck_deliveries WHERE token = $1`,
      [token],
    );
    return rows[0];
  }

  private async row(id: string): Promise<BullmqRow | undefined> {
    const { rows } = await this.pool.query<BullmqRow>(`${jobRows(this.s)} AND id = $1`, [id]);
    return rows[0];
  }

  async execute(command: unknown): Promise<Reply> {
    const parsed = parseCommand(command);
    if (!parsed.ok) return parsed.rejection;
    const c = parsed.command;
    const owner = this.owner ?? this;
    const regressed = await this.shared.time.run(() => owner.moveTo(c.type, c.now));
    if (regressed !== undefined) return regressed;
    return atTick(c.now, async () => {
      switch (c.type) {
        case 'submit':
          return this.shared.book.run(() => this.submit(c));
        case 'claim':
          return this.shared.book.run(() => this.claim(c));
        case 'commit':
          return this.shared.book.run(() => this.commit(c));
        case 'ack':
          return this.ack(c);
        case 'fail':
          return this.fail(c);
        case 'tick':
          return { ok: true, type: 'tick', clock: c.now };
      }
    });
  }

  /** The clock check, then the clock set to `now` and BullMQ's stalled-job sweep at that instant (on the owner). */
  private async moveTo(what: string, now: number): Promise<Rejection | undefined> {
    const meta = await this.meta();
    if (now < meta.clock) return reject('clock_regressed', `now: ${now} is before the clock (${meta.clock})`);
    if (!Number.isSafeInteger(tickMillis(now))) {
      throw new BullmqAdapterError(
        'queue_error',
        `${what}: now ${now} is beyond BullMQ's millisecond clock (${tickMillis(now)} ms is not a safe integer)`,
      );
    }
    await this.pool.query(`UPDATE ${this.s}.jobcheck_meta SET clock = $1`, [now]);
    const sweeper = this.clients.sweeper;
    if (sweeper === undefined) throw new BullmqAdapterError('queue_error', 'only the owning lane sweeps');
    // Step 2 as BullMQ does it: its stalled-job sweep at this instant.
    await atTick(now, () => sweeper.getBackend().moveStalledJobsToWait());
    return undefined;
  }

  private async submit(c: SubmitCommand): Promise<Reply> {
    const meta = await this.meta();
    // Whether BullMQ already has the id decides the reply's `duplicate` and `seq`; the add is issued either way.
    const before = await this.row(c.id);
    const data: JobData = { account: c.account, key: c.key, amount: c.amount, deadline: c.deadline, seq: meta.nextSeq };
    try {
      await this.clients.queue.add(JOB_NAME, data, {
        jobId: c.id,
        attempts: this.config.maxAttempts,
        backoff: { type: 'exponential', delay: this.config.backoffBase * MS_PER_TICK },
        removeOnComplete: false,
        removeOnFail: false,
      });
    } catch (error) {
      throw new BullmqAdapterError(
        'queue_error',
        `submit: BullMQ refused job id ${JSON.stringify(c.id)}: ${messageOf(error)}`,
        { cause: error },
      );
    }
    if (before !== undefined) return { ok: true, type: 'submit', id: c.id, seq: before.data.seq, duplicate: true };
    await this.pool.query(`UPDATE ${this.s}.jobcheck_meta SET next_seq = next_seq + 1`);
    return { ok: true, type: 'submit', id: c.id, seq: data.seq, duplicate: false };
  }

  private async claim(c: ClaimCommand): Promise<Reply> {
    const token = (await this.meta()).nextToken;
    const lockToken = `jobcheck:${token}`;
    const job = await this.clients.worker(c.worker).getNextJob(lockToken, { block: false });
    if (job === undefined || job.id === undefined) return claimReply(null);
    await this.pool.query(
      `INSERT INTO ${this.s}.jobcheck_deliveries (token, job, lock_token, worker) VALUES ($1, $2, $3, $4)`,
      [token, job.id, lockToken, c.worker],
    );
    await this.pool.query(`UPDATE ${this.s}.jobcheck_meta SET next_token = next_token + 1`);
    return claimReply({
      id: job.id,
      token,
      attempt: job.attemptsStarted,
      leaseUntil: millisTick((job.processedOn ?? tickMillis(c.now)) + this.config.leaseTicks * MS_PER_TICK),
      payload: job.data,
    });
  }

  /** The worker's commit: the effect ledger, in one transaction; no lock check (BullMQ has none for a worker's writes). */
  private async commit(c: CommitCommand): Promise<Reply> {
    const delivery = await this.delivery(c.token);
    if (delivery === undefined) return staleToken(c.token);
    const row = await this.row(delivery.job);
    if (row === undefined)
      throw new BullmqAdapterError('queue_error', `commit: BullMQ has no job ${JSON.stringify(delivery.job)}`);
    const { account, key, amount } = row.data;
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const effect = await client.query<{ amount: number }>(
        `SELECT amount FROM ${this.s}.jobcheck_effects WHERE account = $1 AND key = $2 FOR UPDATE`,
        [account, key],
      );
      const balanceRow = await client.query<{ balance: number }>(
        `SELECT balance FROM ${this.s}.jobcheck_balances WHERE account = $1 FOR UPDATE`,
        [account],
      );
      const plan = commitPlan(row.data, effect.rows[0]?.amount, balanceRow.rows[0]?.balance ?? 0);
      if (plan.type === 'apply') {
        await client.query(
          `INSERT INTO ${this.s}.jobcheck_effects (account, key, amount, job, token) VALUES ($1, $2, $3, $4, $5)`,
          [account, key, amount, delivery.job, c.token],
        );
        await client.query(
          `INSERT INTO ${this.s}.jobcheck_balances (account, balance) VALUES ($1, $2) ON CONFLICT (account) DO UPDATE SET balance = excluded.balance`,
          [account, plan.balance],
        );
      }
      await client.query('COMMIT');
      return commitReply(delivery.job, plan);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** The job as the commanding worker's BullMQ Worker loads it (what a worker process holding the job has). */
  private async loadJob(delivery: Delivery, worker: string): Promise<Job<JobData>> {
    const job = await Job.fromId<JobData>(this.clients.worker(worker), delivery.job);
    if (job === undefined)
      throw new BullmqAdapterError('queue_error', `BullMQ has no job ${JSON.stringify(delivery.job)}`);
    return job;
  }

  private async ack(c: AckCommand): Promise<Reply> {
    const delivery = await this.delivery(c.token);
    if (delivery === undefined) return staleToken(c.token);
    const job = await this.loadJob(delivery, c.worker);
    const refused = await finish('ack', c.token, delivery.lockToken, (lock) => job.moveToCompleted(null, lock, false));
    return refused ?? { ok: true, type: 'ack', id: delivery.job };
  }

  private async fail(c: FailCommand): Promise<Reply> {
    const delivery = await this.delivery(c.token);
    if (delivery === undefined) return staleToken(c.token);
    const job = await this.loadJob(delivery, c.worker);
    const error = c.kind === 'permanent' ? new UnrecoverableError(c.error) : new Error(c.error);
    const refused = await finish('fail', c.token, delivery.lockToken, (lock) => job.moveToFailed(error, lock, false));
    if (refused !== undefined) return refused;
    const row = await this.row(delivery.job);
    if (row?.state === 'delayed' && row.process_at_ms !== null)
      return { ok: true, type: 'fail', id: delivery.job, status: 'waiting', notBefore: millisTick(row.process_at_ms) };
    if (row?.state === 'failed') {
      const reason: DeadReason = c.kind === 'permanent' ? 'permanent' : 'attempts_exhausted';
      await this.pool.query(
        `INSERT INTO ${this.s}.jobcheck_reasons (job, reason) VALUES ($1, $2) ON CONFLICT (job) DO UPDATE SET reason = excluded.reason`,
        [delivery.job, reason],
      );
      return { ok: true, type: 'fail', id: delivery.job, status: 'dead', reason };
    }
    throw new BullmqAdapterError(
      'queue_error',
      `fail: BullMQ left job ${JSON.stringify(delivery.job)} in state ${row?.state ?? '(missing)'}, which the contract has no reply for`,
    );
  }

  async snapshot(): Promise<Snapshot> {
    const meta = await this.meta();
    const clockMs = tickMillis(meta.clock);
    const [jobs, deliveries, reasons, effects, balances] = await Promise.all([
      this.pool.query<BullmqRow>(jobRows(this.s)),
      this.pool.query<{ token: number; lock_token: string }>(
        `SELECT token, lock_token FROM ${this.s}.jobcheck_deliveries`,
      ),
      this.pool.query<{ job: string; reason: DeadReason }>(`SELECT job, reason FROM ${this.s}.jobcheck_reasons`),
      this.pool.query<{ account: string; key: string; amount: number; job: string; token: number }>(
        `SELECT account, key, amount, job, token FROM ${this.s}.jobcheck_effects ORDER BY account, key`,
      ),
      this.pool.query<{ account: string; balance: number }>(
        `SELECT account, balance FROM ${this.s}.jobcheck_balances ORDER BY account`,
      ),
    ]);
    const tokenOf = new Map(deliveries.rows.map((d) => [d.lock_token, d.token]));
    const reasonOf = new Map(reasons.rows.map((r) => [r.job, r.reason]));
    const out: Record<string, JobRecord> = {};
    for (const row of [...jobs.rows].sort((a, b) => a.data.seq - b.data.seq))
      out[row.id] = record(row, clockMs, tokenOf, reasonOf);
    return {
      format: SNAPSHOT_FORMAT,
      config: { ...meta.config },
      clock: meta.clock,
      nextToken: meta.nextToken,
      nextSeq: meta.nextSeq,
      jobs: out,
      ...ledgerOf(
        balances.rows,
        effects.rows.map(({ account, key, amount, job, token }) => ({ account, key, effect: { amount, job, token } })),
      ),
    };
  }

  /** The durable restart: every BullMQ client and the adapter's pool are closed, and new ones open the same schema. */
  async restart(): Promise<void> {
    if (this.owner !== undefined) throw new BullmqAdapterError('queue_error', 'a lane restarts only with its queue');
    await this.clients.close();
    await this.pool.end();
    this.pool = quietPool(postgresPool(this.target, { max: 1, applicationName: 'jobcheck-bullmq-adapter' }) as pg.Pool);
    this.clients = new Clients(this.schema, this.config, this.target);
    await this.clients.ready();
  }

  /** Closes every BullMQ client (their connections and timers), then drops the schema (a lane leaves it to its owner) and ends the pool. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.clients.close();
      if (this.owner === undefined) await this.pool.query(`DROP SCHEMA IF EXISTS ${this.s} CASCADE`);
    } finally {
      await this.pool.end().catch(() => undefined);
      this.release();
    }
  }
}

/** The contract's record of a BullMQ job row (README.md, "Snapshot"). Pure. */
function record(
  row: BullmqRow,
  clockMs: number,
  tokenOf: Map<string, number>,
  reasonOf: Map<string, DeadReason>,
): JobRecord {
  const d = row.data;
  const base = {
    payload: { account: d.account, key: d.key, amount: d.amount, deadline: d.deadline },
    seq: d.seq,
    attempts: row.attempts_started,
  };
  const lastError = row.failed_reason === null ? {} : { lastError: row.failed_reason };
  switch (row.state) {
    case 'waiting':
      return { ...base, status: 'ready', ...lastError };
    case 'delayed':
      // BullMQ promotes a due delayed job inside the next claim, before it chooses: it is ready now.
      if (row.process_at_ms === null || row.process_at_ms <= clockMs) return { ...base, status: 'ready', ...lastError };
      return { ...base, status: 'waiting', notBefore: millisTick(row.process_at_ms), ...lastError };
    case 'active':
      return {
        ...base,
        status: 'running',
        // An active job's lock token is always one the adapter handed to getNextJob.
        token: row.lock_token === null ? 0 : (tokenOf.get(row.lock_token) ?? 0),
        owner: row.processed_by ?? '',
        leaseUntil: row.locked_until_ms === null ? 0 : millisTick(row.locked_until_ms),
        ...lastError,
      };
    case 'completed':
      return { ...base, status: 'done', ...lastError };
    case 'failed':
      // Only the adapter's fail moves a job to failed, and it records the reason as it replies.
      return { ...base, status: 'dead', reason: reasonOf.get(row.id) ?? 'attempts_exhausted', ...lastError };
    case 'waiting-children':
      throw new BullmqAdapterError(
        'queue_error',
        `snapshot: job ${JSON.stringify(row.id)} is waiting for children, which no contract command creates`,
      );
  }
}

/** A factory of adapters over BullMQ's PostgreSQL backend, each in a schema of its own (dropped when it closes). `version` names it in reports. */
export function bullmqPostgresFactory(version: string, options: BullmqFactoryOptions = {}): AdapterFactory {
  return lossAwareFactory(
    (config) => BullmqPostgresAdapter.create(config, options, version),
    postgresLoss(options.target ?? ''),
  );
}
