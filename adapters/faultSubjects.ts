/**
 * Each real queue as the fault campaign's subject on a server of a named durability configuration
 * (conformance/servers/; an SQS emulator's process for the SQS targets, adapters/sqs/servers.ts):
 * its profile target and sequential factory on that server, and, where the adapter opens a
 * connection per worker, competing workers with one lane sent through a proxy (the adapter's
 * `laneUrls`/`laneAddrs`/`laneEndpoints`). A queue whose adapter shares one connection between
 * workers, or has no competing workers, says so in `unroutable`. The emulators keep everything in
 * memory and have no setting that keeps more: one configuration each, which a kill empties.
 */
import type { FaultName, FaultSubject } from '../conformance/faults/index.ts';
import { LONG_LEASE_TICKS } from '../conformance/faults/index.ts';
import type { BrokerControl } from '../conformance/faults/index.ts';
import { BrokerServer, configuration, configurationsOf, quorumMemberRegistered } from '../conformance/servers/index.ts';
import type { BrokerName, Configuration, ServerConfig } from '../conformance/servers/index.ts';
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
import { emulatorClockOf, sqsOnEmulator } from './sqs/profile.ts';
import { SqsEmulator } from './sqs/servers.ts';
import type { EmulatorName } from './sqs/servers.ts';

/** The queues the fault campaign can run, by the data name of their profile page. */
export const FAULT_QUEUES = [
  'bullmq-redis',
  'redis-streams',
  'beanstalkd',
  'nats-jetstream',
  'rabbitmq',
  'pg-boss',
  'bullmq-postgres',
  'fauxqs-standard',
  'fauxqs-fifo',
  'local-aws-sqs-standard',
  'local-aws-sqs-fifo',
] as const;

/** A queue the fault campaign can run. */
export type FaultQueue = (typeof FAULT_QUEUES)[number];

/** The server a subject runs on: what it exports, where it listens, and its data folder (or the SQS emulator itself). */
export interface SubjectServer {
  readonly env: Readonly<Record<string, string>>;
  readonly port: number;
  readonly data: string;
  readonly emulator?: SqsEmulator;
}

/** A server the campaign started for a queue: what a subject reads, the faults, its processes, its end. */
export interface FaultServer extends SubjectServer, BrokerControl {
  /** Its processes now (tests check that none is left). */
  readonly pids: number[];
  /** Its folder, removed by dispose() (an emulator has none). */
  readonly folder?: string;
  dispose(): Promise<void>;
}

/** A configuration as pages name it: what it is, and what its documentation promises of a kill. */
export type FaultConfiguration = Pick<Configuration, 'name' | 'description' | 'promise'>;

/** The SQS targets: the emulator and the queue type of each. */
const SQS_QUEUES = {
  'fauxqs-standard': { emulator: 'fauxqs', queueType: 'standard' },
  'fauxqs-fifo': { emulator: 'fauxqs', queueType: 'fifo' },
  'local-aws-sqs-standard': { emulator: 'local-aws-sqs', queueType: 'standard' },
  'local-aws-sqs-fifo': { emulator: 'local-aws-sqs', queueType: 'fifo' },
} as const;
type SqsQueue = keyof typeof SQS_QUEUES;
const isSqs = (queue: FaultQueue): queue is SqsQueue => queue in SQS_QUEUES;

/** Each emulator's one configuration: in memory, as its package says, and nothing else to choose. */
const EMULATOR_CONFIGURATIONS: Record<EmulatorName, FaultConfiguration> = {
  fauxqs: {
    name: 'fauxqs-memory',
    description:
      'fauxqs 1.9.2 keeps every queue and message in its process\'s memory ("All state is in-memory. No persistence", its README): nothing outlives the process.',
    promise: 'none',
  },
  'local-aws-sqs': {
    name: 'local-aws-sqs-memory',
    description:
      'local-aws-sqs 2.0.2 keeps its queues and messages in arrays of its process and writes no file, with no option to: nothing outlives the process.',
    promise: 'none',
  },
};

/** The broker of each queue that runs on a BrokerServer. */
const BROKER: Record<Exclude<FaultQueue, SqsQueue>, BrokerName> = {
  'bullmq-redis': 'redis',
  beanstalkd: 'beanstalkd',
  'nats-jetstream': 'nats',
  'pg-boss': 'postgres',
  'bullmq-postgres': 'postgres',
  'redis-streams': 'redis',
  rabbitmq: 'rabbitmq',
};

/** The configurations the campaign runs `queue` under, in page order. Pure. */
export const faultConfigurations = (queue: FaultQueue): FaultConfiguration[] =>
  isSqs(queue) ? [EMULATOR_CONFIGURATIONS[SQS_QUEUES[queue].emulator]] : configurationsOf(BROKER[queue]);

/** Starts the server `queue` runs on under the configuration `name` (a BrokerServer, or the SQS emulator's process). */
export async function startFaultServer(queue: FaultQueue, name: string): Promise<FaultServer> {
  if (!isSqs(queue)) {
    const c = configuration(name);
    if (c.config.broker !== BROKER[queue])
      throw new Error(
        `configuration ${name} is not one of ${queue}'s (${faultConfigurations(queue)
          .map((f) => f.name)
          .join(', ')})`,
      );
    return BrokerServer.start(faultServerConfig(c.config));
  }
  const { emulator: which } = SQS_QUEUES[queue];
  if (name !== EMULATOR_CONFIGURATIONS[which].name)
    throw new Error(`configuration ${name} is not ${queue}'s (${EMULATOR_CONFIGURATIONS[which].name})`);
  const emulator = await SqsEmulator.start(which, emulatorClockOf(which));
  return {
    env: {},
    data: '',
    emulator,
    get port() {
      return emulator.port;
    },
    get pids() {
      return emulator.pids;
    },
    kill: () => emulator.kill(),
    restart: () => emulator.restart(),
    pause: (ms) => emulator.pause(ms),
    resume: () => emulator.resume(),
    dispose: () => emulator.stop(),
  };
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
    case 'fauxqs-standard':
    case 'fauxqs-fifo':
    case 'local-aws-sqs-standard':
    case 'local-aws-sqs-fifo': {
      const emulator = server.emulator;
      if (emulator === undefined) throw new Error(`${queue} runs on an SQS emulator's process, none given`);
      const { target, routedFactory } = sqsOnEmulator(emulator, SQS_QUEUES[queue].queueType);
      return {
        ...common,
        target,
        factory: target.factory,
        routedFactory,
        tickMs: target.clock?.kind === 'wall' ? target.clock.tickMs : 100,
      };
    }
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
