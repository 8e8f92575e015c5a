/**
 * The fault campaign's verdicts against an in-process store behind fakes of the broker (no broker
 * server; the partition's case routes one lane through the campaign's proxy to a TCP echo of its
 * own on 127.0.0.1): what it may conclude when the queue comes back, and when it does not. A queue that answers no
 * request once the fault has ended is `unknown`, never `holds`, even when its final snapshot is
 * one some order of the model explains (its requests are indefinite and may not have happened).
 */
import { connect, createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Adapter } from '../adapter.ts';
import type { ConcurrentFactory, ConcurrentRun } from '../concurrent/index.ts';
import { jobStoreFactory } from '../stores/jobStore.ts';
import { runFault } from './campaign.ts';
import type { BrokerControl, FaultSubject } from './types.ts';

const server: BrokerControl = {
  kill: async () => undefined,
  restart: async () => undefined,
  pause: () => undefined,
  resume: () => undefined,
};

/** The built-in store as a queue; after its first restart, if `silent`, no request is ever answered. */
function subject(silent: boolean): FaultSubject {
  const inner = jobStoreFactory();
  return {
    target: { queue: 'jobcheck JobStore', version: 'test', factory: inner, declarations: {} },
    configuration: 'in-process',
    factory: async (config) => {
      const store: Adapter = await inner(config);
      let restarted = false;
      return {
        ...store,
        name: store.name,
        execute: (command) => (silent && restarted ? new Promise(() => undefined) : store.execute(command)),
        snapshot: () => store.snapshot(),
        restart: async () => {
          restarted = true;
          await store.restart();
        },
        close: () => store.close(),
      };
    },
    upstream: { host: '127.0.0.1', port: 1 },
    tickMs: 10,
    replayCommand: (fault) => `replay ${fault}`,
  };
}

describe('the fault campaign', () => {
  it('holds where the queue comes back after the kill and keeps what it acknowledged', async () => {
    const r = await runFault({ subject: subject(false), server, fault: 'kill', timeoutMs: 300, replays: 0 });
    expect(r.verdict).toBe('holds');
    expect(r.figures?.submitsLost).toBe(0);
  });

  it('still judges a run whose request the fault met goes unanswered, the queue answering again after it', async () => {
    // The submit sent as the kill begins never answers; every request after the restart does.
    const inner = subject(false);
    const hanging: FaultSubject = {
      ...inner,
      factory: async (config) => {
        const store = await inner.factory(config);
        let sent = 0;
        return {
          ...store,
          name: store.name,
          execute: (command) => {
            sent += 1;
            // The kill scenario's fourth submit (d), the request the kill meets.
            return sent === 7 ? new Promise(() => undefined) : store.execute(command);
          },
          snapshot: () => store.snapshot(),
          restart: () => store.restart(),
          close: () => store.close(),
        };
      },
    };
    const r = await runFault({ subject: hanging, server, fault: 'kill', timeoutMs: 300, replays: 0 });
    expect(r.reason).toBeUndefined();
    expect(r.verdict).toBe('holds');
    expect(r.figures?.indefinite).toBe(1);
  });

  it('is unknown, not holds, where no request is answered once the fault has ended', async () => {
    const r = await runFault({ subject: subject(true), server, fault: 'kill', timeoutMs: 300, replays: 0 });
    expect(r.verdict).toBe('unknown');
    expect(r.reason).toMatch(/after the fault ended got no reply/);
  });

  it("heals a partition only once the cut lane's request in flight reached the proxy, so that it is held", async () => {
    // The upstream: one line back for each chunk a connection sends.
    const upstream = createServer((socket) => socket.on('data', () => socket.write('ok\n')));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const port = (upstream.address() as AddressInfo).port;
    const inner = jobStoreFactory();
    // The cut lane's client takes 200 ms before its request leaves (a client that signs slowly),
    // then makes a round trip through the proxy before the store runs the command.
    const routed =
      (cut: number, address: string): ConcurrentFactory =>
      async (config) => {
        const store = await inner(config);
        const [host, at] = address.split(':') as [string, string];
        return {
          name: store.name,
          concurrent: true,
          execute: async (lane, command) => {
            if (lane !== cut) return store.execute(command);
            await sleep(200);
            await new Promise<void>((resolve, reject) => {
              const socket = connect(Number(at), host, () => socket.write('request\n'));
              socket.once('data', () => {
                socket.destroy();
                resolve();
              });
              socket.on('error', reject);
            });
            return store.execute(command);
          },
          snapshot: () => store.snapshot(),
          close: () => store.close(),
        };
      };
    const runs: ConcurrentRun[] = [];
    try {
      await runFault({
        subject: { ...subject(false), routedFactory: routed, upstream: { host: '127.0.0.1', port } },
        server,
        fault: 'partition-hold',
        timeoutMs: 3000,
        replays: 0,
        onRun: (run) => {
          if (run !== undefined) runs.push(run);
        },
      });
    } finally {
      upstream.close();
    }
    const end = runs[0]?.history.nemesis?.find((e) => e.phase === 'end');
    expect(end?.note).toMatch(/^[1-9]\d* bytes held, delivered on heal$/);
  });
});
