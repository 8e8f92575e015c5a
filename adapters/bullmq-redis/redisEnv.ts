/**
 * Whether the Redis tests can run, and what to say when they cannot. They need a server named by
 * `JOBCHECK_REDIS_URL` (as scripts/brokers.sh sets it for the command it wraps). In CI (`CI` set)
 * a missing server is a failure, never a skip; on a developer's machine the tests skip with the
 * one command that runs them. Mirrors conformance/postgresEnv.ts.
 */

/** The variable that names the Redis server. */
export const REDIS_URL_VARIABLE = 'JOBCHECK_REDIS_URL';

/** The Redis server's URL, or undefined when none is named. Pure. */
export function redisUrl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const url = env[REDIS_URL_VARIABLE] ?? '';
  return url === '' ? undefined : url;
}

/** Why the Redis tests cannot run here, or undefined when JOBCHECK_REDIS_URL names a server. Pure. */
export function redisMissing(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (redisUrl(env) !== undefined) return undefined;
  return `no Redis server: ${REDIS_URL_VARIABLE} is not set (run \`bash scripts/brokers.sh redis -- npx vitest run <file>\`, which starts a throw-away server and runs the command beside it)`;
}

/** Whether a missing server must fail the run (in CI) rather than skip the tests. Pure. */
export const redisRequired = (env: NodeJS.ProcessEnv = process.env): boolean => (env['CI'] ?? '') !== '';
