/**
 * Competing workers against pg-boss on a real server (PgBossConcurrentAdapter), each lane a
 * pg-boss instance and a pool of its own on one schema: what pg-boss does with the old holder's ack
 * after its lease ran out and another lane took the job (refused by its fence), and a short
 * concurrent campaign of three lanes that ends in a verdict and leaves no schema behind. Needs a
 * server (PGHOST; `bash scripts/pg.sh npx vitest run adapters/pg-boss/concurrent.test.ts`): in CI
 * a missing server fails the file, elsewhere it is skipped with that message.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { runConcurrentCampaign } from '../../conformance/concurrent/campaign.ts';
import { postgresMissing, postgresRequired } from '../../conformance/postgresEnv.ts';
import type { Config, Reply } from '../../contract/index.ts';
import { closingFactory } from '../closingFactory.ts';
import { pgBossConcurrentFactory } from './concurrent.ts';
import type { PgBossConcurrentAdapter } from './concurrent.ts';

const missing = postgresMissing();
const CONFIG: Config = { capacity: 4, maxAttempts: 3, leaseTicks: 2, backoffBase: 1, backoffCap: 1 };
const SUBMIT = { type: 'submit', id: 'a', account: 'x', key: 'k', amount: 3, deadline: 99 } as const;

/** The delivery of a successful claim reply (fails the test otherwise). */
function delivery(reply: Reply): { token: number; attempt: number } {
  if (!(reply.ok && reply.type === 'claim' && reply.job !== null))
    throw new Error(`expected a delivery, got ${JSON.stringify(reply)}`);
  return reply.job;
}

if (missing !== undefined && postgresRequired()) {
  describe('PostgreSQL in CI', () => {
    it('has a server (the PostgreSQL tests never skip in CI)', () => {
      expect.fail(`${missing}; .ci/run wraps the tests in scripts/pg.sh`);
    });
  });
}

describe.skipIf(missing !== undefined)(
  `competing workers on pg-boss${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    it("refuses the old holder's ack after its lease ran out and another lane took the job", async () => {
      const q = await pgBossConcurrentFactory()(CONFIG, { workers: 2 });
      try {
        await q.execute(0, { ...SUBMIT, now: 0 });
        const first = delivery(await q.execute(1, { type: 'claim', worker: 'w2', now: 0 }));
        // pg-boss expires a lease strictly after it ends, then waits the retry delay (jittered up to twice).
        await q.execute(1, { type: 'tick', now: CONFIG.leaseTicks + 1 });
        const later = CONFIG.leaseTicks + 1 + 2 * CONFIG.backoffCap;
        const second = delivery(await q.execute(0, { type: 'claim', worker: 'w1', now: later }));
        expect(second).toMatchObject({ token: 2, attempt: 2 });
        expect(await q.execute(1, { type: 'ack', worker: 'w2', token: first.token, now: later })).toMatchObject({
          ok: false,
          code: 'stale_token',
        });
        expect((await q.snapshot()).jobs['a']).toMatchObject({ status: 'running', token: 2, owner: 'w1' });
      } finally {
        await q.close();
      }
    }, 30_000);

    it('runs a concurrent campaign of three lanes to a verdict and leaves no schema of any instance', async () => {
      const { factory, made } = closingFactory<PgBossConcurrentAdapter>(pgBossConcurrentFactory());
      const result = await runConcurrentCampaign({ factory, workers: 3, numRuns: 3, maxRounds: 3, seed: 1 });
      // The plain model knows none of pg-boss's declarations, so any verdict will do; an
      // implementation error (a crash, a hang, a missing snapshot) will not.
      expect(['passed', 'failed', 'unknown', 'not_exercised']).toContain(result.verdict);
      expect(result.failure?.kind ?? 'none').not.toBe('impl_error');
      expect(made.length).toBeGreaterThan(0);
      expect(made.filter((m) => !m.closed)).toEqual([]);
      const client = new pg.Client();
      await client.connect();
      try {
        const schemas = made.map((m) => m.adapter.lanes[0]?.schema);
        const { rows } = await client.query('SELECT nspname FROM pg_namespace WHERE nspname = ANY($1)', [schemas]);
        expect(rows).toEqual([]);
      } finally {
        await client.end();
      }
    }, 90_000);
  },
);
