/**
 * RabbitMQ's departures from the contract, each as a short story run in lockstep against the model
 * on a real server, on the broker's own clock (one tick = consumer_timeout / leaseTicks). Every
 * story must diverge exactly where RabbitMQ's semantics say it does (README.md, rule by rule): an
 * adapter that repaired the departure (a dedup table, a delay of its own, a tag check) would make
 * the story agree, and this file fail. Each departure is run twice, as a profile replays a
 * wall-clock departure before it counts it. Beside them, a story RabbitMQ keeps, so that the wall
 * clock is seen to land consumer_timeout on the right tick. Needs a server (JOBCHECK_AMQP_URL;
 * `bash scripts/brokers.sh rabbitmq -- npx vitest run adapters/rabbitmq` starts one): in CI a
 * missing server fails the file, elsewhere it is skipped.
 */
import { describe, expect, it } from 'vitest';
import type { Config } from '../../contract/index.ts';
import { runLockstep } from '../../conformance/lockstep/index.ts';
import { checkedModelOf, ignoredFields } from '../../conformance/profile/runProfile.ts';
import { rabbitmqFactory } from './adapter.ts';
import { amqpMissing, amqpRequired } from './amqpEnv.ts';
import { rabbitmqTarget } from './profile.ts';

const missing = amqpMissing();
// leaseTicks 2: one tick is consumer_timeout / 2 = 400 ms.
const CONFIG: Config = { capacity: 3, maxAttempts: 3, leaseTicks: 2, backoffBase: 1, backoffCap: 4 };
const submit = (id: string, now: number, amount = 1) => ({
  do: { type: 'submit', id, account: 'x', key: `${id}:k`, amount, deadline: 100, now },
});
const claim = (now: number, worker = 'w1') => ({ do: { type: 'claim', worker, now } });
const settle = (type: 'commit' | 'ack', token: number, now: number, worker = 'w1') => ({
  do: { type, worker, token, now },
});
const fail = (token: number, now: number, kind: 'transient' | 'permanent' = 'transient', worker = 'w1') => ({
  do: { type: 'fail', worker, token, kind, error: 'boom', now },
});
const tick = (now: number) => ({ do: { type: 'tick', now } });
// As the profile checks: the declared variants in place, and without the failure text RabbitMQ does not keep.
const { declarations } = rabbitmqTarget({ url: 'amqp://unused' });
const DECLARED = { model: checkedModelOf({ declarations }), ignoreFields: ignoredFields(declarations) };

interface Story {
  readonly rule: string;
  readonly says: string;
  readonly config?: Config;
  readonly steps: readonly ({ do: unknown } | { restart: true })[];
  /** The step that diverges, and where: a reply field or a snapshot path, with the model's and RabbitMQ's values. */
  readonly at: { step: number; path: string; model: unknown; impl: unknown };
}

const DEPARTURES: readonly Story[] = [
  {
    rule: 'duplicate-submit-accepted',
    says: 'a publish with a known id is a new message: RabbitMQ keeps no ids',
    steps: [submit('a', 0), submit('a', 0)],
    at: { step: 2, path: 'reply.seq', model: 1, impl: 2 },
  },
  {
    rule: 'capacity-counts-running',
    says: 'x-max-length 1 with reject-publish accepts a second message: a quorum queue refuses only once it is over the limit',
    config: { ...CONFIG, capacity: 1 },
    steps: [submit('a', 0), submit('b', 0)],
    at: { step: 2, path: 'reply.ok', model: false, impl: true },
  },
  {
    rule: 'backoff-ends-at-not-before',
    says: 'a nack with requeue makes the message ready at once: 3.10 has no delayed redelivery',
    steps: [submit('a', 0), claim(0), fail(1, 0)],
    at: { step: 3, path: 'reply.notBefore', model: 1, impl: 0 },
  },
  {
    rule: 'snapshot-restore-round-trip',
    says: "a restart closes the consumer's channels, and the broker returns every unsettled delivery to the queue",
    steps: [submit('a', 0), claim(0), { restart: true }],
    at: { step: 3, path: 'jobs.a.status', model: 'running', impl: 'ready' },
  },
  {
    rule: 'last-attempt-expiry-is-dead',
    says: 'a lease that ran out on the last attempt is dead-lettered delivery_limit, as a nack past the limit is: RabbitMQ keeps no other reason',
    config: { ...CONFIG, maxAttempts: 1 },
    steps: [submit('a', 0), claim(0), tick(3)],
    at: { step: 3, path: 'jobs.a.reason', model: 'lease_expired', impl: 'attempts_exhausted' },
  },
];

/** Stories RabbitMQ keeps once its declarations are in place (no-backoff, no-account-order, no failure text). */
const KEPT_AS_DECLARED: readonly Omit<Story, 'at'>[] = [
  {
    rule: 'oldest-ready-head-first',
    says: 'a nacked message is requeued ahead of the later ones: the next claim gets it again, as attempt 2',
    steps: [submit('a', 0), submit('b', 0), claim(0), fail(1, 0), claim(0, 'w2'), settle('ack', 2, 0, 'w2')],
  },
  {
    rule: 'attempts-exhausted-dead',
    says: 'a nack past x-delivery-limit dead-letters the message, delivery_limit: dead, attempts_exhausted',
    config: { ...CONFIG, maxAttempts: 2 },
    steps: [submit('a', 0), claim(0), fail(1, 0), claim(0), fail(2, 0), claim(1)],
  },
  {
    rule: 'permanent-failure-dead',
    says: 'a nack without requeue dead-letters the message, rejected: dead, permanent',
    steps: [submit('a', 0), claim(0), fail(1, 0, 'permanent'), claim(1)],
  },
];

if (missing !== undefined && amqpRequired()) {
  describe('RabbitMQ in CI', () => {
    it('has a server (the RabbitMQ tests never skip in CI)', () => {
      expect.fail(`${missing}; .ci/run wraps the tests in scripts/brokers.sh`);
    });
  });
}

describe.skipIf(missing !== undefined)(
  `RabbitMQ's departures from the contract${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    for (const story of DEPARTURES) {
      it(`${story.rule}: ${story.says} (twice)`, async () => {
        for (let run = 0; run < 2; run++) {
          const result = await runLockstep(story.config ?? CONFIG, story.steps, rabbitmqFactory());
          const d = result.divergence;
          expect(d?.error).toBeUndefined();
          expect(d?.step).toBe(story.at.step);
          const difference = story.at.path.startsWith('reply.') ? d?.reply : d?.snapshot;
          expect([difference?.path, difference?.model, difference?.impl]).toEqual([
            story.at.path,
            story.at.model,
            story.at.impl,
          ]);
        }
      });
    }

    for (const story of KEPT_AS_DECLARED) {
      it(`${story.rule}: ${story.says}`, async () => {
        const result = await runLockstep(story.config ?? CONFIG, story.steps, rabbitmqFactory(), DECLARED);
        expect(result.divergence).toBeNull();
      });
    }

    it('expiry-with-attempts-left-requeues: a delivery held past consumer_timeout is delivered again at tick leaseUntil + 1, as attempt 2', async () => {
      const steps = [submit('a', 0), claim(0), claim(3, 'w2'), settle('ack', 2, 3, 'w2')];
      const result = await runLockstep(CONFIG, steps, rabbitmqFactory());
      expect(result.divergence).toBeNull();
    });
  },
);
