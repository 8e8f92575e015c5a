/**
 * The BullMQ-on-Redis adapter on a real server, in wall-clock mode, against the reference model:
 * short generated lockstep runs (restarts included) that must end at their end or at a departure
 * of BullMQ, never at an adapter error; the clean-up of close (no key of the adapter left); and
 * competing workers on lanes of their own connections, with the stale acknowledgement (the old
 * holder's ack after BullMQ gave the job to another lane) refused by BullMQ's own lock check.
 * Slow (wall-clock ticks of 150 ms): in SLOW_TESTS. Needs a server (JOBCHECK_REDIS_URL;
 * `bash scripts/brokers.sh redis -- npx vitest run <this file>` starts one): in CI a missing server
 * fails the file, elsewhere it is skipped with that message.
 */
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { Config } from '../../contract/index.ts';
import { runLockstep } from '../../conformance/lockstep/index.ts';
import { scenarioArb } from '../../conformance/random/arbitraries.ts';
import { KEY_PREFIX, bullmqRedisConcurrentFactory, bullmqRedisFactory, redisConnection } from './adapter.ts';
import { BULLMQ_REDIS_VERSION } from './profile.ts';
import { redisMissing, redisRequired, redisUrl } from './redisEnv.ts';

const missing = redisMissing();
const CONFIG: Config = { capacity: 4, maxAttempts: 3, leaseTicks: 2, backoffBase: 1, backoffCap: 4 };

if (missing !== undefined && redisRequired()) {
  describe('BullMQ on Redis in CI', () => {
    it('has a server (the Redis tests never skip in CI)', () => {
      expect.fail(`${missing}; CI wraps the tests in scripts/brokers.sh`);
    });
  });
}

describe.skipIf(missing !== undefined)(
  `the BullMQ ${BULLMQ_REDIS_VERSION} adapter on Redis${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    it('runs generated lockstep runs, restarts included, to their end or to a departure of BullMQ, never to an adapter error', async () => {
      const factory = bullmqRedisFactory(BULLMQ_REDIS_VERSION);
      const scenarios = fc.sample(scenarioArb({ maxCommands: 12 }), { seed: 42, numRuns: 6 });
      for (const scenario of scenarios) {
        const result = await runLockstep(scenario.config, scenario.commands, factory);
        expect(result.divergence?.kind, JSON.stringify(result.divergence)).not.toBe('impl_error');
        expect(result.divergence?.kind, JSON.stringify(result.divergence)).not.toBe('alias');
      }
      expect(scenarios.some((s) => s.commands.some((c) => c.kind === 'restart'))).toBe(true);
    }, 120_000);

    it('refuses the old holder’s ack sent while another lane claims the job again, and settles with the new holder', async () => {
      const adapter = await bullmqRedisConcurrentFactory(BULLMQ_REDIS_VERSION)(CONFIG, { workers: 2 });
      try {
        await adapter.execute(0, { type: 'submit', id: 'a', account: 'x', key: 'k', amount: 3, deadline: 99, now: 0 });
        expect(await adapter.execute(0, { type: 'claim', worker: 'w1', now: 0 })).toMatchObject({
          ok: true,
          job: { id: 'a', token: 1 },
        });
        // At leaseUntil the lock key is gone on Redis's clock: lane 1 claims while lane 0's ack is in flight.
        const [claim, staleAck] = await Promise.all([
          adapter.execute(1, { type: 'claim', worker: 'w2', now: 2 }),
          adapter.execute(0, { type: 'ack', worker: 'w1', token: 1, now: 2 }),
        ]);
        expect(staleAck).toMatchObject({ ok: false, code: 'stale_token' });
        expect(claim).toMatchObject({ ok: true, job: { id: 'a', token: 2, attempt: 2 } });
        expect(await adapter.execute(1, { type: 'ack', worker: 'w2', token: 2, now: 2 })).toEqual({
          ok: true,
          type: 'ack',
          id: 'a',
        });
        expect((await adapter.snapshot()).jobs['a']).toMatchObject({ status: 'done', attempts: 2 });
      } finally {
        await adapter.close();
      }
    }, 20_000);

    it('keeps every job as it was across a restart, deletes every key of its prefix when it closes, and closing twice is harmless', async () => {
      const adapter = await bullmqRedisFactory(BULLMQ_REDIS_VERSION)(CONFIG);
      await adapter.execute({ type: 'submit', id: 'a', account: 'x', key: 'k', amount: 1, deadline: 10, now: 0 });
      await adapter.execute({ type: 'claim', worker: 'w1', now: 0 });
      await adapter.execute({ type: 'submit', id: 'b', account: 'x', key: 'k2', amount: 1, deadline: 10, now: 0 });
      await adapter.restart();
      const after = (await adapter.snapshot()).jobs;
      expect(after['a']).toMatchObject({ status: 'running', token: 1, owner: 'w1' });
      // The restart reconnects and nothing else: the waiting job is not fetched by the new connections.
      expect(after['b']).toMatchObject({ status: 'ready', attempts: 0 });
      const prefix = (adapter as unknown as { broker: { prefix: string } }).broker.prefix;
      expect(prefix.startsWith(KEY_PREFIX)).toBe(true);
      await adapter.close();
      await adapter.close();
      const redis = new Redis(redisConnection(redisUrl() ?? ''));
      try {
        expect(await redis.keys(`${prefix}:*`)).toEqual([]);
      } finally {
        redis.disconnect();
      }
    }, 20_000);
  },
);
