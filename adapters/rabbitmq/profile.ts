/**
 * RabbitMQ as a profile target: the adapter's factory on the server JOBCHECK_AMQP_URL names, the
 * versions driven (the broker's, read from the server at connection, and amqplib's), what RabbitMQ
 * declares of the contract before anything is run, its wall clock and the tolerance of each rule
 * its timers touch. The module also exports `createAdapter` and `createConcurrentAdapter`, so that
 * `jobcheck check --module adapters/rabbitmq/profile.ts --workers 4` runs against the broker with
 * one channel per lane.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Config } from '../../contract/index.ts';
import type { ProfileTarget } from '../../conformance/profile/target.ts';
import { CONSUMER_TIMEOUT_MS, RabbitmqAdapter, consumerTimeoutsOf, rabbitmqFactory, rabbitmqLoss } from './adapter.ts';
import { amqpQueueType } from './amqpEnv.ts';
import { lossAwareFactory } from '../../conformance/profile/lossAware.ts';
import type { RabbitmqFactoryOptions } from './adapter.ts';
import { rabbitmqConcurrentFactory } from './concurrent.ts';
import { SharedConnections } from './SharedConnection.ts';
import { CHANNEL_TICK_INTERVAL_MS, describeServers } from './servers.ts';

/** The version of the installed amqplib, from its package.json (beside its main file: its exports hide the file itself). */
export const AMQPLIB_VERSION: string = (
  JSON.parse(
    readFileSync(join(dirname(createRequire(import.meta.url).resolve('amqplib')), 'package.json'), 'utf8'),
  ) as { version: string }
).version;

/** The RabbitMQ release the profile was written against (Debian's rabbitmq-server). */
export const RABBITMQ_VERSION = '3.10.8';

/** The nominal tick in ms: consumer_timeout over the lease of 4 ticks the profile's configs centre on. */
export const NOMINAL_TICK_MS = CONSUMER_TIMEOUT_MS / 4;

/**
 * The profile target for RabbitMQ on the servers serversOf names (one, or one per consumer_timeout):
 * sequential instances and competing workers (a channel per worker), one connection per server,
 * which `close` ends. Pure: connects only when a factory is called.
 */
export function rabbitmqTarget(options: RabbitmqFactoryOptions = {}): ProfileTarget {
  const connections = options.connections ?? new SharedConnections();
  return {
    queue: 'rabbitmq',
    version: `${RABBITMQ_VERSION}, amqplib ${AMQPLIB_VERSION}, ${options.queueType ?? amqpQueueType()} queue`,
    factory: rabbitmqFactory({ ...options, connections }),
    concurrentFactory: rabbitmqConcurrentFactory({ ...options, connections }),
    close: () => connections.close(),
    clock: { kind: 'wall', tickMs: NOMINAL_TICK_MS, settings: describeServers(consumerTimeoutsOf(options)) },
    declarations: {
      'malformed-command-refused': {
        kind: 'unsupported',
        why: "RabbitMQ never sees the contract's JSON commands: the adapter decodes them (it must, to publish, get and ack), so refusing a malformed one would check the adapter, not RabbitMQ.",
      },
      'clock-never-regresses': {
        kind: 'unsupported',
        why: "RabbitMQ takes no time from a worker: consumer_timeout and message TTLs run on the server's own clock, which nobody outside moves; the adapter's wall clock maps ticks onto it and cannot go back, so a regressing now would check the adapter.",
      },
      'account-head-only': {
        kind: 'variant',
        variant: 'no-account-order',
        why: 'RabbitMQ has no per-key order: a queue delivers its ready messages first in, first out, whatever their account. Single active consumer orders a whole queue behind one consumer, not one account behind its running job; a queue per account would be another design.',
      },
      'backoff-capped': {
        kind: 'variant',
        variant: 'no-backoff',
        why: 'RabbitMQ 3.10 has no delayed redelivery: a message nacked with requeue is ready again at once (the delayed-message plugin delays what is published to an exchange, not a requeue); only x-delivery-limit bounds the retries.',
      },
      'last-error-kept': {
        kind: 'unsupported',
        why: 'basic.nack carries no text: RabbitMQ keeps nothing of why a delivery failed.',
      },
      'counters-stay-safe': {
        kind: 'unsupported',
        why: "Tokens and admission numbers are the adapter's own counters (RabbitMQ has delivery tags per channel, not tokens); TIME_MAX is reachable only by restoring a snapshot, and a queue cannot be built from one.",
      },
    },
    tolerances: {
      'lease-equality-expires': `consumer_timeout (leaseTicks ticks; the clock above says which per lease) is checked on each channel's tick (channel_tick_interval ${CHANNEL_TICK_INTERVAL_MS} ms): measured 13–98 ms late on 3.10.8 (about 110 ms at most), so the broker ends a lease during tick leaseUntil, after that tick's commands, never at its start; a tick's commands slower than that lateness, or a claim run more than a tick minus 110 ms into its tick (leaseTicks 6: ${Math.round(CONSUMER_TIMEOUT_MS / 6)} ms a tick), can move it by a tick, and a replay that disagrees makes the rule flaky.`,
      'expiry-with-attempts-left-requeues':
        'the lease ends within about 110 ms after consumer_timeout, during tick leaseUntil after its commands, so an expiry is seen from tick leaseUntil + 1.',
      'last-attempt-expiry-is-dead':
        'as for the lease: a delivery past x-delivery-limit is dead-lettered when its channel closes, within about 110 ms after consumer_timeout (reason delivery_limit, as for a nack past it).',
      'deadline-kills':
        'the deadline is the message TTL (deadline − now ticks, in ms from the publish); a quorum queue drops an expired message when it reaches the head, so a job behind others dies later.',
      'no-retry-after-deadline': 'as for the deadline: the TTL runs in real time from the publish.',
    },
  };
}

/** RabbitMQ on the server JOBCHECK_AMQP_URL names. */
export const profileTarget: ProfileTarget = rabbitmqTarget();

/** A sequential adapter, for `jobcheck check --module`. Connects to JOBCHECK_AMQP_URL. */
export const createAdapter = lossAwareFactory(
  (config: Config): Promise<RabbitmqAdapter> => RabbitmqAdapter.create(config),
  rabbitmqLoss({}),
);

/** Competing workers for `jobcheck check --module … --workers N`: each worker a channel of its own. */
export const createConcurrentAdapter = rabbitmqConcurrentFactory();
