/**
 * Each real queue as the fault campaign's subject on a server of a named durability configuration
 * (conformance/servers/): its profile target and sequential factory on that server, and, where
 * the adapter opens a connection per worker, competing workers with one lane sent through a
 * proxy (the adapter's `laneUrls`/`laneAddrs`). A queue whose adapter shares one connection
 * between workers, or has no competing workers, says so in `unroutable`.
 */
import type { FaultName, FaultSubject } from '../conformance/faults/index.ts';
import { LONG_LEASE_TICKS } from '../conformance/faults/index.ts';
import { quorumMemberRegistered } from '../conformance/servers/index.ts';
import type { ServerConfig } from '../conformance/servers/index.ts';
import { beanstalkdFactory } from './beanstalkd/adapter.ts';
import { beanstalkdConcurrentFactory } from './beanstalkd/concurrent.ts';
import { beanstalkdTarget } from './beanstalkd/profile.ts';
import { bullmqPostgresConcurrentFactory } from './bullmq-postgres/concurrent.ts';
import { BULLMQ_VERSION, bullmqPostgresTarget } from './bullmq-postgres/profile.ts';
import { bullmqRedisConcurrentFactory, bullmqRedisFactory } from './bullmq-redis/adapter.ts';
import { BULLMQ_REDIS_VERSION, bullmqRedisTarget } from './bullmq-redis/profile.ts';
import { natsJetStreamFactory } from './nats-jetstream/adapter.ts';
import { natsConcurrentFactory } from './nats-jetstream/concurrent.ts';
import { natsJetStreamTarget } from './nats-jetstream/profile.ts';
import { nameUuid } from './pg-boss/adapter.ts';
import { pgBossConcurrentFactory } from './pg-boss/concurrent.ts';
import { pgBossTarget } from './pg-boss/profile.ts';
import { redisStreamsConcurrentFactory, redisStreamsFactory } from './redis-streams/adapter.ts';
import { rabbitmqFactory } from './rabbitmq/adapter.ts';
import type { RabbitmqAdapter } from './rabbitmq/adapter.ts';
import { amqpQueueType } from './rabbitmq/amqpEnv.ts';
import { rabbitmqConcurrentFactory } from './rabbitmq/concurrent.ts';
import { rabbitmqTarget } from './rabbitmq/profile.ts';
import { redisStreamsTarget } from './redis-streams/profile.ts';

/** The queues the fault campaign can run, by the data name of their profile page. */
export const FAULT_QUEUES = [
  'bullmq-redis',
  'redis-streams',
  'beanstalkd',
  'nats-jetstream',
  'rabbitmq',
  'pg-boss',
  'bullmq-postgres',
] as const;

/** A queue the fault campaign can run. */
export type FaultQueue = (typeof FAULT_QUEUES)[number];

/** The server a subject runs on: what it exports, where it listens, and its data folder. */
export interface SubjectServer {
  readonly env: Readonly<Record<string, string>>;
  readonly port: number;
  readonly data: string;
}

/** The postgres:// URL of the server's database at `address` (`host:port`). Pure. */
const postgresUrl = (env: Readonly<Record<string, string>>, address: string): string =>
  `postgres://${env['PGUSER'] as string}@${address}/${env['PGDATABASE'] as string}`;
/**
 * RabbitMQ's consumer_timeout on the campaign's servers, in ms. It is the lease, one value per
 * server, and a tick is consumer_timeout / leaseTicks: kill and pause (LONG_LEASE_TICKS) run at
 * 100 ms a tick, so the pause lasts 500 ms (as beanstalkd's) inside a 4 s lease no fault decides;
 * partition-hold (a lease of 2) at 2 s a tick, so the cut-off worker's lease ends on the broker
 * (13–110 ms late, adapters/rabbitmq/README.md) inside tick leaseUntil, ticks before its late ack.
 */
export const FAULT_CONSUMER_TIMEOUT_MS = 4000;

/** The server the campaign starts for `config`: RabbitMQ's with FAULT_CONSUMER_TIMEOUT_MS, any other as it is. Pure. */
export const faultServerConfig = (config: ServerConfig): ServerConfig =>
  config.broker === 'rabbitmq' ? { ...config, consumerTimeoutMs: FAULT_CONSUMER_TIMEOUT_MS } : config;

const replay = (queue: string, configuration: string) => (fault: FaultName) =>
  `npm run profiles:faults -- --only ${queue} --configuration ${configuration} --fault ${fault}`;

/** The subject of `queue` on `server`, running `configuration`. */
export function faultSubject(queue: FaultQueue, configuration: string, server: SubjectServer): FaultSubject {
  const upstream = { host: '127.0.0.1', port: server.port };
  const common = { configuration, upstream, replayCommand: replay(queue, configuration) };
  switch (queue) {
    case 'bullmq-redis': {
      const url = server.env['JOBCHECK_REDIS_URL'] as string;
      const target = bullmqRedisTarget({ url });
      return {
        ...common,
        target,
        factory: bullmqRedisFactory(BULLMQ_REDIS_VERSION, { url }),
        routedFactory: (lane, address) =>
          bullmqRedisConcurrentFactory(BULLMQ_REDIS_VERSION, { url, laneUrls: laneList(lane, `redis://${address}`) }),
        tickMs: target.clock?.kind === 'wall' ? target.clock.tickMs : 100,
      };
    }
    case 'beanstalkd': {
      const options = {
        addr: server.env['JOBCHECK_BEANSTALKD_ADDR'] as string,
        clockFile: server.env['JOBCHECK_BEANSTALKD_CLOCK'] as string,
      };
      return {
        ...common,
        target: beanstalkdTarget(options),
        factory: beanstalkdFactory(options),
        routedFactory: (lane, address) =>
          beanstalkdConcurrentFactory({ ...options, laneAddrs: laneList(lane, address) }),
        tickMs: 100,
      };
    }
    case 'nats-jetstream': {
      const storage = server.env['JOBCHECK_NATS_STORAGE'] === 'memory' ? 'memory' : 'file';
      const options = { url: server.env['JOBCHECK_NATS_URL'] as string, storage } as const;
      const target = natsJetStreamTarget(options);
      return {
        ...common,
        target,
        factory: natsJetStreamFactory(options),
        routedFactory: (lane, address) =>
          natsConcurrentFactory({ ...options, laneUrls: laneList(lane, `nats://${address}`) }),
        tickMs: target.clock?.kind === 'wall' ? target.clock.tickMs : 100,
      };
    }
    case 'pg-boss': {
      const url = postgresUrl(server.env, `127.0.0.1:${server.port}`);
      const target = pgBossTarget({ target: url });
      return {
        ...common,
        target,
        factory: target.factory,
        routedFactory: (lane, address) =>
          pgBossConcurrentFactory({
            target: url,
            newId: nameUuid,
            laneUrls: laneList(lane, postgresUrl(server.env, address)),
          }),
        tickMs: 100,
      };
    }
    case 'bullmq-postgres': {
      const url = postgresUrl(server.env, `127.0.0.1:${server.port}`);
      const target = bullmqPostgresTarget({ target: url });
      return {
        ...common,
        target,
        factory: target.factory,
        routedFactory: (lane, address) =>
          bullmqPostgresConcurrentFactory(BULLMQ_VERSION, {
            target: url,
            laneUrls: laneList(lane, postgresUrl(server.env, address)),
          }),
        tickMs: 100,
      };
    }
    case 'redis-streams': {
      const url = server.env['JOBCHECK_REDIS_URL'] as string;
      const target = redisStreamsTarget({ url });
      return {
        ...common,
        target,
        factory: redisStreamsFactory({ url }),
        routedFactory: (lane, address) =>
          redisStreamsConcurrentFactory({ url, laneUrls: laneList(lane, `redis://${address}`) }),
        tickMs: target.clock?.kind === 'wall' ? target.clock.tickMs : 100,
      };
    }
    case 'rabbitmq':
      return { ...common, ...rabbitmqParts(server) };
  }
}

/** A list with `value` at `lane` and nothing elsewhere. Pure. */
const laneList = (lane: number, value: string): (string | undefined)[] =>
  Array.from({ length: lane + 1 }, (_, i) => (i === lane ? value : undefined));

/**
 * RabbitMQ's part of a subject on `server`. Its sequential instances on a quorum queue are handed
 * out only once the queue's Raft member is registered on disk (quorumMemberRegistered, about a
 * second): a queue in service was declared long before a crash, and a kill within that second
 * loses the queue itself, a finding of its own (adapters/rabbitmq/README.md), not what the kill
 * scenario asks.
 */
function rabbitmqParts(server: SubjectServer): Omit<FaultSubject, 'configuration' | 'upstream' | 'replayCommand'> {
  const url = server.env['JOBCHECK_AMQP_URL'] as string;
  const consumerTimeoutMs = Number(server.env['JOBCHECK_AMQP_CONSUMER_TIMEOUT_MS']);
  const options = { url, consumerTimeoutMs, queueType: amqpQueueType(server.env) };
  const sequential = rabbitmqFactory(options);
  return {
    target: rabbitmqTarget(options),
    factory: async (config) => {
      const adapter = await sequential(config);
      const { queue } = adapter as RabbitmqAdapter;
      if (options.queueType === 'quorum' && !(await quorumMemberRegistered(server.data, queue))) {
        await adapter.close();
        throw new Error(`RabbitMQ did not register the Raft member of quorum queue ${queue} on disk within 10 s`);
      }
      return adapter;
    },
    routedFactory: (lane, address) =>
      rabbitmqConcurrentFactory({
        ...options,
        laneUrls: laneList(lane, Object.assign(new URL(url), { host: address }).href),
      }),
    // The pause scenario's tick (tickMs's only use): its lease is LONG_LEASE_TICKS.
    tickMs: consumerTimeoutMs / LONG_LEASE_TICKS,
  };
}
