/**
 * Competing workers against BullMQ's PostgreSQL backend on a real server
 * (BullmqPostgresConcurrentAdapter), each lane BullMQ's clients and a pool of its own on one
 * schema: what BullMQ does with the old holder's ack after its lock ran out and another lane took
 * the job (refused by its lock check) and with its commit (applied: BullMQ has no fence for a
 * worker's own writes), and a short concurrent campaign of three lanes that ends in a verdict and
 * leaves no schema behind. Needs a server (PGHOST; `bash scripts/pg.sh npx vitest run
 * adapters/bullmq-postgres/concurrent.test.ts`): in CI a missing server fails the file, elsewhere
 * it is skipped with that message.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { runConcurrentCampaign } from '../../conformance/concurrent/campaign.ts';
import { postgresMissing, postgresRequired } from '../../conformance/postgresEnv.ts';
import type { Config, Reply } from '../../contract/index.ts';
import { closingFactory } from '../closingFactory.ts';
import { bullmqPostgresConcurrentFactory } from './concurrent.ts';
import type { BullmqPostgresConcurrentAdapter } from './concurrent.ts';
import { BULLMQ_VERSION } from './profile.ts';

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
  `competing workers on BullMQ ${BULLMQ_VERSION} (PostgreSQL)${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    it("refuses the old holder's ack after its lock ran out and another lane took the job, but applies its commit", async () => {
      const q = await bullmqPostgresConcurrentFactory(BULLMQ_VERSION)(CONFIG, { workers: 2 });
      try {
        const lease = CONFIG.leaseTicks + 1;
        await q.execute(0, { ...SUBMIT, now: 0 });
        const first = delivery(await q.execute(1, { type: 'claim', worker: 'w2', now: 0 }));
        // BullMQ's sweep is two-phase: a pass marks the active job, a later one (after its lock) puts it back.
        await q.execute(1, { type: 'tick', now: 1 });
        const second = delivery(await q.execute(0, { type: 'claim', worker: 'w1', now: lease }));
        expect(second).toMatchObject({ token: 2, attempt: 2 });
        // BullMQ's finish compares the row's lock token with w2's: refused.
        expect(await q.execute(1, { type: 'ack', worker: 'w2', token: first.token, now: lease })).toMatchObject({
          ok: false,
          code: 'stale_token',
        });
        // A commit is the worker's own write, which BullMQ does not fence: applied (the contract refuses it).
        expect(await q.execute(1, { type: 'commit', worker: 'w2', token: first.token, now: lease })).toMatchObject({
          ok: true,
          applied: true,
        });
        expect((await q.snapshot()).jobs['a']).toMatchObject({ status: 'running', token: 2, owner: 'w1' });
      } finally {
        await q.close();
      }
    }, 30_000);

    it('runs a concurrent campaign of three lanes to a verdict and leaves no schema of any instance', async () => {
      const { factory, made } = closingFactory<BullmqPostgresConcurrentAdapter>(
        bullmqPostgresConcurrentFactory(BULLMQ_VERSION),
      );
      const result = await runConcurrentCampaign({ factory, workers: 3, numRuns: 3, maxRounds: 3, seed: 1 });
      // The plain model knows none of BullMQ's declarations, so any verdict will do; an
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
