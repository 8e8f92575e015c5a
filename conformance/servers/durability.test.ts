/**
 * A raw durability probe of every named configuration: acknowledged writes through a plain client
 * (probeClients.ts), a SIGKILL of the server right after the last acknowledgement, a restart on the
 * same folder, and a count of what survived. Only a configuration's documented promise is asserted
 * (`every-acknowledged`: none lost); every figure is printed, one `durability:` line each, for the
 * pages. A kill keeps the page cache: this measures a process crash, not a power loss (limits.ts).
 */
import { afterAll, describe, it } from 'vitest';
import { BrokerServer } from './BrokerServer.ts';
import { CONFIGURATIONS } from './configurations.ts';
import { probeClient, preparedClient } from './probeClients.ts';
import { recipeOf } from './recipes.ts';

const required = (process.env['CI'] ?? '') !== '';
/** Writes a probe makes: in rounds of ROUND at once, each acknowledged before the next round. */
const WRITES = 300;
const ROUND = 20;
const servers: BrokerServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.dispose();
});

// Every configuration at once: each waits on its own server.
describe.concurrent('durability', () => {
  for (const { name, config, promise } of CONFIGURATIONS) {
    let why: string | undefined;
    try {
      recipeOf(config);
    } catch (error) {
      why = (error as Error).message;
    }
    it.skipIf(why !== undefined && !required)(
      `${name}: counts the acknowledged writes a SIGKILL loses (promise: ${promise})`,
      async ({ expect }) => {
        expect(why).toBeUndefined();
        const server = await BrokerServer.start(config);
        servers.push(server);
        const before = await preparedClient(server);
        let acknowledged = 0;
        for (let i = 0; i < WRITES; i += ROUND) {
          await Promise.all(Array.from({ length: ROUND }, (_, k) => before.write(i + k)));
          acknowledged += ROUND;
        }
        await server.kill();
        await before.close();
        await server.restart();
        const after = await probeClient(server);
        const survived = await after.count();
        await after.close();
        await server.dispose();
        const lost = acknowledged - survived;
        console.log(
          `durability: ${name}: ${acknowledged} acknowledged, ${survived} after SIGKILL and restart, ${lost} lost`,
        );
        expect(survived).toBeLessThanOrEqual(acknowledged);
        if (promise === 'every-acknowledged') expect(lost, `${name} promises every acknowledged write`).toBe(0);
      },
      240_000,
    );
  }
});
