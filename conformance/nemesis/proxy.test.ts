/**
 * The per-worker proxy in each mode, between a real TCP client and a real local echo server: what
 * reaches the server, what comes back, in which order, and what a client sees when its connection
 * is cut. Time is asserted only as a lower bound (a delay at least N ms, nothing arriving while held).
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { hasCode } from '../../contract/index.ts';
import { NemesisError } from './errors.ts';
import { type FaultProxy, startProxy } from './proxy.ts';

interface Echo {
  readonly server: Server;
  readonly port: number;
  /** Every byte the server received, over every connection. */
  received: string;
  /** The server's side of each connection. */
  readonly sockets: Socket[];
}

async function echoServer(): Promise<Echo> {
  const sockets: Socket[] = [];
  const echo = { received: '', sockets } as unknown as Echo;
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      echo.received += chunk.toString();
      socket.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(echo, { server, port: (server.address() as { port: number }).port });
}

interface Client {
  readonly socket: Socket;
  data: string;
  error: (Error & { code?: string }) | undefined;
  closed: boolean;
}

async function client(port: number): Promise<Client> {
  const socket = connect({ host: '127.0.0.1', port });
  const c: Client = { socket, data: '', error: undefined, closed: false };
  socket.on('data', (chunk) => {
    c.data += chunk.toString();
  });
  socket.on('error', (e) => {
    c.error = e;
  });
  socket.on('close', () => {
    c.closed = true;
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return c;
}

/** Waits until `ok()` holds, polling; fails after `ms` (a bound on the test, never a measured figure). */
async function until(ok: () => boolean, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`still not ${what} after ${ms} ms`);
    await sleep(5);
  }
}

const open: { proxy?: FaultProxy; echo?: Echo; clients: Client[] } = { clients: [] };
afterEach(async () => {
  for (const c of open.clients) c.socket.destroy();
  open.clients = [];
  await open.proxy?.close();
  await new Promise<void>((resolve) => (open.echo === undefined ? resolve() : open.echo.server.close(() => resolve())));
  delete open.proxy;
  delete open.echo;
});

async function setup(maxHeldBytes?: number): Promise<{ proxy: FaultProxy; echo: Echo; c: Client }> {
  const echo = await echoServer();
  open.echo = echo;
  const proxy = await startProxy({
    upstream: { host: '127.0.0.1', port: echo.port },
    ...(maxHeldBytes === undefined ? {} : { maxHeldBytes }),
  });
  open.proxy = proxy;
  const c = await client(proxy.port);
  open.clients.push(c);
  return { proxy, echo, c };
}

describe('the per-worker proxy', () => {
  it('passes bytes both ways in pass mode', async () => {
    const { c } = await setup();
    c.socket.write('hello');
    await until(() => c.data === 'hello', 'echoed');
  });

  it('holds both directions in hold mode, then delivers everything in order on heal', async () => {
    const { proxy, echo, c } = await setup();
    c.socket.write('a');
    await until(() => c.data === 'a', 'echoed before the partition');
    proxy.set({ kind: 'partition', mode: 'hold' });
    for (const part of ['b', 'c', 'd']) {
      c.socket.write(part);
      await sleep(20);
    }
    await sleep(150);
    expect(echo.received).toBe('a');
    expect(c.data).toBe('a');
    expect(proxy.counts().heldBytes).toBe(3);
    proxy.set({ kind: 'pass' });
    await until(() => c.data === 'abcd', 'delivered after the heal');
    expect(echo.received).toBe('abcd');
    expect(c.error).toBeUndefined();
    expect(proxy.losses()).toBeNull();
  });

  it('holds the replies too: bytes the server sent during the partition reach the client only on heal', async () => {
    const { proxy, echo, c } = await setup();
    c.socket.write('x');
    await until(() => echo.received === 'x' && c.data === 'x', 'echoed');
    proxy.set({ kind: 'partition', mode: 'hold' });
    // The server writes on its own connection while the worker is cut off.
    expect(echo.sockets.length).toBe(1);
    echo.sockets[0]?.write('late');
    await sleep(150);
    expect(c.data).toBe('x');
    proxy.set({ kind: 'pass' });
    await until(() => c.data === 'xlate', 'the late reply delivered');
  });

  it('loses bytes in drop mode, and the connection dies on heal', async () => {
    const { proxy, echo, c } = await setup();
    proxy.set({ kind: 'partition', mode: 'drop' });
    c.socket.write('lost');
    await sleep(150);
    expect(echo.received).toBe('');
    expect(proxy.counts().droppedBytes).toBe(4);
    expect(proxy.losses()).toBe('dropped 4 bytes');
    proxy.set({ kind: 'pass' });
    await until(() => c.closed, 'closed');
    expect(c.error?.code).toBe('ECONNRESET');
    expect(echo.received).toBe('');
  });

  it('resets every connection in reset mode: the client gets ECONNRESET, and a new one is reset at once', async () => {
    const { proxy, c } = await setup();
    proxy.set({ kind: 'partition', mode: 'reset' });
    await until(() => c.closed, 'closed');
    expect(c.error?.code).toBe('ECONNRESET');
    const late = connect({ host: '127.0.0.1', port: proxy.port });
    const error = await new Promise<Error & { code?: string }>((resolve) => late.once('error', resolve));
    expect(error.code).toBe('ECONNRESET');
    proxy.set({ kind: 'pass' });
    const again = await client(proxy.port);
    open.clients.push(again);
    again.socket.write('back');
    await until(() => again.data === 'back', 'echoed after the heal');
  });

  it('delays each chunk by at least the latency, in order', async () => {
    const { proxy, c } = await setup();
    proxy.set({ kind: 'latency', ms: 120 });
    const sent = performance.now();
    c.socket.write('1');
    await sleep(10);
    c.socket.write('2');
    await until(() => c.data === '12', 'echoed');
    // Two hops each way pass the proxy: the round trip is at least the latency (a lower bound only).
    expect(performance.now() - sent).toBeGreaterThanOrEqual(120);
  });

  it('caps what it holds: bytes over the cap are discarded and said so, and the connection is reset on heal', async () => {
    const { proxy, echo, c } = await setup(1000);
    proxy.set({ kind: 'partition', mode: 'hold' });
    c.socket.write(Buffer.alloc(5000, 'z'));
    await until(() => proxy.counts().heldBytes + proxy.counts().overflowBytes === 5000, 'all read');
    expect(proxy.counts().heldBytes).toBeLessThanOrEqual(1000);
    expect(proxy.counts().overflowBytes).toBeGreaterThanOrEqual(4000);
    expect(proxy.losses()).toMatch(/^\d+ bytes over the held cap of 1000 discarded$/);
    proxy.set({ kind: 'pass' });
    await until(() => c.closed, 'closed');
    expect(c.error?.code).toBe('ECONNRESET');
    expect(echo.received.length).toBeLessThan(5000);
  });

  it('refuses a latency out of bounds and any change after close, with typed errors', async () => {
    const { proxy } = await setup();
    expect(() => proxy.set({ kind: 'latency', ms: 0 })).toThrow(
      /latency must be an integer from 1 to 60000 ms \(got 0\)/,
    );
    await proxy.close();
    let thrown: unknown;
    try {
      proxy.set({ kind: 'pass' });
    } catch (e) {
      thrown = e;
    }
    expect(hasCode(thrown, 'closed', NemesisError)).toBe(true);
  });

  it('leaves nothing after close: no listener, no connection, no timer; closing twice is the same close', async () => {
    const { proxy, c } = await setup();
    proxy.set({ kind: 'latency', ms: 5000 });
    c.socket.write('pending');
    await until(() => proxy.counts().heldBytes === 7, 'held');
    const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const timersWhileDelayed = timers();
    await Promise.all([proxy.close(), proxy.close()]);
    await until(() => c.closed, 'the client closed');
    expect(proxy.counts().open).toBe(0);
    const refused = connect({ host: '127.0.0.1', port: proxy.port });
    const error = await new Promise<Error & { code?: string }>((resolve) => refused.once('error', resolve));
    expect(error.code).toBe('ECONNREFUSED');
    // The 5-second delay's timer went with the proxy.
    expect(timers()).toBeLessThan(timersWhileDelayed);
  });
});
