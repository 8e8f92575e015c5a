/**
 * NATS JetStream's departures from the contract, each as the shortest story that shows it, run in
 * lockstep against the model on a real nats-server, on the broker's own clock (one tick = 100 ms).
 * Every story must diverge exactly where JetStream's semantics say it does (README.md, rule by
 * rule): an adapter that repaired the departure (a token check, a payload comparison, a count of
 * its own) would make the story agree, and this file fail. Each story is also run a second time,
 * as a profile replays a departure before it counts it. Beside them, stories JetStream keeps, so
 * that the wall clock is seen to land its timers on the right ticks. Runs are compared as the
 * profile compares them, without the failure text JetStream does not keep (declared unsupported).
 * Needs a server (JOBCHECK_NATS_URL; `bash scripts/brokers.sh nats -- npx vitest run
 * adapters/nats-jetstream` starts one): in CI a missing server fails the file, elsewhere it is
 * skipped with that message.
 */
import { describe, expect, it } from 'vitest';
import type { Config } from '../../contract/index.ts';
import { runLockstep } from '../../conformance/lockstep/index.ts';
import { ignoredFields } from '../../conformance/profile/runProfile.ts';
import { natsJetStreamFactory } from './adapter.ts';
import { natsMissing, natsRequired } from './natsEnv.ts';
import { NATS_DECLARATIONS } from './profile.ts';

const missing = natsMissing();
// As the profile compares: without the failure text, which JetStream 2.9 does not keep (declared).
const COMPARED = { ignoreFields: ignoredFields(NATS_DECLARATIONS) };
const CONFIG: Config = { capacity: 3, maxAttempts: 2, leaseTicks: 3, backoffBase: 2, backoffCap: 8 };
const submit = (
  id: string,
  now: number,
  more: Partial<{ account: string; key: string; amount: number; deadline: number }> = {},
) => ({
  do: { type: 'submit', id, account: 'x', key: `${id}:k`, amount: 1, deadline: 100, now, ...more },
});
const claim = (now: number, worker = 'w1') => ({ do: { type: 'claim', worker, now } });
const settle = (type: 'commit' | 'ack', token: number, now: number, worker = 'w1') => ({
  do: { type, worker, token, now },
});
const fail = (token: number, now: number, kind: 'transient' | 'permanent' = 'transient', error = 'boom') => ({
  do: { type: 'fail', worker: 'w1', token, kind, error, now },
});
const tick = (now: number) => ({ do: { type: 'tick', now } });

interface Story {
  readonly rule: string;
  readonly says: string;
  readonly config?: Config;
  readonly steps: readonly { do: unknown }[];
  /** The step that diverges, and where: `reply.<field>` or a snapshot path, with the model's and JetStream's values. */
  readonly at: { step: number; path: string; model: unknown; impl: unknown };
}

/** The departures, shortest first. */
const DEPARTURES: readonly Story[] = [
  {
    rule: 'changed-payload-conflicts',
    says: 'a known Nats-Msg-Id with another payload is a duplicate: the broker never compares payloads',
    steps: [submit('a', 0), submit('a', 0, { amount: 2 })],
    at: { step: 2, path: 'reply.ok', model: false, impl: true },
  },
  {
    rule: 'stale-token-refused',
    says: "an ack from the old holder after a redelivery acknowledges the new delivery: the broker reads the stream sequence from the reply subject and drops the message's pending entry whatever the delivery",
    steps: [submit('a', 0), claim(0), claim(3, 'w2'), settle('ack', 1, 3)],
    at: { step: 4, path: 'reply.ok', model: false, impl: true },
  },
  {
    rule: 'stale-token-refused',
    says: 'a commit after the lease ended is applied: JetStream has nothing a worker can fence its effect on',
    steps: [submit('a', 0), claim(0), settle('commit', 1, 3)],
    at: { step: 3, path: 'reply.ok', model: false, impl: true },
  },
  {
    rule: 'capacity-counts-running',
    says: 'a message past its last delivery stays in the work-queue stream and counts against max_msgs, so a dead job takes a place',
    config: { ...CONFIG, capacity: 1, maxAttempts: 1 },
    steps: [submit('a', 0), claim(0), fail(1, 0), submit('b', 0)],
    at: { step: 4, path: 'reply.ok', model: true, impl: false },
  },
  {
    rule: 'permanent-failure-dead',
    says: 'a terminated message leaves the work-queue stream, which keeps no record of it: it reads as settled, where the contract keeps it dead',
    steps: [submit('a', 0), claim(0), fail(1, 0, 'permanent', 'bad input')],
    at: { step: 3, path: 'jobs.a.status', model: 'dead', impl: 'done' },
  },
  {
    rule: 'last-attempt-expiry-is-dead',
    says: "a message whose last delivery's ack wait ran out is kept and delivered no more, as one whose last delivery was naked: the broker keeps no reason, and both read as exhausted",
    config: { ...CONFIG, maxAttempts: 1, leaseTicks: 1 },
    steps: [submit('a', 0), claim(0), claim(1)],
    at: { step: 3, path: 'jobs.a.reason', model: 'lease_expired', impl: 'attempts_exhausted' },
  },
];

/** Stories JetStream keeps: the lease and the nak delay land on their ticks. */
const KEPT: readonly {
  readonly rule: string;
  readonly says: string;
  readonly config?: Config;
  readonly steps: readonly { do: unknown }[];
}[] = [
  {
    rule: 'expiry-with-attempts-left-requeues',
    says: 'a delivery is held through tick leaseUntil − 1 and redelivered at tick leaseUntil, as attempt 2',
    steps: [submit('a', 0), claim(0), claim(2, 'w2'), claim(3, 'w2'), settle('ack', 2, 3, 'w2')],
  },
  {
    rule: 'lease-equality-expires',
    says: 'at tick leaseUntil the lease has ended and the next claim gets the message again',
    steps: [submit('a', 0), claim(0), tick(3), claim(3, 'w2')],
  },
  {
    rule: 'backoff-ends-at-not-before',
    says: 'a nak with the contract delay keeps the job back through notBefore − 1 and delivers it at notBefore',
    steps: [submit('a', 0), claim(0), fail(1, 0), claim(1), claim(2), settle('ack', 2, 2)],
  },
];

/** The value a story expects at `path`: for `jobs.a` the model side is compared by status. */
function shown(value: unknown, path: string): unknown {
  if (/^jobs\.[^.]+$/.test(path) && typeof value === 'object' && value !== null)
    return (value as { status?: unknown }).status;
  return value;
}

if (missing !== undefined && natsRequired()) {
  describe('NATS in CI', () => {
    it('has a server (the NATS tests never skip in CI)', () => {
      expect.fail(`${missing}; .ci/run wraps the tests in scripts/brokers.sh`);
    });
  });
}

describe.skipIf(missing !== undefined)(
  `NATS JetStream's departures from the contract${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    for (const story of DEPARTURES) {
      it(`${story.rule}: ${story.says} (twice)`, async () => {
        for (let run = 0; run < 2; run++) {
          const result = await runLockstep(story.config ?? CONFIG, story.steps, natsJetStreamFactory(), COMPARED);
          const d = result.divergence;
          expect(d?.error).toBeUndefined();
          expect(d?.step).toBe(story.at.step);
          const difference = story.at.path.startsWith('reply.') ? d?.reply : d?.snapshot;
          expect(difference?.path).toBe(story.at.path);
          expect([shown(difference?.model, story.at.path), shown(difference?.impl, story.at.path)]).toEqual([
            story.at.model,
            story.at.impl,
          ]);
        }
      });
    }

    it('permanent-failure-dead: a terminated message is never delivered again (a bare +TERM: 2.9.10 ignores one with a reason, and redelivers)', async () => {
      const adapter = await natsJetStreamFactory()({ ...CONFIG, leaseTicks: 1 });
      try {
        for (const step of [submit('a', 0), claim(0), fail(1, 0, 'permanent', 'bad input')])
          expect(await adapter.execute(step.do)).toMatchObject({ ok: true });
        expect(await adapter.execute(claim(2).do)).toEqual({ ok: true, type: 'claim', job: null });
      } finally {
        await adapter.close();
      }
    });

    it('last-attempt-expiry-is-dead: after the last delivery expires the next pulls are answered with no message (a pull that waits, since 2.9.10 leaves the first no_wait pull after it unanswered)', async () => {
      const adapter = await natsJetStreamFactory()({ ...CONFIG, maxAttempts: 1, leaseTicks: 1 });
      try {
        for (const step of [submit('a', 0), claim(0)])
          expect(await adapter.execute(step.do)).toMatchObject({ ok: true });
        for (let i = 0; i < 2; i++)
          expect(await adapter.execute(claim(1).do)).toEqual({ ok: true, type: 'claim', job: null });
      } finally {
        await adapter.close();
      }
    });

    for (const story of KEPT) {
      it(`${story.rule}: ${story.says}`, async () => {
        const result = await runLockstep(story.config ?? CONFIG, story.steps, natsJetStreamFactory(), COMPARED);
        expect(result.divergence).toBeNull();
      });
    }
  },
);
