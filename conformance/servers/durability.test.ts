/**
 * Every named configuration's server, as the nemesis drives it, and a raw durability probe of it:
 * acknowledged writes through a plain client (probeClients.ts), a SIGKILL right after the last
 * acknowledgement (a write then fails), a restart on the same folder at the same address, and a
 * count of what survived; then a paused server keeps a request waiting until resumed, and dispose
 * leaves no process (by pid and process group) and no folder. Only a configuration's documented
 * promise is asserted (`every-acknowledged`: none lost); every figure is printed, one
 * `durability:` line each, for the pages. A kill keeps the page cache: this measures a process
 * crash, not a power loss (limits.ts). A missing server skips with a hint outside CI, fails in it.
 */
import { existsSync } from 'node:fs';
import { afterAll, describe, it } from 'vitest';
import { BrokerServer } from './BrokerServer.ts';
import { settledWithin } from './deadline.ts';
import { CONFIGURATIONS } from './configurations.ts';
import { alive, treeOf } from './processes.ts';
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
      `${name}: counts the acknowledged writes a SIGKILL loses (promise: ${promise}), pauses, leaves nothing`,
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
        expect(server.state).toBe('down');
        await expect(before.write(WRITES)).rejects.toThrow();
        await before.close();
        const address = { ...server.env };
        await server.restart();
        expect(server.env).toEqual(address);
        const after = await probeClient(server);
        const survived = await after.count();

        // A configuration that promises nothing may have lost the writes' target too (a stream in memory).
        if (promise === 'none') await after.setUp();
        server.pause();
        const start = performance.now();
        const write = after.write(WRITES + 1);
        expect(await settledWithin(write, 400), 'a write to the paused server').toBe(false);
        server.resume();
        await write;
        expect(performance.now() - start).toBeGreaterThanOrEqual(400);
        expect(await after.count()).toBe(survived + 1);
        await after.close();

        const pids = server.pids;
        const groups = [...server.groups];
        expect(pids.length).toBeGreaterThan(0);
        await server.dispose();
        await server.dispose();
        expect(server.state).toBe('disposed');
        expect(alive(pids)).toEqual([]);
        expect(treeOf(groups)).toEqual([]);
        expect(existsSync(server.folder)).toBe(false);
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
