/**
 * A probe client aimed at a server that accepts connections and never says a word ends with
 * ServerError `no_answer` naming the call that waited (the connect; beanstalkd's, whose connect
 * is the TCP connection itself, at its first write), within the time it was given: never a hang.
 * Needs no broker (a silent loopback listener stands in for each), so it is in the quick part.
 */
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerConfig } from './configurations.ts';
import { within } from './deadline.ts';
import { probeClient } from './probeClients.ts';
import { ServerError } from './ServerError.ts';

const MS = 300;
const silent: { server: Server; sockets: Socket[] }[] = [];
afterEach(async () => {
  for (const { server, sockets } of silent.splice(0)) {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A loopback listener that accepts and never writes; its port. */
async function silentServer(): Promise<number> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
  });
  silent.push({ server, sockets });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

const TARGETS: { config: ServerConfig; env: (port: number) => Record<string, string>; call: string }[] = [
  {
    config: { broker: 'redis', persistence: 'aof-always' },
    env: (p) => ({ JOBCHECK_REDIS_URL: `redis://127.0.0.1:${p}` }),
    call: 'connect',
  },
  { config: { broker: 'beanstalkd', binlog: true }, env: () => ({}), call: 'write 0' },
  {
    config: { broker: 'nats', storage: 'file' },
    env: (p) => ({ JOBCHECK_NATS_URL: `nats://127.0.0.1:${p}` }),
    call: 'connect',
  },
  {
    config: { broker: 'rabbitmq', queueType: 'classic' },
    env: (p) => ({ JOBCHECK_AMQP_URL: `amqp://guest:guest@127.0.0.1:${p}` }),
    call: 'connect',
  },
  {
    config: { broker: 'postgres', synchronousCommit: true },
    env: (p) => ({ PGHOST: '127.0.0.1', PGPORT: String(p), PGUSER: 'jobcheck', PGDATABASE: 'jobcheck' }),
    call: 'connect',
  },
];

describe('a probe client of a server that never answers', () => {
  for (const { config, env, call } of TARGETS)
    it(`ends with no_answer naming the ${config.broker} ${call} within its ${MS} ms`, async () => {
      const port = await silentServer();
      const attempt = (async () => {
        const client = await probeClient({ config, env: env(port), port }, MS);
        try {
          await client.write(0);
        } finally {
          await client.close();
        }
      })();
      const error = await attempt.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ServerError);
      expect((error as ServerError).code).toBe('no_answer');
      expect((error as ServerError).message).toBe(
        `the ${config.broker} probe client of 127.0.0.1:${port}: ${call} did not answer within ${MS} ms`,
      );
    }, 10_000);
});

describe('within', () => {
  it('settles as the work does when it is in time, and calls no onExpiry', async () => {
    let expired = false;
    await expect(within(Promise.resolve(7), 50, 'x', () => (expired = true))).resolves.toBe(7);
    await expect(within(Promise.reject(new Error('own')), 50, 'x')).rejects.toThrow('own');
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(expired).toBe(false);
  }, 5_000);

  it('rejects with no_answer naming what waited, after calling onExpiry, when the work never settles', async () => {
    let expired = false;
    const work = within(new Promise<never>(() => undefined), 50, 'the thing', () => (expired = true));
    await expect(work).rejects.toBeInstanceOf(ServerError);
    await expect(work).rejects.toMatchObject({ code: 'no_answer', message: 'the thing did not answer within 50 ms' });
    expect(expired).toBe(true);
  }, 5_000);
});
