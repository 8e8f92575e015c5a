/**
 * Where the PostgreSQL server of the two PostgreSQL-backed queues (pg-boss, BullMQ's PostgreSQL
 * backend) is, and how node-postgres says it lost it, for their factories' lossAware typing. The
 * address is the one libpq's environment or the adapter's `target` names: a unix socket's file
 * (`<folder>/.s.PGSQL.<port>`), or a host and port. Also their pools' quiet clients (quietPool).
 */
import type { LossSource } from '../conformance/profile/lossAware.ts';

/** What quietPool needs of a pg Pool (typed here so that this file loads no pg). */
interface ErrorSource {
  on(event: 'error', listener: () => void): unknown;
}
interface PoolOf {
  on(event: 'error', listener: () => void): unknown;
  on(event: 'connect', listener: (client: ErrorSource) => void): unknown;
}

/**
 * A pool whose clients' errors (a server gone) are dropped, never printed, whether idle or checked
 * out: the queries waiting on them fail, and an 'error' event with no listener would end the process.
 */
export function quietPool<P extends PoolOf>(pool: P): P {
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** The address of `target` (a postgres:// URL, a socket folder, or '' for PGHOST and PGPORT). Pure but for the environment. */
export function postgresAddress(target: string, env: NodeJS.ProcessEnv = process.env): string {
  if (/^postgres(ql)?:\/\//.test(target)) {
    const url = new URL(target);
    return `${url.hostname || 'localhost'}:${url.port || '5432'}`;
  }
  const host = target === '' ? (env['PGHOST'] ?? '') : target;
  const port = env['PGPORT'] ?? '5432';
  if (host === '' || host.startsWith('/')) return `${host === '' ? '/var/run/postgresql' : host}/.s.PGSQL.${port}`;
  return `${host}:${port}`;
}

/** The server's errors that end every session (admin, crash or server shutdown; cannot connect now). */
const SHUTDOWN = new Set(['57P01', '57P02', '57P03']);

/** Where `target`'s server is, and node-postgres's words for a connection it lost. */
export const postgresLoss = (target: string): LossSource => ({
  where: () => ({ broker: 'PostgreSQL', address: postgresAddress(target) }),
  clientLoss: (e) => {
    if (!(e instanceof Error)) return undefined;
    if (SHUTDOWN.has(String((e as { code?: unknown }).code))) return 'the server ended the session';
    return /^Connection terminated|connection error and is not queryable/.test(e.message)
      ? 'connection closed'
      : undefined;
  },
});
