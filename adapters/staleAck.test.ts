/**
 * The stale-acknowledgement question (conformance/concurrent/staleAck.ts) asked of each real
 * broker through its profile target's competing workers, as `jobcheck profile --module
 * adapters/<broker>/profile.ts --workers 4 --stale-ack` asks it: what each broker did when this
 * was written, so that a broker that changes its answer fails here. NATS JetStream takes the old
 * holder's ack as the ack of the new delivery (an ack names the stream sequence); RabbitMQ takes it
 * as the ack of whatever the old holder's new channel delivered under that tag (job b); a Redis
 * Streams XACK names the entry, so the old holder's settles the entry XAUTOCLAIM gave w2; BullMQ
 * (a lock token per fetch) and beanstalkd (a reservation per connection) refuse it. On NATS the
 * command line itself is run, and its story is the one its reproduce line names.
 *
 * Each broker's case needs its server (`bash scripts/brokers.sh all -- npx vitest run
 * adapters/staleAck.test.ts`); without one it is skipped, and with `CI` set it fails.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runStaleAck } from '../conformance/profile/concurrentProfile.ts';
import type { ProfileTarget } from '../conformance/profile/target.ts';
import { beanstalkdMissing } from './beanstalkd/beanstalkdEnv.ts';
import { redisMissing } from './bullmq-redis/redisEnv.ts';
import { natsMissing } from './nats-jetstream/natsEnv.ts';
import { amqpMissing } from './rabbitmq/amqpEnv.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const required = (process.env['CI'] ?? '') !== '';

const BROKERS = [
  {
    name: 'NATS JetStream',
    missing: natsMissing(),
    load: async (): Promise<ProfileTarget> => (await import('./nats-jetstream/profile.ts')).natsJetStreamTarget(),
    verdict: 'departs',
    told: /#7 \[\d+->\d+\] ack token=1 by w1[^\n]*\n[^\n]*-> ok \(a done\)/,
  },
  {
    name: 'RabbitMQ',
    missing: amqpMissing(),
    load: async (): Promise<ProfileTarget> => (await import('./rabbitmq/profile.ts')).rabbitmqTarget(),
    verdict: 'departs',
    told: /#7 \[\d+->\d+\] ack token=1 by w1[^\n]*\n[^\n]*-> ok \(b done\)/,
  },
  {
    name: 'BullMQ on Redis',
    missing: redisMissing(),
    load: async (): Promise<ProfileTarget> => (await import('./bullmq-redis/profile.ts')).bullmqRedisTarget(),
    verdict: 'kept',
    told: undefined,
  },
  {
    name: 'Redis Streams',
    missing: redisMissing(),
    load: async (): Promise<ProfileTarget> => (await import('./redis-streams/profile.ts')).redisStreamsTarget(),
    verdict: 'departs',
    told: /#7 \[\d+->\d+\] ack token=1 by w1[^\n]*\n[^\n]*-> ok \(a done\)/,
  },
  {
    name: 'beanstalkd',
    missing: beanstalkdMissing(),
    load: async (): Promise<ProfileTarget> => (await import('./beanstalkd/profile.ts')).beanstalkdTarget(),
    verdict: 'kept',
    told: undefined,
  },
] as const;

const opened: ProfileTarget[] = [];
afterAll(async () => {
  for (const t of opened) await t.close?.();
});

describe('the stale acknowledgement on each broker', () => {
  for (const b of BROKERS) {
    if (b.missing !== undefined && required) {
      it(`has a ${b.name} server in CI`, () => {
        expect.fail(`${b.missing}; .ci/run wraps the tests in scripts/brokers.sh`);
      });
      continue;
    }
    it.skipIf(b.missing !== undefined)(
      `${b.name}: ${b.verdict}${b.missing === undefined ? '' : ` (skipped: ${b.missing})`}`,
      async () => {
        const target = await b.load();
        opened.push(target);
        const a = await runStaleAck(target, { workers: 4, timeoutMs: 20_000 });
        expect(a?.verdict, a?.story).toBe(b.verdict);
        if (b.told !== undefined) {
          expect(a?.story).toMatch(b.told);
          // On a wall clock the story counted only after departing again on 2 of 3 fresh replays.
          expect(a?.replays?.departed).toBeGreaterThanOrEqual(2);
        }
      },
      60_000,
    );
  }

  it.skipIf(natsMissing() !== undefined)(
    "repeats NATS's story with the command line its reproduce line names",
    () => {
      const module = 'adapters/nats-jetstream/profile.ts';
      const r = spawnSync(
        process.execPath,
        ['bin/jobcheck.js', 'profile', '--module', module, '--workers', '4', '--stale-ack'],
        { cwd: root, encoding: 'utf8', timeout: 60_000 },
      );
      expect(r.status, r.stderr).toBe(1);
      expect(r.stdout).toMatch(/^stale acknowledgement: departs/);
      expect(r.stdout).toMatch(BROKERS[0].told);
      expect(r.stdout).toContain(`reproduce: npx jobcheck profile --module ${module} --workers 4 --stale-ack`);
    },
    60_000,
  );
});
