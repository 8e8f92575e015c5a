/**
 * The profile engine on the real broker, on its own clock: a rule JetStream keeps conforms, and
 * the stale acknowledgement departs and replays at least 2 times of 3. Slow (about 55 s: every
 * profile runs the fixture stories, in real time), so it is in the slow part of the suite.
 * Needs a server (JOBCHECK_NATS_URL; `bash scripts/brokers.sh nats -- npx vitest run
 * adapters/nats-jetstream/profileRun.test.ts`); in CI a missing server fails the file.
 */
import { describe, expect, it } from 'vitest';
import { runProfile } from '../../conformance/profile/runProfile.ts';
import { natsMissing, natsRequired } from './natsEnv.ts';
import { profileTarget } from './profile.ts';

const missing = natsMissing();

if (missing !== undefined && natsRequired()) {
  describe('NATS in CI', () => {
    it('has a server (the NATS tests never skip in CI)', () => {
      expect.fail(`${missing}; .ci/run wraps the tests in scripts/brokers.sh`);
    });
  });
}

describe.skipIf(missing !== undefined)(
  `a profile of NATS JetStream${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    it('finds ack-settles-done conforming and stale-token-refused departing on the real broker, the departure replayed', async () => {
      const profile = await runProfile(profileTarget, {
        runs: 2,
        seed: 1,
        rules: ['ack-settles-done', 'stale-token-refused'],
      });
      const byRule = new Map(profile.rules.map((r) => [r.rule, r]));
      expect(byRule.get('ack-settles-done')?.status).toBe('conforms');
      expect(byRule.get('stale-token-refused')?.status).toBe('departs');
      expect(byRule.get('stale-token-refused')?.replays?.departed).toBeGreaterThanOrEqual(2);
    }, 300_000);
  },
);
