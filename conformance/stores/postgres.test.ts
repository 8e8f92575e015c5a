/**
 * impl/postgres's PostgresStore against the reference model: every fixture story, the path suite
 * and a campaign in process (restarts through a snapshot into a new schema, and reopening the same
 * schema through a new pool), strings and integers at the contract's edges, and competing worker
 * lanes on one schema; then the check over the protocol (`jobcheck serve --store postgres:<socket
 * folder>`), where the harness also crash-restarts it (SIGKILL, a new process resuming the schema). The exploration phase of `runCheck` is left out (`noExplore`): it makes
 * thousands of stores, each a schema of its own, and would take minutes here. Needs a server (PGHOST; `npm run pg` starts one): in CI a missing server
 * fails the file, elsewhere it is skipped with that message.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCheck } from '../check/index.ts';
import type { CheckFailure } from '../check/index.ts';
import { PostgresStore, postgresPool } from '../../impl/postgres/index.ts';
import { postgresFactory } from './postgres.ts';
import { postgresMissing, postgresRequired } from '../postgresEnv.ts';
import { processAdapterFactory } from '../protocol/index.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const missing = postgresMissing();
/** What went wrong, for a failing test's message: a run's divergence, or a fixture's result. */
const detailOf = (f: CheckFailure): unknown =>
  f.kind === 'divergence' ? f.run.divergence : f.kind === 'fixture' ? f.fixture.result : undefined;
const failureOf = (report: Awaited<ReturnType<typeof runCheck>>): string | null =>
  report.failure === null
    ? null
    : `${report.failure.source} ${report.failure.name}: ${JSON.stringify(detailOf(report.failure))}`;

if (missing !== undefined && postgresRequired()) {
  describe('PostgreSQL in CI', () => {
    it('has a server (the PostgreSQL tests never skip in CI)', () => {
      expect.fail(`${missing}; .ci/run wraps the tests in scripts/pg.sh`);
    });
  });
}

describe.skipIf(missing !== undefined)(
  `PostgresStore in process${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    // Seed 1 finds every bug of the broken catalogue by its 16th run (bench/firstFound.ts): 150
    // runs keep a margin of nine times that. Three stores at once: a run waits on round trips.
    it('passes every fixture, the path suite and a 150-run campaign, restarting through a snapshot into a new schema', async () => {
      const report = await runCheck(
        { factory: postgresFactory() },
        { runs: 150, seed: 1, noExplore: true, parallel: 3 },
      );
      expect(failureOf(report)).toBeNull();
      expect(report.verdict).toBe('agree');
      expect(report.fixtures.length).toBeGreaterThan(0);
      const pool = postgresPool('', { max: 1 });
      try {
        // Every store's schema is dropped when its adapter closes.
        const left = await pool.query("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'jobcheck\\_%'");
        expect(left.rows).toEqual([]);
      } finally {
        await pool.end();
      }
    }, 240_000);

    it('passes them reopening the same schema through a new pool at every restart (the durable restart)', async () => {
      // Seed 2 finds the catalogue's restart bugs (restart-resets-tokens, restart-forgets-ledger) by
      // its 10th run: 40 runs keep a margin of four times that.
      const report = await runCheck(
        { factory: postgresFactory({ restart: 'reopen' }) },
        { runs: 40, seed: 2, noExplore: true, parallel: 3 },
      );
      expect(failureOf(report)).toBeNull();
      expect(report.verdict).toBe('agree');
    }, 60_000);

    it('keeps lone surrogates, paired ones and integers up to 2^53 - 1 exactly, through a restore and a reopen', async () => {
      const pool = postgresPool('', { max: 2 });
      const big = Number.MAX_SAFE_INTEGER;
      const config = { capacity: 3, maxAttempts: 2, leaseTicks: big, backoffBase: 1, backoffCap: 1 };
      const store = await PostgresStore.create(pool, config);
      try {
        for (const [id, account] of [
          ['\ud800', 'a\udfff'],
          ['\ud83d\ude00', 'a\udfff'],
          ['plain', '\u00ff'],
        ]) {
          expect(
            await store.execute({
              type: 'submit',
              id,
              account,
              key: '\udc00k',
              amount: 2 ** 40,
              deadline: big,
              now: 2 ** 52,
            }),
          ).toMatchObject({ ok: true });
        }
        expect(await store.execute({ type: 'claim', worker: 'w\ud800', now: 2 ** 52 })).toMatchObject({
          ok: true,
          job: { id: '\ud800', leaseUntil: big },
        });
        const before = await store.snapshot();
        expect(Object.keys(before.jobs)).toEqual(['\ud800', '\ud83d\ude00', 'plain']);
        const restored = await PostgresStore.restore(pool, JSON.parse(JSON.stringify(before)));
        expect(await restored.snapshot()).toEqual(before);
        const reopened = await PostgresStore.open(pool, restored.schema);
        expect(await reopened.snapshot()).toEqual(before);
        await restored.drop();
      } finally {
        await store.drop();
        await pool.end();
      }
    });

    it('hands every token out once and keeps the per-account head rule with 8 lanes, each its own connection, on one schema', async () => {
      const pool = postgresPool('', { max: 8 });
      const store = await PostgresStore.create(pool, {
        capacity: 1000,
        maxAttempts: 3,
        leaseTicks: 1_000_000,
        backoffBase: 1,
        backoffCap: 1,
      });
      try {
        for (let i = 0; i < 40; i++)
          await store.execute({
            type: 'submit',
            id: `j${i}`,
            account: `a${i % 5}`,
            key: `k${i}`,
            amount: 1,
            deadline: 1_000_000,
            now: 0,
          });
        const lane = async (worker: string): Promise<string[]> => {
          const got: string[] = [];
          for (;;) {
            const r = await store.execute({ type: 'claim', worker, now: 0 });
            if (!r.ok || r.type !== 'claim') throw new Error(JSON.stringify(r));
            if (r.job === null) {
              if (
                (await store.snapshot()).jobs &&
                Object.values((await store.snapshot()).jobs).every((j) => j.status === 'done')
              )
                return got;
              await new Promise((resolve) => setTimeout(resolve, 2));
              continue;
            }
            // While this lane holds the job, no other lane may hold another job of its account.
            const running = Object.values((await store.snapshot()).jobs).filter(
              (j) => j.status === 'running' && j.payload.account === r.job?.payload.account,
            );
            expect(running.length).toBe(1);
            expect(await store.execute({ type: 'commit', worker, token: r.job.token, now: 0 })).toMatchObject({
              ok: true,
              applied: true,
            });
            expect(await store.execute({ type: 'ack', worker, token: r.job.token, now: 0 })).toMatchObject({
              ok: true,
            });
            got.push(r.job.id);
          }
        };
        const results = await Promise.all(Array.from({ length: 8 }, (_, i) => lane(`w${i}`)));
        const ids = results.flat();
        expect(ids.length).toBe(40);
        expect(new Set(ids).size).toBe(40);
        const end = await store.snapshot();
        expect(end.nextToken).toBe(41);
        expect(Object.values(end.balances).reduce((a, b) => a + b, 0)).toBe(40);
      } finally {
        await store.drop();
        await pool.end();
      }
    }, 30_000);
  },
);

describe.skipIf(missing !== undefined)(
  `PostgresStore over the protocol${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    it('agrees with the model through `jobcheck serve --store postgres:<socket folder>`, with crash restarts in the campaign', async () => {
      const command = `"${process.execPath}" bin/jobcheck.js serve --store postgres:${process.env['PGHOST'] ?? ''}`;
      const factory = processAdapterFactory(command, { spares: 1, cwd: ROOT });
      try {
        const report = await runCheck(
          {
            factory,
            warmFactory: factory.warm,
            campaignFactory: factory.crash,
            parallel: 2,
            restarts: () => factory.restarts,
          },
          { runs: 12, seed: 3, noExplore: true },
        );
        expect(failureOf(report)).toBeNull();
        expect(report.verdict).toBe('agree');
        expect(report.phases.restarts?.crash ?? 0).toBeGreaterThan(0);
      } finally {
        await factory.close();
      }
    }, 60_000);
  },
);
