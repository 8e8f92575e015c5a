/**
 * RabbitMQ behind the contract's commands, through amqplib, on a quorum (or classic) queue: a work
 * and a dead-letter queue per instance, deleted on close; a factory's instances share a connection
 * (SharedConnection.ts; a lane of `laneUrls` has its own), each with its channels. It translates, never repairs:
 * - time: the broker's own. The lease is the server's `consumer_timeout` (one setting for every
 *   queue in 3.10), so one tick is `consumer_timeout / leaseTicks` ms of the server servers.ts picks,
 *   and the commands of a tick start half a tick into it; with nothing ready or running nothing on
 *   the broker can fire, and a later tick is reached at once;
 * - submit: `sendToQueue` on a confirm channel, persistent, a fresh `messageId`, the deadline as TTL
 *   (`expiration`); `x-max-length` = capacity with `x-overflow: reject-publish`: a broker nack is
 *   `capacity_exceeded`;
 * - claim: `basic.get` with manual ack on the worker's channel; the token names delivery tag and channel;
 * - ack / fail: `ack` / `nack` (requeue when transient) of that tag on the channel the worker holds
 *   now: a tag is a number per channel, no fencing token. An unknown tag closes the channel
 *   (PRECONDITION_FAILED), reported as `stale_token`; a known one settles whatever it names now;
 * - commit: the consumer's own ledger (in memory), fenced only by the worker's channel being open;
 * - dead records: `x-delivery-limit` = maxAttempts − 1 (quorum only: a classic queue refuses it and
 *   counts no deliveries: attempt 1 always), dead letters drained (`x-first-death-reason`).
 * A snapshot shows what the adapter has seen the broker do: replies, channel closures, dead letters.
 */
import { randomBytes } from 'node:crypto';
import type { Channel, ChannelModel, ConfirmChannel, GetMessage } from 'amqplib';
import type { Config, DeadReason, JobRecord, Payload, Reply, Snapshot } from '../../contract/index.ts';
import { SNAPSHOT_FORMAT, parseCommand, parseConfig, putOwn } from '../../contract/index.ts';
import type { AckCommand, ClaimCommand, CommitCommand, FailCommand, SubmitCommand } from '../../contract/index.ts';
import type { Adapter, AdapterFactory } from '../../conformance/adapter.ts';
import { WallClock } from '../../conformance/profile/wallClock.ts';
import { claimReply } from '../../impl/decisions/index.ts';
import { WorkerLedger, staleToken } from '../ledger.ts';
import { amqpQueueType } from './amqpEnv.ts';
import { RabbitmqAdapterError } from './RabbitmqAdapterError.ts';
import { lossAwareFactory } from '../../conformance/profile/lossAware.ts';
import type { LossSource } from '../../conformance/profile/lossAware.ts';
import { SharedConnection, SharedConnections } from './SharedConnection.ts';
import { parseServers, serverFor } from './servers.ts';
import type { AmqpServer } from './servers.ts';

/** The consumer_timeout the server is expected to run with, in ms (its rabbitmq.conf; scripts/brokers.sh's default). */
export const CONSUMER_TIMEOUT_MS = 800;

/** Options of a RabbitMQ adapter factory. */
export interface RabbitmqFactoryOptions {
  /** The AMQP URL (default: JOBCHECK_AMQP_URL). */
  readonly url?: string;
  /** The server's consumer_timeout in ms (default CONSUMER_TIMEOUT_MS, or JOBCHECK_AMQP_CONSUMER_TIMEOUT_MS). */
  readonly consumerTimeoutMs?: number;
  /** Servers to pick from by lease (servers.ts; default: JOBCHECK_AMQP_SERVERS, unless `url` is given). */
  readonly servers?: readonly AmqpServer[];
  /** Name for reports (default `rabbitmq`). */
  readonly name?: string;
  /** The connections instances share, one per server (default: each instance its own, closed with it). */
  readonly connections?: SharedConnections;
  /** The work queue's type (default JOBCHECK_AMQP_QUEUE_TYPE, else quorum). */
  readonly queueType?: 'quorum' | 'classic';
  /**
   * Per lane of competing workers, another AMQP URL (a fault proxy): a worker channel opened for a
   * request on lane i is on a connection of the instance's own to `laneUrls[i]`, else on the shared one.
   */
  readonly laneUrls?: readonly (string | undefined)[];
}

/** One worker's channel, and the deliveries it holds by tag. */
interface Lane {
  readonly channel: Channel;
  open: boolean;
  /** Delivery tag → message id, for deliveries not yet settled on this channel. */
  readonly tags: Map<number, string>;
}

/** One published message as the adapter has seen it. */
interface Message {
  readonly id: string;
  readonly payload: Payload;
  readonly seq: number;
  attempts: number;
  status: 'ready' | 'running' | 'done' | 'dead';
  token?: number;
  owner?: string;
  leaseUntil?: number;
  reason?: DeadReason;
}

/** What a token names: a delivery tag on a channel, and the message it was. */
interface Delivery {
  readonly lane: Lane;
  readonly tag: number;
  readonly messageId: string;
}

/** The server's consumer_timeout in ms from options or the environment. Pure. */
export function consumerTimeoutOf(options: RabbitmqFactoryOptions, env: NodeJS.ProcessEnv = process.env): number {
  const raw = options.consumerTimeoutMs ?? Number(env['JOBCHECK_AMQP_CONSUMER_TIMEOUT_MS'] ?? CONSUMER_TIMEOUT_MS);
  if (!Number.isFinite(raw) || raw <= 0)
    throw new RabbitmqAdapterError('unsupported_config', `consumer_timeout must be a positive ms count, got ${raw}`);
  return raw;
}

/** The server's URL from options or the environment; throws RabbitmqAdapterError `no_server` without one. Pure. */
export function urlOf(options: RabbitmqFactoryOptions, env: NodeJS.ProcessEnv = process.env): string {
  const url = options.url ?? env['JOBCHECK_AMQP_URL'] ?? '';
  if (url === '') throw new RabbitmqAdapterError('no_server', 'no AMQP server: JOBCHECK_AMQP_URL is not set');
  return url;
}

/**
 * The servers instances run on: `options.servers`; else, unless `options.url` is given, those of
 * JOBCHECK_AMQP_SERVERS; else the one server of urlOf with consumerTimeoutOf. Throws
 * RabbitmqAdapterError (`no_server`, `unsupported_config`). Pure.
 */
export function serversOf(
  options: RabbitmqFactoryOptions,
  env: NodeJS.ProcessEnv = process.env,
): readonly AmqpServer[] {
  if (options.servers !== undefined && options.servers.length > 0) return options.servers;
  const listed = options.url === undefined ? parseServers(env['JOBCHECK_AMQP_SERVERS']) : undefined;
  return listed ?? [{ url: urlOf(options, env), consumerTimeoutMs: consumerTimeoutOf(options, env) }];
}

/** The consumer_timeouts of serversOf, without needing a URL (for what a page states). Pure. */
export function consumerTimeoutsOf(options: RabbitmqFactoryOptions, env: NodeJS.ProcessEnv = process.env): number[] {
  if (options.servers !== undefined && options.servers.length > 0)
    return options.servers.map((s) => s.consumerTimeoutMs);
  const listed = options.url === undefined ? parseServers(env['JOBCHECK_AMQP_SERVERS']) : undefined;
  return listed?.map((s) => s.consumerTimeoutMs) ?? [consumerTimeoutOf(options, env)];
}

/**
 * The queue arguments a RabbitMQ user would declare for this config on a queue of `queueType`
 * (default: JOBCHECK_AMQP_QUEUE_TYPE, else quorum). A classic queue gets no `x-delivery-limit`:
 * 3.10 refuses the argument on one (PRECONDITION_FAILED, invalid arg), so its user cannot bound
 * retries there. Pure.
 */
export function queueArguments(
  config: Config,
  deadQueue: string,
  queueType: 'quorum' | 'classic' = amqpQueueType(),
): Record<string, unknown> {
  return {
    'x-queue-type': queueType,
    'x-max-length': config.capacity,
    'x-overflow': 'reject-publish',
    ...(queueType === 'quorum' ? { 'x-delivery-limit': config.maxAttempts - 1 } : {}),
    'x-dead-letter-exchange': '',
    'x-dead-letter-routing-key': deadQueue,
  };
}

/** An adapter over one quorum (or classic) queue; see the top of the file. */
export class RabbitmqAdapter implements Adapter {
  private closed = false;
  /** The instance's connection closed under it (the broker went away): a restart opens a new one. */
  private lost = false;
  /** Per routed lane, its own connection (laneUrls), opened when a worker channel first needs it. */
  private readonly laneConnections = new Map<number, { shared: SharedConnection; opening: Promise<ChannelModel> }>();
  private readonly errors: unknown[] = [];
  private readonly lanes = new Map<string, Lane>();
  private readonly opening = new Map<string, Promise<Lane>>();
  private readonly messages = new Map<string, Message>();
  /** The contract id → the message id of its latest publish (RabbitMQ has no ids of its own). */
  private readonly latest = new Map<string, string>();
  private readonly tokens = new Map<number, Delivery>();
  /** The consumer's effect ledger: RabbitMQ keeps none. */
  private readonly ledger = new WorkerLedger();
  private clockTick = 0;
  /** Real milliseconds the clock skipped while the broker had no timer that could fire (see `execute`). */
  private skippedMs = 0;
  readonly clock: WallClock;
  private nextToken = 1;
  private nextSeq = 1;
  private published = 0;
  private publisher!: ConfirmChannel;
  private admin!: Channel;

  private constructor(
    private readonly shared: SharedConnection,
    private connection: ChannelModel,
    readonly name: string,
    readonly config: Config,
    readonly queue: string,
    readonly deadQueue: string,
    tickMs: number,
    private readonly laneUrls: readonly (string | undefined)[] = [],
  ) {
    // The broker's time as the adapter drives it: real time, plus what was skipped while idle.
    this.clock = new WallClock({ tickMs, offsetMs: tickMs / 2, now: () => performance.now() + this.skippedMs });
    this.listen(this.connection);
  }

  private readonly onConnectionError = (error: unknown): void => {
    this.errors.push(error);
  };

  private readonly onConnectionClose = (): void => {
    this.lost = true;
  };

  private listen(connection: ChannelModel): void {
    connection.on('error', this.onConnectionError).on('close', this.onConnectionClose);
  }

  private unlisten(connection: ChannelModel): void {
    connection.off('error', this.onConnectionError).off('close', this.onConnectionClose);
  }

  /** Declares a fresh work queue and dead-letter queue for `config`. Throws JobcheckError for a bad config. */
  static async create(config: Config, options: RabbitmqFactoryOptions = {}): Promise<RabbitmqAdapter> {
    const checked = parseConfig(config);
    const server = serverFor(checked.leaseTicks, serversOf(options));
    const tickMs = server.consumerTimeoutMs / checked.leaseTicks;
    const base = `jobcheck.${randomBytes(6).toString('hex')}`;
    const shared = options.connections?.of(server.url) ?? new SharedConnection(() => server.url, 0);
    const adapter = new RabbitmqAdapter(
      shared,
      await shared.acquire(),
      options.name ?? 'rabbitmq',
      checked,
      `${base}.work`,
      `${base}.dead`,
      tickMs,
      options.laneUrls,
    );
    try {
      await adapter.open();
      // Both declarations at once, on two channels: a quorum queue's start is most of an instance's set-up.
      await Promise.all([
        adapter.publisher.assertQueue(adapter.deadQueue, { durable: true }),
        adapter.admin.assertQueue(adapter.queue, {
          durable: true,
          arguments: queueArguments(checked, adapter.deadQueue, options.queueType),
        }),
      ]);
      adapter.startClock();
      return adapter;
    } catch (error) {
      await adapter.close().catch(() => undefined);
      throw error;
    }
  }

  /**
   * Starts the clock at tick 0, already half a tick in: the commands of tick 0 run at once, and
   * stand to every later tick (each of whose commands start half a tick in) as the commands of
   * any tick do, so a lease taken at tick 0 ends where one taken at tick 7 does, `leaseTicks` later.
   */
  private startClock(): void {
    this.clock.restart();
    this.skippedMs += this.clock.offsetMs;
  }

  /** Opens the publisher's and the adapter's own channels on the connection. */
  private async open(): Promise<void> {
    [this.publisher, this.admin] = await Promise.all([
      this.connection.createConfirmChannel(),
      this.connection.createChannel(),
    ]);
    for (const channel of [this.publisher, this.admin])
      channel.on('error', (error: unknown) => this.errors.push(error));
  }

  private healthy(): void {
    if (this.closed) throw new RabbitmqAdapterError('broker_error', 'the adapter is closed');
    const error = this.errors.shift();
    if (error !== undefined)
      throw new RabbitmqAdapterError(
        'broker_error',
        `RabbitMQ closed the adapter's own connection or channel: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
  }

  /**
   * The connection a worker channel opened for a request on lane `on` goes on: the lane's own
   * (laneUrls), else the instance's. A lane's connection is a worker process's: when it closes
   * (amqplib ends it on a frame for a channel it already released, as on a second `channel.close`
   * that a healed partition delivers), its channels close and their deliveries go back, as the
   * broker does; the lane's next channel opens a new one, as a reconnect loop does.
   */
  private connectionFor(on: number | undefined): Promise<ChannelModel> {
    const url = on === undefined ? undefined : this.laneUrls[on];
    if (on === undefined || url === undefined) return Promise.resolve(this.connection);
    const held = this.laneConnections.get(on);
    if (held !== undefined) return held.opening;
    const shared = new SharedConnection(() => url, 0);
    const mine = { shared, opening: shared.acquire() };
    const forget = (): void => {
      if (this.laneConnections.get(on) !== mine) return;
      this.laneConnections.delete(on);
      shared.release();
    };
    mine.opening.then((c) => c.on('error', () => undefined).on('close', forget), forget);
    this.laneConnections.set(on, mine);
    return mine.opening;
  }

  /**
   * The channel `key` (a worker) holds now: its open one, or a new one (one at a time, also under
   * concurrent claims), on the connection of lane `on` (connectionFor).
   */
  private async laneOf(key: string, on?: number): Promise<Lane> {
    const held = this.lanes.get(key);
    if (held?.open === true) return held;
    const opening = this.opening.get(key);
    if (opening !== undefined) return opening;
    const next = this.connectionFor(on).then(async (connection): Promise<Lane> => {
      const channel = await connection.createChannel();
      const lane: Lane = { channel, open: true, tags: new Map() };
      // A channel the server closes (consumer_timeout, an unknown tag) returns every delivery it held.
      channel.on('error', () => undefined);
      channel.on('close', () => this.closedUnder(lane));
      this.lanes.set(key, lane);
      return lane;
    });
    this.opening.set(key, next);
    try {
      return await next;
    } finally {
      this.opening.delete(key);
    }
  }

  /**
   * `basic.get` on the channel `key` holds now. A channel the server closes while the get is in
   * flight (the consumer_timeout of a delivery it held) never runs it: the worker opens a new
   * channel and asks again, once, as its reconnect loop does.
   */
  private async getOn(key: string, on?: number): Promise<{ lane: Lane; got: GetMessage | false }> {
    const lane = await this.laneOf(key, on);
    try {
      return { lane, got: await lane.channel.get(this.queue, { noAck: false }) };
    } catch (error) {
      if (lane.open) throw error;
      const again = await this.laneOf(key, on);
      return { lane: again, got: await again.channel.get(this.queue, { noAck: false }) };
    }
  }

  /** What the broker does when a channel closes: every unsettled delivery on it goes back to the queue. */
  private closedUnder(lane: Lane): void {
    lane.open = false;
    for (const messageId of lane.tags.values()) {
      const m = this.messages.get(messageId);
      if (m === undefined || m.status !== 'running') continue;
      this.requeued(m);
    }
    lane.tags.clear();
  }

  private requeued(m: Message): void {
    m.status = 'ready';
    delete m.token;
    delete m.owner;
    delete m.leaseUntil;
  }

  /**
   * Executes one command on the channel of `key` (default: the command's worker); a channel it
   * opens is on the connection of `lane` (the competing workers' lane carrying it; connectionFor).
   */
  async execute(input: unknown, key?: string, lane?: number): Promise<Reply> {
    this.healthy();
    const parsed = parseCommand(input);
    if (!parsed.ok) return parsed.rejection;
    const command = parsed.command;
    if (command.now < this.clockTick)
      return {
        ok: false,
        code: 'clock_regressed',
        message: `now: ${command.now} is before the clock (${this.clockTick})`,
      };
    if (command.now > this.clockTick) {
      this.clockTick = command.now;
      if (this.idle()) this.skipTo(command.now);
    }
    await this.clock.advanceTo(command.now);
    await this.drainDead();
    const reply = await this.apply(command, key, lane);
    this.healthy();
    return reply;
  }

  /**
   * Whether the broker holds no timer of this instance: no message it may still deliver, expire or
   * dead-letter (every one the adapter published is done or dead) and so no delivery whose
   * consumer_timeout runs. Only then may time pass without waiting: nothing could fire meanwhile.
   */
  private idle(): boolean {
    for (const m of this.messages.values()) if (m.status === 'ready' || m.status === 'running') return false;
    return true;
  }

  /**
   * Moves the adapter's view of the broker's time on to the instant tick `now`'s commands start
   * (half a tick in), at once. Only while idle: a timer already running on the broker counts real
   * time from its start, and would fire ticks late after a skip; one started after it (a claim's
   * consumer_timeout, a publish's TTL) stands to the later ticks as it would after a wait.
   */
  private skipTo(now: number): void {
    const behind = this.clock.startOf(now) - (performance.now() + this.skippedMs);
    if (behind > 0) this.skippedMs += behind;
  }

  private apply(
    command: Exclude<ReturnType<typeof parseCommand>, { ok: false }>['command'],
    key?: string,
    lane?: number,
  ): Promise<Reply> {
    switch (command.type) {
      case 'submit':
        return this.submit(command);
      case 'claim':
        return this.claim(command, key ?? command.worker, lane);
      case 'commit':
        return this.commit(command, key ?? command.worker);
      case 'ack':
        return this.ack(command, key ?? command.worker);
      case 'fail':
        return this.fail(command, key ?? command.worker);
      case 'tick':
        return Promise.resolve({ ok: true, type: 'tick', clock: command.now });
    }
  }

  private async submit(c: SubmitCommand): Promise<Reply> {
    const payload: Payload = { account: c.account, key: c.key, amount: c.amount, deadline: c.deadline };
    this.published += 1;
    const messageId = `${this.published}`;
    const ttl = Math.max(0, Math.round((c.deadline - c.now) * this.clock.tickMs));
    const refused = await new Promise<unknown>((resolve) => {
      this.publisher.sendToQueue(
        this.queue,
        Buffer.from(JSON.stringify({ id: c.id, ...payload })),
        { messageId, persistent: true, expiration: String(ttl) },
        (error: unknown) => resolve(error),
      );
    });
    if (refused !== null && refused !== undefined)
      return {
        ok: false,
        code: 'capacity_exceeded',
        message: `RabbitMQ refused the publish (x-max-length ${this.config.capacity}, reject-publish)`,
      };
    // RabbitMQ keeps no ids: every publish is a new message, whatever its id.
    const seq = this.nextSeq;
    this.nextSeq += 1;
    this.messages.set(messageId, { id: c.id, payload, seq, attempts: 0, status: 'ready' });
    this.latest.set(c.id, messageId);
    return { ok: true, type: 'submit', id: c.id, seq, duplicate: false };
  }

  private async claim(c: ClaimCommand, key: string, on?: number): Promise<Reply> {
    const { lane, got } = await this.getOn(key, on);
    if (got === false) return claimReply(null);
    const messageId = String(got.properties.messageId);
    const m = this.messages.get(messageId);
    if (m === undefined) throw new Error(`RabbitMQ delivered message ${messageId}, which the adapter never published`);
    const returns = Number(got.properties.headers?.['x-delivery-count'] ?? 0);
    const token = this.nextToken;
    this.nextToken += 1;
    lane.tags.set(got.fields.deliveryTag, messageId);
    this.tokens.set(token, { lane, tag: got.fields.deliveryTag, messageId });
    m.status = 'running';
    m.attempts = returns + 1;
    m.token = token;
    m.owner = c.worker;
    m.leaseUntil = c.now + this.config.leaseTicks;
    return claimReply({ id: m.id, token, attempt: m.attempts, leaseUntil: m.leaseUntil, payload: m.payload });
  }

  /**
   * Settles `token`'s tag on the channel `key` holds now (ack or nack), then waits for a round
   * trip on that channel: an unknown tag makes the server close it (PRECONDITION_FAILED).
   * Returns the message the tag named on that channel, or why nothing was settled.
   */
  private async settle(
    token: number,
    key: string,
    how: (channel: Channel, tag: number) => void,
  ): Promise<{ m: Message } | { stale: string }> {
    const delivery = this.tokens.get(token);
    if (delivery === undefined) return { stale: 'no delivery was ever handed out under it' };
    const lane = this.lanes.get(key);
    if (lane === undefined || !lane.open) return { stale: `worker channel ${key} is closed: its deliveries went back` };
    const named = lane.tags.get(delivery.tag);
    how(lane.channel, delivery.tag);
    try {
      await lane.channel.checkQueue(this.queue);
    } catch (error) {
      return { stale: `RabbitMQ closed the channel: ${error instanceof Error ? error.message : String(error)}` };
    }
    lane.tags.delete(delivery.tag);
    const m = named === undefined ? undefined : this.messages.get(named);
    if (m === undefined)
      throw new Error(`RabbitMQ accepted tag ${delivery.tag}, which names no delivery the adapter saw`);
    return { m };
  }

  private async ack(c: AckCommand, key: string): Promise<Reply> {
    const settled = await this.settle(c.token, key, (channel, tag) =>
      channel.ack({ fields: { deliveryTag: tag } } as never),
    );
    if ('stale' in settled) return staleToken(c.token, settled.stale);
    const m = settled.m;
    m.status = 'done';
    delete m.token;
    delete m.owner;
    delete m.leaseUntil;
    return { ok: true, type: 'ack', id: m.id };
  }

  private async fail(c: FailCommand, key: string): Promise<Reply> {
    const requeue = c.kind === 'transient';
    const settled = await this.settle(c.token, key, (channel, tag) =>
      channel.nack({ fields: { deliveryTag: tag } } as never, false, requeue),
    );
    if ('stale' in settled) return staleToken(c.token, settled.stale);
    const m = settled.m;
    // The nack carries no text: RabbitMQ keeps no failure text, so none is recorded.
    this.requeued(m);
    const dead = (): boolean => (m.status as Message['status']) === 'dead';
    // A requeued message may still be dead-lettered (x-delivery-limit), a rejected one always is:
    // wait briefly for the dead letter to arrive.
    for (let i = 0; i < 5 && !dead(); i++) {
      await this.drainDead();
      if (!dead()) await new Promise((resolve) => setTimeout(resolve, requeue ? 20 : 40));
    }
    if (m.status === 'dead')
      return { ok: true, type: 'fail', id: m.id, status: 'dead', reason: m.reason ?? 'permanent' };
    // Requeued at once: ready again now, with no backoff (3.10 has no delayed redelivery).
    return { ok: true, type: 'fail', id: m.id, status: 'waiting', notBefore: c.now };
  }

  private async commit(c: CommitCommand, key: string): Promise<Reply> {
    const delivery = this.tokens.get(c.token);
    if (delivery === undefined) return staleToken(c.token, 'no delivery was ever handed out under it');
    const lane = this.lanes.get(key);
    if (lane === undefined || !lane.open) return staleToken(c.token, `worker channel ${key} is closed`);
    const m = this.messages.get(delivery.messageId) as Message;
    return this.ledger.commit(m.id, c.token, m.payload);
  }

  /** Takes every dead letter off the dead-letter queue and records why it died. */
  private async drainDead(): Promise<void> {
    for (;;) {
      const got = await this.admin.get(this.deadQueue, { noAck: true });
      if (got === false) return;
      const m = this.messages.get(String(got.properties.messageId));
      if (m === undefined) continue;
      // The broker's reason, and only it: delivery_limit is the same for a nack and a lease past the limit.
      const why = String(got.properties.headers?.['x-first-death-reason'] ?? '');
      m.reason = why === 'rejected' ? 'permanent' : why === 'expired' ? 'deadline' : 'attempts_exhausted';
      m.status = 'dead';
      delete m.token;
      delete m.owner;
      delete m.leaseUntil;
    }
  }

  async snapshot(): Promise<Snapshot> {
    this.healthy();
    await this.drainDead();
    const jobs: Record<string, JobRecord> = {};
    for (const [id, messageId] of this.latest) {
      const m = this.messages.get(messageId) as Message;
      const base = { payload: { ...m.payload }, seq: m.seq, attempts: m.attempts };
      const record: JobRecord =
        m.status === 'running'
          ? {
              ...base,
              status: 'running',
              token: m.token as number,
              owner: m.owner as string,
              leaseUntil: m.leaseUntil as number,
            }
          : m.status === 'dead'
            ? { ...base, status: 'dead', reason: m.reason ?? 'permanent' }
            : { ...base, status: m.status };
      putOwn(jobs, id, record);
    }
    return {
      format: SNAPSHOT_FORMAT,
      config: { ...this.config },
      clock: this.clockTick,
      nextToken: this.nextToken,
      nextSeq: this.nextSeq,
      jobs,
      ...this.ledger.snapshot(),
    };
  }

  /** Closes every channel this instance opened (workers', publisher's, its own); never throws. */
  private async closeChannels(): Promise<void> {
    const channels = [
      ...[...this.lanes.values()].filter((l) => l.open).map((l) => l.channel),
      this.publisher,
      this.admin,
    ];
    await Promise.all(channels.map((c) => c?.close().catch(() => undefined)));
    for (const lane of this.lanes.values()) this.closedUnder(lane);
    this.lanes.clear();
  }

  /**
   * A restart is the consumer's process starting again: every channel it had closes (the broker
   * returns every unsettled delivery to its queue, as it does when the connection drops) and new
   * ones open, on a new connection when the broker closed the old one (a broker restarted under
   * it), and the lanes' own connections open anew when next needed. The queues are durable and
   * stay; the broker's clock runs on.
   */
  async restart(): Promise<void> {
    if (this.closed || !this.lost) this.healthy();
    await this.closeChannels();
    if (this.lost) {
      // The new process's connection; what the old one and its channels reported goes with them.
      this.unlisten(this.connection);
      const connection = await this.shared.acquire();
      this.shared.release();
      this.connection = connection;
      this.listen(connection);
      this.releaseLaneConnections();
      this.errors.length = 0;
      this.lost = false;
    }
    await this.open();
  }

  /** Gives every lane's own connection back (each closes at once: no other instance holds it). */
  private releaseLaneConnections(): void {
    const held = [...this.laneConnections.values()];
    this.laneConnections.clear();
    for (const { shared } of held) shared.release();
  }

  /**
   * Closes this instance's channels (the broker returns what they held), then deletes both queues
   * in the background (the shared connection waits for that before it closes) and gives the
   * connection back. Idempotent.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.closeChannels();
    this.unlisten(this.connection);
    this.releaseLaneConnections();
    const connection = this.connection;
    const remove = async (queue: string): Promise<void> => {
      const channel = await connection.createChannel();
      channel.on('error', () => undefined);
      await channel.deleteQueue(queue);
      await channel.close();
    };
    this.shared.track(Promise.all([remove(this.queue), remove(this.deadQueue)]));
    this.shared.release();
  }
}

/**
 * A factory of RabbitMQ adapters, each on new queues of the server serversOf picks for its lease,
 * one connection per server (`options.connections`, or the factory's own, each closing itself when unused).
 */
export function rabbitmqFactory(options: RabbitmqFactoryOptions = {}): AdapterFactory {
  const connections = options.connections ?? new SharedConnections();
  return lossAwareFactory(
    (config) => RabbitmqAdapter.create(config, { ...options, connections }),
    rabbitmqLoss(options),
  );
}

/** Where a factory's RabbitMQ is, and how amqplib says it lost the connection (its socket ended, or the server closed it). */
export const rabbitmqLoss = (options: RabbitmqFactoryOptions): LossSource => ({
  where: () => ({ broker: 'RabbitMQ', address: options.url ?? process.env['JOBCHECK_AMQP_URL'] ?? '' }),
  clientLoss: (e) =>
    e instanceof Error && (e.message === 'Unexpected close' || /^Connection closed[ :(]/.test(e.message))
      ? 'connection closed'
      : undefined,
});
