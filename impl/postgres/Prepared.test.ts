/**
 * The prepared statements of impl/postgres/Prepared.ts on a connection shared by many stores (as a
 * test suite's pool is): the connection keeps those of PER_CONNECTION_MAX schemas at most, and a
 * store whose statements were deallocated to make room prepares them again before its next
 * transaction on that connection.
 *
 * Needs a server (PGHOST; `npm run pg` starts one): in CI a missing server fails the file,
 * elsewhere it is skipped with that message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PgPool } from './PgPool.ts';
import { PostgresStore } from './PostgresStore.ts';
import { PER_CONNECTION_MAX } from './Prepared.ts';
import { postgresPool } from './schema.ts';

const missing =
  (process.env['PGHOST'] ?? '') === '' ? 'no PostgreSQL server: PGHOST is not set (run `npm run pg`)' : undefined;
const config = { capacity: 10, maxAttempts: 2, leaseTicks: 5, backoffBase: 1, backoffCap: 2 };

if (missing !== undefined && (process.env['CI'] ?? '') !== '') {
  describe('PostgreSQL in CI', () => {
    it('has a server (the PostgreSQL tests never skip in CI)', () => {
      expect.fail(`${missing}; .ci/run wraps the tests in scripts/pg.sh`);
    });
  });
}

describe.skipIf(missing !== undefined)(
  `prepared statements on a shared connection${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    let pool: PgPool;
    beforeAll(() => {
      // One connection: every store below runs on it.
      pool = postgresPool('', { max: 1 });
    });
    afterAll(async () => {
      await pool.end();
    });

    /** The schemas (by their statements' names) whose statements the connection holds. */
    const preparedSchemas = async (): Promise<Set<string>> => {
      const rows = (await pool.query("SELECT name FROM pg_prepared_statements WHERE name LIKE 'jc%'")).rows as {
        name: string;
      }[];
      return new Set(rows.map((r) => r.name.slice(0, r.name.indexOf('_'))));
    };

    it(`keeps the statements of ${PER_CONNECTION_MAX} stores' schemas at most, and a store whose statements went prepares them again`, async () => {
      const stores: PostgresStore[] = [];
      try {
        for (let i = 0; i < PER_CONNECTION_MAX + 3; i++) {
          const store = await PostgresStore.create(pool, config);
          stores.push(store);
          const reply = await store.execute({
            type: 'submit',
            id: 'j',
            account: 'a',
            key: 'k',
            amount: 1,
            deadline: 100,
            now: 1,
          });
          expect(reply.ok).toBe(true);
          expect((await preparedSchemas()).size).toBeLessThanOrEqual(PER_CONNECTION_MAX);
        }
        // The first store's statements were deallocated to make room: its next command prepares them again.
        const first = stores[0] as PostgresStore;
        const claim = await first.execute({ type: 'claim', worker: 'w', now: 2 });
        expect(claim).toMatchObject({ ok: true, type: 'claim', job: { id: 'j' } });
        expect((await preparedSchemas()).size).toBeLessThanOrEqual(PER_CONNECTION_MAX);
        // And every other store still runs its commands on the connection.
        for (const store of stores.slice(1))
          expect(await store.execute({ type: 'claim', worker: 'w', now: 2 })).toMatchObject({
            ok: true,
            job: { id: 'j' },
          });
      } finally {
        for (const store of stores) await store.drop();
      }
    });
  },
);
