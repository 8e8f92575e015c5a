/**
 * Whether the beanstalkd tests can run, and what to say when they cannot: they need a server at
 * JOBCHECK_BEANSTALKD_ADDR started under libfaketime with the timestamp file
 * JOBCHECK_BEANSTALKD_CLOCK (scripts/brokers.sh starts one). In CI (`CI` set) a missing server is
 * a failure, never a skip, as for the PostgreSQL tests (conformance/postgresEnv.ts).
 */

/** Why the beanstalkd tests cannot run here, or undefined when both variables are set. Pure. */
export function beanstalkdMissing(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if ((env['JOBCHECK_BEANSTALKD_ADDR'] ?? '') !== '' && (env['JOBCHECK_BEANSTALKD_CLOCK'] ?? '') !== '')
    return undefined;
  return 'no beanstalkd server: JOBCHECK_BEANSTALKD_ADDR and JOBCHECK_BEANSTALKD_CLOCK are not set (run `bash scripts/brokers.sh beanstalkd -- npx vitest run <file>`, which starts one under libfaketime)';
}
