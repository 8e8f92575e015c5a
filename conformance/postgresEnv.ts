/**
 * Whether the PostgreSQL tests can run, and what to say when they cannot. They need a server
 * named by libpq's environment (PGHOST, as scripts/pg.sh sets it for the command it wraps). In CI
 * (`CI` set) a missing server is a failure, never a skip; on a developer's machine the tests skip
 * with the one command that runs them.
 */

/** Why the PostgreSQL tests cannot run here, or undefined when PGHOST names a server. */
export function postgresMissing(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if ((env['PGHOST'] ?? '') !== '') return undefined;
  return 'no PostgreSQL server: PGHOST is not set (run `npm run pg`, which starts a throw-away server and runs the tests beside it)';
}

/** Whether a missing server must fail the run (in CI) rather than skip the tests. */
export const postgresRequired = (env: NodeJS.ProcessEnv = process.env): boolean => (env['CI'] ?? '') !== '';
