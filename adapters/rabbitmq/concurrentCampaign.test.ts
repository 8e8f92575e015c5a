/**
 * A concurrent campaign of four competing workers against a real RabbitMQ server (a channel per
 * worker, concurrent.ts) runs to a verdict within its time limit: the histories are checked for
 * linearizability against the plain model, which does not know RabbitMQ's declared variants, so
 * the verdict is a failure (a queue is first in, first out across accounts), told lane by lane.
 * Slow: the campaign shrinks its failure on the broker's clock until its 12 s limit (its first
 * run fails). Needs a server (JOBCHECK_AMQP_URL; `bash scripts/brokers.sh rabbitmq -- npx vitest
 * run adapters/rabbitmq` starts one): in CI a missing server fails the file, elsewhere skipped.
 */
import { describe, expect, it } from 'vitest';
import { Budget } from '../../conformance/budget.ts';
import { runConcurrentCampaign } from '../../conformance/concurrent/campaign.ts';
import { amqpMissing, amqpRequired } from './amqpEnv.ts';
import { rabbitmqConcurrentFactory } from './concurrent.ts';

const missing = amqpMissing();

if (missing !== undefined && amqpRequired()) {
  describe('RabbitMQ in CI', () => {
    it('has a server (the RabbitMQ tests never skip in CI)', () => {
      expect.fail(`${missing}; .ci/run wraps the tests in scripts/brokers.sh`);
    });
  });
}

describe.skipIf(missing !== undefined)(
  `a concurrent campaign on RabbitMQ${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    it('runs a campaign of four workers to a linearizability verdict, a story of its lanes', async () => {
      const budget = new Budget(12_000);
      try {
        const result = await runConcurrentCampaign({
          factory: rabbitmqConcurrentFactory(),
          // leaseTicks 4: one tick is consumer_timeout / 4 (200 ms with scripts/brokers.sh's default).
          config: { capacity: 4, maxAttempts: 3, leaseTicks: 4, backoffBase: 1, backoffCap: 2 },
          workers: 4,
          numRuns: 3,
          seed: 1,
          timeoutMs: 20_000,
          budget,
        });
        expect(result.adapter).toBe('rabbitmq');
        expect(result.runs).toBeGreaterThan(0);
        expect(result.verdict).toBe('failed');
        expect(result.story).toMatch(/no order of the model explains the replies/);
        expect(result.story).toMatch(/claim by w\d/);
      } finally {
        budget.dispose();
      }
    }, 120_000);
  },
);
