/**
 * The concurrent campaign (conformance/concurrent/campaign.ts: generated scenarios, competing
 * lanes, every history checked for linearizability against the job model) against the durable
 * stores behind lanes: SQLite with a thread and a connection per lane, PostgreSQL with a
 * connection per lane. A few runs each, with a fixed seed; the interleavings are the machine's.
 * The PostgreSQL part needs a server (PGHOST): in CI a missing server fails it, elsewhere it is
 * skipped with that message.
 */
import { describe, expect, it } from 'vitest';
import { runConcurrentCampaign } from '../concurrent/campaign.ts';
import { postgresMissing, postgresRequired } from '../postgresEnv.ts';
import { postgresConcurrentFactory } from './postgresConcurrent.ts';
import { sqliteConcurrentFactory } from './sqliteConcurrent.ts';

const RUNS = Number(process.env['JOBCHECK_LANE_RUNS'] ?? 6);
const missing = postgresMissing();

describe('the concurrent campaign against the durable stores behind lanes', () => {
  it(`finds every history of SqliteStore linearizable over ${RUNS} runs with up to 3 lanes`, async () => {
    const r = await runConcurrentCampaign({
      factory: sqliteConcurrentFactory(),
      workers: 3,
      numRuns: RUNS,
      seed: 1,
      timeoutMs: 15_000,
      maxRounds: 4,
    });
    expect(r.story).toBeNull();
    expect(r.verdict).toBe('passed');
    expect(r.runs).toBe(RUNS);
  }, 120_000);

  if (missing !== undefined && postgresRequired()) {
    it('has a PostgreSQL server (the PostgreSQL tests never skip in CI)', () => {
      expect.fail(`${missing}; .ci/run wraps the tests in scripts/pg.sh`);
    });
  }

  it.skipIf(missing !== undefined)(
    `finds every history of PostgresStore linearizable over ${RUNS} runs with up to 3 lanes${missing === undefined ? '' : ` (skipped: ${missing})`}`,
    async () => {
      const r = await runConcurrentCampaign({
        factory: postgresConcurrentFactory(),
        workers: 3,
        numRuns: RUNS,
        seed: 1,
        timeoutMs: 15_000,
        maxRounds: 4,
      });
      expect(r.story).toBeNull();
      expect(r.verdict).toBe('passed');
      expect(r.runs).toBe(RUNS);
    },
    120_000,
  );
});
