/**
 * The pg-boss adapter on a real server: the contract's replies for one job's whole life, a lease
 * expiry driven through pg-boss's test clock and maintenance pass, a durable restart, and short
 * random scenarios in lockstep with the model that must run without adapter errors. Their
 * divergences are pg-boss's departures from the contract and are reported, not fixed (see
 * README.md). Needs a server (PGHOST; `npm run pg` starts one): in CI a missing server fails the
 * file, elsewhere it is skipped with that message.
 */
import fc from 'fast-check';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Config, Reply } from '../../contract/index.ts';
import { scenarioArb } from '../../conformance/random/arbitraries.ts';
import { runLockstep } from '../../conformance/lockstep/index.ts';
import { postgresMissing, postgresRequired } from '../../conformance/postgresEnv.ts';
import { PgBossAdapter, pgBossFactory } from './adapter.ts';
import { PgBossAdapterError } from './PgBossAdapterError.ts';

const missing = postgresMissing();
const CONFIG: Config = { capacity: 2, maxAttempts: 2, leaseTicks: 5, backoffBase: 2, backoffCap: 8 };
const SUBMIT = { type: 'submit', id: 'a', account: 'alice', key: 'a:k', amount: 7, deadline: 100 } as const;
const PAYLOAD = { account: 'alice', key: 'a:k', amount: 7, deadline: 100 };

/** The token of a successful claim reply (fails the test otherwise). */
function tokenOf(reply: Reply): number {
  if (!(reply.ok && reply.type === 'claim' && reply.job !== null))
    throw new Error(`expected a delivery, got ${JSON.stringify(reply)}`);
  return reply.job.token;
}

if (missing !== undefined && postgresRequired()) {
  describe('PostgreSQL in CI', () => {
    it('has a server (the PostgreSQL tests never skip in CI)', () => {
      expect.fail(`${missing}; .ci/run wraps the tests in scripts/pg.sh`);
    });
  });
}

describe.skipIf(missing !== undefined)(
  `the pg-boss adapter${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    it('gives the contract replies for submit, claim, commit and ack of one job, and snapshots it done', async () => {
      const adapter = await PgBossAdapter.create(CONFIG);
      try {
        expect(await adapter.execute({ ...SUBMIT, now: 0 })).toEqual({
          ok: true,
          type: 'submit',
          id: 'a',
          seq: 1,
          duplicate: false,
        });
        const claim = await adapter.execute({ type: 'claim', worker: 'w1', now: 1 });
        expect(claim).toEqual({
          ok: true,
          type: 'claim',
          job: { id: 'a', token: 1, attempt: 1, leaseUntil: 1 + CONFIG.leaseTicks, payload: PAYLOAD },
        });
        const running = (await adapter.snapshot()).jobs['a'];
        expect(running).toEqual({
          payload: PAYLOAD,
          seq: 1,
          status: 'running',
          attempts: 1,
          token: 1,
          owner: 'w1',
          leaseUntil: 1 + CONFIG.leaseTicks,
        });
        expect(await adapter.execute({ type: 'commit', worker: 'w1', token: 1, now: 2 })).toEqual({
          ok: true,
          type: 'commit',
          id: 'a',
          applied: true,
          balance: 7,
        });
        expect(await adapter.execute({ type: 'commit', worker: 'w1', token: 1, now: 2 })).toEqual({
          ok: true,
          type: 'commit',
          id: 'a',
          applied: false,
          balance: 7,
        });
        expect(await adapter.execute({ type: 'ack', worker: 'w1', token: 1, now: 3 })).toEqual({
          ok: true,
          type: 'ack',
          id: 'a',
        });
        expect(await adapter.execute({ type: 'ack', worker: 'w1', token: 1, now: 3 })).toMatchObject({
          ok: false,
          code: 'stale_token',
        });
        const snapshot = await adapter.snapshot();
        expect(snapshot).toEqual({
          format: 'jobcheck.snapshot/1',
          config: CONFIG,
          clock: 3,
          nextToken: 2,
          nextSeq: 2,
          jobs: { a: { payload: PAYLOAD, seq: 1, status: 'done', attempts: 1 } },
          balances: { alice: 7 },
          effects: { alice: { 'a:k': { amount: 7, job: 'a', token: 1 } } },
        });
        expect(await adapter.execute({ type: 'tick', now: 2 })).toMatchObject({ ok: false, code: 'clock_regressed' });
        expect(await adapter.execute({ type: 'claim', worker: '', now: 4 })).toMatchObject({
          ok: false,
          code: 'invalid_argument',
        });
      } finally {
        await adapter.close();
      }
    });

    it('makes a job claimable again with a new token once its lease has expired, and refuses the old token', async () => {
      // One attempt more than the run uses, and the smallest backoff, so the expired job is retried.
      const config: Config = { capacity: 2, maxAttempts: 3, leaseTicks: 5, backoffBase: 1, backoffCap: 1 };
      const adapter = await PgBossAdapter.create(config);
      try {
        await adapter.execute({ ...SUBMIT, now: 0 });
        const first = tokenOf(await adapter.execute({ type: 'claim', worker: 'w1', now: 0 }));
        const leaseUntil = config.leaseTicks;
        // Found by this test: pg-boss expires a lease only strictly after started_on + expireInSeconds,
        // so at now == leaseUntil the job is still active and nothing can claim it.
        expect(await adapter.execute({ type: 'claim', worker: 'w2', now: leaseUntil })).toEqual({
          ok: true,
          type: 'claim',
          job: null,
        });
        expect((await adapter.snapshot()).jobs['a']?.status).toBe('running');
        // One tick later pg-boss's maintenance pass has expired it; it waits its retry delay, then is claimable.
        await adapter.execute({ type: 'tick', now: leaseUntil + 1 });
        expect((await adapter.snapshot()).jobs['a']).toMatchObject({
          status: 'waiting',
          attempts: 1,
          lastError: 'job timed out',
        });
        const again = await adapter.execute({ type: 'claim', worker: 'w2', now: leaseUntil + 1 + config.backoffCap });
        const second = tokenOf(again);
        expect(second).not.toBe(first);
        expect(again).toMatchObject({ ok: true, job: { id: 'a', attempt: 2 } });
        expect(
          await adapter.execute({ type: 'ack', worker: 'w1', token: first, now: leaseUntil + 2 + config.backoffCap }),
        ).toMatchObject({ ok: false, code: 'stale_token' });
        expect(
          await adapter.execute({ type: 'ack', worker: 'w2', token: second, now: leaseUntil + 2 + config.backoffCap }),
        ).toEqual({ ok: true, type: 'ack', id: 'a' });
      } finally {
        await adapter.close();
      }
    });

    it('keeps a delivery and the ledger across a durable restart (a new pg-boss instance on the same schema)', async () => {
      const adapter = await PgBossAdapter.create(CONFIG);
      try {
        await adapter.execute({ ...SUBMIT, now: 0 });
        const token = tokenOf(await adapter.execute({ type: 'claim', worker: 'w1', now: 1 }));
        await adapter.execute({ type: 'commit', worker: 'w1', token, now: 1 });
        const before = await adapter.snapshot();
        await adapter.restart();
        expect(await adapter.snapshot()).toEqual(before);
        expect(await adapter.execute({ type: 'commit', worker: 'w1', token, now: 2 })).toEqual({
          ok: true,
          type: 'commit',
          id: 'a',
          applied: false,
          balance: 7,
        });
        expect(await adapter.execute({ type: 'ack', worker: 'w1', token, now: 2 })).toEqual({
          ok: true,
          type: 'ack',
          id: 'a',
        });
      } finally {
        await adapter.close();
      }
    });

    it('refuses a lease pg-boss cannot carry with a typed error naming the field and value', async () => {
      const error = await PgBossAdapter.create({ ...CONFIG, leaseTicks: 86_401 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PgBossAdapterError);
      expect(error).toMatchObject({ code: 'unsupported_config', message: expect.stringContaining('leaseTicks') });
      expect((error as Error).message).toContain('86401');
    });

    it('runs random scenarios in lockstep with the model without an adapter error, and drops every schema it made', async () => {
      // Generated as a campaign generates them (restarts and malformed commands included), run to
      // their first divergence without shrinking: pg-boss departs from the contract (README.md), so
      // divergences are expected and not asserted; an adapter error (a throw) is a defect here.
      const scenarios = fc.sample(scenarioArb({ maxCommands: 25 }), { seed: 7, numRuns: 10 });
      const kinds: string[] = [];
      // Its own schemas only: other files' instances may be open on the same server meanwhile.
      const made: string[] = [];
      const factory = async (config: Config) => {
        const adapter = await pgBossFactory()(config);
        made.push((adapter as PgBossAdapter).schema);
        return adapter;
      };
      for (const scenario of scenarios) {
        const result = await runLockstep(scenario.config, scenario.commands, factory);
        expect(result.divergence?.kind, result.divergence?.error).not.toBe('impl_error');
        kinds.push(
          result.divergence === null ? 'agree' : `${result.divergence.kind} at step ${result.divergence.step}`,
        );
      }
      if (process.env['PGBOSS_PROFILE_STORY'] !== undefined) console.log(kinds.join('\n'));
      expect(kinds).toHaveLength(scenarios.length);
      const pool = new pg.Pool({ max: 1 });
      try {
        expect(made.length).toBeGreaterThan(0);
        const left = await pool.query('SELECT nspname FROM pg_namespace WHERE nspname = ANY($1)', [made]);
        expect(left.rows).toEqual([]);
      } finally {
        await pool.end();
      }
    }, 30_000);
  },
);
