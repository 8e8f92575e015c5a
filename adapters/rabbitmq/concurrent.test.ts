/**
 * Competing workers against a real RabbitMQ server: each worker a channel of its own, on one
 * connection. The stale acknowledgement is told lane by lane, as the concurrent campaign sends it
 * (a settlement travels on any lane in its holder's name): the old holder, whose channel
 * consumer_timeout closed and who took another job on its new channel, acks its old delivery, and
 * RabbitMQ acknowledges the new one, whose tag the number names now (concurrentCampaign.test.ts
 * runs a campaign of four workers). Needs a server (JOBCHECK_AMQP_URL; `bash scripts/brokers.sh
 * rabbitmq -- npx vitest run adapters/rabbitmq` starts one): in CI a missing server fails the
 * file, elsewhere it is skipped.
 */
import { describe, expect, it } from 'vitest';
import type { Config } from '../../contract/index.ts';
import { amqpMissing, amqpRequired } from './amqpEnv.ts';
import { rabbitmqConcurrentFactory } from './concurrent.ts';

const missing = amqpMissing();
// leaseTicks 2: one tick is consumer_timeout / 2 (400 ms with scripts/brokers.sh's default).
const CONFIG: Config = { capacity: 4, maxAttempts: 3, leaseTicks: 2, backoffBase: 1, backoffCap: 2 };
const submit = (id: string, now: number) => ({
  type: 'submit',
  id,
  account: 'x',
  key: `${id}:k`,
  amount: 1,
  deadline: 100,
  now,
});

if (missing !== undefined && amqpRequired()) {
  describe('RabbitMQ in CI', () => {
    it('has a server (the RabbitMQ tests never skip in CI)', () => {
      expect.fail(`${missing}; .ci/run wraps the tests in scripts/brokers.sh`);
    });
  });
}

describe.skipIf(missing !== undefined)(
  `competing workers on RabbitMQ${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    it("acknowledges w1's new delivery when w1 acks its old one, after consumer_timeout gave that one to w2, whatever lane carries the ack", async () => {
      const factory = rabbitmqConcurrentFactory();
      const adapter = await factory(CONFIG, { workers: 4 });
      try {
        expect(await adapter.execute(0, submit('a', 0))).toMatchObject({ ok: true, seq: 1 });
        expect(await adapter.execute(1, submit('b', 0))).toMatchObject({ ok: true, seq: 2 });
        const first = await adapter.execute(0, { type: 'claim', worker: 'w1', now: 0 });
        expect(first).toMatchObject({ ok: true, job: { id: 'a', token: 1, attempt: 1 } });
        // Tick 3: consumer_timeout closed w1's channel during tick 2; a went back to the queue.
        const again = await adapter.execute(1, { type: 'claim', worker: 'w2', now: 3 });
        expect(again).toMatchObject({ ok: true, job: { id: 'a', token: 2, attempt: 2 } });
        const next = await adapter.execute(2, { type: 'claim', worker: 'w1', now: 3 });
        expect(next).toMatchObject({ ok: true, job: { id: 'b', token: 3 } });
        // The old holder's ack of token 1, on another lane in its own name: its channel's tag 1 is b now.
        const stale = await adapter.execute(3, { type: 'ack', worker: 'w1', token: 1, now: 3 });
        expect(stale).toEqual({ ok: true, type: 'ack', id: 'b' });
        const snapshot = await adapter.snapshot();
        expect(snapshot.jobs['a']?.status).toBe('running');
        expect(snapshot.jobs['b']?.status).toBe('done');
      } finally {
        await adapter.close();
      }
    });
  },
);
