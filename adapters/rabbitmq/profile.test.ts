/**
 * RabbitMQ's short profile on a real server, on the broker's own clock: a rule it keeps (a
 * delivery committed and acknowledged is done, its effect once) and a departure that replays (an
 * ack from the old holder after consumer_timeout redelivered the message acknowledges the new
 * delivery: a delivery tag is a number per channel, and the worker's new channel numbers from 1
 * again). The departure is run twice, as a profile replays a wall-clock departure before it counts
 * it. Needs a server (JOBCHECK_AMQP_URL; `bash scripts/brokers.sh rabbitmq -- npx vitest run
 * adapters/rabbitmq` starts one): in CI a missing server fails the file, elsewhere it is skipped.
 */
import { describe, expect, it } from 'vitest';
import type { Config } from '../../contract/index.ts';
import { RULE_IDS } from '../../contract/rules.ts';
import { runLockstep } from '../../conformance/lockstep/index.ts';
import { RabbitmqAdapter, consumerTimeoutsOf, queueArguments, rabbitmqFactory } from './adapter.ts';
import { amqpMissing, amqpRequired } from './amqpEnv.ts';
import { profileTarget } from './profile.ts';
import { describeServers } from './servers.ts';

const missing = amqpMissing();
// leaseTicks 2: one tick is consumer_timeout / 2 = 400 ms.
const CONFIG: Config = { capacity: 3, maxAttempts: 3, leaseTicks: 2, backoffBase: 1, backoffCap: 4 };
const submit = (id: string, now: number) => ({
  do: { type: 'submit', id, account: 'x', key: `${id}:k`, amount: 1, deadline: 100, now },
});
const claim = (now: number, worker = 'w1') => ({ do: { type: 'claim', worker, now } });
const settle = (type: 'commit' | 'ack', token: number, now: number, worker = 'w1') => ({
  do: { type, worker, token, now },
});

describe('the RabbitMQ profile target', () => {
  it('declares only rules of the contract, each with its reason, on a wall clock with tolerances', () => {
    for (const [rule, declaration] of Object.entries(profileTarget.declarations)) {
      expect(RULE_IDS).toContain(rule);
      expect(declaration?.why.length).toBeGreaterThan(20);
    }
    // The page states the consumer_timeout each lease runs with: those of the servers named here.
    expect(profileTarget.clock).toEqual({
      kind: 'wall',
      tickMs: 200,
      settings: describeServers(consumerTimeoutsOf({})),
    });
    expect(profileTarget.clock).toMatchObject({ settings: expect.stringContaining('channel_tick_interval 100 ms') });
    for (const rule of Object.keys(profileTarget.tolerances ?? {})) expect(RULE_IDS).toContain(rule);
  });

  it('declares a quorum queue with the delivery limit, the length bound and the dead-letter queue', () => {
    expect(queueArguments(CONFIG, 'q.dead')).toEqual({
      'x-queue-type': 'quorum',
      'x-max-length': 3,
      'x-overflow': 'reject-publish',
      'x-delivery-limit': 2,
      'x-dead-letter-exchange': '',
      'x-dead-letter-routing-key': 'q.dead',
    });
  });

  it('declares a classic queue without the delivery limit, which RabbitMQ refuses on one', () => {
    expect(queueArguments(CONFIG, 'q.dead', 'classic')).toEqual({
      'x-queue-type': 'classic',
      'x-max-length': 3,
      'x-overflow': 'reject-publish',
      'x-dead-letter-exchange': '',
      'x-dead-letter-routing-key': 'q.dead',
    });
  });
});

if (missing !== undefined && amqpRequired()) {
  describe('RabbitMQ in CI', () => {
    it('has a server (the RabbitMQ tests never skip in CI)', () => {
      expect.fail(`${missing}; .ci/run wraps the tests in scripts/brokers.sh`);
    });
  });
}

describe.skipIf(missing !== undefined)(
  `RabbitMQ on a real server${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    it('ack-settles-done: a delivery committed and acknowledged is done, its effect applied once', async () => {
      const steps = [submit('a', 0), claim(0), settle('commit', 1, 0), settle('ack', 1, 1)];
      const result = await runLockstep(CONFIG, steps, rabbitmqFactory());
      expect(result.divergence).toBeNull();
    });

    it('stale-token-refused departs: an ack from the old holder after a redelivery acknowledges the new delivery (twice)', async () => {
      const steps = [submit('a', 0), claim(0), claim(3), settle('ack', 1, 3)];
      for (let run = 0; run < 2; run++) {
        const result = await runLockstep(CONFIG, steps, rabbitmqFactory());
        const d = result.divergence;
        expect(d?.error).toBeUndefined();
        expect(d?.step).toBe(4);
        expect(d?.reply?.path).toBe('reply.ok');
        expect([d?.reply?.model, d?.reply?.impl]).toEqual([false, true]);
      }
    });

    it('answers a claim whose channel consumer_timeout closes while its get is in flight: the worker asks again on a new channel', async () => {
      // w1 holds a from tick 0; during tick 2 its channel closes. Two loops keep a get of w1's in
      // flight on that channel until a is delivered again (attempt 2), on the channel w1 opens then.
      const adapter = await RabbitmqAdapter.create(CONFIG);
      try {
        await adapter.execute(submit('a', 0).do);
        expect(await adapter.execute(claim(0).do)).toMatchObject({ ok: true, job: { id: 'a', attempt: 1 } });
        const until = performance.now() + 4 * adapter.clock.tickMs;
        const loop = async (): Promise<unknown> => {
          while (performance.now() < until) {
            const reply = await adapter.execute(claim(2).do);
            if (reply.ok && reply.type === 'claim' && reply.job !== null) return reply.job;
          }
          return undefined;
        };
        const got = await Promise.all([loop(), loop()]);
        expect(got.filter((j) => j !== undefined)).toEqual([expect.objectContaining({ id: 'a', attempt: 2 })]);
      } finally {
        await adapter.close();
      }
    });
  },
);
