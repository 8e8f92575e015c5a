/**
 * The crash campaign of the PostgreSQL store with real kills: worker processes killed by SIGKILL
 * at every fault point of impl/faults.ts, the same schema reopened by this process, every
 * property checked (pgCrashCampaign.ts). Needs a server (PGHOST; `npm run pg` starts one): in CI
 * a missing server fails the file, elsewhere it is skipped with that message.
 */
import { describe, expect, it } from 'vitest';
import { FAULT_POINTS } from '../../impl/faults.ts';
import { postgresMissing, postgresRequired } from '../postgresEnv.ts';
import { runPostgresCrashCampaign } from './pgCrashCampaign.ts';

/** Kills of the campaign (JOBCHECK_CRASH_KILLS for more). */
const KILLS = Number(process.env['JOBCHECK_CRASH_KILLS'] ?? 12);
const missing = postgresMissing();

if (missing !== undefined && postgresRequired()) {
  describe('PostgreSQL crash campaign in CI', () => {
    it('has a server (the PostgreSQL tests never skip in CI)', () => {
      expect.fail(`${missing}; .ci/run wraps the tests in scripts/pg.sh`);
    });
  });
}

describe.skipIf(missing !== undefined)(`the PostgreSQL crash campaign${missing === undefined ? '' : ` (skipped: ${missing})`}`, () => {
  it(`finds every property intact for PostgresStore over ${KILLS} real kills at every fault point`, async () => {
    const r = await runPostgresCrashCampaign({ kills: KILLS, seed: 1 });
    expect(r.story).toBeNull();
    expect(r.kills).toBe(KILLS);
    for (const point of Object.values(FAULT_POINTS)) expect(r.byPoint[point], point).toBeGreaterThan(0);
    // Both outcomes of an interrupted command occur: killed before its commit, and after.
    const applied = r.runs.map((run) => run.applied);
    expect(applied).toContain(true);
    expect(applied).toContain(false);
  }, 60_000);
});
