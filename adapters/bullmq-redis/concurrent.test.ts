/**
 * Competing workers against BullMQ on a real Redis server (BullmqRedisConcurrentAdapter), each lane
 * its own connections: what BullMQ does with the old holder's ack after its lock ran out and
 * another lane took the job (refused by its lock check) and with the old holder's commit (applied:
 * BullMQ has no fence for a worker's own writes), and a short concurrent campaign of four lanes
 * that ends in a verdict and leaves no key of any instance behind. Needs a server
 * (JOBCHECK_REDIS_URL; `bash scripts/brokers.sh redis -- npx vitest run
 * adapters/bullmq-redis/concurrent.test.ts` starts one): in CI a missing server fails the file,
 * elsewhere it is skipped with that message.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { closingFactory } from '../closingFactory.ts';
import { runConcurrentCampaign } from '../../conformance/concurrent/campaign.ts';
import type { Config, Reply } from '../../contract/index.ts';
import { bullmqRedisConcurrentFactory, redisConnection } from './adapter.ts';
import type { BullmqRedisConcurrentAdapter } from './adapter.ts';
import { BULLMQ_REDIS_VERSION, createConcurrentAdapter } from './profile.ts';
import { redisMissing, redisRequired, redisUrl } from './redisEnv.ts';

const missing = redisMissing();
const CONFIG: Config = { capacity: 4, maxAttempts: 3, leaseTicks: 2, backoffBase: 1, backoffCap: 4 };
const SUBMIT = { type: 'submit', id: 'a', account: 'x', key: 'k', amount: 3, deadline: 99 } as const;

/** The delivery of a successful claim reply (fails the test otherwise). */
function delivery(reply: Reply): { token: number; attempt: number } {
  if (!(reply.ok && reply.type === 'claim' && reply.job !== null))
    throw new Error(`expected a delivery, got ${JSON.stringify(reply)}`);
  return reply.job;
}

if (missing !== undefined && redisRequired()) {
  describe('BullMQ on Redis in CI', () => {
    it('has a server (the Redis tests never skip in CI)', () => {
      expect.fail(`${missing}; CI wraps the tests in scripts/brokers.sh`);
    });
  });
}

describe.skipIf(missing !== undefined)(
  `competing workers on BullMQ ${BULLMQ_REDIS_VERSION} (Redis)${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    it("refuses the old holder's ack after its lock ran out and another lane took the job, but applies its commit", async () => {
      const q = await bullmqRedisConcurrentFactory(BULLMQ_REDIS_VERSION)(CONFIG, { workers: 2 });
      try {
        const lease = CONFIG.leaseTicks;
        await q.execute(0, { ...SUBMIT, now: 0 });
        const first = delivery(await q.execute(0, { type: 'claim', worker: 'w1', now: 0 }));
        // The lock key has expired on Redis's clock by tick `lease`, and the stalled checker put the job back.
        const second = delivery(await q.execute(1, { type: 'claim', worker: 'w2', now: lease }));
        expect(second).toMatchObject({ token: 2, attempt: 2 });
        // BullMQ's finish script compares the lock key's value with w1's lock token: refused.
        expect(await q.execute(0, { type: 'ack', worker: 'w1', token: first.token, now: lease })).toMatchObject({
          ok: false,
          code: 'stale_token',
        });
        // A commit is the worker's own write, which BullMQ does not fence: applied (the contract refuses it).
        expect(await q.execute(0, { type: 'commit', worker: 'w1', token: first.token, now: lease })).toMatchObject({
          ok: true,
          applied: true,
        });
        expect((await q.snapshot()).jobs['a']).toMatchObject({ status: 'running', token: 2, owner: 'w2' });
      } finally {
        await q.close();
      }
    }, 20_000);

    it('runs a concurrent campaign of four lanes to a verdict and leaves no key of any instance', async () => {
      const { factory, made } = closingFactory<BullmqRedisConcurrentAdapter>(createConcurrentAdapter);
      const result = await runConcurrentCampaign({ factory, workers: 4, numRuns: 3, maxRounds: 3, seed: 1 });
      // The plain model knows none of BullMQ's declarations, so any verdict will do; an
      // implementation error (a crash, a hang, a missing snapshot) will not.
      // Three short runs on a wall clock may hold no two requests in flight together (seed 3 on NATS: 13
      // requests, none overlapping): not_exercised is then the honest verdict, never a pass.
      expect(['passed', 'failed', 'unknown', 'not_exercised']).toContain(result.verdict);
      expect(result.failure?.kind ?? 'none').not.toBe('impl_error');
      expect(made.length).toBeGreaterThan(0);
      expect(made.filter((m) => !m.closed)).toEqual([]);
      const redis = new Redis(redisConnection(redisUrl() as string));
      try {
        const left: string[] = [];
        for (const m of made) left.push(...(await redis.keys(`${m.adapter.broker.prefix}:*`)));
        expect(left).toEqual([]);
      } finally {
        redis.disconnect();
      }
    }, 60_000);
  },
);
