/**
 * A NATS JetStream adapter whose server is killed while an acknowledgement is in flight: the ack
 * ends in the profile's typed broker loss (BrokerLostError) at once, never waits for ever. The
 * server is SIGSTOPped before the ack is sent, so that the ack is surely in flight when the SIGKILL
 * comes (nats.js settles a `noMux` request neither at its connection's close nor at its own
 * timeout). Starts a server of its own (conformance/servers/), so it is in the slow part; without
 * nats-server it skips with a hint, and with CI set it fails.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Config } from '../../contract/index.ts';
import { BrokerServer } from '../../conformance/servers/BrokerServer.ts';
import { configuration } from '../../conformance/servers/configurations.ts';
import { within } from '../../conformance/servers/deadline.ts';
import { recipeOf } from '../../conformance/servers/recipes.ts';
import { natsJetStreamFactory } from './adapter.ts';

const CONFIG: Config = { capacity: 4, maxAttempts: 3, leaseTicks: 50, backoffBase: 1, backoffCap: 4 };
const { config } = configuration('nats-memory');
let missing: string | undefined;
try {
  recipeOf(config);
} catch (error) {
  missing = (error as Error).message;
}
const required = (process.env['CI'] ?? '') !== '';
const servers: BrokerServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.dispose();
});

describe.skipIf(missing !== undefined && !required)('a NATS server killed under an ack in flight', () => {
  it('ends the ack in BrokerLostError, not in a wait', async () => {
    expect(missing).toBeUndefined();
    const server = await BrokerServer.start(config);
    servers.push(server);
    const adapter = await natsJetStreamFactory({ url: server.env['JOBCHECK_NATS_URL'] as string })(CONFIG);
    try {
      const submit = { type: 'submit', id: 'j', account: 'a', key: 'k', amount: 1, deadline: 900, now: 0 } as const;
      expect((await adapter.execute(submit)).ok).toBe(true);
      const claim = await adapter.execute({ type: 'claim', worker: 'w', now: 0 });
      if (!claim.ok || claim.type !== 'claim' || claim.job === null)
        throw new Error(`no delivery: ${JSON.stringify(claim)}`);
      server.pause();
      const ack = adapter.execute({ type: 'ack', worker: 'w', token: claim.job.token, now: 1 });
      await new Promise((r) => setTimeout(r, 200));
      await server.kill();
      // A wait past 5 s ends in ServerError `no_answer` instead, which fails the name below.
      await expect(within(ack, 5_000, 'the ack after the kill')).rejects.toMatchObject({ name: 'BrokerLostError' });
    } finally {
      await adapter.close?.().catch(() => undefined);
    }
  }, 60_000);
});
