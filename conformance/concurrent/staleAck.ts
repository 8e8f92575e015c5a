/**
 * The stale-acknowledgement race (an ack from the old holder after a redelivery) as one fixed
 * scenario of competing workers. Generated scenarios reach it only now and then (generate.ts);
 * this one asks every queue the same question, one round at a time, so that answers compare:
 *
 *   round 1  now 0   lane 0  submit a (account x), submit b (account y)
 *   round 2  now 1   lane 0  claim by w1                       -> a, token 1, lease until 1 + L
 *   round 3  now 1+L lane 1  tick                              (a's lease has expired: a is ready)
 *   round 4  now 2+L lane 1  claim by w2                       -> a again, a new token
 *   round 5  same    lane 0  claim by w1                       -> b
 *   round 6  same    lane 0  ack by w1 with a's first token    -> stale_token: the redelivery is w2's
 *   round 7  same    lane 1  ack by w2 of its delivery of a    -> ok
 *   round 8  same    lane 0  ack by w1 of b                    -> ok
 *
 * The redelivery is claimed one tick after the lease's end, so that a broker whose lease ends a
 * little late (a tolerance its profile states) is asked the question, not the boundary's. b gives
 * the old holder a delivery of its own, where a broker that names deliveries per channel (RabbitMQ's
 * tags) may land the old ack; b's other account keeps per-account order out of the way. References
 * resolve as in every scenario (run.ts): "the ended delivery" is w1's first delivery of a.
 */
import type { Config } from '../../contract/index.ts';
import type { ConcurrentRequest, ConcurrentRound, ConcurrentScenario } from './generate.ts';

/** The config of the scenario: room for both jobs, a second attempt for the redelivery, a lease of two ticks. */
export const STALE_ACK_CONFIG: Config = { capacity: 2, maxAttempts: 3, leaseTicks: 2, backoffBase: 1, backoffCap: 1 };

const round = (now: ConcurrentRound['now'], ...requests: ConcurrentRequest[]): ConcurrentRound => ({
  now,
  requests,
  shuffle: 0,
});

/** The stale-acknowledgement scenario (see the file's header) for a config (default STALE_ACK_CONFIG). Pure. */
export function staleAckScenario(config: Config = STALE_ACK_CONFIG): ConcurrentScenario {
  const first = { pick: 0, ended: false } as const;
  return {
    config,
    workers: 2,
    rounds: [
      round(
        { at: 'same' },
        { lane: 0, command: { kind: 'submit', id: 'a', account: 'x', key: 'k1', amount: 1, deadlineIn: 12 } },
        { lane: 0, command: { kind: 'submit', id: 'b', account: 'y', key: 'k1', amount: 1, deadlineIn: 12 } },
      ),
      round({ at: 'later', plus: 1 }, { lane: 0, command: { kind: 'claim', as: 0 } }),
      round({ at: 'leaseUntil', delivery: first, plus: 0 }, { lane: 1, command: { kind: 'tick' } }),
      round({ at: 'later', plus: 1 }, { lane: 1, command: { kind: 'claim', as: 1 } }),
      round({ at: 'same' }, { lane: 0, command: { kind: 'claim', as: 0 } }),
      round(
        { at: 'same' },
        { lane: 0, command: { kind: 'ack', delivery: { pick: 0, ended: true }, worker: 'holder' } },
      ),
      round(
        { at: 'same' },
        { lane: 1, command: { kind: 'ack', delivery: { pick: 1, ended: false }, worker: 'holder' } },
      ),
      round({ at: 'same' }, { lane: 0, command: { kind: 'ack', delivery: first, worker: 'holder' } }),
    ],
  };
}
