/**
 * Where the NATS server is, and what to say when there is none. `scripts/brokers.sh nats` starts a
 * throw-away `nats-server -js` on loopback and sets `JOBCHECK_NATS_URL` for the command it wraps. In
 * CI (`CI` set) a missing server is a failure, never a skip; elsewhere the tests skip with the
 * command that runs them (as the PostgreSQL tests do, conformance/postgresEnv.ts).
 */
import { NatsAdapterError } from './NatsAdapterError.ts';

/** The server's URL from the environment, or undefined. Pure. */
export const natsUrl = (env: NodeJS.ProcessEnv = process.env): string | undefined => {
  const url = env['JOBCHECK_NATS_URL'] ?? '';
  return url === '' ? undefined : url;
};

/** Why the NATS tests cannot run here, or undefined when JOBCHECK_NATS_URL names a server. Pure. */
export function natsMissing(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (natsUrl(env) !== undefined) return undefined;
  return 'no NATS server: JOBCHECK_NATS_URL is not set (run `bash scripts/brokers.sh nats -- npx vitest run adapters/nats-jetstream`, which starts a throw-away nats-server -js and runs the tests beside it)';
}

/** Whether a missing server must fail the run (in CI) rather than skip the tests. Pure. */
export const natsRequired = (env: NodeJS.ProcessEnv = process.env): boolean => (env['CI'] ?? '') !== '';

/**
 * The stream storage JOBCHECK_NATS_STORAGE names (`file` or `memory`; unset or empty: `file`), as a
 * server of conformance/servers/ exports it for its configuration. Throws `unsupported_config` for another value. Pure.
 */
export function natsStorage(env: NodeJS.ProcessEnv = process.env): 'file' | 'memory' {
  const storage = env['JOBCHECK_NATS_STORAGE'] ?? '';
  if (storage === '' || storage === 'file') return 'file';
  if (storage === 'memory') return 'memory';
  throw new NatsAdapterError(
    'unsupported_config',
    `JOBCHECK_NATS_STORAGE ${JSON.stringify(storage)} is neither file nor memory`,
  );
}
