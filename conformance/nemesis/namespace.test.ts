/**
 * The namespace mode of a partition: a worker process inside a network namespace, talking TCP to
 * an echo server on the host, is cut off by nft rules. `drop` shows the kernel's own behaviour: a
 * byte sent into the partition is retransmitted and arrives after the heal, on the same connection;
 * `reset` makes the worker's next send end in ECONNRESET. After close, no namespace, link or
 * process is left. Where the mode cannot run (not Linux, not root, no ip or nft) the file says why
 * and skips, except under CI, where it fails.
 */
import { execFileSync } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { type NamespacePartition, namespaceUnavailable, openNamespace } from './namespace.ts';

const unavailable = namespaceUnavailable();

if (unavailable !== undefined && (process.env['CI'] ?? '') !== '') {
  describe('the namespace mode in CI', () => {
    it('can run (CI runs as root on Linux)', () => {
      expect.fail(unavailable);
    });
  });
}

/** A worker inside the namespace: sends each line of its stdin, prints `data:<text>`, `error:<code>`, `close`. */
const WORKER = `
const net = require('node:net');
const [host, port] = process.argv.slice(1);
const s = net.connect({ host, port: Number(port) }, () => console.log('connected'));
s.on('data', (d) => console.log('data:' + d));
s.on('error', (e) => console.log('error:' + e.code));
s.on('close', () => { console.log('close'); process.exit(0); });
process.stdin.setEncoding('utf8');
process.stdin.on('data', (t) => { for (const line of t.split('\\n').filter(Boolean)) s.write(line); });
`;

interface Worker {
  readonly lines: string[];
  send(text: string): void;
  readonly pid: number;
}

const open: { ns?: NamespacePartition; server?: Server } = {};
const serverSockets = new Set<Socket>();
afterEach(async () => {
  open.ns?.close();
  for (const socket of serverSockets) socket.destroy();
  serverSockets.clear();
  await new Promise<void>((resolve) => (open.server === undefined ? resolve() : open.server.close(() => resolve())));
  delete open.ns;
  delete open.server;
});

async function until(ok: () => boolean, what: string, ms = 8000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`still not ${what} after ${ms} ms`);
    await sleep(10);
  }
}

/** A namespace, an echo server on the host's end of its link, and a worker inside connected to it. */
async function setup(): Promise<{ ns: NamespacePartition; worker: Worker; received: () => string }> {
  const ns = openNamespace();
  open.ns = ns;
  let received = '';
  const server = createServer((socket) => {
    serverSockets.add(socket);
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      received += chunk.toString();
      socket.write(chunk);
    });
  });
  open.server = server;
  await new Promise<void>((resolve) => server.listen(0, ns.hostAddress, resolve));
  const port = (server.address() as { port: number }).port;
  const child = ns.spawn(process.execPath, ['-e', WORKER, ns.hostAddress, String(port)]);
  const lines: string[] = [];
  child.stdout?.setEncoding('utf8').on('data', (t: string) => lines.push(...t.split('\n').filter(Boolean)));
  const worker = { lines, send: (text: string) => child.stdin?.write(`${text}\n`), pid: child.pid as number };
  await until(() => lines.includes('connected'), 'connected');
  return { ns, worker, received: () => received };
}

describe.skipIf(unavailable !== undefined)(
  `a partition in a network namespace${unavailable === undefined ? '' : ` (skipped: ${unavailable})`}`,
  () => {
    it('drops packets: the byte sent into the partition is retransmitted by TCP and arrives after the heal', async () => {
      const { ns, worker, received } = await setup();
      worker.send('a');
      await until(() => worker.lines.includes('data:a'), 'echoed');
      ns.partition('drop');
      worker.send('b');
      await sleep(400);
      expect(received()).toBe('a');
      ns.heal();
      await until(() => worker.lines.includes('data:b'), 'retransmitted and echoed after the heal');
      expect(received()).toBe('ab');
      expect(worker.lines.filter((l) => l.startsWith('error:'))).toEqual([]);
    });

    it("resets: the worker's next send ends its connection with ECONNRESET", async () => {
      const { ns, worker, received } = await setup();
      ns.partition('reset');
      worker.send('c');
      await until(() => worker.lines.includes('close'), 'closed');
      expect(worker.lines).toContain('error:ECONNRESET');
      expect(received()).toBe('');
    });

    it('leaves no namespace, link or process after close, and closing twice is one close', async () => {
      const { ns, worker } = await setup();
      const links = (): string => execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' });
      const spaces = (): string => execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' });
      expect(spaces()).toContain(ns.name);
      ns.close();
      ns.close();
      expect(spaces()).not.toContain(ns.name);
      expect(links()).not.toMatch(new RegExp(`jc${process.pid % 100_000}\\d+h`));
      await until(() => {
        try {
          process.kill(worker.pid, 0);
          return false;
        } catch {
          return true;
        }
      }, 'the worker gone');
      expect(() => ns.partition('drop')).toThrow(/used after close/);
    });
  },
);
