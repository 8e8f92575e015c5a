/**
 * The Redis Streams adapter on a real server, on the wall clock, against the reference model:
 * the old holder's XACK after XAUTOCLAIM gave the entry to another worker is accepted (a departure
 * from stale-token-refused that replays 3 times of 3, and across lanes the new holder's ack then
 * finds nothing pending); a repeated submit is a new entry (duplicate-submit-accepted departs);
 * the claim loop dead-letters an entry past its last delivery; a restart keeps every entry and
 * close leaves no key. Slow (100 ms ticks): in SLOW_TESTS. Needs a server (JOBCHECK_REDIS_URL;
 * `bash scripts/brokers.sh redis -- npx vitest run <this file>` starts one): in CI a missing
 * server fails the file, elsewhere it is skipped with that message.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { Config } from '../../contract/index.ts';
import { RULE_IDS } from '../../contract/rules.ts';
import { exercisedRules, runLockstepDetailed } from '../../conformance/lockstep/index.ts';
import type { ScriptStep } from '../../conformance/lockstep/symbolic.ts';
import { attributeDivergence } from '../../conformance/profile/attribution.ts';
import { redisMissing, redisRequired, redisUrl } from '../bullmq-redis/redisEnv.ts';
import { KEY_PREFIX, redisStreamsConcurrentFactory, redisStreamsFactory, streamsConnection } from './adapter.ts';
import type { RedisStreamsAdapter } from './adapter.ts';
import { profileTarget } from './profile.ts';

const missing = redisMissing();
const CONFIG: Config = { capacity: 4, maxAttempts: 2, leaseTicks: 2, backoffBase: 1, backoffCap: 4 };
const submit = (id: string, now: number, amount = 7): ScriptStep => ({
  do: { type: 'submit', id, account: 'alice', key: `${id}:k`, amount, deadline: 100, now },
});

/** Runs `script` 3 times and returns the rule each departure is filed under. */
async function departures(script: ScriptStep[]): Promise<string[]> {
  const rules: string[] = [];
  for (let i = 0; i < 3; i++) {
    const run = await runLockstepDetailed(CONFIG, script, redisStreamsFactory());
    const d = run.result.divergence;
    if (d === null) continue;
    const reply = run.result.steps[d.step - 1]?.implReply;
    rules.push(String(attributeDivergence(d, run.diverging, exercisedRules(run)[d.step - 1] ?? [], reply)));
  }
  return rules;
}

describe('the Redis Streams profile target', () => {
  it('runs on the wall clock and declares only rules of the contract, each with a reason', () => {
    expect(profileTarget.clock).toMatchObject({ kind: 'wall', tickMs: 100 });
    for (const [rule, declaration] of Object.entries(profileTarget.declarations)) {
      expect(RULE_IDS).toContain(rule);
      expect(declaration?.why.length).toBeGreaterThan(20);
    }
    expect(() => streamsConnection('redis://example.org:6379')).toThrow(/loopback/);
  });
});

if (missing !== undefined && redisRequired()) {
  describe('Redis Streams in CI', () => {
    it('has a server (the Redis tests never skip in CI)', () => {
      expect.fail(`${missing}; CI wraps the tests in scripts/brokers.sh`);
    });
  });
}

describe.skipIf(missing !== undefined)(`Redis Streams${missing === undefined ? '' : ` (skipped: ${missing})`}`, () => {
  it("departs on stale-token-refused 3 times of 3: the old holder's XACK settles the entry XAUTOCLAIM gave to w2", async () => {
    const script: ScriptStep[] = [
      submit('a', 0),
      { do: { type: 'claim', worker: 'w1', now: 0 } },
      { do: { type: 'claim', worker: 'w2', now: 3 } },
      { do: { type: 'ack', worker: 'w1', token: 1, now: 3 } },
    ];
    expect(await departures(script)).toEqual(['stale-token-refused', 'stale-token-refused', 'stale-token-refused']);
  }, 20_000);

  it('departs on duplicate-submit-accepted: a repeated submit is a new entry with a new admission number', async () => {
    const run = await runLockstepDetailed(CONFIG, [submit('a', 0), submit('a', 0)], redisStreamsFactory());
    expect(run.result.steps[1]?.implReply).toEqual({ ok: true, type: 'submit', id: 'a', seq: 2, duplicate: false });
    expect(await departures([submit('a', 0), submit('a', 0)])).toContain('duplicate-submit-accepted');
  }, 20_000);

  it("across lanes: w1's late XACK is accepted, w2's ack of its own delivery then finds nothing pending", async () => {
    const q = await redisStreamsConcurrentFactory()(CONFIG, { workers: 2 });
    try {
      await q.execute(0, { type: 'submit', id: 'a', account: 'x', key: 'k', amount: 3, deadline: 99, now: 0 });
      expect(await q.execute(0, { type: 'claim', worker: 'w1', now: 0 })).toMatchObject({ job: { token: 1 } });
      expect(await q.execute(1, { type: 'claim', worker: 'w2', now: 3 })).toMatchObject({
        job: { id: 'a', token: 2, attempt: 2 },
      });
      expect((await q.snapshot()).jobs['a']).toMatchObject({ status: 'running', owner: 'w2', token: 2 });
      expect(await q.execute(0, { type: 'ack', worker: 'w1', token: 1, now: 3 })).toEqual({
        ok: true,
        type: 'ack',
        id: 'a',
      });
      expect(await q.execute(1, { type: 'ack', worker: 'w2', token: 2, now: 3 })).toMatchObject({
        ok: false,
        code: 'stale_token',
      });
      expect((await q.snapshot()).jobs['a']).toMatchObject({ status: 'done', attempts: 2 });
    } finally {
      await q.close();
    }
  }, 20_000);

  it('dead-letters an entry past its last delivery in the claim loop, and a permanent fail in the worker', async () => {
    const q = await redisStreamsFactory()({ ...CONFIG, maxAttempts: 1 });
    try {
      await q.execute({ type: 'submit', id: 'a', account: 'x', key: 'k', amount: 3, deadline: 99, now: 0 });
      await q.execute({ type: 'submit', id: 'b', account: 'y', key: 'k', amount: 3, deadline: 99, now: 0 });
      await q.execute({ type: 'claim', worker: 'w1', now: 0 });
      // Expired on its only delivery: still pending (and claimable) until a claim loop runs.
      await q.execute({ type: 'tick', now: 3 });
      expect((await q.snapshot()).jobs['a']).toMatchObject({ status: 'ready', attempts: 1 });
      expect(await q.execute({ type: 'claim', worker: 'w2', now: 3 })).toMatchObject({ job: { id: 'b', token: 2 } });
      expect(await q.execute({ type: 'fail', worker: 'w2', token: 2, kind: 'permanent', error: 'e', now: 3 })).toEqual({
        ok: true,
        type: 'fail',
        id: 'b',
        status: 'dead',
        reason: 'permanent',
      });
      const jobs = (await q.snapshot()).jobs;
      expect(jobs['a']).toMatchObject({ status: 'dead', reason: 'lease_expired', attempts: 1 });
      expect(jobs['b']).toMatchObject({ status: 'dead', reason: 'permanent', lastError: 'e' });
    } finally {
      await q.close();
    }
  }, 20_000);

  it('keeps every entry across a restart, deletes its keys when it closes, and closing twice is harmless', async () => {
    const q = (await redisStreamsFactory()(CONFIG)) as RedisStreamsAdapter;
    await q.execute({ type: 'submit', id: 'a', account: 'x', key: 'k', amount: 1, deadline: 10, now: 0 });
    await q.execute({ type: 'claim', worker: 'w1', now: 0 });
    await q.execute({ type: 'submit', id: 'b', account: 'x', key: 'k2', amount: 1, deadline: 10, now: 0 });
    await q.restart();
    expect((await q.snapshot()).jobs).toMatchObject({
      a: { status: 'running', token: 1, owner: 'w1' },
      b: { status: 'ready', attempts: 0 },
    });
    const prefix = q.broker.prefix;
    expect(prefix.startsWith(KEY_PREFIX)).toBe(true);
    await q.close();
    await q.close();
    const redis = new Redis({ ...streamsConnection(redisUrl() ?? ''), lazyConnect: false });
    try {
      expect(await redis.keys(`${prefix}:*`)).toEqual([]);
    } finally {
      redis.disconnect();
    }
  }, 20_000);
});
