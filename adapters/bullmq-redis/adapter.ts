/**
 * The contract's commands on the real BullMQ on Redis, its usual backend, through its
 * manual-fetching API (README.md says rule by rule what is mapped, translated or declared, and why):
 * - submit -> `queue.add(name, data, {jobId, attempts, backoff})`; a known jobId is whatever BullMQ
 *   does with it (it keeps the first job and ignores the new data);
 * - claim -> `worker.getNextJob(lockToken, {block: false})` on a Worker named after the contract's
 *   worker, with a fresh lock token per claim (`jobcheck:<contract token>`);
 * - commit -> the adapter's effect ledger in Redis, as the contract asks of a worker (BullMQ has no
 *   fence for a worker's own writes, so none is added);
 * - ack -> `job.moveToCompleted(null, lockToken, false)`; fail -> `job.moveToFailed(err, lockToken)`,
 *   `UnrecoverableError` when permanent; the stale-token check is BullMQ's moveToFinished script.
 * Time: a lock is a Redis key with a TTL of `lockDuration` on the server's clock, and BullMQ's
 * stalled checker (every `stalledInterval` real ms) moves a job whose lock is gone back to wait. A
 * WallClock maps ticks onto real time (one tick `tickMs` ms, a later `now` waits for its tick;
 * BullMQ reads `Date.now()` as the tick's start, ../bullmq-postgres/clock.ts); a lease of L ticks
 * is a lock of L − ½ ticks (`lockMillis`), ending between the lease's last tick and its end tick.
 * Lanes: each has its own connections (a Queue, a Worker per contract worker, a plain client); the
 * adapter's numbering (seq, token, ledger) is assigned under one in-process lock, so that its order
 * is the order BullMQ took the commands in. Isolation: a key prefix per adapter, removed on close.
 */
import { randomBytes } from 'node:crypto';
import { Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { z } from 'zod';
import type {
  AckCommand,
  ClaimCommand,
  Command,
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
import type { AdapterFactory } from '../../conformance/adapter.ts';
import type { ConcurrentFactory } from '../../conformance/concurrent/adapter.ts';
import { WallClock } from '../../conformance/profile/wallClock.ts';
import { lossAwareConcurrentFactory, lossAwareFactory } from '../../conformance/profile/lossAware.ts';
import type { LossSource } from '../../conformance/profile/lossAware.ts';
import { acquireClock, atMillis } from '../bullmq-postgres/clock.ts';
import { finisher } from '../bullmq-postgres/finish.ts';
import { staleToken } from '../ledger.ts';
import { Mutex } from '../mutex.ts';
import { BullmqRedisAdapterError } from './BullmqRedisAdapterError.ts';
import { redisUrl } from './redisEnv.ts';
import { LaneAdapter, LaneConcurrentAdapter } from '../laneBroker.ts';

/** How the adapter maps ticks onto real time, and where the server is. */
export interface BullmqRedisOptions {
  /** The server: a redis:// URL on 127.0.0.1 (default: JOBCHECK_REDIS_URL). */
  readonly url?: string;
  /** Real milliseconds per tick (default DEFAULT_TICK_MS). */
  readonly tickMs?: number;
  /** Real milliseconds into a tick at which its commands start (default DEFAULT_OFFSET_MS). */
  readonly offsetMs?: number;
  /** BullMQ's `stalledInterval`, real milliseconds between two runs of its stalled checker (default DEFAULT_STALLED_INTERVAL_MS). */
  readonly stalledIntervalMs?: number;
  /** Name for reports (default `bullmq <version> (Redis)`). */
  readonly name?: string;
  /** Per lane, another redis:// URL for that lane's connections (a fault proxy), else `url`. */
  readonly laneUrls?: readonly (string | undefined)[];
}

/** Real milliseconds per tick: half of it (the lock's guard) holds a claim's delay and the stalled checker's lag on a loaded machine (README.md, "Time"). */
export const DEFAULT_TICK_MS = 150;
/** Commands of a tick start this far into it (the lock's guard, not the offset, absorbs the checker's lag). */
export const DEFAULT_OFFSET_MS = 0;
/** BullMQ's stalled checker runs this often (real milliseconds): two passes fit well inside the lock's guard of half a tick. */
export const DEFAULT_STALLED_INTERVAL_MS = 10;

/** The BullMQ job name every submit uses (BullMQ requires one; the contract has none). */
const JOB_NAME = 'jobcheck';
/** The BullMQ queue name inside the adapter's prefix. */
const QUEUE = 'jobcheck';
/** Prefix of every adapter's keys: `jc` and 16 hex digits. */
export const KEY_PREFIX = 'jc';

/** The job data the adapter stores in BullMQ: the contract's payload and admission number. */
export interface JobData {
  account: string;
  key: string;
  amount: number;
  deadline: number;
  seq: number;
}

/** One delivery, as the adapter records it (hash `<prefix>:jc:deliveries`, by contract token). */
interface Delivery {
  job: string;
  lockToken: string;
  worker: string;
  /** The tick of the claim: the lock lasts `leaseTicks` from it. */
  at: number;
}

const jobDataSchema: z.ZodType<JobData> = z.object({
  account: z.string(),
  key: z.string(),
  amount: z.number(),
  deadline: z.number(),
  seq: z.number(),
});
const deliverySchema: z.ZodType<Delivery> = z.object({
  job: z.string(),
  lockToken: z.string(),
  worker: z.string(),
  at: z.number(),
});
const effectSchema = z.object({ amount: z.number(), job: z.string(), token: z.number() });
const effectFieldSchema = z.tuple([z.string(), z.string()]);
const idsSchema = z.array(z.string());
const hashSchema = z.record(z.string(), z.string());
const reasonsSchema = z.record(
  z.string(),
  z.enum(['deadline', 'lease_expired', 'permanent', 'attempts_exhausted', 'no_time_for_retry']),
);

/** A value the adapter wrote into Redis, read back by its schema; anything else is the queue's error, never repaired. */
function stored<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success)
    throw new BullmqRedisAdapterError('queue_error', `${what}: Redis holds what the adapter did not write`, {
      cause: result.error,
    });
  return result.data;
}

/** JSON text the adapter wrote into Redis, read back by its schema. */
function storedJson<T>(schema: z.ZodType<T>, text: string, what: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new BullmqRedisAdapterError('queue_error', `${what}: Redis holds text that is not JSON`, { cause: error });
  }
  return stored(schema, value, what);
}

/** The ioredis options of a server on loopback (what BullMQ's `connection` and the adapter's own clients take). */
export interface RedisConnection {
  readonly host: string;
  readonly port: number;
  readonly db: number;
  readonly maxRetriesPerRequest: null;
  /** Reconnects a few times, then gives up: a lost server ends every command waiting on it with an error. */
  readonly retryStrategy: (times: number) => number | null;
  readonly connectTimeout: number;
}

/** Reconnections tried before a client gives up on the server (50, 100, 150 ms apart). */
const RECONNECTS = 3;

/** What ioredis throws once it gave up on the server (its CONNECTION_CLOSED_ERROR_MSG), in words. Pure. */
const redisClientLoss = (e: unknown): string | undefined =>
  e instanceof Error && (e.message === 'Connection is closed.' || e.name === 'MaxRetriesPerRequestError')
    ? 'connection closed'
    : undefined;

/** Where a factory's Redis is, and how its clients say they lost it. */
const redisLoss = (options: BullmqRedisOptions): LossSource => ({
  where: () => ({ broker: 'Redis', address: options.url ?? redisUrl() ?? '(no address)' }),
  clientLoss: redisClientLoss,
});

/** Errors BullMQ's objects and ioredis clients emit also reject the calls waiting on them; as events they are dropped, never printed. */
const quiet = <T extends { on(event: 'error', listener: (error: Error) => void): unknown }>(client: T): T => {
  client.on('error', () => undefined);
  return client;
};

const reject = (code: RejectionCode, message: string): Rejection => ({ ok: false, code, message });

/** A BullMQ finish call (finish.ts): a lost lock is `stale_token`, any other error the adapter's `queue_error`. */
const finish = finisher((message, cause) => new BullmqRedisAdapterError('queue_error', message, { cause }));

/** The ioredis options for a redis:// URL on loopback; throws bad_target for anything else. Pure. */
export function redisConnection(url: string): RedisConnection {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new BullmqRedisAdapterError('bad_target', `${JSON.stringify(url)} is not a redis:// URL`);
  }
  if (parsed.protocol !== 'redis:')
    throw new BullmqRedisAdapterError('bad_target', `${JSON.stringify(url)} is not a redis:// URL`);
  if (parsed.hostname !== '127.0.0.1' && parsed.hostname !== 'localhost')
    throw new BullmqRedisAdapterError('bad_target', `${JSON.stringify(url)} is not on this machine's loopback`);
  const db = parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : 0;
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 6379),
    db,
    maxRetriesPerRequest: null,
    retryStrategy: (times) => (times > RECONNECTS ? null : 50 * times),
    connectTimeout: 2_000,
  };
}

/** The lock BullMQ takes for a lease of `leaseTicks` ticks: half a tick short, so that it ends between the lease's last tick and its end tick. Pure. */
export const lockMillis = (leaseTicks: number, tickMs: number): number => leaseTicks * tickMs - Math.floor(tickMs / 2);

/** Refuses a config whose times BullMQ cannot hold exactly in milliseconds at `tickMs`. */
function checkRepresentable(config: Config, tickMs: number): void {
  for (const field of ['leaseTicks', 'backoffBase', 'backoffCap'] as const) {
    if (!Number.isSafeInteger(config[field] * tickMs)) {
      throw new BullmqRedisAdapterError(
        'unsupported_config',
        `${field}: ${config[field]} ticks of ${tickMs} ms is not a safe integer of milliseconds, which BullMQ's times are`,
      );
    }
  }
}

/** The connections of one lane: a Queue (producer), a Worker per contract worker, and a client for the adapter's keys. */
class Lane {
  readonly workers = new Map<string, Worker<JobData>>();
  readonly queue: Queue<JobData>;
  readonly redis: Redis;

  constructor(
    private readonly connection: RedisConnection,
    private readonly prefix: string,
    private readonly config: Config,
    private readonly tickMs: number,
    private readonly stalledIntervalMs: number,
  ) {
    this.queue = quiet(new Queue<JobData>(QUEUE, { connection, prefix }));
    this.redis = quiet(new Redis(connection));
  }

  /** A BullMQ Worker with no processor (manual fetching): no main loop, no lock renewal. */
  newWorker(name: string | undefined): Worker<JobData> {
    return quiet(
      new Worker<JobData>(QUEUE, undefined, {
        connection: this.connection,
        prefix: this.prefix,
        ...(name === undefined ? {} : { name }),
        autorun: false,
        // A lease of L ticks ends half a tick before tick c + L begins (README.md, "Time").
        lockDuration: lockMillis(this.config.leaseTicks, this.tickMs),
        stalledInterval: this.stalledIntervalMs,
        // attempts count deliveries: BullMQ's counter of deliveries is attemptsStarted.
        maxStartedAttempts: this.config.maxAttempts,
        maxStalledCount: this.config.maxAttempts,
      }),
    );
  }

  /** The BullMQ Worker standing for the contract's worker `name` on this lane (made on first use). */
  async worker(name: string): Promise<Worker<JobData>> {
    let w = this.workers.get(name);
    if (w === undefined) {
      w = this.newWorker(name);
      this.workers.set(name, w);
      await w.waitUntilReady();
    }
    return w;
  }

  /** Waits for the lane's connections, and makes the Worker of `worker` (the lane's own worker) ahead of its first claim; `empty`: the queue has no job yet. */
  async ready(worker: string, empty: boolean): Promise<void> {
    const [, w] = await Promise.all([this.queue.waitUntilReady(), this.worker(worker)]);
    // A first fetch from the queue while it is still empty (a new adapter, never a restart: it would
    // claim a job) loads BullMQ's scripts on these connections, so that the first claim of tick 0 is not late.
    if (empty) await w.getNextJob('jobcheck:warm-up', { block: false });
    await this.queue.getJobCounts();
  }

  /** Closes every client of the lane (and so every connection and timer BullMQ opened). */
  async close(): Promise<void> {
    await Promise.allSettled([...this.workers.values()].map((w) => w.close()));
    await this.queue.close().catch(() => undefined);
    this.redis.disconnect();
  }
}

/** The keys of one adapter. Pure. */
const keysOf = (prefix: string) => ({
  meta: `${prefix}:jc:meta`,
  deliveries: `${prefix}:jc:deliveries`,
  reasons: `${prefix}:jc:reasons`,
  retries: `${prefix}:jc:retries`,
  effects: `${prefix}:jc:effects`,
  balances: `${prefix}:jc:balances`,
  job: (id: string) => `${prefix}:${QUEUE}:${id}`,
  list: (name: string) => `${prefix}:${QUEUE}:${name}`,
});

/** Sets the adapter's clock to `now` unless `now` is earlier: returns the clock before. Atomic on the server. */
const ADVANCE_CLOCK = `local c = tonumber(redis.call('HGET', KEYS[1], 'clock') or '0')
if tonumber(ARGV[1]) >= c then redis.call('HSET', KEYS[1], 'clock', ARGV[1]) end
return tostring(c)`;

/**
 * BullMQ on one Redis key prefix, driven from several lanes: the one implementation behind both
 * the sequential adapter (one lane) and the concurrent one (a lane per competing worker).
 */
export class BullmqRedisBroker {
  private closed = false;
  private readonly lock = new Mutex();
  private readonly release = acquireClock();
  private readonly keys: ReturnType<typeof keysOf>;

  private constructor(
    readonly name: string,
    private lanes: Lane[],
    private sweeper: Worker<JobData>,
    private readonly connection: RedisConnection,
    /** The adapter's key prefix (BullMQ's keys and the adapter's). */
    readonly prefix: string,
    private readonly config: Config,
    readonly clock: WallClock,
    private readonly stalledIntervalMs: number,
    /** Each lane's connection options (`connection`, or a lane's own URL). */
    private readonly routes: readonly RedisConnection[],
  ) {
    this.keys = keysOf(prefix);
  }

  /** Opens `lanes` lanes and BullMQ's stalled checker on a fresh prefix; tick 0 begins now. */
  static async create(
    config: Config,
    options: BullmqRedisOptions,
    version: string,
    lanes: number,
  ): Promise<BullmqRedisBroker> {
    const cfg = parseConfig(config);
    const tickMs = options.tickMs ?? DEFAULT_TICK_MS;
    checkRepresentable(cfg, tickMs);
    const url = options.url ?? redisUrl();
    if (url === undefined)
      throw new BullmqRedisAdapterError('bad_target', 'no Redis server: give a url or set JOBCHECK_REDIS_URL');
    const connection = redisConnection(url);
    const prefix = `${KEY_PREFIX}${randomBytes(8).toString('hex')}`;
    const stalledIntervalMs = options.stalledIntervalMs ?? DEFAULT_STALLED_INTERVAL_MS;
    const routes = Array.from({ length: lanes }, (_, i) => {
      const routed = options.laneUrls?.[i];
      return routed === undefined ? connection : redisConnection(routed);
    });
    const opened: Lane[] = [];
    let sweeper: Worker<JobData> | undefined;
    try {
      for (let i = 0; i < lanes; i++)
        opened.push(new Lane(routes[i] as RedisConnection, prefix, cfg, tickMs, stalledIntervalMs));
      await Promise.all(opened.map((l, i) => l.ready(`w${i + 1}`, true)));
      const first = opened[0];
      if (first === undefined) throw new BullmqRedisAdapterError('queue_error', 'BullMQ needs at least one lane');
      const keys = keysOf(prefix);
      await first.redis.hset(keys.meta, { config: JSON.stringify(cfg), clock: 0, nextToken: 1, nextSeq: 1 });
      sweeper = first.newWorker(undefined);
      await sweeper.waitUntilReady();
      const clock = new WallClock({ tickMs, offsetMs: options.offsetMs ?? DEFAULT_OFFSET_MS, now: () => Date.now() });
      await sweeper.startStalledCheckTimer();
      // Tick 0 begins once every connection is open, so that opening them takes none of its time.
      clock.restart();
      return new BullmqRedisBroker(
        options.name ?? `bullmq ${version} (Redis)`,
        opened,
        sweeper,
        connection,
        prefix,
        cfg,
        clock,
        stalledIntervalMs,
        routes,
      );
    } catch (error) {
      await sweeper?.close().catch(() => undefined);
      await Promise.allSettled(opened.map((l) => l.close()));
      if (error instanceof BullmqRedisAdapterError) throw error;
      throw new BullmqRedisAdapterError('queue_error', `cannot open BullMQ on ${url}: ${messageOf(error)}`, {
        cause: error,
      });
    }
  }

  private lane(index: number): Lane {
    const lane = this.lanes[index % this.lanes.length];
    if (lane === undefined) throw new BullmqRedisAdapterError('queue_error', `no lane ${index}`);
    return lane;
  }

  /** Executes one command on lane `index`. */
  async execute(index: number, command: unknown): Promise<Reply> {
    const parsed = parseCommand(command);
    if (!parsed.ok) return parsed.rejection;
    const c: Command = parsed.command;
    const lane = this.lane(index);
    const before = Number(await lane.redis.eval(ADVANCE_CLOCK, 1, this.keys.meta, String(c.now)));
    if (c.now < before) return reject('clock_regressed', `now: ${c.now} is before the clock (${before})`);
    await this.clock.advanceTo(c.now);
    // BullMQ's client reads Date.now for delays, promotions and finish times: it answers the start of the command's tick.
    return atMillis(this.clock.startOf(c.now), () => this.run(lane, c));
  }

  private async run(lane: Lane, c: Command): Promise<Reply> {
    switch (c.type) {
      case 'submit':
        return this.lock.run(() => this.submit(lane, c));
      case 'claim':
        return this.lock.run(() => this.claim(lane, c));
      case 'commit':
        return this.lock.run(() => this.commit(lane, c));
      case 'ack':
        return this.ack(lane, c);
      case 'fail':
        return this.fail(lane, c);
      case 'tick':
        return { ok: true, type: 'tick', clock: c.now };
    }
  }

  private async storedData(lane: Lane, id: string): Promise<JobData | undefined> {
    const data = await lane.redis.hget(this.keys.job(id), 'data');
    return data === null ? undefined : storedJson(jobDataSchema, data, `job ${JSON.stringify(id)}`);
  }

  private async submit(lane: Lane, c: SubmitCommand): Promise<Reply> {
    // Whether BullMQ already has the id decides the reply's `duplicate` and `seq`; the add is issued either way.
    const before = await this.storedData(lane, c.id);
    const nextSeq = Number(await lane.redis.hget(this.keys.meta, 'nextSeq'));
    const data: JobData = { account: c.account, key: c.key, amount: c.amount, deadline: c.deadline, seq: nextSeq };
    try {
      await lane.queue.add(JOB_NAME, data, {
        jobId: c.id,
        attempts: this.config.maxAttempts,
        backoff: { type: 'exponential', delay: this.config.backoffBase * this.clock.tickMs },
        removeOnComplete: false,
        removeOnFail: false,
      });
    } catch (error) {
      throw new BullmqRedisAdapterError(
        'queue_error',
        `submit: BullMQ refused job id ${JSON.stringify(c.id)}: ${messageOf(error)}`,
        { cause: error },
      );
    }
    if (before !== undefined) return { ok: true, type: 'submit', id: c.id, seq: before.seq, duplicate: true };
    await lane.redis.hincrby(this.keys.meta, 'nextSeq', 1);
    return { ok: true, type: 'submit', id: c.id, seq: data.seq, duplicate: false };
  }

  private async claim(lane: Lane, c: ClaimCommand): Promise<Reply> {
    const token = Number(await lane.redis.hget(this.keys.meta, 'nextToken'));
    const lockToken = `jobcheck:${token}`;
    const worker = await lane.worker(c.worker);
    const job = await worker.getNextJob(lockToken, { block: false });
    if (job === undefined || job.id === undefined) return claimReply(null);
    const delivery: Delivery = { job: job.id, lockToken, worker: c.worker, at: c.now };
    await lane.redis
      .multi()
      .hset(this.keys.deliveries, String(token), JSON.stringify(delivery))
      .hincrby(this.keys.meta, 'nextToken', 1)
      .exec();
    return claimReply({
      id: job.id,
      token,
      attempt: job.attemptsStarted,
      leaseUntil: c.now + this.config.leaseTicks,
      payload: job.data,
    });
  }

  private async delivery(lane: Lane, token: number): Promise<Delivery | undefined> {
    const raw = await lane.redis.hget(this.keys.deliveries, String(token));
    return raw === null ? undefined : storedJson(deliverySchema, raw, `delivery ${token}`);
  }

  /** The worker's commit: the effect ledger; no lock check (BullMQ has none for a worker's writes). */
  private async commit(lane: Lane, c: CommitCommand): Promise<Reply> {
    const delivery = await this.delivery(lane, c.token);
    if (delivery === undefined) return staleToken(c.token);
    const data = await this.storedData(lane, delivery.job);
    if (data === undefined)
      throw new BullmqRedisAdapterError('queue_error', `commit: BullMQ has no job ${JSON.stringify(delivery.job)}`);
    const { account, key, amount } = data;
    const field = JSON.stringify([account, key]);
    const [recordedRaw, balanceRaw] = await Promise.all([
      lane.redis.hget(this.keys.effects, field),
      lane.redis.hget(this.keys.balances, account),
    ]);
    const recorded =
      recordedRaw === null ? undefined : storedJson(effectSchema, recordedRaw, 'commit: the recorded effect');
    const plan = commitPlan(data, recorded?.amount, balanceRaw === null ? 0 : Number(balanceRaw));
    if (plan.type === 'apply')
      await lane.redis
        .multi()
        .hset(this.keys.effects, field, JSON.stringify({ amount, job: delivery.job, token: c.token }))
        .hset(this.keys.balances, account, String(plan.balance))
        .exec();
    return commitReply(delivery.job, plan);
  }

  /** The job as the commanding worker's BullMQ Worker loads it (what a worker process holding the job has). */
  private async loadJob(lane: Lane, delivery: Delivery, worker: string): Promise<Job<JobData>> {
    const job = await Job.fromId<JobData>(await lane.worker(worker), delivery.job);
    if (job === undefined)
      throw new BullmqRedisAdapterError('queue_error', `BullMQ has no job ${JSON.stringify(delivery.job)}`);
    return job;
  }

  private async ack(lane: Lane, c: AckCommand): Promise<Reply> {
    const delivery = await this.delivery(lane, c.token);
    if (delivery === undefined) return staleToken(c.token);
    const job = await this.loadJob(lane, delivery, c.worker);
    const refused = await finish('ack', c.token, delivery.lockToken, (lock) => job.moveToCompleted(null, lock, false));
    return refused ?? { ok: true, type: 'ack', id: delivery.job };
  }

  private async fail(lane: Lane, c: FailCommand): Promise<Reply> {
    const delivery = await this.delivery(lane, c.token);
    if (delivery === undefined) return staleToken(c.token);
    const job = await this.loadJob(lane, delivery, c.worker);
    const error = c.kind === 'permanent' ? new UnrecoverableError(c.error) : new Error(c.error);
    const refused = await finish('fail', c.token, delivery.lockToken, (lock) => job.moveToFailed(error, lock, false));
    if (refused !== undefined) return refused;
    const k = this.keys;
    const [delay, delayedScore, failedScore] = await Promise.all([
      lane.redis.hget(k.job(delivery.job), 'delay'),
      lane.redis.zscore(k.list('delayed'), delivery.job),
      lane.redis.zscore(k.list('failed'), delivery.job),
    ]);
    if (delayedScore !== null) {
      // BullMQ's backoff delay, in ticks from this command's tick (the delay is a whole number of ticks).
      const notBefore = c.now + Number(delay) / this.clock.tickMs;
      await lane.redis.hset(k.retries, delivery.job, String(notBefore));
      return { ok: true, type: 'fail', id: delivery.job, status: 'waiting', notBefore };
    }
    if (failedScore !== null) {
      const reason: DeadReason = c.kind === 'permanent' ? 'permanent' : 'attempts_exhausted';
      await lane.redis.hset(k.reasons, delivery.job, reason);
      return { ok: true, type: 'fail', id: delivery.job, status: 'dead', reason };
    }
    throw new BullmqRedisAdapterError(
      'queue_error',
      `fail: BullMQ left job ${JSON.stringify(delivery.job)} neither delayed nor failed, which the contract has no reply for`,
    );
  }

  /** The canonical snapshot, read from BullMQ's keys (one MULTI for the state lists) and the adapter's. */
  async snapshot(): Promise<Snapshot> {
    const redis = this.lane(0).redis;
    const k = this.keys;
    const lists = await redis
      .multi()
      .lrange(k.list('wait'), 0, -1)
      .lrange(k.list('paused'), 0, -1)
      .zrange(k.list('prioritized'), 0, -1)
      .lrange(k.list('active'), 0, -1)
      .zrange(k.list('delayed'), 0, -1, 'WITHSCORES')
      .zrange(k.list('completed'), 0, -1)
      .zrange(k.list('failed'), 0, -1)
      .hgetall(k.meta)
      .hgetall(k.deliveries)
      .hgetall(k.reasons)
      .hgetall(k.effects)
      .hgetall(k.balances)
      .hgetall(k.retries)
      .exec();
    if (lists === null) throw new BullmqRedisAdapterError('queue_error', 'snapshot: the read of BullMQ was aborted');
    const at = <T>(schema: z.ZodType<T>, i: number): T => {
      const entry = lists[i];
      if (entry === undefined) throw new BullmqRedisAdapterError('queue_error', `snapshot: no reply ${i} from Redis`);
      const [error, value] = entry;
      if (error !== null)
        throw new BullmqRedisAdapterError('queue_error', `snapshot: ${error.message}`, { cause: error });
      return stored(schema, value, `snapshot: reply ${i}`);
    };
    const state = new Map<string, { status: 'ready' | 'running' | 'delayed' | 'done' | 'dead' }>();
    for (const i of [0, 1, 2]) for (const id of at(idsSchema, i)) state.set(id, { status: 'ready' });
    for (const id of at(idsSchema, 3)) state.set(id, { status: 'running' });
    // With scores: ids at the even places.
    at(idsSchema, 4).forEach((id, i) => {
      if (i % 2 === 0) state.set(id, { status: 'delayed' });
    });
    for (const id of at(idsSchema, 5)) state.set(id, { status: 'done' });
    for (const id of at(idsSchema, 6)) state.set(id, { status: 'dead' });
    const meta = at(hashSchema, 7);
    const deliveries = at(hashSchema, 8);
    const reasons = at(reasonsSchema, 9);
    const effects = at(hashSchema, 10);
    const balances = at(hashSchema, 11);
    const retries = at(hashSchema, 12);
    const clock = Number(meta['clock']);
    const byLock = new Map<string, { token: number; delivery: Delivery }>();
    const lastOf = new Map<string, { token: number; delivery: Delivery }>();
    for (const [token, raw] of Object.entries(deliveries)) {
      const delivery = storedJson(deliverySchema, raw, `snapshot: delivery ${token}`);
      const entry = { token: Number(token), delivery };
      byLock.set(delivery.lockToken, entry);
      const last = lastOf.get(delivery.job);
      if (last === undefined || last.token < entry.token) lastOf.set(delivery.job, entry);
    }
    const listed = [...state];
    const read = redis.pipeline();
    for (const [id] of listed) read.hgetall(k.job(id)).get(`${k.job(id)}:lock`);
    const rows = (await read.exec()) ?? [];
    const jobs: { id: string; record: JobRecord }[] = [];
    listed.forEach(([id, s], i) => {
      const hash = stored(hashSchema, rows[2 * i]?.[1], `snapshot: job ${JSON.stringify(id)}`);
      const lock = stored(z.string().nullable(), rows[2 * i + 1]?.[1], `snapshot: lock of ${JSON.stringify(id)}`);
      const d = storedJson(jobDataSchema, hash['data'] ?? 'null', `snapshot: job ${JSON.stringify(id)}`);
      const base = {
        payload: { account: d.account, key: d.key, amount: d.amount, deadline: d.deadline },
        seq: d.seq,
        attempts: Number(hash['ats'] ?? 0),
      };
      const failedReason = hash['failedReason'];
      const lastError = failedReason === undefined || failedReason === '' ? {} : { lastError: failedReason };
      let record: JobRecord;
      switch (s.status) {
        case 'ready':
          record = { ...base, status: 'ready', ...lastError };
          break;
        case 'delayed': {
          // The tick the fail that delayed it replied (its tick plus BullMQ's backoff delay in ticks).
          const due = Number(retries[id] ?? 0);
          // BullMQ promotes a due delayed job inside the next claim, before it chooses: it is ready now.
          record =
            due <= clock
              ? { ...base, status: 'ready', ...lastError }
              : { ...base, status: 'waiting', notBefore: due, ...lastError };
          break;
        }
        case 'running': {
          // The lock key names the holder; a lock gone and not yet swept leaves the last delivery holding it.
          const holder = (lock === null ? undefined : byLock.get(lock)) ?? lastOf.get(id);
          record = {
            ...base,
            status: 'running',
            token: holder?.token ?? 0,
            owner: hash['pb'] ?? holder?.delivery.worker ?? '',
            leaseUntil: (holder?.delivery.at ?? 0) + this.config.leaseTicks,
            ...lastError,
          };
          break;
        }
        case 'done':
          record = { ...base, status: 'done', ...lastError };
          break;
        default:
          // Only the adapter's fail moves a job to failed (a stall past the limit only defers one), and it records the reason.
          record = {
            ...base,
            status: 'dead',
            reason: reasons[id] ?? 'attempts_exhausted',
            ...lastError,
          };
      }
      jobs.push({ id, record });
    });
    const out: Record<string, JobRecord> = {};
    for (const { id, record } of jobs.sort((a, b) => a.record.seq - b.record.seq)) out[id] = record;
    const effectRows = Object.entries(effects).map(([field, raw]) => {
      const [account, key] = storedJson(effectFieldSchema, field, 'snapshot: an effect field');
      return { account, key, effect: storedJson(effectSchema, raw, `snapshot: the effect ${field}`) };
    });
    const balanceRows = Object.entries(balances).map(([account, balance]) => ({ account, balance: Number(balance) }));
    return {
      format: SNAPSHOT_FORMAT,
      config: { ...this.config },
      clock,
      nextToken: Number(meta['nextToken']),
      nextSeq: Number(meta['nextSeq']),
      jobs: out,
      ...ledgerOf(balanceRows, effectRows),
    };
  }

  /**
   * The restart a BullMQ deployment has: every client (connections, the stalled checker) is closed
   * and new ones connect to the same keys. The Redis server itself keeps running, so its clock and
   * its lock TTLs go on; a server restart without persistence would lose every job.
   */
  async restart(): Promise<void> {
    const count = this.lanes.length;
    await this.sweeper.close();
    await Promise.allSettled(this.lanes.map((l) => l.close()));
    this.lanes = [];
    for (let i = 0; i < count; i++)
      this.lanes.push(
        new Lane(
          this.routes[i] ?? this.connection,
          this.prefix,
          this.config,
          this.clock.tickMs,
          this.stalledIntervalMs,
        ),
      );
    await Promise.all(this.lanes.map((l, i) => l.ready(`w${i + 1}`, false)));
    this.sweeper = this.lane(0).newWorker(undefined);
    await this.sweeper.waitUntilReady();
    await this.sweeper.startStalledCheckTimer();
  }

  /** Closes every BullMQ client (connections and timers), then deletes every key of the prefix. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.release();
    await this.sweeper.close().catch(() => undefined);
    const cleaner = quiet(new Redis(this.connection));
    try {
      await Promise.allSettled(this.lanes.map((l) => l.close()));
      let cursor = '0';
      do {
        const [next, found] = await cleaner.scan(cursor, 'MATCH', `${this.prefix}:*`, 'COUNT', 1000);
        if (found.length > 0) await cleaner.unlink(...found);
        cursor = next;
      } while (cursor !== '0');
    } finally {
      cleaner.disconnect();
    }
  }
}

/** The sequential adapter: one lane. */
export class BullmqRedisAdapter extends LaneAdapter<BullmqRedisBroker> {}

/** The concurrent adapter: a lane (its own connections) per competing worker. */
export class BullmqRedisConcurrentAdapter extends LaneConcurrentAdapter<BullmqRedisBroker> {}

/** A factory of sequential adapters over BullMQ on Redis, each on a key prefix of its own (removed when it closes). `version` names it in reports. */
export function bullmqRedisFactory(version: string, options: BullmqRedisOptions = {}): AdapterFactory {
  return lossAwareFactory(
    async (config) => new BullmqRedisAdapter(await BullmqRedisBroker.create(config, options, version, 1)),
    redisLoss(options),
  );
}

/** A factory of concurrent adapters over BullMQ on Redis: a lane of separate connections per worker. */
export function bullmqRedisConcurrentFactory(version: string, options: BullmqRedisOptions = {}): ConcurrentFactory {
  return lossAwareConcurrentFactory(
    async (config, { workers }) =>
      new BullmqRedisConcurrentAdapter(await BullmqRedisBroker.create(config, options, version, Math.max(1, workers))),
    redisLoss(options),
  );
}
