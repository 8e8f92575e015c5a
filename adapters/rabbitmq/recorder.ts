/**
 * A recorder for RabbitMQ through amqplib: `recordChannel(channel)` wraps the channel (or confirm
 * channel) a team already uses, so that its producers and workers write `jobcheck-history/1`
 * (docs/history-format.md, "Recording"): `publish` and `sendToQueue` as submits, each delivery of
 * `consume` and each `get` as a claim, `ack`, `nack`, `reject` (and their `All` forms, one line per
 * delivery they settle) as ack and fail.
 *
 * The mapping: the job is the message's `messageId` property (a publisher sets it); the token is
 * the delivery tag with an id of the recorded channel (a tag is a number per channel, so the id
 * tells two channels' tag 1 apart); the attempt is `x-delivery-count` + 1 where the queue counts
 * (quorum queues), else 1 for a first delivery; the lease ends at the delivery's arrival + the
 * server's `consumer_timeout` when the team names it. AMQP 0-9-1 answers no ack, nack or reject,
 * nor a publish outside confirm mode: their outcome is `unknown` (judged both ways by the audit);
 * on a confirm channel a publish given a callback has its confirm as outcome (`ok`, `nacked`). Every call goes to
 * the channel unchanged, with its result and its error.
 */
import type { Channel, ConsumeMessage, GetMessage, Message, Options, Replies } from 'amqplib';
import type { HistoryWriter, OpFields } from '../historyWriter.ts';
import { outcomeCode, payloadHash } from '../historyWriter.ts';

/** Who records, and what the recorder cannot ask the server. */
export interface RabbitmqRecorderOptions {
  /** The worker (or producer) every line names. */
  readonly worker: string;
  /** The job a message is (default: its `messageId` property). */
  readonly jobOf?: (msg: Message) => string | undefined;
  /** The server's `consumer_timeout` in milliseconds (its configuration; no client can read it). */
  readonly consumerTimeoutMs?: number;
}

type ConfirmCallback = (err: unknown, ok: Replies.Empty) => void;

/** The outcome of a call that threw before anything was sent: the error's own word. Pure. */
const thrownOutcome = (error: unknown): string => (error instanceof Error ? outcomeCode(error.name) : 'unknown');

const defaultJobOf = (msg: Message): string | undefined => {
  const id: unknown = msg.properties.messageId;
  return typeof id === 'string' && id !== '' ? id : undefined;
};

/** `channel` with its submits, claims and settles recorded; the same type as the channel given. */
export function recordChannel<C extends Channel>(
  channel: C,
  writer: HistoryWriter,
  options: RabbitmqRecorderOptions,
): C {
  const { worker } = options;
  const confirms = typeof (channel as Partial<{ waitForConfirms: unknown }>).waitForConfirms === 'function';
  const channelId = writer.id(`${worker}.channel`);
  /** Deliveries not yet settled through this channel, by tag: what their settle lines name. */
  const held = new Map<number, Partial<OpFields>>();

  const deliveryFields = (msg: Message): Partial<OpFields> => {
    const fields: Partial<OpFields> = { token: `${channelId}:${msg.fields.deliveryTag}` };
    const job = (options.jobOf ?? defaultJobOf)(msg);
    if (job !== undefined) fields.job = job;
    const count: unknown = msg.properties.headers?.['x-delivery-count'];
    if (typeof count === 'number') fields.attempt = count + 1;
    else if (!msg.fields.redelivered) fields.attempt = 1;
    return fields;
  };

  /** Records a delivery as a claim and remembers it until it is settled. */
  const claimed = (msg: Message, invokedAt: number): void => {
    const returnedAt = writer.now();
    let fields: Partial<OpFields> = {};
    try {
      fields = deliveryFields(msg);
      held.set(msg.fields.deliveryTag, fields);
      fields = { ...fields, payloadHash: payloadHash(msg.content) };
      if (options.consumerTimeoutMs !== undefined) fields.leaseUntil = returnedAt + options.consumerTimeoutMs;
    } catch {
      // A delivery the recorder cannot read is still the worker's: the claim names what it could.
    }
    writer.op({ op: 'claim', worker, invokedAt, returnedAt, outcome: 'ok', ...fields });
  };

  const submit = (content: Buffer, opts: Options.Publish | undefined): Partial<OpFields> & { op: 'submit' } => {
    const fields: Partial<OpFields> & { op: 'submit' } = { op: 'submit', worker, payloadHash: payloadHash(content) };
    if (typeof opts?.messageId === 'string' && opts.messageId !== '') fields.job = opts.messageId;
    return fields;
  };

  /** A publish: on a confirm channel its confirm is the outcome; else no reply is asked. */
  const published =
    (send: (...args: unknown[]) => boolean, contentAt: number) =>
    (...args: unknown[]): boolean => {
      const content = args[contentAt] as Buffer;
      const opts = args[contentAt + 1] as Options.Publish | undefined;
      const base = submit(content, opts);
      const invokedAt = writer.now();
      const record = (outcome: string): void =>
        writer.op({ ...base, worker, invokedAt, returnedAt: writer.now(), outcome });
      // A callback only where the publisher gave one: amqplib remembers a close that lost a
      // callback's confirm, and fails every later waitForConfirms for it.
      const theirs = confirms ? (args[contentAt + 2] as ConfirmCallback | undefined) : undefined;
      const sent = [...args];
      if (theirs !== undefined)
        sent[contentAt + 2] = ((err, ok) => {
          record(err == null ? 'ok' : (err as Error).message === 'message nacked' ? 'nacked' : 'unknown');
          theirs(err, ok);
        }) satisfies ConfirmCallback;
      try {
        const result = send.apply(channel, sent);
        if (theirs === undefined) record('unknown');
        return result;
      } catch (error) {
        record(thrownOutcome(error));
        throw error;
      }
    };

  const consume = (
    queue: string,
    onMessage: (msg: ConsumeMessage | null) => void,
    opts?: Options.Consume,
  ): Promise<Replies.Consume> => {
    const invokedAt = writer.now();
    return channel.consume(
      queue,
      (msg) => {
        if (msg !== null && opts?.noAck !== true) claimed(msg, invokedAt);
        onMessage(msg);
      },
      opts,
    );
  };

  const get = async (queue: string, opts?: Options.Get): Promise<GetMessage | false> => {
    const invokedAt = writer.now();
    let msg: GetMessage | false;
    try {
      msg = await channel.get(queue, opts);
    } catch (error) {
      writer.op({ op: 'claim', worker, invokedAt, returnedAt: writer.now(), outcome: 'unknown' });
      throw error;
    }
    if (msg === false) writer.op({ op: 'claim', worker, invokedAt, returnedAt: writer.now(), outcome: 'ok' });
    else if (opts?.noAck !== true) claimed(msg, invokedAt);
    return msg;
  };

  /** Settles one line a delivery (one-way: outcome unknown, or the error's word when it threw). */
  const settle =
    <A extends unknown[]>(
      call: (...args: A) => void,
      tags: (...args: A) => number[],
      line: (...args: A) => { op: 'ack' | 'fail'; next?: 'retry' | 'dead' },
    ) =>
    (...args: A): void => {
      const invokedAt = writer.now();
      let which: number[] = [];
      try {
        which = tags(...args);
      } catch {
        // The recorder's own mistake never reaches the worker.
      }
      let outcome = 'unknown';
      try {
        call.apply(channel, args);
      } catch (error) {
        outcome = thrownOutcome(error);
        throw error;
      } finally {
        const returnedAt = writer.now();
        for (const tag of which) {
          writer.op({ ...held.get(tag), ...line(...args), worker, invokedAt, returnedAt, outcome });
          held.delete(tag);
        }
      }
    };
  const upTo = (msg: Message, allUpTo: boolean | undefined): number[] => {
    const tag = msg.fields.deliveryTag;
    return allUpTo === true ? [...held.keys()].filter((t) => t <= tag) : [tag];
  };
  const failLine = (requeue: boolean | undefined) => ({
    op: 'fail' as const,
    next: requeue === false ? ('dead' as const) : ('retry' as const),
  });

  const own: Record<PropertyKey, unknown> = {
    publish: published(channel.publish as (...args: unknown[]) => boolean, 2),
    sendToQueue: published(channel.sendToQueue as (...args: unknown[]) => boolean, 1),
    consume,
    get,
    ack: settle(channel.ack, upTo, () => ({ op: 'ack' })),
    ackAll: settle(
      channel.ackAll,
      () => [...held.keys()],
      () => ({ op: 'ack' }),
    ),
    nack: settle(
      channel.nack,
      (msg: Message, allUpTo?: boolean, _requeue?: boolean) => upTo(msg, allUpTo),
      (_m: Message, _a?: boolean, requeue?: boolean) => failLine(requeue),
    ),
    nackAll: settle(
      channel.nackAll,
      () => [...held.keys()],
      (requeue?: boolean) => failLine(requeue),
    ),
    reject: settle(
      channel.reject,
      (msg: Message) => [msg.fields.deliveryTag],
      (_m: Message, requeue?: boolean) => failLine(requeue),
    ),
  };
  return new Proxy(channel, {
    get: (t, p) => {
      if (Object.hasOwn(own, p)) return own[p];
      const v = Reflect.get(t, p, t);
      return typeof v === 'function' ? v.bind(t) : v;
    },
  });
}
