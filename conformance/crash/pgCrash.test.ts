/**
 * The crash campaign of the PostgreSQL store with real kills: worker processes killed by SIGKILL
 * at every fault point of impl/faults.ts, the same schema reopened by this process, every
 * property checked (crashRun.ts, through the PostgreSQL target of pgCrashCampaign.ts). The
 * correct store passes a bounded campaign and its contention check; each broken PostgreSQL
 * variant (conformance/broken/postgres/) is caught, with seeds fixed as in crash.test.ts. Needs a
 * server (PGHOST; `npm run pg` starts one): in CI a missing server fails the file, elsewhere it is
 * skipped with that message.
 */
import { describe, expect, it } from 'vitest';
import { FAULT_POINTS } from '../../impl/faults.ts';
import { postgresMissing, postgresRequired } from '../postgresEnv.ts';
import { runPostgresCrashCampaign } from './pgCrashCampaign.ts';

/** Kills of the campaign (JOBCHECK_CRASH_KILLS for more). */
const KILLS = Number(process.env['JOBCHECK_CRASH_KILLS'] ?? 12);
const missing = postgresMissing();

const properties = (r: Awaited<ReturnType<typeof runPostgresCrashCampaign>>): string[] =>
  r.failure?.result.failures.map((f) => f.property) ?? [];

if (missing !== undefined && postgresRequired()) {
  describe('PostgreSQL crash campaign in CI', () => {
    it('has a server (the PostgreSQL tests never skip in CI)', () => {
      expect.fail(`${missing}; .ci/run wraps the tests in scripts/pg.sh`);
    });
  });
}

describe.skipIf(missing !== undefined)(
  `the PostgreSQL crash campaign${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    it(`finds every property intact for PostgresStore over ${KILLS} real kills at every fault point, and under contention`, async () => {
      const r = await runPostgresCrashCampaign({ kills: KILLS, seed: 1, contentionRounds: 40 });
      expect(r.story).toBeNull();
      expect(r.kills).toBe(KILLS);
      for (const point of Object.values(FAULT_POINTS)) expect(r.byPoint[point], point).toBeGreaterThan(0);
      // Both outcomes of an interrupted command occur: killed before its commit, and after.
      const applied = r.runs.map((run) => run.result.applied);
      expect(applied).toContain(true);
      expect(applied).toContain(false);
      expect(r.contention?.errors).toEqual([]);
      expect(r.contention?.problems).toEqual([]);
    }, 60_000);

    it('catches the effect and its ledger row written in two transactions (state, ledger, recovery)', async () => {
      const r = await runPostgresCrashCampaign({
        variant: 'pg-effect-apart-from-ledger',
        kills: 8,
        seed: 2,
        points: [FAULT_POINTS.afterCommit],
        contentionRounds: 0,
      });
      expect(r.story).toMatch(/store pg-effect-apart-from-ledger\): fault point after-commit@\d+/);
      expect(properties(r)).toEqual(expect.arrayContaining(['state', 'ledger', 'recovery']));
      expect(r.failure?.result.interrupted?.type).toBe('commit');
    }, 30_000);

    it('catches the ack written outside the token guard (state)', async () => {
      const r = await runPostgresCrashCampaign({
        variant: 'pg-ack-outside-guard',
        kills: 8,
        seed: 3,
        points: [FAULT_POINTS.afterCommit],
        contentionRounds: 0,
      });
      expect(r.story).toMatch(/store pg-ack-outside-guard\): fault point after-commit@\d+/);
      expect(properties(r)).toContain('state');
      expect(r.failure?.result.interrupted?.type).toBe('ack');
    }, 30_000);

    it('catches a claim that takes no row locks, which hands one delivery out twice under competing lanes', async () => {
      const r = await runPostgresCrashCampaign({
        variant: 'pg-claim-without-locks',
        kills: 0,
        seed: 1,
        contentionRounds: 40,
      });
      expect(r.story).toMatch(/contention \(store pg-claim-without-locks\)/);
      expect([...(r.contention?.problems ?? []), ...(r.contention?.errors ?? [])].length).toBeGreaterThan(0);
    }, 30_000);

    it('catches the one-statement claim that takes no lock, under the same competing lanes', async () => {
      const r = await runPostgresCrashCampaign({
        variant: 'pg-fast-claim-without-locks',
        kills: 0,
        seed: 1,
        contentionRounds: 20,
      });
      expect(r.story).toMatch(/contention \(store pg-fast-claim-without-locks\)/);
      expect([...(r.contention?.problems ?? []), ...(r.contention?.errors ?? [])].length).toBeGreaterThan(0);
    }, 30_000);
  },
);
