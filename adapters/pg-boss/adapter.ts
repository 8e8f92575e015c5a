/**
 * The real pg-boss queue behind the contract's commands: one queue per adapter instance, in a
 * PostgreSQL schema of its own (pg-boss's tables and the adapter's, see tables.ts), dropped on close.
 * It translates, never repairs; each command becomes the call a pg-boss user makes:
 * - time: pg-boss's TestClock on the schema moves JavaScript's time and the database's (`job_now()`)
 *   together; one tick is one second, pg-boss's unit. A later `now` sets the clock to it, then runs
 *   pg-boss's maintenance pass (`supervise`) for the queue, where pg-boss expires leases;
 * - submit: `send` with the job's uuid (mapped from the contract's id) and `singletonKey` = account
 *   on a `key_strict_fifo` queue (pg-boss's per-key order);
 * - claim: `fetch`; the adapter hands out the token and remembers the attempt (`{id, retryCount}`);
 * - commit: in one transaction, pg-boss's fenced `touch` of that attempt (its "still mine" check),
 *   then the ledger row and the balance in the adapter's tables;
 * - ack: fenced `complete`; fail transient: fenced `fail`; fail permanent: fenced `cancel`, pg-boss's
 *   only "do not retry" that keeps the job's record;
 * - the deadline: the job's `retentionSeconds` (how long it may wait before maintenance deletes it);
 * - stale tokens: whatever the fence answers. A settle pg-boss performs is reported as performed.
 * Validation (the contract's parseCommand and the clock check) happens before pg-boss is called.
 * Nothing else is checked: no capacity and no owner. See README.md, rule by rule.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { PgBoss, TestClock } from 'pg-boss';
import { z } from 'zod';
import type { Config, FailResult, JobRecord, Reply, Snapshot } from '../../contract/index.ts';
import { SNAPSHOT_FORMAT, parseCommand, parseConfig, putOwn } from '../../contract/index.ts';
import type { AckCommand, ClaimCommand, CommitCommand, FailCommand, SubmitCommand } from '../../contract/index.ts';
import type { Adapter, AdapterFactory } from '../../conformance/adapter.ts';
import { claimReply, commitPlan, commitReply } from '../../impl/decisions/index.ts';
import { ledgerOf } from '../../impl/durable/index.ts';
import { loadPg } from '../../impl/postgres/loadPg.ts';
import { staleToken } from '../ledger.ts';
import { Mutex } from '../mutex.ts';
import { postgresLoss, quietPool } from '../postgresLoss.ts';
import { lossAwareFactory } from '../../conformance/profile/lossAware.ts';
import { PgBossAdapterError } from './PgBossAdapterError.ts';
import { EXPIRY_TEXT, QUEUE, failureText, jobRowsSql, tablesSql, tickMillis } from './tables.ts';
import type { JobRow } from './tables.ts';

/** The largest value of pg-boss's integer columns (retry_limit, retry_delay, retention seconds). */
const MAX_INT = 2 ** 31 - 1;

/** pg-boss refuses an expiration longer than this (its POLICY.MAX_EXPIRATION_HOURS, 24 hours). */
const MAX_LEASE_SECONDS = 24 * 60 * 60;

/**
 * A uuid named by `id` (the layout of RFC 9562's name-based version 5: the SHA-1 of a namespace and
 * the name): as arbitrary an order as random uuids give, but the same on every run. Pure.
 */
export function nameUuid(id: string): string {
  const h = createHash('sha1').update('jobcheck pg-boss profile\u0000').update(id).digest();
  h[6] = ((h[6] as number) & 0x0f) | 0x50;
  h[8] = ((h[8] as number) & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

/** Options of a pg-boss adapter factory. */
export interface PgBossFactoryOptions {
  /** Where the server is: a postgres:// URL, a unix socket folder, or empty for PGHOST and the rest (default). */
  readonly target?: string;
  /** Name for reports (default `pg-boss`). */
  readonly name?: string;
  /**
   * The uuid a new job with the contract's id `id` is sent under (default: a random one, as
   * pg-boss's own gen_random_uuid()). pg-boss breaks ties between jobs sent at the same instant by
   * this id, so a test can fix it, and a profile derives it from the id (nameUuid) to be repeatable.
   */
  readonly newId?: (id: string) => string;
}

/** A transaction's client as pg-boss's `db` option: its statements run inside the caller's transaction. */
interface TxDb {
  // biome-ignore lint/suspicious/noExplicitAny: pg-boss declares its database interface with `any` rows; narrowing here would not match it.
  executeSql(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
}

interface Meta {
  capacity: number;
  clock: number;
  nextToken: number;
  nextSeq: number;
}

interface Claim {
  job: string;
  retryCount: number;
  worker: string;
  data: { account: string; key: string; amount: number; deadline: number };
}

const dataSchema = z.object({ account: z.string(), key: z.string(), amount: z.number(), deadline: z.number() });
const metaRow = z.object({ capacity: z.string(), clock: z.string(), next_token: z.string(), next_seq: z.string() });
const idRow = z.object({ job: z.string(), seq: z.string() });
const contractIdRow = z.object({ id: z.string() });
const claimRow = z.object({ job: z.string(), retry_count: z.number(), worker: z.string(), data: dataSchema });
const amountRow = z.object({ amount: z.string() });
const balanceOnlyRow = z.object({ balance: z.string() });
const queueRow = z.object({
  retry_limit: z.number(),
  retry_delay: z.number(),
  retry_delay_max: z.number(),
  expire_seconds: z.number(),
});
const accountBalanceRow = z.object({ account: z.string(), balance: z.string() });
const effectRow = z.object({
  account: z.string(),
  key: z.string(),
  amount: z.string(),
  job: z.string(),
  token: z.string(),
});
const jobRow: z.ZodType<JobRow> = z.object({
  id: z.string(),
  seq: z.string(),
  data: dataSchema,
  state: z.enum(['created', 'retry', 'active', 'completed', 'cancelled', 'failed']),
  retry_count: z.number(),
  started: z.boolean(),
  lease_until: z.string().nullable(),
  ready_at: z.string(),
  output: z.unknown(),
  token: z.string().nullable(),
  worker: z.string().nullable(),
});

/** The rows a query answered, read by their schema; rows of another shape are the queue's error, never repaired. */
function rowsOf<T>(schema: z.ZodType<T>, result: { readonly rows: readonly unknown[] }, what: string): T[] {
  const parsed = z.array(schema).safeParse(result.rows);
  if (!parsed.success)
    throw new PgBossAdapterError('queue_error', `${what}: PostgreSQL answered rows of another shape`, {
      cause: parsed.error,
    });
  return parsed.data;
}

function connection(target: string): pg.PoolConfig {
  if (target === '') return {};
  if (/^postgres(ql)?:\/\//.test(target)) return { connectionString: target };
  if (target.startsWith('/')) return { host: target };
  throw new PgBossAdapterError(
    'bad_target',
    `${JSON.stringify(target)} is neither a postgres:// URL nor a unix socket folder (an absolute path)`,
  );
}

/** The queue options a pg-boss user would pick for this config. Throws `unsupported_config` for one pg-boss refuses. Pure. */
export function queueOptions(config: Config): Record<string, unknown> {
  if (config.leaseTicks > MAX_LEASE_SECONDS) {
    throw new PgBossAdapterError(
      'unsupported_config',
      `leaseTicks: pg-boss expires a job after at most ${MAX_LEASE_SECONDS} seconds (got ${config.leaseTicks})`,
    );
  }
  for (const field of ['backoffBase', 'backoffCap', 'maxAttempts'] as const) {
    if (config[field] > MAX_INT)
      throw new PgBossAdapterError(
        'unsupported_config',
        `${field}: pg-boss stores it as a 32-bit integer (got ${config[field]})`,
      );
  }
  return {
    policy: 'key_strict_fifo',
    retryLimit: config.maxAttempts - 1,
    retryDelay: config.backoffBase,
    retryBackoff: true,
    retryDelayMax: config.backoffCap,
    expireInSeconds: config.leaseTicks,
  };
}

/** What pg-boss's fence (the attempt's job and retryCount) answered for a stale token. */
const FENCED = 'pg-boss holds no current attempt for it';

/** What the lanes of one queue share (concurrent.ts); a sequential adapter has them to itself. */
interface Shared {
  /** Orders the clock's checks and moves: the owner's TestClock takes one move at a time. */
  readonly time: Mutex;
  /** Orders the adapter's numbering (seq, token, ledger) as pg-boss took the commands. */
  readonly book: Mutex;
}

/** The commands whose replies the adapter numbers or whose ledger it writes. */
const BOOKKEEPING: ReadonlySet<string> = new Set(['submit', 'claim', 'commit']);

/**
 * A lane's clock (concurrent.ts): the owner's time, timers that never fire (the owner's fire only
 * when ticked, which the adapter never does), and an attachment that leaves the owner's clock table
 * alone, so that pg-boss opts the lane's sessions into that table as it does the owner's.
 */
const laneClock = (now: () => number) => ({
  now,
  setTimeout: (): object => ({}),
  clearTimeout: (): void => undefined,
  setInterval: (): object => ({}),
  clearInterval: (): void => undefined,
  attach: async (): Promise<AsyncDisposable> => ({ [Symbol.asyncDispose]: async () => undefined }),
});

const newPool = (target: string): pg.Pool =>
  quietPool(new (loadPg('the pg-boss adapter').Pool)({ ...connection(target), max: 2 }));

/** An adapter over one pg-boss queue; see the top of the file. */
export class PgBossAdapter implements Adapter {
  private closed = false;
  private readonly errors: unknown[] = [];
  private boss!: PgBoss;
  private clock!: TestClock;

  private constructor(
    private pool: pg.Pool,
    readonly schema: string,
    readonly name: string,
    private readonly target: string,
    private readonly newId: (id: string) => string,
    /** The lane that owns the schema and moves time; undefined for that lane itself. */
    private readonly owner: PgBossAdapter | undefined = undefined,
    private readonly shared: Shared = { time: new Mutex(), book: new Mutex() },
  ) {}

  /** Creates a queue for `config` in a new schema. Throws JobcheckError for a bad config, PgBossAdapterError for one pg-boss refuses. */
  static async create(config: Config, options: PgBossFactoryOptions = {}): Promise<PgBossAdapter> {
    const checked = parseConfig(config);
    const queue = queueOptions(checked);
    const target = options.target ?? '';
    const schema = `jcpgboss_${randomBytes(6).toString('hex')}`;
    const adapter = new PgBossAdapter(
      newPool(target),
      schema,
      options.name ?? 'pg-boss',
      target,
      options.newId ?? ((): string => randomUUID()),
    );
    try {
      await adapter.pool.query(`CREATE SCHEMA ${schema}`);
      await adapter.pool.query(tablesSql(schema));
      await adapter.pool.query(
        `INSERT INTO ${schema}.jobcheck_meta (capacity, clock, next_token, next_seq) VALUES ($1, 0, 1, 1)`,
        [checked.capacity],
      );
      adapter.clock = new TestClock(tickMillis(0));
      await adapter.open(adapter.clock);
      await adapter.boss.createQueue(QUEUE, queue);
      return adapter;
    } catch (error) {
      await adapter.close().catch(() => undefined);
      throw error;
    }
  }

  /**
   * Another lane of this queue (concurrent.ts): a pg-boss instance and a pool of its own on
   * `target`, on this one's schema, time and locks. Closing it leaves the schema to this one.
   */
  async lane(target: string): Promise<PgBossAdapter> {
    const lane = new PgBossAdapter(newPool(target), this.schema, this.name, target, this.newId, this, this.shared);
    try {
      await lane.open(laneClock(() => this.clock.now()));
      return lane;
    } catch (error) {
      await lane.close().catch(() => undefined);
      throw error;
    }
  }

  /** Starts a pg-boss instance on the schema, reading its time from `clock`. */
  private async open(clock: TestClock | ReturnType<typeof laneClock>): Promise<void> {
    this.boss = new PgBoss({
      ...(connection(this.target) as object),
      schema: this.schema,
      clock,
      max: 2,
      // Maintenance is driven at each `now` (supervise below); nothing runs on timers.
      supervise: false,
      schedule: false,
      registerInstance: false,
      useListenNotify: false,
      // Index rebuilds are storage upkeep, not lifecycle: left out of the per-command pass.
      reindex: false,
      // The shortest pg-boss allows: with one tick per second every new `now` is a pass that
      // expires leases (monitor) and deletes what retention ended (maintenance).
      monitorIntervalSeconds: 1,
      maintenanceIntervalSeconds: 1,
    } as ConstructorParameters<typeof PgBoss>[0]);
    this.boss.on('error', (error: unknown) => this.errors.push(error));
    await this.boss.start();
  }

  private healthy(): void {
    if (this.closed) throw new PgBossAdapterError('queue_error', 'the adapter is closed');
    const error = this.errors.shift();
    if (error !== undefined)
      throw new PgBossAdapterError(
        'queue_error',
        `pg-boss reported an error: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
  }

  private async meta(db: pg.Pool | pg.PoolClient = this.pool): Promise<Meta> {
    const [row] = rowsOf(
      metaRow,
      await db.query(
        `SELECT capacity::text, clock::text, next_token::text, next_seq::text FROM ${this.schema}.jobcheck_meta`,
      ),
      'the meta row',
    );
    if (row === undefined) throw new PgBossAdapterError('queue_error', 'the meta row is missing');
    return {
      capacity: Number(row.capacity),
      clock: Number(row.clock),
      nextToken: Number(row.next_token),
      nextSeq: Number(row.next_seq),
    };
  }

  /** Runs `fn` in one transaction whose pg-boss statements read the test clock. */
  private async transaction<T>(
    fn: (client: pg.PoolClient, db: TxDb) => Promise<{ commit: boolean; value: T }>,
  ): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SET LOCAL pgboss.test_clock = 'on'`);
      const db: TxDb = { executeSql: (text, values) => client.query(text, values) };
      const { commit, value } = await fn(client, db);
      await client.query(commit ? 'COMMIT' : 'ROLLBACK');
      return value;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async execute(input: unknown): Promise<Reply> {
    this.healthy();
    const parsed = parseCommand(input);
    if (!parsed.ok) return parsed.rejection;
    const command = parsed.command;
    const owner = this.owner ?? this;
    const clock = await this.shared.time.run(() => owner.moveTo(command.now));
    if (command.now < clock)
      return { ok: false, code: 'clock_regressed', message: `now: ${command.now} is before the clock (${clock})` };
    const reply = BOOKKEEPING.has(command.type)
      ? await this.shared.book.run(() => this.apply(command))
      : await this.apply(command);
    this.healthy();
    return reply;
  }

  /** The clock before `now`, moved to `now` when that is later (on the owner: its clock, its pool, its maintenance pass). */
  private async moveTo(now: number): Promise<number> {
    const { clock } = await this.meta();
    if (now > clock) await this.advance(now);
    return clock;
  }

  /** Moves the test clock (JavaScript and database) to `now`, then runs pg-boss's maintenance pass there. */
  private async advance(now: number): Promise<void> {
    await this.clock.setTime(tickMillis(now));
    await this.pool.query(`UPDATE ${this.schema}.jobcheck_meta SET clock = $1`, [now]);
    await this.boss.supervise(QUEUE);
  }

  private apply(command: Exclude<ReturnType<typeof parseCommand>, { ok: false }>['command']): Promise<Reply> {
    switch (command.type) {
      case 'submit':
        return this.submit(command);
      case 'claim':
        return this.claim(command);
      case 'commit':
        return this.commit(command);
      case 'ack':
        return this.ack(command);
      case 'fail':
        return this.fail(command);
      case 'tick':
        return Promise.resolve({ ok: true, type: 'tick', clock: command.now });
    }
  }

  private async submit(c: SubmitCommand): Promise<Reply> {
    const data = { account: c.account, key: c.key, amount: c.amount, deadline: c.deadline };
    return this.transaction<Reply>(async (client, db) => {
      const [known] = rowsOf(
        idRow,
        await client.query(`SELECT job, seq::text FROM ${this.schema}.jobcheck_ids WHERE id = $1`, [c.id]),
        'submit: the id row',
      );
      const uuid = known?.job ?? this.newId(c.id);
      // The deadline as pg-boss's retention: how long a job may wait in created or retry before
      // maintenance deletes it (an int of seconds; no generated deadline comes near its limit).
      const retentionSeconds = Math.min(c.deadline - c.now, MAX_INT);
      const sent = await this.boss.send(QUEUE, data, { id: uuid, singletonKey: c.account, retentionSeconds, db });
      // pg-boss inserts with ON CONFLICT DO NOTHING: a known id is not inserted, whatever its data.
      if (sent === null && known !== undefined)
        return { commit: true, value: { ok: true, type: 'submit', id: c.id, seq: Number(known.seq), duplicate: true } };
      if (sent === null) throw new Error(`pg-boss did not insert job ${JSON.stringify(c.id)} (uuid ${uuid})`);
      const { nextSeq } = await this.meta(client);
      await client.query(`DELETE FROM ${this.schema}.jobcheck_ids WHERE id = $1`, [c.id]);
      await client.query(`INSERT INTO ${this.schema}.jobcheck_ids (id, job, seq) VALUES ($1, $2, $3)`, [
        c.id,
        uuid,
        nextSeq,
      ]);
      await client.query(`UPDATE ${this.schema}.jobcheck_meta SET next_seq = $1`, [nextSeq + 1]);
      return { commit: true, value: { ok: true, type: 'submit', id: c.id, seq: nextSeq, duplicate: false } };
    });
  }

  private async contractId(uuid: string, db: pg.Pool | pg.PoolClient = this.pool): Promise<string> {
    const [row] = rowsOf(
      contractIdRow,
      await db.query(`SELECT id FROM ${this.schema}.jobcheck_ids WHERE job = $1`, [uuid]),
      'the id of a job',
    );
    if (row === undefined) throw new Error(`pg-boss delivered job ${uuid}, which the adapter never submitted`);
    return row.id;
  }

  private async claim(c: ClaimCommand): Promise<Reply> {
    const [job] = await this.boss.fetch<Claim['data']>(QUEUE);
    if (job === undefined) return claimReply(null);
    const id = await this.contractId(job.id);
    const { nextToken } = await this.meta();
    await this.pool.query(
      `INSERT INTO ${this.schema}.jobcheck_claims (token, job, retry_count, worker, data) VALUES ($1, $2, $3, $4, $5)`,
      [nextToken, job.id, job.retryCount, c.worker, JSON.stringify(job.data)],
    );
    await this.pool.query(`UPDATE ${this.schema}.jobcheck_meta SET next_token = $1`, [nextToken + 1]);
    return claimReply({
      id,
      token: nextToken,
      attempt: job.retryCount + 1,
      leaseUntil: c.now + job.expireInSeconds,
      payload: job.data,
    });
  }

  private async claimOf(token: number, db: pg.Pool | pg.PoolClient = this.pool): Promise<Claim | undefined> {
    const [row] = rowsOf(
      claimRow,
      await db.query(`SELECT job, retry_count, worker, data FROM ${this.schema}.jobcheck_claims WHERE token = $1`, [
        token,
      ]),
      `the claim of token ${token}`,
    );
    return row === undefined
      ? undefined
      : { job: row.job, retryCount: row.retry_count, worker: row.worker, data: row.data };
  }

  private async commit(c: CommitCommand): Promise<Reply> {
    return this.transaction<Reply>(async (client, db) => {
      const claim = await this.claimOf(c.token, client);
      if (claim === undefined) return { commit: false, value: staleToken(c.token) };
      // pg-boss's own answer to "is this attempt still mine": the fenced touch of it, in this transaction.
      const touched = (await this.boss.touch(QUEUE, { id: claim.job, retryCount: claim.retryCount }, { db })) as {
        affected: number;
      };
      if (touched.affected === 0) return { commit: false, value: staleToken(c.token, FENCED) };
      const { account, key, amount } = claim.data;
      const id = await this.contractId(claim.job, client);
      const [effect] = rowsOf(
        amountRow,
        await client.query(
          `SELECT amount::text FROM ${this.schema}.jobcheck_effects WHERE account = $1 AND key = $2 FOR UPDATE`,
          [account, key],
        ),
        'commit: the effect',
      );
      const [balanceRow] = rowsOf(
        balanceOnlyRow,
        await client.query(`SELECT balance::text FROM ${this.schema}.jobcheck_balances WHERE account = $1 FOR UPDATE`, [
          account,
        ]),
        'commit: the balance',
      );
      const recorded = effect === undefined ? undefined : Number(effect.amount);
      const plan = commitPlan(claim.data, recorded, balanceRow === undefined ? 0 : Number(balanceRow.balance));
      if (plan.type === 'apply') {
        await client.query(
          `INSERT INTO ${this.schema}.jobcheck_effects (account, key, amount, job, token) VALUES ($1, $2, $3, $4, $5)`,
          [account, key, amount, id, c.token],
        );
        await client.query(
          `INSERT INTO ${this.schema}.jobcheck_balances (account, balance) VALUES ($1, $2) ON CONFLICT (account) DO UPDATE SET balance = EXCLUDED.balance`,
          [account, plan.balance],
        );
      }
      // A refusal undoes the touch: the commit changed nothing.
      return { commit: plan.type !== 'refused', value: commitReply(id, plan) };
    });
  }

  private async ack(c: AckCommand): Promise<Reply> {
    const claim = await this.claimOf(c.token);
    if (claim === undefined) return staleToken(c.token);
    const done = (await this.boss.complete(QUEUE, { id: claim.job, retryCount: claim.retryCount })) as {
      affected: number;
    };
    if (done.affected === 0) return staleToken(c.token, FENCED);
    return { ok: true, type: 'ack', id: await this.contractId(claim.job) };
  }

  private async fail(c: FailCommand): Promise<Reply> {
    const claim = await this.claimOf(c.token);
    if (claim === undefined) return staleToken(c.token);
    const attempt = { id: claim.job, retryCount: claim.retryCount };
    // pg-boss's fail() always retries while retries remain; its "do not retry" is cancel(), which
    // keeps the record (in state cancelled) but no failure text.
    const failed = (
      c.kind === 'permanent'
        ? await this.boss.cancel(QUEUE, attempt)
        : await this.boss.fail(QUEUE, attempt, { message: c.error })
    ) as { affected: number };
    if (failed.affected === 0) return staleToken(c.token, FENCED);
    const id = await this.contractId(claim.job);
    const row = (await this.jobRows()).find((r) => r.id === id);
    if (row === undefined) throw new Error(`job ${JSON.stringify(id)} is gone from pg-boss after its fail`);
    const record = this.record(row, c.now);
    const reply: FailResult =
      record.status === 'waiting'
        ? { ok: true, type: 'fail', id, status: 'waiting', notBefore: record.notBefore ?? Number(row.ready_at) }
        : { ok: true, type: 'fail', id, status: 'dead', reason: record.reason ?? 'attempts_exhausted' };
    return reply;
  }

  private async jobRows(): Promise<JobRow[]> {
    return rowsOf(jobRow, await this.pool.query(jobRowsSql(this.schema), [QUEUE]), 'the job rows');
  }

  async snapshot(): Promise<Snapshot> {
    this.healthy();
    const meta = await this.meta();
    const [config] = rowsOf(
      queueRow,
      await this.pool.query(
        `SELECT retry_limit, retry_delay, retry_delay_max, expire_seconds FROM ${this.schema}.queue WHERE name = $1`,
        [QUEUE],
      ),
      'the queue row',
    );
    if (config === undefined) throw new PgBossAdapterError('queue_error', `pg-boss has no queue ${QUEUE}`);
    const jobs: Record<string, JobRecord> = {};
    for (const row of await this.jobRows()) putOwn(jobs, row.id, this.record(row, meta.clock));
    const balanceRows = rowsOf(
      accountBalanceRow,
      await this.pool.query(`SELECT account, balance::text FROM ${this.schema}.jobcheck_balances ORDER BY account`),
      'the balances',
    );
    const effectRows = rowsOf(
      effectRow,
      await this.pool.query(
        `SELECT account, key, amount::text, job, token::text FROM ${this.schema}.jobcheck_effects ORDER BY account, key`,
      ),
      'the effects',
    );
    return {
      format: SNAPSHOT_FORMAT,
      config: {
        capacity: meta.capacity,
        maxAttempts: config.retry_limit + 1,
        leaseTicks: config.expire_seconds,
        backoffBase: config.retry_delay,
        backoffCap: config.retry_delay_max,
      },
      clock: meta.clock,
      nextToken: meta.nextToken,
      nextSeq: meta.nextSeq,
      jobs,
      ...ledgerOf(
        balanceRows.map((r) => ({ account: r.account, balance: Number(r.balance) })),
        effectRows.map((r) => ({
          account: r.account,
          key: r.key,
          effect: { amount: Number(r.amount), job: r.job, token: Number(r.token) },
        })),
      ),
    };
  }

  /** A pg-boss job row as the contract's job record, at `clock`. Pure. */
  private record(row: JobRow, clock: number): JobRecord {
    const payload = {
      account: row.data.account,
      key: row.data.key,
      amount: row.data.amount,
      deadline: row.data.deadline,
    };
    const attempts = row.started ? row.retry_count + 1 : 0;
    const text = failureText(row.output);
    const lastError = text === undefined ? {} : { lastError: text };
    const base = { payload, seq: Number(row.seq), attempts };
    switch (row.state) {
      case 'created':
      case 'retry':
        return Number(row.ready_at) <= clock
          ? { ...base, status: 'ready', ...lastError }
          : { ...base, status: 'waiting', notBefore: Number(row.ready_at), ...lastError };
      case 'active':
        return {
          ...base,
          status: 'running',
          ...(row.token === null ? {} : { token: Number(row.token) }),
          ...(row.worker === null ? {} : { owner: row.worker }),
          leaseUntil: Number(row.lease_until),
          ...lastError,
        };
      case 'completed':
        return { ...base, status: 'done', ...lastError };
      case 'failed':
        return {
          ...base,
          status: 'dead',
          reason: text === EXPIRY_TEXT ? 'lease_expired' : 'attempts_exhausted',
          ...lastError,
        };
      case 'cancelled':
        return { ...base, status: 'dead', reason: 'permanent', ...lastError };
    }
  }

  /** The durable restart: stops pg-boss and ends every connection, then opens the same schema anew. Nothing but the database crosses it. */
  async restart(): Promise<void> {
    if (this.closed) throw new PgBossAdapterError('queue_error', 'the adapter is closed');
    if (this.owner !== undefined) throw new PgBossAdapterError('queue_error', 'a lane restarts only with its queue');
    await this.boss.stop({ graceful: false, close: true });
    await this.pool.end();
    // What the stopped instance reported (a server that went away, say) stays with it.
    this.errors.length = 0;
    this.pool = newPool(this.target);
    const { clock } = await this.meta();
    this.clock = new TestClock(tickMillis(clock));
    await this.open(this.clock);
  }

  /** Stops pg-boss, drops the schema (a lane leaves it to its owner) and ends the pool. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.boss?.stop({ graceful: false, close: true });
    } finally {
      try {
        if (this.owner === undefined) await this.pool.query(`DROP SCHEMA IF EXISTS ${this.schema} CASCADE`);
      } finally {
        await this.pool.end();
      }
    }
  }
}

/** A factory of pg-boss adapters, each queue in a new schema. */
export function pgBossFactory(options: PgBossFactoryOptions = {}): AdapterFactory {
  return lossAwareFactory((config) => PgBossAdapter.create(config, options), postgresLoss(options.target ?? ''));
}
