/**
 * Where the RabbitMQ server is, and what to say when there is none. `scripts/brokers.sh rabbitmq`
 * starts a throw-away rabbitmq-server on loopback (consumer_timeout 800 ms, channel_tick_interval
 * 100 ms; README.md) and sets `JOBCHECK_AMQP_URL` for the command it wraps. In CI (`CI` set) a
 * missing server is a failure, never a skip; elsewhere the tests skip with the command that runs
 * them (as the PostgreSQL tests do, conformance/postgresEnv.ts).
 */
import { RabbitmqAdapterError } from './RabbitmqAdapterError.ts';

/** The server's URL from the environment, or undefined. Pure. */
export const amqpUrl = (env: NodeJS.ProcessEnv = process.env): string | undefined => {
  const url = env['JOBCHECK_AMQP_URL'] ?? '';
  return url === '' ? undefined : url;
};

/** Why the RabbitMQ tests cannot run here, or undefined when JOBCHECK_AMQP_URL names a server. Pure. */
export function amqpMissing(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (amqpUrl(env) !== undefined) return undefined;
  return 'no RabbitMQ server: JOBCHECK_AMQP_URL is not set (run `bash scripts/brokers.sh rabbitmq -- npx vitest run adapters/rabbitmq`, which starts a throw-away rabbitmq-server and runs the tests beside it)';
}

/** Whether a missing server must fail the run (in CI) rather than skip the tests. Pure. */
export const amqpRequired = (env: NodeJS.ProcessEnv = process.env): boolean => (env['CI'] ?? '') !== '';

/**
 * The queue type JOBCHECK_AMQP_QUEUE_TYPE names (`quorum` or `classic`; unset or empty: `quorum`),
 * as a server of conformance/servers/ exports it for its configuration. Throws `unsupported_config` for another value. Pure.
 */
export function amqpQueueType(env: NodeJS.ProcessEnv = process.env): 'quorum' | 'classic' {
  const type = env['JOBCHECK_AMQP_QUEUE_TYPE'] ?? '';
  if (type === '' || type === 'quorum') return 'quorum';
  if (type === 'classic') return 'classic';
  throw new RabbitmqAdapterError(
    'unsupported_config',
    `JOBCHECK_AMQP_QUEUE_TYPE ${JSON.stringify(type)} is neither quorum nor classic`,
  );
}
