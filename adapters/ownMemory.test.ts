/**
 * Every adapter answers from its broker, never from its own memory (docs/declarations.md): each
 * fails jobs with texts only the worker knew, every copy of those texts reachable from the adapter
 * is overwritten (ownRecords.ts), and the next snapshot must not show an overwritten text. A broker
 * that keeps the text (BullMQ's failedReason, pg-boss's output) still shows the first one; a broker
 * that keeps none shows none.
 *
 * Each adapter needs its server: `bash scripts/brokers.sh all -- bash scripts/pg.sh npx vitest run
 * adapters/ownMemory.test.ts`. Without one its case is skipped, and with `CI` set it fails.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { postgresMissing } from '../conformance/postgresEnv.ts';
import type { ProfileTarget } from '../conformance/profile/target.ts';
import { beanstalkdMissing } from './beanstalkd/beanstalkdEnv.ts';
import { redisMissing } from './bullmq-redis/redisEnv.ts';
import { natsMissing } from './nats-jetstream/natsEnv.ts';
import { MEMORY_CONFIG, checkOwnMemory } from './ownRecords.ts';
import { amqpMissing } from './rabbitmq/amqpEnv.ts';

const required = (process.env['CI'] ?? '') !== '';

const ADAPTERS: readonly { name: string; missing: string | undefined; load: () => Promise<ProfileTarget> }[] = [
  {
    name: 'pg-boss',
    missing: postgresMissing(),
    load: async () => (await import('./pg-boss/profile.ts')).pgBossTarget(),
  },
  {
    name: 'BullMQ on PostgreSQL',
    missing: postgresMissing(),
    load: async () => (await import('./bullmq-postgres/profile.ts')).bullmqPostgresTarget(),
  },
  {
    name: 'BullMQ on Redis',
    missing: redisMissing(),
    load: async () => (await import('./bullmq-redis/profile.ts')).bullmqRedisTarget(),
  },
  {
    name: 'RabbitMQ',
    missing: amqpMissing(),
    load: async () => (await import('./rabbitmq/profile.ts')).rabbitmqTarget(),
  },
  {
    name: 'NATS JetStream',
    missing: natsMissing(),
    load: async () => (await import('./nats-jetstream/profile.ts')).natsJetStreamTarget(),
  },
  {
    name: 'beanstalkd',
    missing: beanstalkdMissing(),
    load: async () => (await import('./beanstalkd/profile.ts')).beanstalkdTarget(),
  },
];

const opened: ProfileTarget[] = [];
afterAll(async () => {
  for (const t of opened) await t.close?.();
});

describe('an adapter keeps no failure text of its own', () => {
  for (const a of ADAPTERS) {
    if (a.missing !== undefined && required) {
      it(`has a server for ${a.name} in CI`, () => {
        expect.fail(`${a.missing}; .ci/run wraps the tests in scripts/brokers.sh and scripts/pg.sh`);
      });
      continue;
    }
    it.skipIf(a.missing !== undefined)(
      `${a.name} shows a failure text only as its broker kept it${a.missing === undefined ? '' : ` (skipped: ${a.missing})`}`,
      async () => {
        const target = await a.load();
        opened.push(target);
        const adapter = await target.factory(MEMORY_CONFIG);
        try {
          const c = await checkOwnMemory(adapter);
          const where = c.rewrites.flatMap((r) => r.copies.map((copy) => copy.path));
          expect(c.rewrites.every((r) => !r.cut)).toBe(true);
          expect(c.fromMemory, `answered from the adapter's memory; copies at ${where.join(', ')}`).toEqual([]);
          expect(c.after).toEqual(c.before);
        } finally {
          await adapter.close();
        }
      },
      60_000,
    );
  }
});
