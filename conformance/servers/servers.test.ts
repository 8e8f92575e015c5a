/**
 * Each broker server the harness controls, held to what a nemesis needs of it: a write made before
 * a SIGKILL is there after a restart on the same folder, at the same address; a paused server keeps
 * a request waiting until it is resumed; a full disk makes a write fail with the server's own
 * error (or, where the server's answer to a full disk is to hold writes, keeps it unacknowledged);
 * dispose leaves no process (by pid and process group) and no folder. A missing server skips with
 * a hint outside CI and fails under it; a disk-full case needs root and unshare (limits.ts).
 */
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { BrokerServer } from './BrokerServer.ts';
import { configuration } from './configurations.ts';
import type { ConfigurationName } from './configurations.ts';
import { diskFullUnsupported } from './limits.ts';
import { alive, treeOf } from './processes.ts';
import { preparedClient, probeClient } from './probeClients.ts';
import { recipeOf } from './recipes.ts';

const required = (process.env['CI'] ?? '') !== '';
const disposers: BrokerServer[] = [];
afterAll(async () => {
  for (const server of disposers) await server.dispose();
});

/** Why `name` cannot start here (its program is missing), or undefined. */
function missing(name: ConfigurationName): string | undefined {
  try {
    recipeOf(configuration(name).config);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

const settledWithin = async (promise: Promise<unknown>, ms: number): Promise<boolean> =>
  Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms)),
  ]);

/** How a full disk shows, per broker: the error the server sends, or `held` when it holds writes unacknowledged instead. */
const DISK_FULL: Record<
  string,
  { readonly config: ConfigurationName; readonly error: RegExp | 'held'; readonly pad: number }
> = {
  // With appendfsync always Redis exits on a failed AOF write; everysec answers MISCONF.
  redis: { config: 'redis-aof-everysec', error: /MISCONF.*No space left on device/, pad: 0 },
  beanstalkd: { config: 'beanstalkd-binlog', error: /OUT_OF_MEMORY|INTERNAL_ERROR|closed/, pad: 60_000 },
  nats: { config: 'nats-file', error: 'held', pad: 0 },
  rabbitmq: { config: 'rabbitmq-quorum', error: 'held', pad: 0 },
  postgres: { config: 'postgres-sync', error: /No space left on device/, pad: 0 },
};

const CASES: readonly ConfigurationName[] = [
  'redis-aof-always',
  'beanstalkd-binlog',
  'nats-file',
  'rabbitmq-quorum',
  'postgres-sync',
];

for (const name of CASES) {
  const why = missing(name);
  describe.skipIf(why !== undefined && !required)(`${name}: a server the harness controls`, () => {
    it('keeps a write across a SIGKILL and a restart on the same folder and address, and pauses a request until resumed', async () => {
      expect(why).toBeUndefined();
      const server = await BrokerServer.start(configuration(name).config);
      disposers.push(server);
      const address = { ...server.env };
      const before = await preparedClient(server);
      await before.write(1);
      await server.kill();
      expect(server.state).toBe('down');
      await expect(before.write(2)).rejects.toThrow();
      await before.close();
      await server.restart();
      expect(server.env).toEqual(address);
      const after = await probeClient(server);
      expect(await after.count()).toBe(1);

      server.pause();
      const start = performance.now();
      const write = after.write(3);
      expect(await settledWithin(write, 400)).toBe(false);
      server.resume();
      await write;
      expect(performance.now() - start).toBeGreaterThanOrEqual(400);
      expect(await after.count()).toBe(2);
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
    }, 240_000);
  });
}

for (const [broker, disk] of Object.entries(DISK_FULL)) {
  const why = missing(disk.config);
  describe.skipIf(why !== undefined && !required)(`${disk.config}: a full disk`, () => {
    it(disk.error === 'held'
      ? 'holds a write unacknowledged'
      : "fails a write with the server's own error", async (context) => {
      expect(why).toBeUndefined();
      const unsupported = await diskFullUnsupported();
      if (unsupported !== undefined) {
        if (required) throw new Error(unsupported);
        context.skip(unsupported);
      }
      const server = await BrokerServer.start(configuration(disk.config).config, { diskLimit: true });
      disposers.push(server);
      const client = await preparedClient(server);
      await client.write(0);
      expect(server.fillDisk()).toBeGreaterThan(0);
      let failure: unknown;
      for (let i = 1; i <= 400 && failure === undefined; i++) {
        const write = client.write(i, disk.pad);
        if (!(await settledWithin(write, 3000))) {
          failure = 'held';
          write.catch(() => undefined);
        } else
          await write.catch((error: unknown) => {
            failure = error;
          });
      }
      if (disk.error === 'held') expect(failure, broker).toBe('held');
      else expect(String((failure as Error)?.message ?? failure), broker).toMatch(disk.error);
      await client.close();
      const tmpfs = server.folder;
      await server.dispose();
      expect(existsSync(tmpfs)).toBe(false);
    }, 240_000);
  });
}
