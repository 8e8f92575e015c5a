/**
 * The concurrent campaign (conformance/concurrent/campaign.ts) against PostgresStore with every
 * lane a separate OS process holding a connection and a store of its own (postgresProcesses.ts):
 * only the server orders their commands, as for workers on many machines. The correct store's
 * histories are all linearizable, and most claims and acks ran as one statement (the fast path,
 * impl/postgres/FastPath.ts); the variant whose fast claim takes no lock is caught. Needs a server
 * (PGHOST): in CI a missing server fails the file, elsewhere it is skipped with that message.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { postgresVariant } from '../broken/index.ts';
import type { PostgresVariant } from '../broken/index.ts';
import { runConcurrentCampaign } from '../concurrent/campaign.ts';
import { postgresMissing, postgresRequired } from '../postgresEnv.ts';
import { claimContention, contentionProblems } from './laneContention.ts';
import { postgresProcessLanes } from './postgresProcesses.ts';

const RUNS = Number(process.env['JOBCHECK_LANE_RUNS'] ?? 6);
const missing = postgresMissing();
const lanes = postgresProcessLanes();
afterAll(() => lanes.dispose());

const variant = (name: string): PostgresVariant => postgresVariant(name) as PostgresVariant;

const campaign = (name: string, numRuns: number) =>
  runConcurrentCampaign({
    factory: lanes.factory(variant(name)),
    workers: 3,
    numRuns,
    seed: 1,
    timeoutMs: 15_000,
    maxRounds: 4,
  });

if (missing !== undefined && postgresRequired()) {
  describe('PostgreSQL lanes as processes in CI', () => {
    it('has a server (the PostgreSQL tests never skip in CI)', () => {
      expect.fail(`${missing}; .ci/run wraps the tests in scripts/pg.sh`);
    });
  });
}

describe.skipIf(missing !== undefined)(
  `the concurrent campaign against PostgresStore, a process per lane${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    it(`finds every history linearizable over ${RUNS} runs with up to 3 lanes, claims and acks run as one statement`, async () => {
      const r = await campaign('postgres', RUNS);
      expect(r.story).toBeNull();
      expect(r.verdict).toBe('passed');
      expect(r.runs).toBe(RUNS);
      expect(lanes.fastCommands).toBeGreaterThan(0);
    }, 120_000);

    it('delivers one ready job once when every lane claims it at once, and twice from the fast claim without locks', async () => {
      expect(contentionProblems(await claimContention(lanes.factory(), 3, 8))).toEqual([]);
      // Its claims race only while the first one's transaction is open, which ends at an asynchronous
      // COMMIT (FastPath.ts): about one round in five overlaps there once the lanes are warm, none
      // in some cold first batches; so batches of 40 rounds, up to 5, until one shows it.
      let caught = 0;
      for (let batch = 0; batch < 5 && caught === 0; batch++) {
        const r = await claimContention(lanes.factory(variant('pg-fast-claim-without-locks')), 3, 40);
        caught = r.deliveries.filter((d) => d > 1).length + r.errors.length;
      }
      expect(caught, 'double deliveries or errors in 5 batches of 40 rounds').toBeGreaterThan(0);
    }, 120_000);
  },
);
