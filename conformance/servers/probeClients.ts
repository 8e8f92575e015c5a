/**
 * Test material, imported only by tests: a plain client of each broker that makes one kind of
 * acknowledged write (Redis SET answered OK, beanstalkd put answered INSERTED, a JetStream publish
 * acked, a RabbitMQ publish confirmed, a PostgreSQL INSERT committed) and counts the writes the
 * server holds. No adapter: what is measured is the server's own promise, not a translation of it.
 * Every client gives up instead of reconnecting, so a dead server shows as an error at once, and
 * every call of one (connect, setUp, write, count, close) ends within its time (deadline.ts): a
 * server that never answers shows as ServerError `no_answer` naming the call, never as a hang.
 */
import { connect as natsConnect } from '@nats-io/transport-node';
import { StorageType, jetstream, jetstreamManager } from '@nats-io/jetstream';
import amqp from 'amqplib';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createConnection } from 'node:net';
import type { Socket } from 'node:net';
import type { BrokerServer } from './BrokerServer.ts';
import type { ServerConfig } from './configurations.ts';
import { within } from './deadline.ts';

/** One connection to a server: acknowledged writes, and a count of what the server holds. */
export interface ProbeClient {
  /** Creates what the writes go to (a stream, a queue, a table); once, on a fresh server. */
  setUp(): Promise<void>;
  /** One write (its value `i`, padded to `pad` bytes), resolved when the server acknowledges it; rejected with the server's own error. */
  write(i: number, pad?: number): Promise<void>;
  /** How many writes the server holds now. */
  count(): Promise<number>;
  /** Ends the connection (its socket destroyed when the server does not answer the goodbye). */
  close(): Promise<void>;
}

/** What a probe client needs of a server: its configuration, its address and its environment. */
export type ProbeTarget = Pick<BrokerServer, 'config' | 'env' | 'port'>;

/** The time each call of a probe client has, ms: RabbitMQ's count alone asks for up to 15 s. */
export const PROBE_MS = 30_000;
/** The time a close has before its socket is destroyed, ms. */
const CLOSE_MS = 5_000;

/** A client and the function that tears its socket down at once (when a close gets no answer). */
interface Opened {
  readonly client: ProbeClient;
  readonly destroy: () => void;
}

/**
 * A client of a fresh `server`, its writes' target created. A RabbitMQ queue is then settled by a
 * clean restart: in RabbitMQ 3.10 a quorum queue declared just before a SIGKILL comes back without
 * its Raft member (`leader not known`, every request on it failing), and a durable classic queue
 * declared a few seconds before one was twice not there after the restart (once still not after
 * 15 s of asking), its confirmed messages gone with it. Both are findings of their own, about
 * declarations, not the loss of confirmed messages that the probes measure.
 */
export async function preparedClient(server: BrokerServer): Promise<ProbeClient> {
  const first = await probeClient(server);
  await first.setUp();
  if (server.config.broker !== 'rabbitmq') return first;
  await first.close();
  await server.stop();
  await server.restart();
  return probeClient(server);
}

/** The value of write `i`: its number, padded with `x` to `pad` characters. Pure. */
const value = (i: number, pad: number): string => String(i).padEnd(pad, 'x');

/**
 * A client of `server`'s broker, connected within `ms`; each of its calls has `ms` too (a close
 * 5 s at most). Throws ServerError `no_answer` naming the call that did not answer.
 */
export async function probeClient(server: ProbeTarget, ms = PROBE_MS): Promise<ProbeClient> {
  const what = `the ${server.config.broker} probe client of 127.0.0.1:${server.port}`;
  const opening = open(server, ms);
  const { client, destroy } = await within(opening, ms, `${what}: connect`, () => {
    opening.then(
      ({ destroy }) => destroy(),
      () => undefined,
    );
  });
  return {
    setUp: () => within(client.setUp(), ms, `${what}: set up`),
    write: (i, pad) => within(client.write(i, pad), ms, `${what}: write ${i}`),
    count: () => within(client.count(), ms, `${what}: count`),
    close: () => within(client.close(), Math.min(ms, CLOSE_MS), `${what}: close`, destroy),
  };
}

/** `ms` for a library's own timeout: a second later than ours, so that ours is the one reported. */
const own = (ms: number): number => ms + 1_000;

function open(server: ProbeTarget, ms: number): Promise<Opened> {
  const env = server.env;
  const config: ServerConfig = server.config;
  switch (config.broker) {
    case 'redis':
      return redisClient(env['JOBCHECK_REDIS_URL'] as string, ms);
    case 'beanstalkd':
      return beanstalkdClient(server.port);
    case 'nats':
      return natsClient(env['JOBCHECK_NATS_URL'] as string, config.storage, ms);
    case 'rabbitmq':
      return rabbitClient(env['JOBCHECK_AMQP_URL'] as string, config.queueType, ms);
    case 'postgres':
      return postgresClient(env, ms);
  }
}

async function redisClient(url: string, ms: number): Promise<Opened> {
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    connectTimeout: own(ms),
  });
  redis.on('error', () => undefined);
  const destroy = (): void => redis.disconnect();
  await redis.connect();
  const client: ProbeClient = {
    setUp: async () => undefined,
    write: async (i, pad = 0) => {
      await redis.set(`probe:${i}`, value(i, pad));
    },
    count: () => redis.dbsize(),
    close: async () => destroy(),
  };
  return { client, destroy };
}

/** beanstalkd's text protocol: one request at a time, a reply line (and a body after `OK <bytes>`). */
async function beanstalkdClient(port: number): Promise<Opened> {
  const socket: Socket = createConnection({ port, host: '127.0.0.1' });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  }).catch((error: unknown) => {
    socket.destroy();
    throw error;
  });
  let buffer = Buffer.alloc(0);
  // Replies come in the order of the requests.
  const waiting: { resolve: (reply: string) => void; reject: (error: Error) => void }[] = [];
  const settle = (): void => {
    for (;;) {
      const end = buffer.indexOf('\r\n');
      if (waiting.length === 0 || end < 0) return;
      const line = buffer.subarray(0, end).toString();
      const body = /^OK (\d+)$/.exec(line);
      const total = body === null ? end + 2 : end + 2 + Number(body[1]) + 2;
      if (buffer.length < total) return;
      const reply = buffer.subarray(0, total).toString();
      buffer = buffer.subarray(total);
      waiting.shift()?.resolve(reply);
    }
  };
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    settle();
  });
  const fail = (error: Error): void => {
    for (const w of waiting.splice(0)) w.reject(error);
  };
  socket.on('error', fail);
  socket.on('close', () => fail(new Error('beanstalkd closed the connection')));
  const request = (text: string): Promise<string> =>
    new Promise((resolve, reject) => {
      if (socket.destroyed) return reject(new Error('beanstalkd closed the connection'));
      waiting.push({ resolve, reject });
      socket.write(text);
    });
  const destroy = (): void => {
    socket.destroy();
  };
  const client: ProbeClient = {
    setUp: async () => undefined,
    write: async (i, pad = 0) => {
      const body = value(i, pad);
      const reply = await request(`put 0 0 600 ${body.length}\r\n${body}\r\n`);
      if (!reply.startsWith('INSERTED ')) throw new Error(`beanstalkd answered ${reply.trim()}`);
    },
    count: async () => {
      const reply = await request('stats\r\n');
      return Number(/current-jobs-ready: (\d+)/.exec(reply)?.[1] ?? Number.NaN);
    },
    close: async () => destroy(),
  };
  return { client, destroy };
}

const STREAM = 'PROBE';

async function natsClient(url: string, storage: 'file' | 'memory', ms: number): Promise<Opened> {
  const nc = await natsConnect({ servers: url, maxReconnectAttempts: 0, timeout: own(ms) });
  // nats.js closes its socket at once (it awaits no answer), so a close needs nothing more.
  const destroy = (): void => {
    nc.close().catch(() => undefined);
  };
  const jsm = await jetstreamManager(nc, { timeout: own(ms) });
  const js = jetstream(nc, { timeout: own(ms) });
  const client: ProbeClient = {
    setUp: async () => {
      await jsm.streams.add({
        name: STREAM,
        subjects: ['probe.>'],
        storage: storage === 'memory' ? StorageType.Memory : StorageType.File,
      });
    },
    write: async (i, pad = 0) => {
      await js.publish(`probe.${i}`, value(i, pad), { timeout: own(ms) });
    },
    count: async () => {
      try {
        return (await jsm.streams.info(STREAM)).state.messages;
      } catch (error) {
        // A memory stream is gone with the process that held it: it holds nothing.
        if (/stream not found/i.test((error as Error).message)) return 0;
        throw error;
      }
    },
    close: () => nc.close(),
  };
  return { client, destroy };
}

const QUEUE = 'probe';

async function rabbitClient(url: string, queueType: 'quorum' | 'classic', ms: number): Promise<Opened> {
  const connection = await amqp.connect(url, { timeout: own(ms) });
  connection.on('error', () => undefined);
  // amqplib's close() sends connection.close and resolves on the server's close-ok only: when the
  // socket ends first (a server killed just before), it emits 'close' and never resolves. So the
  // connection counts as closed on the first of the two.
  let closed = false;
  const ended = new Promise<void>((resolve) =>
    connection.once('close', () => {
      closed = true;
      resolve();
    }),
  );
  const destroy = (): void => {
    (connection.connection as unknown as { readonly stream?: Socket }).stream?.destroy();
  };
  const channel = await connection.createConfirmChannel();
  channel.on('error', () => undefined);
  /** A persistent publish, settled by its confirm. */
  const write = (body: Buffer): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      channel.sendToQueue(QUEUE, body, { persistent: true }, (error: unknown) =>
        error === null || error === undefined ? resolve() : reject(error),
      );
    });
  /** The markers this client's quorum counts wrote (count below). */
  let markers = 0;
  const client: ProbeClient = {
    setUp: async () => {
      await channel.assertQueue(QUEUE, { durable: true, arguments: { 'x-queue-type': queueType } });
    },
    write: (i, pad = 0) => write(Buffer.from(value(i, pad))),
    // After a restart a quorum queue answers 0 until its Raft member has replayed its log, and a
    // part of it while it replays, a part that can stand still for over 500 ms on a loaded machine.
    // So a quorum count first writes a marker and waits for its confirm: the queue confirms a
    // publish once it has applied it, and it applies its log in order, so every write before the
    // marker is counted then. The count leaves out this client's markers. Then, for both kinds, the
    // count is the first above 0 that the next, 500 ms later, repeats; 0 stands only after 15 s.
    count: async () => {
      if (queueType === 'quorum') {
        await write(Buffer.from('marker'));
        markers += 1;
      }
      const end = Date.now() + 15_000;
      let last = -1;
      for (;;) {
        const { messageCount } = await channel.checkQueue(QUEUE);
        if ((messageCount > 0 && messageCount === last) || Date.now() >= end) return messageCount - markers;
        last = messageCount;
        await new Promise((resolve) => setTimeout(resolve, messageCount > 0 ? 500 : 200));
      }
    },
    close: async () => {
      if (!closed) await Promise.race([ended, connection.close().catch(() => undefined)]);
    },
  };
  return { client, destroy };
}

async function postgresClient(env: Readonly<Record<string, string>>, ms: number): Promise<Opened> {
  const client = new pg.Client({
    host: env['PGHOST'],
    port: Number(env['PGPORT']),
    user: env['PGUSER'],
    database: env['PGDATABASE'],
    connectionTimeoutMillis: own(ms),
  });
  client.on('error', () => undefined);
  const destroy = (): void => {
    (client as unknown as { readonly connection?: { readonly stream?: Socket } }).connection?.stream?.destroy();
  };
  await client.connect();
  const probe: ProbeClient = {
    setUp: async () => {
      // The writes' target must outlive the kill for their loss to be counted: its creation is
      // flushed whatever the configuration (with synchronous_commit off, a kill within a few hundred
      // milliseconds lost the table with every write).
      await client.query(
        'BEGIN; SET LOCAL synchronous_commit = on; CREATE TABLE probe (i integer PRIMARY KEY, pad text); COMMIT',
      );
    },
    write: async (i, pad = 0) => {
      await client.query('INSERT INTO probe VALUES ($1, $2)', [i, value(i, pad)]);
    },
    count: async () => Number((await client.query('SELECT count(*) AS n FROM probe')).rows[0].n),
    close: async () => {
      await client.end().catch(() => undefined);
    },
  };
  return { client: probe, destroy };
}
