/**
 * The stale holder through the proxy, on a real Redis server: worker A reads an entry of a stream
 * with XREADGROUP through its proxy, is cut off (`hold`) and sends its XACK into the partition;
 * worker B takes the entry with XAUTOCLAIM; on heal A's held XACK lands, and it settles B's claim:
 * the pending entry is gone though B never acknowledged it. Redis Streams name an entry, never a
 * delivery, in XACK, so nothing tells the late acknowledgement of A from one of B.
 *
 * Needs a server (`bash scripts/brokers.sh redis -- npx vitest run conformance/nemesis/redisPartition.test.ts`);
 * without one it is skipped, and with `CI` set it fails. It leaves no key, connection or proxy behind.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { startProxy } from './proxy.ts';

const URL_VARIABLE = 'JOBCHECK_REDIS_URL';
const url = process.env[URL_VARIABLE] ?? '';
const missing =
  url === ''
    ? `no Redis server: ${URL_VARIABLE} is not set (run \`bash scripts/brokers.sh redis -- npx vitest run conformance/nemesis/redisPartition.test.ts\`)`
    : undefined;

if (missing !== undefined && (process.env['CI'] ?? '') !== '') {
  describe('a partition on Redis in CI', () => {
    it('has a server (the broker tests never skip in CI)', () => {
      expect.fail(`${missing}; CI wraps the tests in scripts/brokers.sh`);
    });
  });
}

/** A client that gives up instead of reconnecting or waiting on: the test never waits on a lost reply. */
const client = (host: string, port: number): Redis =>
  new Redis({
    host,
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    commandTimeout: 5000,
  });

type Pending = [id: string, consumer: string, idleMs: number, deliveries: number][];

describe.skipIf(missing !== undefined)(
  `a worker partitioned from Redis${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    it("lets the cut-off worker's late XACK settle the entry another worker claimed meanwhile", async () => {
      const server = new URL(url);
      const host = server.hostname;
      const port = Number(server.port);
      const stream = `jobcheck:nemesis:${process.pid}:${Date.now()}`;
      const proxy = await startProxy({ upstream: { host, port } });
      const admin = client(host, port);
      const a = client(proxy.host, proxy.port);
      const b = client(host, port);
      try {
        await Promise.all([admin.connect(), a.connect(), b.connect()]);
        await admin.xgroup('CREATE', stream, 'workers', '$', 'MKSTREAM');
        const entry = await admin.xadd(stream, '*', 'job', 'a');
        const read = (await a.xreadgroup('GROUP', 'workers', 'A', 'COUNT', 1, 'STREAMS', stream, '>')) as
          | [string, [string, string[]][]][]
          | null;
        expect(read?.[0]?.[1]?.[0]?.[0]).toBe(entry);

        proxy.set({ kind: 'partition', mode: 'hold' });
        const lateAck = a.xack(stream, 'workers', entry as string);
        // The ack is in the partition: the server still has the entry pending for A.
        await sleep(200);
        const before = (await admin.xpending(stream, 'workers', '-', '+', 10)) as Pending;
        expect(before.map(([id, consumer]) => [id, consumer])).toEqual([[entry, 'A']]);
        expect(proxy.counts().heldBytes).toBeGreaterThan(0);

        // B takes the entry over (min-idle-time 0: the claim a lease that ran out would allow).
        const claimed = (await b.xautoclaim(stream, 'workers', 'B', 0, '0-0', 'COUNT', 1)) as [
          string,
          [string, string[]][],
        ];
        expect(claimed[1].map(([id]) => id)).toEqual([entry]);
        const taken = (await admin.xpending(stream, 'workers', '-', '+', 10)) as Pending;
        expect(taken.map(([id, consumer, , deliveries]) => [id, consumer, deliveries])).toEqual([[entry, 'B', 2]]);

        proxy.set({ kind: 'pass' });
        expect(await lateAck).toBe(1);
        // B never acknowledged, yet the entry it holds is settled: A's stale ack won.
        expect(await admin.xpending(stream, 'workers', '-', '+', 10)).toEqual([]);
        expect(await b.xack(stream, 'workers', entry as string)).toBe(0);
        expect(proxy.losses()).toBeNull();
      } finally {
        await admin.del(stream).catch(() => 0);
        for (const c of [a, b, admin]) c.disconnect();
        await proxy.close();
      }
      expect(proxy.counts().open).toBe(0);
    });
  },
);
