/**
 * The PostgreSQL store behind concurrent lanes, each its own connection to one schema: two lanes
 * claiming in the same round get distinct jobs, and a hand-made contention (eight claims at once
 * on one ready job) delivers it once from the correct store (its commands queue on the meta row
 * lock), while the broken variant whose claim takes no row locks delivers it more than once, or
 * answers with a store-error reply. Needs a server (PGHOST; `npm run pg` starts one): in CI a
 * missing server fails the file, elsewhere it is skipped with that message.
 */
import { describe, expect, it } from 'vitest';
import { postgresVariant } from '../broken/index.ts';
import type { PostgresVariant } from '../broken/index.ts';
import { postgresMissing, postgresRequired } from '../postgresEnv.ts';
import { postgresConcurrentFactory } from './postgresConcurrent.ts';
import {
  CONTENTION_CONFIG as config,
  claimContention,
  contentionProblems,
  twoLaneClaimProblems,
} from './laneContention.ts';

const missing = postgresMissing();
const claimWithoutLocks = postgresVariant('pg-claim-without-locks') as PostgresVariant;

if (missing !== undefined && postgresRequired()) {
  describe('PostgreSQL lanes in CI', () => {
    it('has a server (the PostgreSQL tests never skip in CI)', () => {
      expect.fail(`${missing}; .ci/run wraps the tests in scripts/pg.sh`);
    });
  });
}

describe.skipIf(missing !== undefined)(
  `the PostgreSQL store behind concurrent lanes (a connection per lane)${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    it('gives two lanes claiming in the same round distinct jobs, held by the lane that was told so', async () => {
      expect(await twoLaneClaimProblems(postgresConcurrentFactory())).toEqual([]);
    }, 30_000);

    it('delivers one ready job once when eight lanes claim it at once, and answers the others with no job', async () => {
      expect(contentionProblems(await claimContention(postgresConcurrentFactory(), 8, 6))).toEqual([]);
    }, 30_000);

    it('shows the claim without row locks as a double delivery (or a store-error reply) under the same contention', async () => {
      const r = await claimContention(postgresConcurrentFactory({ Store: claimWithoutLocks.Store }), 8, 6);
      const departures = r.deliveries.filter((d) => d > 1).length + r.errors.length;
      expect(departures).toBeGreaterThan(0);
      expect(contentionProblems(r)).not.toEqual([]);
    }, 30_000);

    it('refuses a lane out of range with a typed error naming it', async () => {
      const adapter = await postgresConcurrentFactory()(config, { workers: 1 });
      try {
        await expect(adapter.execute(-1, { type: 'tick', now: 0 })).rejects.toMatchObject({
          code: 'bad_lane',
          message: expect.stringContaining('lane -1'),
        });
      } finally {
        await adapter.close();
      }
    }, 30_000);
  },
);
