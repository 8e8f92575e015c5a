/**
 * The contract's commands on a Redis stream with one consumer group, as teams build a job queue
 * by hand on Redis (ioredis; README.md maps every rule):
 * - submit -> `XADD <stream> * id … account … key … amount … deadline …`, with `XLEN` in the same
 *   MULTI for the admission number; Redis has no idempotency key, so a known id is a new entry;
 * - claim -> the claim loop: `XAUTOCLAIM` with a min-idle time (the lease) takes an expired
 *   delivery, `XPENDING` gives its delivery count (the attempt); past `maxAttempts` deliveries the
 *   loop writes the entry to the dead-letter stream and `XACK`s it; else `XREADGROUP … >` reads a
 *   new entry. The contract's token is the adapter's number for that delivery (entry id, consumer,
 *   delivery count, tick);
 * - ack -> `XACK`, which checks neither the consumer nor the delivery count: a stale holder's ack
 *   of a pending entry settles it, and that shows; fail -> permanent, or on the last delivery, the
 *   worker's dead letter (`XADD` to the dead-letter stream + `XACK`); otherwise nothing is sent
 *   (Streams have no negative acknowledgement): the entry stays pending until its min-idle passes;
 * - commit -> the worker's effect ledger, in the worker's memory (Redis has no fence for it).
 * The dead-letter stream is the adapter's policy, a team's code, never Redis's. Time: Redis's
 * clock, which nobody moves: a WallClock (one tick `tickMs` ms); a lease of L ticks is a min-idle
 * of L − ½ ticks. Lanes are separate connections; claims take their tokens under one in-process lock.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';
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
  Reply,
  Snapshot,
  SubmitCommand,
} from '../../contract/index.ts';
import { SNAPSHOT_FORMAT, messageOf, parseCommand, parseConfig, putOwn } from '../../contract/index.ts';
import { claimReply } from '../../impl/decisions/index.ts';
import type { AdapterFactory } from '../../conformance/adapter.ts';
import type { ConcurrentFactory } from '../../conformance/concurrent/adapter.ts';
import { WallClock } from '../../conformance/profile/wallClock.ts';
import { lossAwareConcurrentFactory, lossAwareFactory } from '../../conformance/profile/lossAware.ts';
import type { LossSource } from '../../conformance/profile/lossAware.ts';
import { WorkerLedger, staleToken } from '../ledger.ts';
import { redisUrl } from '../bullmq-redis/redisEnv.ts';
import { RedisStreamsAdapterError } from './RedisStreamsAdapterError.ts';
import { LaneAdapter, LaneConcurrentAdapter } from '../laneBroker.ts';

/** Where the server is, how ticks map onto real time, and where each lane connects. */
export interface RedisStreamsOptions {
  /** The server: a redis:// URL on 127.0.0.1 (default: JOBCHECK_REDIS_URL). */
  readonly url?: string;
  /** Real milliseconds per tick (default DEFAULT_TICK_MS). */
  readonly tickMs?: number;
  /** Name for reports (default `Redis Streams`). */
  readonly name?: string;
  /** Per lane, another redis:// URL for that lane's connection (a fault proxy), else `url`. */
  readonly laneUrls?: readonly (string | undefined)[];
}

/** Real milliseconds per tick: the half-tick guard of a min-idle holds a claim's delay on a loaded machine (README.md, "Time"). */
export const DEFAULT_TICK_MS = 100;
/** Prefix of every adapter's keys: `rs` and 16 hex digits. */
export const KEY_PREFIX = 'rs';
/** The consumer group every worker reads in. */
export const GROUP = 'workers';
/** Most pending entries a snapshot reads (far above any run's jobs). */
const PENDING_READ = 100_000;
/** Reconnections tried before a client gives up on the server (50, 100, 150 ms apart). */
const RECONNECTS = 3;

/** The min-idle time of a lease of `leaseTicks` ticks: half a tick short, so that it ends between the lease's last tick and its end tick. Pure. */
export const minIdleMillis = (leaseTicks: number, tickMs: number): number =>
  leaseTicks * tickMs - Math.floor(tickMs / 2);

/** The job an entry carries: the contract's id and payload, as the submit wrote them. */
interface EntryJob {
  readonly id: string;
  readonly account: string;
  readonly key: string;
  readonly amount: number;
  readonly deadline: number;
}

/** One delivery the adapter handed out under a contract token. */
interface Delivery {
  readonly entry: string;
  readonly job: EntryJob;
  readonly worker: string;
  /** Redis's delivery count of the entry when it was handed out: the attempt. */
  readonly count: number;
  /** The claim's tick: the min-idle ends `leaseTicks` after it. */
  readonly at: number;
}

/** A dead letter, as the adapter's worker code wrote it. */
interface DeadLetter {
  readonly reason: DeadReason;
  readonly deliveries: number;
  readonly error?: string | undefined;
}

const fieldsSchema = z.array(z.string());
const entrySchema = z.tuple([z.string(), fieldsSchema]);
const entriesSchema = z.array(entrySchema);
const readSchema = z.array(z.tuple([z.string(), entriesSchema])).nullable();
const autoclaimSchema = z.tuple([z.string(), z.array(entrySchema.nullable())]).rest(z.unknown());
const pendingSchema = z.array(z.tuple([z.string(), z.string(), z.number(), z.number()]));
const groupsSchema = z.array(z.array(z.unknown()));
const jobSchema: z.ZodType<EntryJob> = z.object({
  id: z.string(),
  account: z.string(),
  key: z.string(),
  amount: z.coerce.number().pipe(z.number().int()),
  deadline: z.coerce.number().pipe(z.number().int()),
});
const deadSchema = z.object({
  entry: z.string(),
  reason: z.enum(['deadline', 'lease_expired', 'permanent', 'attempts_exhausted', 'no_time_for_retry']),
  deliveries: z.coerce.number(),
  error: z.string().optional(),
});

/** A value read from Redis, by its schema; anything else is Redis's error, never repaired. */
function stored<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success)
    throw new RedisStreamsAdapterError('queue_error', `${what}: Redis answered what the adapter cannot read`, {
      cause: result.error,
    });
  return result.data;
}

/** A stream entry's flat field list as a record. Pure. */
function fieldsOf(flat: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) putOwn(out, flat[i] as string, flat[i + 1] as string);
  return out;
}

/** Orders two stream entry ids (`ms-seq`). Pure. */
export function compareIds(a: string, b: string): number {
  const [am = 0n, as = 0n] = a.split('-').map((p) => BigInt(p));
  const [bm = 0n, bs = 0n] = b.split('-').map((p) => BigInt(p));
  return am !== bm ? (am < bm ? -1 : 1) : as === bs ? 0 : as < bs ? -1 : 1;
}

/** The ioredis options of a redis:// URL on loopback; throws bad_target for anything else. Pure. */
export function streamsConnection(url: string): RedisOptions {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || parsed.protocol !== 'redis:')
    throw new RedisStreamsAdapterError('bad_target', `${JSON.stringify(url)} is not a redis:// URL`);
  if (parsed.hostname !== '127.0.0.1' && parsed.hostname !== 'localhost')
    throw new RedisStreamsAdapterError('bad_target', `${JSON.stringify(url)} is not on this machine's loopback`);
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 6379),
    db: parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : 0,
    maxRetriesPerRequest: null,
    retryStrategy: (times) => (times > RECONNECTS ? null : 50 * times),
    connectTimeout: 2_000,
    lazyConnect: true,
  };
}

/** A client whose error events are dropped: each error also rejects the command waiting on it. */
function client(options: RedisOptions): Redis {
  const redis = new Redis(options);
  redis.on('error', () => undefined);
  return redis;
}

/** Where a factory's Redis is, and how ioredis says it gave up on it. */
const streamsLoss = (options: RedisStreamsOptions): LossSource => ({
  where: () => ({ broker: 'Redis', address: options.url ?? redisUrl() ?? '(no address)' }),
  clientLoss: (e) =>
    e instanceof Error && (e.message === 'Connection is closed.' || e.name === 'MaxRetriesPerRequestError')
      ? 'connection closed'
      : undefined,
});

/** Runs one MULTI and returns its replies, each error thrown as the adapter's. */
async function exec(multi: ReturnType<Redis['multi']>, what: string): Promise<unknown[]> {
  const replies = await multi.exec();
  if (replies === null) throw new RedisStreamsAdapterError('queue_error', `${what}: the MULTI was aborted`);
  return replies.map(([error, value]) => {
    if (error !== null)
      throw new RedisStreamsAdapterError('queue_error', `${what}: ${error.message}`, { cause: error });
    return value;
  });
}

/** One at a time: claims take their tokens in the order Redis handed the entries out. */
class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(f: () => Promise<T>): Promise<T> {
    const result = this.tail.then(f, f);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/**
 * One stream and its consumer group, driven from several lanes (a connection each): the one
 * implementation behind the sequential adapter (one lane) and the concurrent one.
 */
export class RedisStreamsBroker {
  private closed = false;
  private clockTick = 0;
  private nextToken = 1;
  private readonly deliveries = new Map<number, Delivery>();
  /** The worker's effect ledger: Redis keeps none. */
  private readonly ledger = new WorkerLedger();
  private readonly claims = new Mutex();
  private readonly minIdle: number;

  private constructor(
    readonly name: string,
    /** The adapter's key prefix: the stream is `<prefix>:jobs`, the dead-letter stream `<prefix>:dead`. */
    readonly prefix: string,
    private readonly config: Config,
    readonly clock: WallClock,
    private readonly routes: readonly RedisOptions[],
    private lanes: Redis[],
  ) {
    this.minIdle = minIdleMillis(config.leaseTicks, clock.tickMs);
  }

  get stream(): string {
    return `${this.prefix}:jobs`;
  }
  get dead(): string {
    return `${this.prefix}:dead`;
  }

  /** Opens `lanes` connections and the consumer group on a fresh prefix; tick 0 begins once they are open. */
  static async create(config: Config, options: RedisStreamsOptions, lanes: number): Promise<RedisStreamsBroker> {
    const cfg = parseConfig(config);
    const tickMs = options.tickMs ?? DEFAULT_TICK_MS;
    for (const field of ['leaseTicks', 'backoffBase', 'backoffCap'] as const)
      if (!Number.isSafeInteger(cfg[field] * tickMs))
        throw new RedisStreamsAdapterError(
          'unsupported_config',
          `${field}: ${cfg[field]} ticks of ${tickMs} ms is not a safe integer of milliseconds, which Redis's idle times are`,
        );
    const url = options.url ?? redisUrl();
    if (url === undefined)
      throw new RedisStreamsAdapterError('bad_target', 'no Redis server: give a url or set JOBCHECK_REDIS_URL');
    const main = streamsConnection(url);
    const routes = Array.from({ length: Math.max(1, lanes) }, (_, i) => {
      const routed = options.laneUrls?.[i];
      return routed === undefined ? main : streamsConnection(routed);
    });
    const broker = new RedisStreamsBroker(
      options.name ?? 'Redis Streams',
      `${KEY_PREFIX}${randomBytes(8).toString('hex')}`,
      cfg,
      new WallClock({ tickMs }),
      routes,
      [],
    );
    try {
      await broker.open();
    } catch (error) {
      await broker.close().catch(() => undefined);
      if (error instanceof RedisStreamsAdapterError) throw error;
      throw new RedisStreamsAdapterError('queue_error', `cannot open a stream on ${url}: ${messageOf(error)}`, {
        cause: error,
      });
    }
    broker.clock.restart();
    return broker;
  }

  /** Connects every lane and creates the group, as a worker's start-up does (an existing group is kept). */
  private async open(): Promise<void> {
    this.lanes = this.routes.map(client);
    await Promise.all(this.lanes.map((l) => l.connect()));
    try {
      await this.lane(0).xgroup('CREATE', this.stream, GROUP, '0', 'MKSTREAM');
    } catch (error) {
      if (!messageOf(error).startsWith('BUSYGROUP')) throw error;
    }
  }

  private lane(index: number): Redis {
    if (this.closed) throw new RedisStreamsAdapterError('queue_error', 'the adapter is closed');
    const lane = this.lanes[index % Math.max(1, this.lanes.length)];
    if (lane === undefined) throw new RedisStreamsAdapterError('queue_error', `no lane ${index}`);
    return lane;
  }

  /** Executes one command on lane `index`. */
  async execute(index: number, command: unknown): Promise<Reply> {
    const parsed = parseCommand(command);
    if (!parsed.ok) return parsed.rejection;
    const c: Command = parsed.command;
    const redis = this.lane(index);
    if (c.now < this.clockTick)
      return { ok: false, code: 'clock_regressed', message: `now: ${c.now} is before the clock (${this.clockTick})` };
    this.clockTick = c.now;
    await this.clock.advanceTo(c.now);
    switch (c.type) {
      case 'submit':
        return this.submit(redis, c);
      case 'claim':
        return this.claims.run(() => this.claim(redis, c));
      case 'commit':
        return this.commit(c);
      case 'ack':
        return this.ack(redis, c);
      case 'fail':
        return this.fail(redis, c);
      case 'tick':
        return { ok: true, type: 'tick', clock: c.now };
    }
  }

  private async submit(redis: Redis, c: SubmitCommand): Promise<Reply> {
    const fields = ['id', c.id, 'account', c.account, 'key', c.key, 'amount', String(c.amount)];
    const [, length] = await exec(
      redis
        .multi()
        .xadd(this.stream, '*', ...fields, 'deadline', String(c.deadline))
        .xlen(this.stream),
      'submit',
    );
    // No idempotency key on XADD: every submit is a new entry, its position the admission number.
    return { ok: true, type: 'submit', id: c.id, seq: stored(z.number(), length, 'XLEN'), duplicate: false };
  }

  /** The delivery count Redis holds for a pending entry, with its consumer and idle time; undefined when it is not pending. */
  private async pending(redis: Redis, entry: string) {
    const rows = stored(pendingSchema, await redis.xpending(this.stream, GROUP, entry, entry, 1), 'XPENDING');
    const row = rows[0];
    return row === undefined ? undefined : { consumer: row[1], idle: row[2], count: row[3] };
  }

  /** The worker's dead letter: the entry goes to the dead-letter stream and is acknowledged, in one MULTI. */
  private async deadLetter(redis: Redis, entry: string, job: EntryJob, letter: DeadLetter): Promise<void> {
    const fields = ['entry', entry, 'job', job.id, 'reason', letter.reason, 'deliveries', String(letter.deliveries)];
    if (letter.error !== undefined) fields.push('error', letter.error);
    await exec(
      redis
        .multi()
        .xadd(this.dead, '*', ...fields)
        .xack(this.stream, GROUP, entry),
      'dead letter',
    );
  }

  private async claim(redis: Redis, c: ClaimCommand): Promise<Reply> {
    // The claim loop: expired deliveries first (they are older than any entry never read).
    for (;;) {
      const reply = await redis.xautoclaim(this.stream, GROUP, c.worker, this.minIdle, '0-0', 'COUNT', 1);
      const found = stored(autoclaimSchema, reply, 'XAUTOCLAIM')[1].find((e) => e !== null);
      if (found === undefined || found === null) break;
      const [entry, flat] = found;
      const job = stored(jobSchema, fieldsOf(flat), `entry ${entry}`);
      const count = (await this.pending(redis, entry))?.count;
      if (count === undefined) continue;
      if (count > this.config.maxAttempts) {
        // Past its last delivery: the team's claim loop dead-letters it rather than hand it out.
        await this.deadLetter(redis, entry, job, { reason: 'lease_expired', deliveries: count - 1 });
        continue;
      }
      return this.deliver(c, entry, job, count);
    }
    const read = await redis.xreadgroup('GROUP', GROUP, c.worker, 'COUNT', 1, 'STREAMS', this.stream, '>');
    const entry = stored(readSchema, read, 'XREADGROUP')?.[0]?.[1][0];
    if (entry === undefined) return claimReply(null);
    return this.deliver(c, entry[0], stored(jobSchema, fieldsOf(entry[1]), `entry ${entry[0]}`), 1);
  }

  private deliver(c: ClaimCommand, entry: string, job: EntryJob, count: number): Reply {
    const token = this.nextToken++;
    this.deliveries.set(token, { entry, job, worker: c.worker, count, at: c.now });
    const { account, key, amount, deadline } = job;
    return claimReply({
      id: job.id,
      token,
      attempt: count,
      leaseUntil: c.now + this.config.leaseTicks,
      payload: { account, key, amount, deadline },
    });
  }

  /** The worker's commit: its own ledger, with no check (Redis has no fence for a worker's writes). */
  private commit(c: CommitCommand): Reply {
    const d = this.deliveries.get(c.token);
    if (d === undefined) return staleToken(c.token, 'the adapter never handed it out');
    return this.ledger.commit(d.job.id, c.token, d.job);
  }

  private async ack(redis: Redis, c: AckCommand): Promise<Reply> {
    const d = this.deliveries.get(c.token);
    if (d === undefined) return staleToken(c.token, 'the adapter never handed it out');
    const acked = await redis.xack(this.stream, GROUP, d.entry);
    if (acked === 0) return staleToken(c.token, `XACK of entry ${d.entry} acknowledged nothing: it is not pending`);
    return { ok: true, type: 'ack', id: d.job.id };
  }

  private async fail(redis: Redis, c: FailCommand): Promise<Reply> {
    const d = this.deliveries.get(c.token);
    if (d === undefined) return staleToken(c.token, 'the adapter never handed it out');
    // The worker reads the delivery count, as its retry policy needs; Redis checks no holder.
    const now = await this.pending(redis, d.entry);
    if (now === undefined) return staleToken(c.token, `XPENDING holds no delivery of entry ${d.entry}`);
    if (c.kind === 'permanent' || now.count >= this.config.maxAttempts) {
      const reason: DeadReason = c.kind === 'permanent' ? 'permanent' : 'attempts_exhausted';
      await this.deadLetter(redis, d.entry, d.job, { reason, deliveries: now.count, error: c.error });
      return { ok: true, type: 'fail', id: d.job.id, status: 'dead', reason };
    }
    // Nothing to send: the entry stays pending until its min-idle passes, then XAUTOCLAIM takes it.
    const current = this.latest(d.entry, now.count) ?? d;
    return { ok: true, type: 'fail', id: d.job.id, status: 'waiting', notBefore: current.at + this.config.leaseTicks };
  }

  /** The adapter's token of an entry's delivery number `count`, else its latest; undefined when it has none. */
  private latest(entry: string, count?: number): (Delivery & { token: number }) | undefined {
    let best: (Delivery & { token: number }) | undefined;
    for (const [token, d] of this.deliveries) {
      if (d.entry !== entry) continue;
      if (count !== undefined && d.count === count) return { ...d, token };
      if (best === undefined || token > best.token) best = { ...d, token };
    }
    return best;
  }

  /** The canonical snapshot, read in one MULTI: the entries, the pending list, the group's last delivered id, the dead letters. */
  async snapshot(): Promise<Snapshot> {
    const replies = await this.lane(0)
      .multi()
      .xrange(this.stream, '-', '+')
      .xpending(this.stream, GROUP, '-', '+', PENDING_READ)
      .xinfo('GROUPS', this.stream)
      .xrange(this.dead, '-', '+')
      .exec();
    if (replies === null) throw new RedisStreamsAdapterError('queue_error', 'snapshot: the MULTI was aborted');
    // A stream lost with the server (a kill without persistence) has no group until a worker's start-up makes one.
    const at = (i: number): unknown => {
      const [error, value] = replies[i] ?? [new Error(`no reply ${i}`), undefined];
      if (error === null) return value;
      if (/NOGROUP|no such key/i.test(error.message)) return [];
      throw new RedisStreamsAdapterError('queue_error', `snapshot: ${error.message}`, { cause: error });
    };
    const entries = stored(entriesSchema, at(0), 'snapshot: XRANGE');
    const pending = new Map(
      stored(pendingSchema, at(1), 'snapshot: XPENDING').map(([id, consumer, idle, count]) => [
        id,
        { consumer, idle, count },
      ]),
    );
    const group = stored(groupsSchema, at(2), 'snapshot: XINFO GROUPS')
      .map((flat) => fieldsOf(flat.map(String)))
      .find((g) => g['name'] === GROUP);
    const lastDelivered = group?.['last-delivered-id'] ?? '0-0';
    const dead = new Map<string, DeadLetter>();
    for (const [, flat] of stored(entriesSchema, at(3), 'snapshot: XRANGE dead')) {
      const letter = stored(deadSchema, fieldsOf(flat), 'snapshot: a dead letter');
      dead.set(letter.entry, letter);
    }
    const jobs: Record<string, JobRecord> = {};
    entries.forEach(([entry, flat], i) => {
      const job = stored(jobSchema, fieldsOf(flat), `snapshot: entry ${entry}`);
      // A later entry of a known id (a submit repeated) is left out: the contract names a job by its id.
      if (Object.hasOwn(jobs, job.id)) return;
      putOwn(jobs, job.id, this.record(entry, job, i + 1, dead.get(entry), pending.get(entry), lastDelivered));
    });
    return {
      format: SNAPSHOT_FORMAT,
      config: { ...this.config },
      clock: this.clockTick,
      nextToken: this.nextToken,
      nextSeq: entries.length + 1,
      jobs,
      ...this.ledger.snapshot(),
    };
  }

  /** One entry as the contract's job record. Pure but for reading the adapter's deliveries. */
  private record(
    entry: string,
    job: EntryJob,
    seq: number,
    letter: DeadLetter | undefined,
    pending: { consumer: string; idle: number; count: number } | undefined,
    lastDelivered: string,
  ): JobRecord {
    const payload = { account: job.account, key: job.key, amount: job.amount, deadline: job.deadline };
    const attempts = this.latest(entry)?.count ?? 0;
    if (letter !== undefined)
      return {
        payload,
        seq,
        status: 'dead',
        attempts: letter.deliveries,
        reason: letter.reason,
        ...(letter.error === undefined ? {} : { lastError: letter.error }),
      };
    if (pending !== undefined) {
      // XAUTOCLAIM takes an entry idle for more than the min-idle: until then its consumer holds it.
      if (pending.idle > this.minIdle) return { payload, seq, status: 'ready', attempts: pending.count };
      const d = this.latest(entry, pending.count);
      return {
        payload,
        seq,
        status: 'running',
        attempts: pending.count,
        token: d?.token ?? 0,
        owner: pending.consumer,
        leaseUntil: (d?.at ?? 0) + this.config.leaseTicks,
      };
    }
    if (compareIds(entry, lastDelivered) > 0) return { payload, seq, status: 'ready', attempts: 0 };
    return { payload, seq, status: 'done', attempts };
  }

  /** A worker fleet's restart: every connection closes and new ones connect; the group is created again if the server lost it. */
  async restart(): Promise<void> {
    this.lane(0);
    for (const l of this.lanes) l.disconnect();
    await this.open();
  }

  /** Deletes the stream and the dead-letter stream, and closes every connection. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const cleaner = client(this.routes[0] ?? {});
    try {
      await cleaner.connect();
      await cleaner.unlink(this.stream, this.dead);
    } catch {
      // A server already gone holds nothing of the adapter's.
    } finally {
      cleaner.disconnect();
      for (const l of this.lanes) l.disconnect();
    }
  }
}

/** The sequential adapter: one lane. */
export class RedisStreamsAdapter extends LaneAdapter<RedisStreamsBroker> {}

/** The concurrent adapter: a lane (its own connection) per competing worker. */
export class RedisStreamsConcurrentAdapter extends LaneConcurrentAdapter<RedisStreamsBroker> {}

/** A factory of sequential adapters, each on a stream of its own (deleted when it closes). */
export function redisStreamsFactory(options: RedisStreamsOptions = {}): AdapterFactory {
  return lossAwareFactory(
    async (config) => new RedisStreamsAdapter(await RedisStreamsBroker.create(config, options, 1)),
    streamsLoss(options),
  );
}

/** A factory of concurrent adapters: a stream each, a connection per worker. */
export function redisStreamsConcurrentFactory(options: RedisStreamsOptions = {}): ConcurrentFactory {
  return lossAwareConcurrentFactory(
    async (config, { workers }) =>
      new RedisStreamsConcurrentAdapter(await RedisStreamsBroker.create(config, options, Math.max(1, workers))),
    streamsLoss(options),
  );
}
