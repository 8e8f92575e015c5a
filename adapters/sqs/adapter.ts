/**
 * SQS behind the contract's commands, through @aws-sdk/client-sqs against an emulator the suite
 * started on 127.0.0.1 (servers.ts): a queue and its dead-letter queue per instance (deleted on
 * close), standard or FIFO, one SQSClient per lane. It translates, never repairs:
 * - lease = the queue's VisibilityTimeout; token = the adapter's number for a receive, naming its
 *   receipt handle; attempts = ApproximateReceiveCount; maxAttempts = the redrive policy's
 *   maxReceiveCount, into the dead-letter queue, which the adapter drains into its dead records;
 * - submit = SendMessage; on FIFO, MessageGroupId = the account, MessageDeduplicationId = the id;
 * - claim = ReceiveMessage of one message; ack = DeleteMessage; fail transient =
 *   ChangeMessageVisibility to the retry delay a worker computes from the receive count,
 *   min(backoffBase · 2^(count−1), backoffCap); fail permanent = DeleteMessage (SQS has no other
 *   way to give up on a message); commit = the worker's effect ledger. What SQS refuses on a delete or
 *   a visibility change is `stale_token`, with its text; what it accepts is the reply.
 * Time (README.md): on the logical clock one tick is one emulated second and the adapter sets the
 * emulator's clock to each command's tick; on the wall clock one tick is two emulated seconds and a
 * duration of k ticks is 2k − 1 seconds, so a timer ends half a tick before its end tick begins.
 */
import { randomBytes } from 'node:crypto';
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
  SQSServiceException,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { z } from 'zod';
import type {
  AckCommand,
  ClaimCommand,
  Command,
  CommitCommand,
  Config,
  FailCommand,
  JobRecord,
  Reply,
  Snapshot,
  SubmitCommand,
} from '../../contract/index.ts';
import { SNAPSHOT_FORMAT, messageOf, parseCommand, parseConfig, putOwn } from '../../contract/index.ts';
import { WallClock } from '../../conformance/profile/wallClock.ts';
import { claimReply } from '../../impl/decisions/index.ts';
import { WorkerLedger, staleToken } from '../ledger.ts';
import { jobRecord } from './records.ts';
import type { Delivery, JobData, MessageEntry } from './records.ts';
import { SqsAdapterError } from './SqsAdapterError.ts';
import type { SqsEmulator } from './servers.ts';
import { LaneAdapter } from '../laneBroker.ts';

/** Standard or FIFO: each a configuration of its own. */
export type QueueType = 'standard' | 'fifo';

/** The clock an instance runs on: the emulator's own, moved by the adapter, or a wall clock. */
export type SqsClock = { readonly kind: 'logical' } | { readonly kind: 'wall'; readonly tickMs: number };

/** What an instance needs: the emulator, the queue type, the clock. */
export interface SqsInstanceOptions {
  readonly emulator: SqsEmulator;
  readonly queueType: QueueType;
  readonly clock: SqsClock;
  /** Name for reports. */
  readonly name: string;
  /** Per lane, the address (`http://host:port`) its client sends to instead of the emulator's (a proxy's, for a fault). */
  readonly laneEndpoints?: readonly (string | undefined)[];
}

/** Milliseconds per tick on the logical clock: one emulated second (SQS's times are whole seconds). */
export const LOGICAL_TICK_MS = 1000;
/** Seconds between one instance's tick 0 and the latest time an earlier instance set on the same emulator. */
const GAP_SECONDS = 1000;
/** The latest instant (ms) set on each emulator's stopped clock. */
const latest = new WeakMap<SqsEmulator, number>();

/** SQS's longest visibility timeout, in seconds (12 hours). */
const MAX_VISIBILITY_SECONDS = 43_200;
/** SQS's largest maxReceiveCount. */
const MAX_RECEIVE_COUNT = 1000;

const bodySchema: z.ZodType<JobData> = z.object({
  id: z.string(),
  account: z.string(),
  key: z.string(),
  amount: z.number(),
  deadline: z.number(),
});

/** Emulated seconds for a duration of `ticks`: exact on the logical clock, 2k − 1 on the wall clock. Pure. */
export const secondsFor = (ticks: number, clock: SqsClock): number =>
  clock.kind === 'logical' ? ticks : 2 * ticks - 1;

/** Refuses a config SQS cannot hold. Pure. */
export function checkConfig(config: Config, clock: SqsClock): void {
  const longest = secondsFor(Math.max(config.leaseTicks, config.backoffCap), clock);
  if (longest > MAX_VISIBILITY_SECONDS)
    throw new SqsAdapterError(
      'unsupported_config',
      `leaseTicks ${config.leaseTicks}, backoffCap ${config.backoffCap}: ${longest} s is beyond SQS's longest visibility timeout (${MAX_VISIBILITY_SECONDS} s)`,
    );
  if (config.maxAttempts > MAX_RECEIVE_COUNT)
    throw new SqsAdapterError(
      'unsupported_config',
      `maxAttempts ${config.maxAttempts}: SQS's maxReceiveCount is at most ${MAX_RECEIVE_COUNT}`,
    );
}

/** An SQS refusal (a client fault SQS answered), or undefined for anything else. Pure. */
const refusal = (error: unknown): string | undefined =>
  error instanceof SQSServiceException && error.$fault === 'client' ? `${error.name}: ${error.message}` : undefined;

/** An SQS queue and its dead-letter queue behind the contract; lanes are separate clients. */
export class SqsAdapterCore {
  private closed = false;
  private clockTick = 0;
  /** The latest tick a request asked for. */
  private admitted = 0;
  private readonly inFlight = new Set<Promise<unknown>>();
  private advancing: Promise<void> = Promise.resolve();
  private nextToken = 1;
  private nextSeq = 1;
  private readonly messages = new Map<string, MessageEntry>();
  private readonly deliveries = new Map<number, Delivery>();
  private readonly ledger = new WorkerLedger();
  private clients: SQSClient[] = [];
  private queueUrl = '';
  private dlqUrl = '';

  private constructor(
    readonly name: string,
    private readonly options: SqsInstanceOptions,
    private readonly config: Config,
    private readonly lanes: number,
    /** The instant (ms) of tick 0 on the emulator's stopped clock (logical clock only). */
    private readonly origin: number,
    private readonly wall: WallClock | undefined,
  ) {}

  /** Creates the queues for `config`, with `lanes` clients. */
  static async create(config: Config, options: SqsInstanceOptions, lanes = 1): Promise<SqsAdapterCore> {
    const checked = parseConfig(config);
    checkConfig(checked, options.clock);
    const origin = (Math.ceil((latest.get(options.emulator) ?? Date.UTC(2026, 0, 1)) / 1000) + GAP_SECONDS) * 1000;
    const wall = options.clock.kind === 'wall' ? new WallClock({ tickMs: options.clock.tickMs }) : undefined;
    const core = new SqsAdapterCore(options.name, options, checked, Math.max(1, lanes), origin, wall);
    try {
      core.open();
      if (options.clock.kind === 'logical') await core.setEmulatorClock(0);
      await core.createQueues();
      wall?.restart();
      return core;
    } catch (error) {
      await core.close().catch(() => undefined);
      if (error instanceof SqsAdapterError) throw error;
      throw new SqsAdapterError(
        'queue_error',
        `cannot create the queues on ${options.emulator.name}: ${messageOf(error)}`,
        {
          cause: error,
        },
      );
    }
  }

  private open(): void {
    this.clients = Array.from(
      { length: this.lanes },
      (_, lane) =>
        new SQSClient({
          endpoint: this.options.laneEndpoints?.[lane] ?? this.options.emulator.endpoint,
          // Every request goes to the emulator's address, never to a host a queue URL names.
          useQueueUrlAsEndpoint: false,
          region: 'us-east-1',
          credentials: { accessKeyId: 'jobcheck', secretAccessKey: 'jobcheck' },
          maxAttempts: 1,
        }),
    );
  }

  private async createQueues(): Promise<void> {
    const client = this.client(0);
    const fifo = this.options.queueType === 'fifo';
    const base = `jc-${randomBytes(6).toString('hex')}`;
    const suffix = fifo ? '.fifo' : '';
    const fifoAttributes = fifo ? { FifoQueue: 'true', ContentBasedDeduplication: 'false' } : {};
    const dlq = await client.send(
      new CreateQueueCommand({ QueueName: `${base}-dead${suffix}`, Attributes: fifoAttributes }),
    );
    this.dlqUrl = dlq.QueueUrl ?? '';
    const arn = await client.send(
      new GetQueueAttributesCommand({ QueueUrl: this.dlqUrl, AttributeNames: ['QueueArn'] }),
    );
    const queue = await client.send(
      new CreateQueueCommand({
        QueueName: `${base}${suffix}`,
        Attributes: {
          ...fifoAttributes,
          VisibilityTimeout: String(secondsFor(this.config.leaseTicks, this.options.clock)),
          RedrivePolicy: JSON.stringify({
            deadLetterTargetArn: arn.Attributes?.['QueueArn'] ?? '',
            maxReceiveCount: this.config.maxAttempts,
          }),
        },
      }),
    );
    this.queueUrl = queue.QueueUrl ?? '';
    if (this.queueUrl === '' || this.dlqUrl === '')
      throw new SqsAdapterError('queue_error', `${this.options.emulator.name} created a queue without a URL`);
  }

  private client(lane: number): SQSClient {
    if (this.closed) throw new SqsAdapterError('queue_error', 'the adapter is closed');
    const client = this.clients[lane % this.clients.length];
    if (client === undefined) throw new RangeError(`lane ${lane}: the adapter has ${this.clients.length} lanes`);
    return client;
  }

  private async setEmulatorClock(tick: number): Promise<void> {
    const ms = this.origin + tick * LOGICAL_TICK_MS;
    await this.options.emulator.setClock(ms);
    latest.set(this.options.emulator, Math.max(latest.get(this.options.emulator) ?? 0, ms));
  }

  /**
   * Executes one command on `lane`. On the logical clock, requests of a later tick wait until every
   * request of earlier ticks is answered, then the emulator's clock moves to that tick; on the wall
   * clock a command waits for its tick.
   */
  async execute(lane: number, input: unknown): Promise<Reply> {
    const client = this.client(lane);
    const parsed = parseCommand(input);
    if (!parsed.ok) return parsed.rejection;
    const c = parsed.command;
    if (c.now < this.admitted)
      return { ok: false, code: 'clock_regressed', message: `now: ${c.now} is before the clock (${this.admitted})` };
    if (c.now > this.admitted) this.advance(c.now);
    const run = this.advancing.then(() => this.dispatch(client, c));
    this.inFlight.add(run);
    try {
      return await run;
    } finally {
      this.inFlight.delete(run);
    }
  }

  private advance(now: number): void {
    this.admitted = now;
    const earlier = [...this.inFlight];
    const previous = this.advancing;
    this.advancing = (async () => {
      await previous;
      if (this.wall === undefined) {
        await Promise.allSettled(earlier);
        await this.setEmulatorClock(now);
      } else await this.wall.advanceTo(now);
      this.clockTick = now;
    })();
  }

  private dispatch(client: SQSClient, c: Command): Promise<Reply> {
    switch (c.type) {
      case 'submit':
        return this.submit(client, c);
      case 'claim':
        return this.claim(client, c);
      case 'commit':
        return Promise.resolve(this.commit(c));
      case 'ack':
        return this.ack(client, c);
      case 'fail':
        return this.fail(client, c);
      case 'tick':
        return Promise.resolve({ ok: true, type: 'tick', clock: c.now });
    }
  }

  private async submit(client: SQSClient, c: SubmitCommand): Promise<Reply> {
    const data: JobData = { id: c.id, account: c.account, key: c.key, amount: c.amount, deadline: c.deadline };
    const fifo =
      this.options.queueType === 'fifo'
        ? { MessageGroupId: encodeURIComponent(c.account), MessageDeduplicationId: encodeURIComponent(c.id) }
        : {};
    const sent = await client.send(
      new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: JSON.stringify(data), ...fifo }),
    );
    const messageId = sent.MessageId ?? '';
    // SQS answers a deduplicated send with the stored message's id; it never compares bodies.
    const known = this.messages.get(messageId);
    if (known !== undefined) return { ok: true, type: 'submit', id: c.id, seq: known.seq, duplicate: true };
    const seq = this.nextSeq++;
    this.messages.set(messageId, { messageId, seq, data, attempts: 0, last: { kind: 'sent' } });
    return { ok: true, type: 'submit', id: c.id, seq, duplicate: false };
  }

  private async claim(client: SQSClient, c: ClaimCommand): Promise<Reply> {
    const received = await client.send(
      new ReceiveMessageCommand({
        QueueUrl: this.queueUrl,
        MaxNumberOfMessages: 1,
        WaitTimeSeconds: 0,
        // The legacy parameter (its names are queue attributes', so 'All'): local-aws-sqs 2.0.2 reads only this one, fauxqs both.
        AttributeNames: ['All'],
      }),
    );
    const message = received.Messages?.[0];
    if (message === undefined) return claimReply(null);
    const entry = this.messages.get(message.MessageId ?? '');
    if (entry === undefined)
      throw new SqsAdapterError(
        'queue_error',
        `SQS delivered message ${JSON.stringify(message.MessageId)}, never sent here`,
      );
    const count = Number(message.Attributes?.ApproximateReceiveCount ?? Number.NaN);
    if (!Number.isSafeInteger(count))
      throw new SqsAdapterError('queue_error', `SQS delivered message ${entry.messageId} without its receive count`);
    const token = this.nextToken++;
    const leaseUntil = c.now + this.config.leaseTicks;
    this.deliveries.set(token, {
      token,
      messageId: entry.messageId,
      handle: message.ReceiptHandle ?? '',
      worker: c.worker,
      count,
      leaseUntil,
    });
    entry.attempts = count;
    entry.last = { kind: 'delivered', token };
    const { id, ...payload } = entry.data;
    return claimReply({ id, token, attempt: count, leaseUntil, payload });
  }

  private commit(c: CommitCommand): Reply {
    const d = this.deliveries.get(c.token);
    if (d === undefined) return staleToken(c.token);
    const entry = this.messages.get(d.messageId) as MessageEntry;
    return this.ledger.commit(entry.data.id, c.token, entry.data);
  }

  /** Sends a delete or a visibility change; an SQS refusal is returned as its text, anything else thrown. */
  private async settle(send: () => Promise<unknown>): Promise<string | undefined> {
    try {
      await send();
      return undefined;
    } catch (error) {
      const refused = refusal(error);
      if (refused !== undefined) return refused;
      throw error;
    }
  }

  private async ack(client: SQSClient, c: AckCommand): Promise<Reply> {
    const d = this.deliveries.get(c.token);
    if (d === undefined) return staleToken(c.token);
    const refused = await this.settle(() =>
      client.send(new DeleteMessageCommand({ QueueUrl: this.queueUrl, ReceiptHandle: d.handle })),
    );
    if (refused !== undefined) return staleToken(c.token, refused);
    const entry = this.messages.get(d.messageId) as MessageEntry;
    entry.last = { kind: 'deleted' };
    return { ok: true, type: 'ack', id: entry.data.id };
  }

  private async fail(client: SQSClient, c: FailCommand): Promise<Reply> {
    const d = this.deliveries.get(c.token);
    if (d === undefined) return staleToken(c.token);
    const entry = this.messages.get(d.messageId) as MessageEntry;
    // The failure text goes nowhere: no SQS operation carries one.
    if (c.kind === 'permanent') {
      const refused = await this.settle(() =>
        client.send(new DeleteMessageCommand({ QueueUrl: this.queueUrl, ReceiptHandle: d.handle })),
      );
      if (refused !== undefined) return staleToken(c.token, refused);
      entry.last = { kind: 'deleted' };
      return { ok: true, type: 'fail', id: entry.data.id, status: 'dead', reason: 'permanent' };
    }
    const ticks = Math.min(this.config.backoffBase * 2 ** (d.count - 1), this.config.backoffCap);
    const refused = await this.settle(() =>
      client.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: this.queueUrl,
          ReceiptHandle: d.handle,
          VisibilityTimeout: secondsFor(ticks, this.options.clock),
        }),
      ),
    );
    if (refused !== undefined) return staleToken(c.token, refused);
    // After its maxReceiveCount-th receive SQS moves a message to the dead-letter queue instead of delivering it.
    if (d.count >= this.config.maxAttempts) {
      entry.last = { kind: 'exhausted' };
      return { ok: true, type: 'fail', id: entry.data.id, status: 'dead', reason: 'attempts_exhausted' };
    }
    entry.last = { kind: 'delayed', notBefore: c.now + ticks };
    return { ok: true, type: 'fail', id: entry.data.id, status: 'waiting', notBefore: c.now + ticks };
  }

  /** Receives every message SQS moved to the dead-letter queue, records it dead, and deletes it there. */
  private async drainDeadLetters(): Promise<void> {
    const client = this.client(0);
    for (let round = 0; round < 1000; round++) {
      const got = await client.send(
        new ReceiveMessageCommand({ QueueUrl: this.dlqUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
      );
      const messages = got.Messages ?? [];
      if (messages.length === 0) return;
      for (const m of messages) {
        const body = bodySchema.safeParse(JSON.parse(m.Body ?? 'null'));
        const entry = this.messages.get(m.MessageId ?? '');
        if (entry === undefined || !body.success)
          throw new SqsAdapterError(
            'queue_error',
            `the dead-letter queue holds ${JSON.stringify(m.MessageId)}, never sent here`,
          );
        entry.last = { kind: 'dead-lettered' };
        await client.send(new DeleteMessageCommand({ QueueUrl: this.dlqUrl, ReceiptHandle: m.ReceiptHandle }));
      }
    }
  }

  /** The contract's snapshot: the adapter's records (records.ts), the dead letters drained first, the queue's settings read back. */
  async snapshot(): Promise<Snapshot> {
    await this.advancing;
    await this.drainDeadLetters();
    const attributes = await this.client(0).send(
      new GetQueueAttributesCommand({
        QueueUrl: this.queueUrl,
        AttributeNames: ['VisibilityTimeout', 'RedrivePolicy'],
      }),
    );
    const redrive = z
      .object({ maxReceiveCount: z.coerce.number() })
      .safeParse(JSON.parse(attributes.Attributes?.RedrivePolicy ?? '{}'));
    const maxReceiveCount = redrive.success ? redrive.data.maxReceiveCount : this.config.maxAttempts;
    const jobs: Record<string, JobRecord> = {};
    for (const entry of [...this.messages.values()].sort((a, b) => a.seq - b.seq))
      putOwn(
        jobs,
        entry.data.id,
        jobRecord(entry, this.clockTick, maxReceiveCount, (t) => this.deliveries.get(t)),
      );
    const visibility = Number(attributes.Attributes?.VisibilityTimeout ?? Number.NaN);
    return {
      format: SNAPSHOT_FORMAT,
      config: {
        ...this.config,
        maxAttempts: maxReceiveCount,
        leaseTicks: this.options.clock.kind === 'logical' ? visibility : Math.round((visibility + 1) / 2),
      },
      clock: this.clockTick,
      nextToken: this.nextToken,
      nextSeq: this.nextSeq,
      jobs,
      ...this.ledger.snapshot(),
    };
  }

  /** The worker's restart: every client is closed and made anew; the queues and the emulator's clock go on. */
  async restart(): Promise<void> {
    await this.advancing;
    for (const c of this.clients) c.destroy();
    this.open();
  }

  /** Deletes both queues and closes every client. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    const client = this.clients[0];
    try {
      if (client !== undefined)
        await Promise.allSettled(
          [this.queueUrl, this.dlqUrl]
            .filter((u) => u !== '')
            .map((QueueUrl) => client.send(new DeleteQueueCommand({ QueueUrl }))),
        );
    } finally {
      this.closed = true;
      for (const c of this.clients) c.destroy();
    }
  }
}

/** The sequential adapter: one lane. */
export class SqsAdapter extends LaneAdapter<SqsAdapterCore> {}
