/**
 * rabbitmq-server as scripts/brokers.sh starts it: every path it reads or writes in its folder (the
 * configuration, the plugins file, mnesia in the data folder, logs, the Erlang cookie in HOME),
 * owned by the user it runs as (`rabbitmq` when run as root); an epmd of its own on loopback and a
 * port of its own, started beside it and kept across its restarts; distribution on loopback;
 * consumer_timeout (default 800 ms) checked every 100 ms (channel_tick_interval). The queue type is
 * the queue's own setting: the server exports JOBCHECK_AMQP_QUEUE_TYPE, which adapters/rabbitmq reads.
 * A new quorum queue outlives a SIGKILL only once its Raft member is registered (quorumMemberRegistered).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { amqpAnswers } from './network.ts';
import type { Recipe, ServerPlace } from './recipe.ts';
import { firstExisting, onPath } from './recipe.ts';
import { ServerError } from './ServerError.ts';

/** The consumer_timeout of a server whose configuration names none: JOBCHECK_AMQP_CONSUMER_TIMEOUT_MS, or 800. */
function defaultConsumerTimeout(env: NodeJS.ProcessEnv): number {
  const text = env['JOBCHECK_AMQP_CONSUMER_TIMEOUT_MS'] ?? '800';
  const ms = Number(text);
  if (!/^[1-9]\d*$/.test(text) || !Number.isSafeInteger(ms))
    throw new ServerError(
      'unknown_configuration',
      `JOBCHECK_AMQP_CONSUMER_TIMEOUT_MS ${JSON.stringify(text)} is not a positive number of ms`,
    );
  return ms;
}

/** The recipe of a RabbitMQ node whose queues are `queueType`. Throws `server_missing`, `unknown_configuration`. */
export function rabbitmqRecipe(
  queueType: 'quorum' | 'classic',
  consumerTimeoutMs = defaultConsumerTimeout(process.env),
): Recipe {
  // Debian's /usr/sbin wrapper changes to /var/lib/rabbitmq and drops the environment through su.
  const server = firstExisting(['/usr/lib/rabbitmq/bin/rabbitmq-server']) ?? onPath('rabbitmq-server');
  const epmd = onPath('epmd');
  if (server === undefined || epmd === undefined)
    throw new ServerError('server_missing', 'no rabbitmq-server (or epmd) found (apt-get install rabbitmq-server)');
  const node = `rabbit-jobcheck-${process.pid}-${Math.random().toString(36).slice(2, 8)}@localhost`;
  // extra ports: distribution, rabbitmqctl, epmd.
  const portsOf = (place: ServerPlace) => ({ dist: place.ports[0], ctl: place.ports[1], epmd: place.ports[2] });
  const url = (place: ServerPlace): string => `amqp://guest:guest@127.0.0.1:${place.port}`;
  return {
    program: 'rabbitmq-server',
    userWhenRoot: 'rabbitmq',
    extraPorts: 3,
    diskBytes: 96 << 20,
    readyMs: 90_000,
    stopSignal: 'SIGTERM',
    prepare: async (place) => {
      for (const dir of ['log', 'home', 'plugins-expand']) mkdirSync(join(place.folder, dir));
      writeFileSync(
        join(place.folder, 'rabbitmq.conf'),
        [
          `listeners.tcp.default = 127.0.0.1:${place.port}`,
          'loopback_users.guest = true',
          `consumer_timeout = ${consumerTimeoutMs}`,
          'disk_free_limit.absolute = 1MB',
          'log.console = false',
          'log.file.level = info',
          '',
        ].join('\n'),
      );
      writeFileSync(join(place.folder, 'advanced.config'), '[{rabbit, [{channel_tick_interval, 100}]}].\n');
      writeFileSync(join(place.folder, 'enabled_plugins'), '[].\n');
      writeFileSync(join(place.folder, 'rabbitmq-env.conf'), '');
    },
    companions: (place) => [[epmd, '-address', '127.0.0.1', '-port', String(portsOf(place).epmd)]],
    command: (place) => {
      const { dist, ctl, epmd: epmdPort } = portsOf(place);
      const f = place.folder;
      return {
        argv: [server],
        env: {
          HOME: join(f, 'home'),
          RABBITMQ_NODENAME: node,
          RABBITMQ_USE_LONGNAME: 'false',
          RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
          RABBITMQ_NODE_PORT: String(place.port),
          RABBITMQ_DIST_PORT: String(dist),
          RABBITMQ_CTL_DIST_PORT_MIN: String(ctl),
          RABBITMQ_CTL_DIST_PORT_MAX: String(ctl),
          ERL_EPMD_ADDRESS: '127.0.0.1',
          ERL_EPMD_PORT: String(epmdPort),
          RABBITMQ_CONFIG_FILE: join(f, 'rabbitmq.conf'),
          RABBITMQ_ADVANCED_CONFIG_FILE: join(f, 'advanced.config'),
          RABBITMQ_CONF_ENV_FILE: join(f, 'rabbitmq-env.conf'),
          RABBITMQ_ENABLED_PLUGINS_FILE: join(f, 'enabled_plugins'),
          RABBITMQ_ENABLED_PLUGINS: '',
          RABBITMQ_MNESIA_BASE: join(place.data, 'mnesia'),
          RABBITMQ_LOG_BASE: join(f, 'log'),
          RABBITMQ_PLUGINS_EXPAND_DIR: join(f, 'plugins-expand'),
          RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: '-kernel inet_dist_use_interface {127,0,0,1}',
          RABBITMQ_CTL_ERL_ARGS: '-kernel inet_dist_use_interface {127,0,0,1}',
        },
      };
    },
    answers: (place) => amqpAnswers(place.port),
    exports: (place) => ({
      JOBCHECK_AMQP_URL: url(place),
      JOBCHECK_AMQP_CONSUMER_TIMEOUT_MS: String(consumerTimeoutMs),
      JOBCHECK_AMQP_SERVERS: `${consumerTimeoutMs}=${url(place)}`,
      JOBCHECK_AMQP_QUEUE_TYPE: queueType,
    }),
  };
}

/**
 * Waits up to `ms` until the RabbitMQ node whose data folder is `data` has registered the Raft
 * member of quorum queue `queue` on disk (its name in the Ra system's `names.dets`); false if it
 * did not. 3.10 writes it about a second after the declaration (the rest of the queue at once):
 * a node SIGKILLed before then restarts without the member (`leader not known`), and every request
 * on the queue waits for a leader that never comes, its confirmed messages out of reach.
 */
export async function quorumMemberRegistered(data: string, queue: string, ms = 10_000): Promise<boolean> {
  const mnesia = join(data, 'mnesia');
  const names = (): string[] =>
    existsSync(mnesia)
      ? readdirSync(mnesia)
          .map((node) => join(mnesia, node, 'quorum', node, 'names.dets'))
          .filter((file) => existsSync(file))
      : [];
  const end = Date.now() + ms;
  for (;;) {
    if (names().some((file) => readFileSync(file).includes(queue))) return true;
    if (Date.now() >= end) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
