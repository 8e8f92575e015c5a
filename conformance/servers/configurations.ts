/**
 * The durability settings a team chooses for its broker, as named configurations: each a value of
 * ServerConfig (what startServer starts), a stable name for pages and columns, one sentence that
 * says what it is, and the promise its documentation makes about an acknowledged write when the
 * server's process dies. A test asserts only that promise; what a configuration without one loses
 * is measured and reported, never asserted. The queue's own settings (JetStream's storage,
 * RabbitMQ's queue type) reach the adapters through the environment the server exports.
 */
import { ServerError } from './ServerError.ts';

/** How one server is set up: the broker, and the durability setting it runs with. */
export type ServerConfig =
  | { readonly broker: 'redis'; readonly persistence: 'rdb' | 'aof-everysec' | 'aof-always' }
  | { readonly broker: 'beanstalkd'; readonly binlog: boolean }
  | { readonly broker: 'nats'; readonly storage: 'file' | 'memory' }
  | {
      readonly broker: 'rabbitmq';
      readonly queueType: 'quorum' | 'classic';
      /** RabbitMQ's consumer_timeout in ms (default 800, as scripts/brokers.sh). */
      readonly consumerTimeoutMs?: number;
    }
  | { readonly broker: 'postgres'; readonly synchronousCommit: boolean };

/** The brokers a ServerConfig names. */
export type BrokerName = ServerConfig['broker'];

/**
 * What a configuration's documentation promises about an acknowledged write when the server's
 * process is killed: `every-acknowledged` (none is lost), `recent-window` (the last moments' may be
 * lost), `last-snapshot` (only what the last snapshot held survives), `none` (nothing survives).
 */
export type DurabilityPromise = 'every-acknowledged' | 'recent-window' | 'last-snapshot' | 'none';

/** A named configuration: see the top of the file. */
export interface Configuration {
  readonly name: string;
  readonly config: ServerConfig;
  /** One sentence for pages. */
  readonly description: string;
  readonly promise: DurabilityPromise;
}

/** Every named configuration, in the order pages list them. */
export const CONFIGURATIONS = [
  {
    name: 'redis-rdb',
    config: { broker: 'redis', persistence: 'rdb' },
    description: "Redis with Debian's default RDB snapshots (save 3600 1 300 100 60 10000) and no append-only file.",
    promise: 'last-snapshot',
  },
  {
    name: 'redis-aof-everysec',
    config: { broker: 'redis', persistence: 'aof-everysec' },
    description: 'Redis with the append-only file (appendonly yes), fsynced once a second (appendfsync everysec).',
    promise: 'recent-window',
  },
  {
    name: 'redis-aof-always',
    config: { broker: 'redis', persistence: 'aof-always' },
    description: 'Redis with the append-only file fsynced before each write is acknowledged (appendfsync always).',
    promise: 'every-acknowledged',
  },
  {
    name: 'beanstalkd',
    config: { broker: 'beanstalkd', binlog: false },
    description: 'beanstalkd without a binlog: every job lives in memory only.',
    promise: 'none',
  },
  {
    name: 'beanstalkd-binlog',
    config: { broker: 'beanstalkd', binlog: true },
    description: 'beanstalkd with its binlog (-b): each job is written to the log before it is acknowledged.',
    promise: 'every-acknowledged',
  },
  {
    name: 'nats-file',
    config: { broker: 'nats', storage: 'file' },
    description:
      'NATS JetStream with the stream on file storage (flushed by the server, fsynced every 2 minutes by default).',
    promise: 'recent-window',
  },
  {
    name: 'nats-memory',
    config: { broker: 'nats', storage: 'memory' },
    description: 'NATS JetStream with the stream on memory storage: nothing outlives the server process.',
    promise: 'none',
  },
  {
    name: 'rabbitmq-quorum',
    config: { broker: 'rabbitmq', queueType: 'quorum' },
    description:
      "RabbitMQ with a quorum queue, its retries bounded by x-delivery-limit: a publish is confirmed once the Raft log holds it on disk (a new queue's Raft member is registered on disk about a second after its declaration, and a fault campaign's scenarios start after that).",
    promise: 'every-acknowledged',
  },
  {
    name: 'rabbitmq-classic',
    config: { broker: 'rabbitmq', queueType: 'classic' },
    description:
      'RabbitMQ with a durable classic queue and persistent messages: a publish is confirmed once the message store holds it; 3.10 refuses x-delivery-limit on a classic queue and counts no redeliveries, so its retries are unbounded and every delivery reads as attempt 1.',
    promise: 'every-acknowledged',
  },
  {
    name: 'postgres-sync',
    config: { broker: 'postgres', synchronousCommit: true },
    description: 'PostgreSQL with synchronous_commit on: a commit returns once its WAL record is flushed.',
    promise: 'every-acknowledged',
  },
  {
    name: 'postgres-async',
    config: { broker: 'postgres', synchronousCommit: false },
    description:
      'PostgreSQL with synchronous_commit off: a commit returns before its WAL record is flushed (up to 3 × wal_writer_delay later).',
    promise: 'recent-window',
  },
] as const satisfies readonly Configuration[];

/** The name of a configuration. */
export type ConfigurationName = (typeof CONFIGURATIONS)[number]['name'];

/** The configuration named `name`. Throws `unknown_configuration` naming the value and the names there are. */
export function configuration(name: string): Configuration {
  const found = CONFIGURATIONS.find((c) => c.name === name);
  if (found === undefined)
    throw new ServerError(
      'unknown_configuration',
      `no server configuration ${JSON.stringify(name)} (there are ${CONFIGURATIONS.map((c) => c.name).join(', ')})`,
    );
  return found;
}

/** The configurations of one broker, in page order. Pure. */
export const configurationsOf = (broker: BrokerName): Configuration[] =>
  CONFIGURATIONS.filter((c) => c.config.broker === broker);
