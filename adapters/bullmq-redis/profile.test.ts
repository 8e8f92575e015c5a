/**
 * BullMQ on a real Redis server, in wall-clock mode, against the reference model: the short part
 * of its profile that `npm test` runs. A rule that conforms (a lock that ends on the Redis server's
 * clock makes the job claimable again through BullMQ's own stalled checker, and BullMQ's lock check
 * refuses the old holder's token), and a departure that replays on the real server (a custom jobId
 * submitted again with another payload is accepted, the new data ignored), run three times: the
 * profile counts a departure only when it replays at least 2 times of 3. The target's declarations
 * name real rules, and its clock is the wall clock with a tolerance for each timer rule. Needs a
 * server (JOBCHECK_REDIS_URL; `bash scripts/brokers.sh redis -- npx vitest run <this file>` starts
 * one): in CI a missing server fails the file, elsewhere it is skipped with that message.
 */
import { describe, expect, it } from 'vitest';
import type { Config } from '../../contract/index.ts';
import { RULE_IDS } from '../../contract/rules.ts';
import { exercisedRules, runLockstep, runLockstepDetailed } from '../../conformance/lockstep/index.ts';
import type { ScriptStep } from '../../conformance/lockstep/symbolic.ts';
import { attributeDivergence } from '../../conformance/profile/attribution.ts';
import { BullmqRedisAdapterError } from './BullmqRedisAdapterError.ts';
import { bullmqRedisFactory, redisConnection } from './adapter.ts';
import { BULLMQ_REDIS_VERSION, profileTarget } from './profile.ts';
import { redisMissing, redisRequired } from './redisEnv.ts';

const missing = redisMissing();
const factory = bullmqRedisFactory(BULLMQ_REDIS_VERSION);
const CONFIG: Config = { capacity: 4, maxAttempts: 3, leaseTicks: 2, backoffBase: 1, backoffCap: 4 };
const submit = (id: string, now: number, amount = 7): ScriptStep => ({
  do: { type: 'submit', id, account: 'alice', key: `${id}:k`, amount, deadline: 100, now },
});

describe('the BullMQ-on-Redis profile target', () => {
  it('names the installed BullMQ 6, runs on the wall clock, and declares and tolerates only rules of the contract', () => {
    expect(profileTarget.version).toMatch(/^6\.\d+\.\d+$/);
    expect(profileTarget.clock).toEqual({
      kind: 'wall',
      tickMs: 150,
      settings:
        'lockDuration (leaseTicks − ½) ticks from the claim, stalledInterval 10 ms, backoff delay backoffBase ticks (exponential)',
    });
    for (const [rule, declaration] of Object.entries(profileTarget.declarations)) {
      expect(RULE_IDS).toContain(rule);
      expect(declaration?.why.length).toBeGreaterThan(20);
    }
    for (const rule of Object.keys(profileTarget.tolerances ?? {})) expect(RULE_IDS).toContain(rule);
  });

  it('refuses a server off this machine and a config it cannot hold in milliseconds, naming why', async () => {
    expect(() => redisConnection('redis://example.org:6379')).toThrow(BullmqRedisAdapterError);
    expect(redisConnection('redis://127.0.0.1:46400/2')).toMatchObject({ host: '127.0.0.1', port: 46400, db: 2 });
    const error = await bullmqRedisFactory(BULLMQ_REDIS_VERSION, { url: 'redis://127.0.0.1:1' })({
      ...CONFIG,
      leaseTicks: Number.MAX_SAFE_INTEGER,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'unsupported_config' });
    expect((error as Error).message).toContain(`leaseTicks: ${Number.MAX_SAFE_INTEGER}`);
  });
});

if (missing !== undefined && redisRequired()) {
  describe('BullMQ on Redis in CI', () => {
    it('has a server (the Redis tests never skip in CI)', () => {
      expect.fail(`${missing}; CI wraps the tests in scripts/brokers.sh`);
    });
  });
}

describe.skipIf(missing !== undefined)(
  `BullMQ ${BULLMQ_REDIS_VERSION} on Redis, on the wall clock${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    it("conforms on stale-token-refused: a lock that ends on Redis's clock is swept back by BullMQ's checker, and the old holder's ack is refused", async () => {
      const script: ScriptStep[] = [
        submit('a', 0),
        { do: { type: 'claim', worker: 'w1', now: 0 } },
        { do: { type: 'tick', now: 1 } },
        { do: { type: 'claim', worker: 'w2', now: 2 } },
        { do: { type: 'ack', worker: 'w1', token: 1, now: 2 } },
        { do: { type: 'commit', worker: 'w2', token: 2, now: 2 } },
        { do: { type: 'ack', worker: 'w2', token: 2, now: 2 } },
      ];
      const result = await runLockstep(CONFIG, script, factory);
      expect(result.divergence).toBeNull();
      expect(result.steps[3]?.implReply).toMatchObject({ ok: true, job: { id: 'a', token: 2, attempt: 2 } });
      expect(result.steps[4]?.implReply).toMatchObject({ ok: false, code: 'stale_token' });
    }, 15_000);

    it('departs on changed-payload-conflicts, and the departure replays 3 times of 3: a known jobId with new data is accepted', async () => {
      const script: ScriptStep[] = [submit('a', 0, 7), submit('a', 0, 8)];
      const rules: string[] = [];
      for (let i = 0; i < 3; i++) {
        const run = await runLockstepDetailed(CONFIG, script, factory);
        const d = run.result.divergence;
        expect(d).toMatchObject({ step: 2, kind: 'reply' });
        const reply = run.result.steps[1]?.implReply;
        expect(reply).toEqual({ ok: true, type: 'submit', id: 'a', seq: 1, duplicate: true });
        if (d !== null) rules.push(String(attributeDivergence(d, run.diverging, exercisedRules(run)[1] ?? [], reply)));
      }
      expect(rules).toEqual(['changed-payload-conflicts', 'changed-payload-conflicts', 'changed-payload-conflicts']);
    }, 15_000);
  },
);
