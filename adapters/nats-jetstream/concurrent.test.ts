/**
 * Competing workers against a real nats-server (concurrent.ts), each lane a connection of its own:
 * what the broker does with an acknowledgement from the old holder after the message was
 * delivered again to another lane (it takes it, as the ack of the new delivery), and a short
 * concurrent campaign of four lanes that ends in a verdict and deletes every stream it made.
 * Needs a server (JOBCHECK_NATS_URL; `bash scripts/brokers.sh nats -- npx vitest run
 * adapters/nats-jetstream/concurrent.test.ts` starts one): in CI a missing server fails the file,
 * elsewhere it is skipped with that message.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { closingFactory } from '../closingFactory.ts';
import { runConcurrentCampaign } from '../../conformance/concurrent/campaign.ts';
import type { Config, Reply } from '../../contract/index.ts';
import { natsConcurrentFactory } from './concurrent.ts';
import type { NatsConcurrentAdapter } from './concurrent.ts';
import { natsMissing, natsRequired, natsUrl } from './natsEnv.ts';

const missing = natsMissing();
const CONFIG: Config = { capacity: 3, maxAttempts: 3, leaseTicks: 2, backoffBase: 1, backoffCap: 2 };
const SUBMIT = { type: 'submit', id: 'a', account: 'x', key: 'a:k', amount: 1, deadline: 100 } as const;

/** The delivery of a successful claim reply (fails the test otherwise). */
function delivery(reply: Reply): { token: number; attempt: number } {
  if (!(reply.ok && reply.type === 'claim' && reply.job !== null))
    throw new Error(`expected a delivery, got ${JSON.stringify(reply)}`);
  return reply.job;
}

/** The names of the streams the server holds now. */
async function serverStreams(): Promise<string[]> {
  const nc = await connect({ servers: natsUrl() as string });
  try {
    const names: string[] = [];
    for await (const name of (await jetstreamManager(nc)).streams.names()) names.push(name);
    return names;
  } finally {
    await nc.close();
  }
}

if (missing !== undefined && natsRequired()) {
  describe('NATS in CI', () => {
    it('has a server (the NATS tests never skip in CI)', () => {
      expect.fail(`${missing}; .ci/run wraps the tests in scripts/brokers.sh`);
    });
  });
}

describe.skipIf(missing !== undefined)(
  `competing workers on NATS JetStream${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    it("takes the old holder's ack, sent on its own connection after the message went to another, as the ack of the new delivery", async () => {
      const q = await natsConcurrentFactory()(CONFIG, { workers: 3 });
      try {
        const lease = CONFIG.leaseTicks;
        await q.execute(0, { ...SUBMIT, now: 0 });
        const first = delivery(await q.execute(0, { type: 'claim', worker: 'w1', now: 0 }));
        // ack_wait has run out at tick `lease`: lane 1's pull gets the message again.
        const second = delivery(await q.execute(1, { type: 'claim', worker: 'w2', now: lease }));
        expect(second).toMatchObject({ token: 2, attempt: 2 });
        // The contract refuses token 1 (stale_token); the broker confirms w1's +ACK on lane 0.
        expect(await q.execute(0, { type: 'ack', worker: 'w1', token: first.token, now: lease })).toEqual({
          ok: true,
          type: 'ack',
          id: 'a',
        });
        // It was taken for the message, not for the old delivery: once w2's ack_wait has run out
        // too, nothing is delivered again, and the stream no longer holds the message.
        expect(await q.execute(2, { type: 'claim', worker: 'w3', now: 2 * lease })).toEqual({
          ok: true,
          type: 'claim',
          job: null,
        });
        expect((await q.snapshot()).jobs['a']?.status).toBe('done');
      } finally {
        await q.close();
      }
    });

    it('runs a concurrent campaign of four lanes to a verdict and deletes every stream it made', async () => {
      const { factory, made } = closingFactory<NatsConcurrentAdapter>(natsConcurrentFactory());
      const result = await runConcurrentCampaign({ factory, workers: 4, numRuns: 3, maxRounds: 4, seed: 3 });
      // The plain model knows none of JetStream's declarations, so any verdict will do; an
      // implementation error (a crash, a hang, a missing snapshot) will not.
      // Three short runs on a wall clock may hold no two requests in flight together (seed 3 on NATS: 13
      // requests, none overlapping): not_exercised is then the honest verdict, never a pass.
      expect(['passed', 'failed', 'unknown', 'not_exercised']).toContain(result.verdict);
      expect(result.failure?.kind ?? 'none').not.toBe('impl_error');
      expect(made.length).toBeGreaterThan(0);
      expect(made.filter((m) => !m.closed)).toEqual([]);
      const streams = await serverStreams();
      expect(made.map((m) => m.adapter.adapter.stream).filter((s) => streams.includes(s))).toEqual([]);
    });
  },
);
