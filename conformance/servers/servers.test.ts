/**
 * Each broker server the harness controls, held to what a nemesis needs of it beyond a kill and a
 * pause (durability.test.ts holds those on every configuration): a full disk makes a write fail
 * with the server's own error (or, where the server's answer to a full disk is to hold writes,
 * keeps it unacknowledged), and a harness that ends on a signal leaves no server process and no
 * folder. A missing server skips with a hint outside CI and fails under it; a disk-full case needs
 * root and unshare (limits.ts).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { BrokerServer } from './BrokerServer.ts';
import { settledWithin } from './deadline.ts';
import { configuration } from './configurations.ts';
import type { ConfigurationName } from './configurations.ts';
import { diskFullUnsupported } from './limits.ts';
import { alive } from './processes.ts';
import { preparedClient } from './probeClients.ts';
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

describe.skipIf(missing('redis-aof-always') !== undefined && !required)('a harness that goes away', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    it(`leaves no server process and no folder when it ends on ${signal}`, async () => {
      const scratch = mkdtempSync(join(tmpdir(), 'jobcheck-owner-'));
      onTestFinished(() => rmSync(scratch, { recursive: true, force: true }));
      const script = join(scratch, 'owner.mts');
      writeFileSync(
        script,
        [
          `import { BrokerServer } from ${JSON.stringify(join(import.meta.dirname, 'BrokerServer.ts'))};`,
          "const server = await BrokerServer.start({ broker: 'redis', persistence: 'aof-always' });",
          'console.log(JSON.stringify({ pids: server.pids, folder: server.folder }));',
          'setInterval(() => undefined, 1000);',
        ].join('\n'),
      );
      const owner = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      const told = await new Promise<{ pids: number[]; folder: string }>((resolve) =>
        owner.stdout.once('data', (d: Buffer) => resolve(JSON.parse(`${d}`))),
      );
      expect(alive(told.pids)).toEqual(told.pids);
      const ended = new Promise((resolve) => owner.once('exit', (code, sig) => resolve(sig ?? code)));
      owner.kill(signal);
      expect(await ended).toBe(signal);
      expect(alive(told.pids)).toEqual([]);
      expect(existsSync(told.folder)).toBe(false);
    }, 60_000);
});
