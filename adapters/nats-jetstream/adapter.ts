/**
 * The real NATS JetStream broker behind the contract's commands: one work-queue stream and one
 * durable pull consumer per adapter instance (deleted on close), through the official JavaScript
 * client (`@nats-io/transport-node`, `@nats-io/jetstream`), one connection per lane. It translates,
 * never repairs:
 * - time: the broker's own, which nobody outside can move: wall-clock mode (profile/wallClock.ts),
 *   one tick `tickMs` real milliseconds, a command with a later `now` waiting for its tick. A
 *   duration of `k` ticks (lease, nak delay) is `(k − ½) · tickMs`, so that the broker's timer,
 *   started a few milliseconds into a tick, ends between the last tick and the end tick (README.md);
 * - submit: `publish` on `<prefix>.<hex of the account>` with `Nats-Msg-Id` = the job's id (the
 *   duplicate window is the only dedup); `max_msgs` = capacity with `discard: new` refuses when full;
 * - claim: one pull request (`batch: 1`, at most 10 ms) on the lane's connection; the token is the
 *   adapter's number for that delivery, whose reply subject it keeps;
 * - ack: `+ACK` as a request; fail transient: `-NAK` with the delay a worker computes from the
 *   delivery count, `min(backoffBase · 2^(count−1), backoffCap)` (`max_deliver` ends deliveries);
 *   fail permanent: a bare `+TERM`; commit: the worker's effect ledger, kept by the adapter;
 * - a token never handed out names no reply subject (`stale_token`); any other is sent, and what the
 *   broker does is the reply. Validation (parseCommand, the clock check) comes first; nothing else is
 *   checked: no owner, no deadline, no per-account order. See README.md, rule by rule.
 */
import { randomBytes } from 'node:crypto';
import {
  AckPolicy,
  DiscardPolicy,
  RetentionPolicy,
  StorageType,
  jetstream,
  jetstreamManager,
} from '@nats-io/jetstream';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Config, JobRecord, Reply, Snapshot } from '../../contract/index.ts';
import { SNAPSHOT_FORMAT, parseCommand, parseConfig, putOwn } from '../../contract/index.ts';
import type { AckCommand, ClaimCommand, CommitCommand, FailCommand, SubmitCommand } from '../../contract/index.ts';
import type { Adapter, AdapterFactory } from '../../conformance/adapter.ts';
import { WallClock } from '../../conformance/profile/wallClock.ts';
import { claimReply } from '../../impl/decisions/index.ts';
import { WorkerLedger, staleToken } from '../ledger.ts';
import { NatsAdapterError } from './NatsAdapterError.ts';
import { lossAwareFactory } from '../../conformance/profile/lossAware.ts';
import { BrokerLostError } from '../../conformance/profile/BrokerLostError.ts';
import type { LossSource } from '../../conformance/profile/lossAware.ts';
import { natsStorage, natsUrl } from './natsEnv.ts';
import { jobRecord } from './records.ts';
import type { DeliveryRecord, JobData, JobEntry } from './records.ts';

/** Real milliseconds per tick by default: redeliveries come about 3 ms (at most 7 ms) after their timer (README.md). */
export const DEFAULT_TICK_MS = 100;

/** Real milliseconds the adapter waits for any one broker reply before it calls the broker gone. */
const REPLY_TIMEOUT_MS = 5000;

/** Real milliseconds a pull waits for a message before the broker answers that there is none. */
const PULL_WAIT_MS = 10;

/** The durable consumer's name. */
const CONSUMER = 'workers';

/** Options of a NATS JetStream adapter factory. */
export interface NatsFactoryOptions {
  /** The server, `nats://host:port` (default: `JOBCHECK_NATS_URL`). */
  readonly url?: string;
  /** Real milliseconds per tick (default DEFAULT_TICK_MS). */
  readonly tickMs?: number;
  /** Name for reports (default `nats-jetstream`). */
  readonly name?: string;
  /** Storage of the stream (default JOBCHECK_NATS_STORAGE, else `file`, as a stream that survives a server restart). */
  readonly storage?: 'file' | 'memory';
  /** Per lane, another nats:// URL for that lane's connection (a fault proxy), else `url`. */
  readonly laneUrls?: readonly (string | undefined)[];
}

/** Broker nanoseconds for `ticks` contract ticks: `(ticks − ½) · tickMs` milliseconds. Pure. */
export const brokerNanos = (ticks: number, tickMs: number): number => Math.round((ticks - 0.5) * tickMs * 1e6);

/** The stream and consumer settings a JetStream user picks for this config. Throws `unsupported_config` for one JetStream refuses. Pure. */
export function streamSettings(config: Config, tickMs: number) {
  for (const field of ['capacity', 'maxAttempts'] as const) {
    if (config[field] > 2 ** 31 - 1)
      throw new NatsAdapterError(
        'unsupported_config',
        `${field}: JetStream keeps it as a 32-bit count in this adapter (got ${config[field]})`,
      );
  }
  const ackWait = brokerNanos(config.leaseTicks, tickMs);
  if (!Number.isSafeInteger(ackWait))
    throw new NatsAdapterError(
      'unsupported_config',
      `leaseTicks: ${config.leaseTicks} ticks of ${tickMs} ms are beyond JetStream's nanosecond durations`,
    );
  return {
    stream: {
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      max_msgs: config.capacity,
      discard: DiscardPolicy.New,
      // The contract's duplicates never expire; JetStream forgets a Msg-Id after this window,
      // longer than any run here (README.md).
      duplicate_window: 60 * 60 * 1e9,
    },
    consumer: {
      durable_name: CONSUMER,
      ack_policy: AckPolicy.Explicit,
      ack_wait: ackWait,
      max_deliver: config.maxAttempts,
      // One pull may wait for many messages; the adapter pulls one at a time.
      max_ack_pending: -1,
    },
  };
}

/** The subject token of an account: hex of its UTF-8 bytes (any string, never a `.` or a wildcard). Pure. */
export const accountToken = (account: string): string => `a${Buffer.from(account, 'utf8').toString('hex')}`;

/** The delivery count and stream sequence named by a JetStream ack subject, or undefined. Pure. */
export function parseAckSubject(reply: string): { count: number; seq: number } | undefined {
  const t = reply.split('.');
  if (t[0] !== '$JS' || t[1] !== 'ACK') return undefined;
  // v1: $JS.ACK.<stream>.<consumer>.<count>.<seq>.<cseq>.<ts>.<pending>; v2 adds domain and account hash.
  const at = t.length === 9 ? 4 : t.length >= 11 ? 6 : -1;
  if (at < 0) return undefined;
  const count = Number(t[at]);
  const seq = Number(t[at + 1]);
  return Number.isSafeInteger(count) && Number.isSafeInteger(seq) ? { count, seq } : undefined;
}

/** One lane: a connection of its own, as a separate worker process would have. */
interface Lane {
  nc: NatsConnection;
  js: JetStreamClient;
}

/** An adapter over one JetStream stream and consumer; see the top of the file. Lanes are separate connections. */
export class NatsJetStreamAdapter implements Adapter {
  private closed = false;
  private clockTick = 0;
  private nextToken = 1;
  private readonly jobs = new Map<number, JobEntry>();
  /**
   * Publishes sent and not yet acknowledged. With competing workers, a pull on one lane can deliver
   * a message whose publish on another lane the broker has stored but not yet acknowledged to it;
   * the claim then waits for those acknowledgements before it looks the sequence up.
   */
  private readonly publishing = new Set<Promise<unknown>>();
  private readonly deliveries = new Map<number, DeliveryRecord>();
  /** The worker's effect ledger: JetStream keeps none. */
  private readonly ledger = new WorkerLedger();
  private lanes: Lane[] = [];
  private jsm!: JetStreamManager;

  private constructor(
    readonly name: string,
    private readonly url: string,
    readonly stream: string,
    private readonly config: Config,
    readonly wall: WallClock,
    private readonly laneCount: number,
    private readonly laneUrls: readonly (string | undefined)[] = [],
  ) {}

  /** Creates a stream and a consumer for `config`, with `lanes` connections. Throws JobcheckError for a bad config, NatsAdapterError for one JetStream refuses or no server. */
  static async create(config: Config, options: NatsFactoryOptions = {}, lanes = 1): Promise<NatsJetStreamAdapter> {
    const checked = parseConfig(config);
    const tickMs = options.tickMs ?? DEFAULT_TICK_MS;
    const settings = streamSettings(checked, tickMs);
    const url = options.url ?? natsUrl();
    if (url === undefined)
      throw new NatsAdapterError('no_server', 'no NATS server: pass a nats:// URL or set JOBCHECK_NATS_URL');
    const stream = `JC_${randomBytes(6).toString('hex')}`;
    const adapter = new NatsJetStreamAdapter(
      options.name ?? 'nats-jetstream',
      url,
      stream,
      checked,
      new WallClock({ tickMs }),
      lanes,
      options.laneUrls,
    );
    try {
      await adapter.open();
      await adapter.jsm.streams.add({
        name: stream,
        subjects: [`${stream}.>`],
        ...settings.stream,
        storage: (options.storage ?? natsStorage()) === 'memory' ? StorageType.Memory : StorageType.File,
      });
      await adapter.jsm.consumers.add(stream, settings.consumer);
      adapter.wall.restart();
      return adapter;
    } catch (error) {
      await adapter.close().catch(() => undefined);
      throw error;
    }
  }

  /** Opens one connection per lane, and the manager on the first. */
  private async open(): Promise<void> {
    this.lanes = [];
    for (let i = 0; i < this.laneCount; i++) {
      const nc = await connect({
        servers: this.laneUrls[i] ?? this.url,
        name: `${this.name} lane ${i}`,
        maxReconnectAttempts: 0,
      });
      this.lanes.push({ nc, js: jetstream(nc) });
    }
    this.jsm = await jetstreamManager((this.lanes[0] as Lane).nc);
  }

  private lane(i: number): Lane {
    if (this.closed) throw new NatsAdapterError('queue_error', 'the adapter is closed');
    const lane = this.lanes[i];
    if (lane === undefined) throw new RangeError(`lane ${i}: the adapter has ${this.lanes.length} lanes`);
    return lane;
  }

  /** Executes one command on lane 0. */
  execute(input: unknown): Promise<Reply> {
    return this.executeOn(0, input);
  }

  /** Executes one command on a lane (its own connection). */
  async executeOn(lane: number, input: unknown): Promise<Reply> {
    const l = this.lane(lane);
    const parsed = parseCommand(input);
    if (!parsed.ok) return parsed.rejection;
    const command = parsed.command;
    if (command.now < this.clockTick)
      return {
        ok: false,
        code: 'clock_regressed',
        message: `now: ${command.now} is before the clock (${this.clockTick})`,
      };
    this.clockTick = command.now;
    await this.wall.advanceTo(command.now);
    switch (command.type) {
      case 'submit':
        return this.submit(l, command);
      case 'claim':
        return this.claim(l, command);
      case 'commit':
        return this.commit(command);
      case 'ack':
        return this.ack(l, command);
      case 'fail':
        return this.fail(l, command);
      case 'tick':
        return { ok: true, type: 'tick', clock: command.now };
    }
  }

  private async submit(l: Lane, c: SubmitCommand): Promise<Reply> {
    const data: JobData = { account: c.account, key: c.key, amount: c.amount, deadline: c.deadline };
    try {
      // Recorded in `jobs` in the same step as the acknowledgement arrives, before `publishing` lets go of it.
      const recorded = l.js
        .publish(`${this.stream}.${accountToken(c.account)}`, JSON.stringify(data), {
          msgID: encodeURIComponent(c.id),
          timeout: REPLY_TIMEOUT_MS,
        })
        .then((ack) => {
          // The broker names the stored message of a duplicate Msg-Id; it never compares payloads.
          if (!ack.duplicate)
            this.jobs.set(ack.seq, { id: c.id, seq: ack.seq, data, attempts: 0, last: { kind: 'stored' } });
          return ack;
        });
      this.publishing.add(recorded);
      const ack = await recorded.finally(() => this.publishing.delete(recorded));
      return { ok: true, type: 'submit', id: c.id, seq: ack.seq, duplicate: ack.duplicate };
    } catch (error) {
      if (error instanceof Error && /maximum messages exceeded/i.test(error.message))
        return { ok: false, code: 'capacity_exceeded', message: `the stream refused the message: ${error.message}` };
      throw new NatsAdapterError('queue_error', `publish of ${JSON.stringify(c.id)} failed: ${String(error)}`, {
        cause: error,
      });
    }
  }

  private async claim(l: Lane, c: ClaimCommand): Promise<Reply> {
    const pull = l.nc.request(
      `$JS.API.CONSUMER.MSG.NEXT.${this.stream}.${CONSUMER}`,
      // Not `no_wait`: after a message's last delivery expires, nats-server 2.9.10 leaves the next
      // no_wait pull unanswered (README.md); a pull that waits PULL_WAIT_MS is answered 408.
      JSON.stringify({ batch: 1, expires: PULL_WAIT_MS * 1e6 }),
      { noMux: true, timeout: REPLY_TIMEOUT_MS },
    );
    const msg = await this.untilClosed(l, pull);
    // 404 (no messages) and 408 (request expired): nothing to deliver now.
    if (msg.headers?.code === 404 || msg.headers?.code === 408) return claimReply(null);
    const at = parseAckSubject(msg.reply ?? '');
    if (at === undefined)
      throw new NatsAdapterError(
        'queue_error',
        `the pull answered ${msg.headers?.code ?? ''} ${msg.headers?.description ?? ''} with no ack subject`,
      );
    if (!this.jobs.has(at.seq)) await Promise.allSettled([...this.publishing]);
    const job = this.jobs.get(at.seq);
    if (job === undefined)
      throw new NatsAdapterError('queue_error', `the broker delivered stream sequence ${at.seq}, never published here`);
    const token = this.nextToken++;
    const leaseUntil = c.now + this.config.leaseTicks;
    this.deliveries.set(token, {
      token,
      seq: at.seq,
      reply: msg.reply as string,
      worker: c.worker,
      count: at.count,
      leaseUntil,
    });
    job.attempts = at.count;
    job.last = { kind: 'delivered', token };
    const data = JSON.parse(msg.string()) as JobData;
    return claimReply({ id: job.id, token, attempt: at.count, leaseUntil, payload: data });
  }

  /** Sends an acknowledgement body to a delivery's reply subject and waits for the broker to confirm it. */
  private async settle(l: Lane, d: DeliveryRecord, body: string): Promise<void> {
    await this.untilClosed(l, l.nc.request(d.reply, body, { noMux: true, timeout: REPLY_TIMEOUT_MS }));
  }

  /**
   * `request` (a `noMux` request of lane `l`), or a BrokerLostError when the lane's connection closes
   * first: nats.js settles such a request neither at the close nor at its own timeout (a pull or an
   * ack in flight when the server was killed waited for ever).
   */
  private untilClosed<T>(l: Lane, request: Promise<T>): Promise<T> {
    const closed = l.nc.closed().then((error) => {
      throw new BrokerLostError(natsLoss({ url: this.url }).where(), 'connection closed', { cause: error });
    });
    closed.catch(() => undefined); // a close after the request was answered is no failure of it
    return Promise.race([request, closed]);
  }

  private commit(c: CommitCommand): Reply {
    const d = this.deliveries.get(c.token);
    if (d === undefined) return staleToken(c.token);
    const job = this.jobs.get(d.seq) as JobEntry;
    return this.ledger.commit(job.id, c.token, job.data);
  }

  private async ack(l: Lane, c: AckCommand): Promise<Reply> {
    const d = this.deliveries.get(c.token);
    if (d === undefined) return staleToken(c.token);
    await this.settle(l, d, '+ACK');
    const job = this.jobs.get(d.seq) as JobEntry;
    job.last = { kind: 'ack' };
    return { ok: true, type: 'ack', id: job.id };
  }

  private async fail(l: Lane, c: FailCommand): Promise<Reply> {
    const d = this.deliveries.get(c.token);
    if (d === undefined) return staleToken(c.token);
    const job = this.jobs.get(d.seq) as JobEntry;
    // The failure text goes nowhere: a nak or a term carries none in 2.9, so the adapter keeps none.
    if (c.kind === 'permanent') {
      // A bare +TERM, as `term()` sends it: nats-server 2.9.10 ignores a term that carries a reason
      // (`term(reason)`, `+TERM <reason>`, understood from 2.10), and the message would come back.
      await this.settle(l, d, '+TERM');
      job.last = { kind: 'term' };
      return { ok: true, type: 'fail', id: job.id, status: 'dead', reason: 'permanent' };
    }
    const ticks = Math.min(this.config.backoffBase * 2 ** (d.count - 1), this.config.backoffCap);
    await this.settle(l, d, `-NAK ${JSON.stringify({ delay: brokerNanos(ticks, this.wall.tickMs) })}`);
    // After its max_deliver-th delivery the broker delivers a message no more, nak or not.
    if (d.count >= this.config.maxAttempts) {
      job.last = { kind: 'exhausted' };
      return { ok: true, type: 'fail', id: job.id, status: 'dead', reason: 'attempts_exhausted' };
    }
    job.last = { kind: 'nak', notBefore: c.now + ticks };
    return { ok: true, type: 'fail', id: job.id, status: 'waiting', notBefore: c.now + ticks };
  }

  async snapshot(): Promise<Snapshot> {
    this.lane(0);
    const consumer = await this.jsm.consumers.info(this.stream, CONSUMER);
    const info = await this.jsm.streams.info(this.stream);
    const jobs: Record<string, JobRecord> = {};
    for (const job of [...this.jobs.values()].sort((a, b) => a.seq - b.seq)) {
      const stored = await this.jsm.streams.getMessage(this.stream, { seq: job.seq });
      putOwn(
        jobs,
        job.id,
        jobRecord(job, stored !== null, this.clockTick, consumer.config.max_deliver ?? -1, (t) =>
          this.deliveries.get(t),
        ),
      );
    }
    return {
      format: SNAPSHOT_FORMAT,
      config: {
        capacity: info.config.max_msgs,
        maxAttempts: consumer.config.max_deliver ?? this.config.maxAttempts,
        leaseTicks: Math.round((consumer.config.ack_wait ?? 0) / 1e6 / this.wall.tickMs + 0.5),
        backoffBase: this.config.backoffBase,
        backoffCap: this.config.backoffCap,
      },
      clock: this.clockTick,
      nextToken: this.nextToken,
      // The stream's sequence is the admission number: only a stored message takes one.
      nextSeq: info.state.last_seq + 1,
      jobs,
      ...this.ledger.snapshot(),
    };
  }

  /** The client's restart: every connection is closed and opened anew; the stream, its consumer and the broker's clock go on. */
  async restart(): Promise<void> {
    this.lane(0);
    await Promise.all(this.lanes.map((l) => l.nc.close()));
    await this.open();
  }

  /** Deletes the stream (and its consumer) and closes every connection. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      if (this.lanes.length > 0) await this.jsm.streams.delete(this.stream).catch(() => undefined);
    } finally {
      await Promise.all(this.lanes.map((l) => l.nc.close()));
    }
  }
}

/** Where a factory's NATS server is, and how its client says it lost it (a closed connection, a failed one). */
export const natsLoss = (options: NatsFactoryOptions): LossSource => ({
  where: () => ({ broker: 'NATS', address: options.url ?? natsUrl() ?? '' }),
  clientLoss: (e) =>
    e instanceof Error && (e.name === 'ClosedConnectionError' || e.name === 'ConnectionError')
      ? 'connection closed'
      : undefined,
});

/** A factory of NATS JetStream adapters, each on a new stream. */
export function natsJetStreamFactory(options: NatsFactoryOptions = {}): AdapterFactory {
  return lossAwareFactory((config) => NatsJetStreamAdapter.create(config, options), natsLoss(options));
}
