import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { findPython, pythonCommand } from '../../examples/python/interpreter.ts';
import { runCampaign } from '../random/campaign.ts';
import { runLockstep } from '../lockstep/index.ts';
import { ProcessAdapter, encodeCommand, processAdapterFactory } from './processAdapter.ts';
import { ProcessError } from './processError.ts';
import type { ProcessErrorCode } from './processError.ts';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { taggedProcesses } from '../hostile/cases.ts';
import { LineSplitter, decodeStrictUtf8, firstInvalidUtf8 } from './lineSplitter.ts';

const FAKE = fileURLToPath(new URL('../hostile/peers/fakePeer.mjs', import.meta.url));
const fake = (mode: string): string => `'${process.execPath}' '${FAKE}' ${mode}`;
const config = { capacity: 2, maxAttempts: 2, leaseTicks: 3, backoffBase: 1, backoffCap: 2 };

/** Runs `action` and returns the ProcessError it rejects with (failing the test if it does not). */
async function processError(action: () => Promise<unknown>): Promise<ProcessError> {
  try {
    await action();
  } catch (error) {
    expect(error).toBeInstanceOf(ProcessError);
    return error as ProcessError;
  }
  throw new Error('expected a ProcessError');
}

const opened: ProcessAdapter[] = [];
async function start(mode: string, options = {}): Promise<ProcessAdapter> {
  const adapter = await ProcessAdapter.start(fake(mode), config, options);
  opened.push(adapter);
  return adapter;
}
afterAll(() => Promise.all(opened.map((a) => a.close())));

describe('the process adapter reports every misbehaviour as a typed error naming the line it sent', () => {
  it('reports a reply that is not JSON as protocol_error, with the line sent and the line received (as docs/protocol.md shows)', async () => {
    const adapter = await start('garbage');
    await adapter.execute({ type: 'tick', now: 0 });
    await adapter.execute({ type: 'tick', now: 1 });
    const error = await processError(() => adapter.execute({ type: 'claim', worker: 'w1', now: 1 }));
    expect(error.code).toBe<ProcessErrorCode>('protocol_error');
    expect(error.details).toMatchObject({
      sent: '{"type":"claim","worker":"w1","now":1}',
      lineNumber: 4,
      received: 'claiming a',
    });
    const documented = readFileSync(new URL('../../docs/protocol.md', import.meta.url), 'utf8').match(
      /^protocol_error: .*$/m,
    )?.[0];
    expect(error.message).toBe(documented);
  });

  it('reports a reply with a field the contract does not have as protocol_error naming the field', async () => {
    const adapter = await start('extra-field');
    const error = await processError(() => adapter.execute({ type: 'tick', now: 5 }));
    expect(error.code).toBe('protocol_error');
    expect(error.message).toContain('elapsedMs: unknown field');
  });

  it('reports a rejection with a code the contract does not have as protocol_error', async () => {
    const adapter = await start('bad-code');
    const error = await processError(() => adapter.execute({ type: 'tick', now: 5 }));
    expect(error.code).toBe('protocol_error');
    expect(error.message).toContain('code');
    expect(error.details.received).toContain('too_early');
  });

  it('reports silence as timeout, kills the process, and keeps failing afterwards', async () => {
    const adapter = await start('silent', { replyTimeoutMs: 200 });
    const error = await processError(() => adapter.execute({ type: 'tick', now: 0 }));
    expect(error.code).toBe('timeout');
    expect(error.details.sent).toBe('{"type":"tick","now":0}');
    expect((await processError(() => adapter.snapshot())).code).toBe('timeout');
  });

  it('reports a process that dies as process_exited, with its exit code and the last line of stderr', async () => {
    const adapter = await start('exit');
    const error = await processError(() => adapter.execute({ type: 'tick', now: 0 }));
    expect(error.code).toBe('process_exited');
    expect(error.details.exitCode).toBe(3);
    expect(error.details.stderr).toContain('panic: lost the queue');
    expect(error.message).toContain('stderr: panic: lost the queue');
  });

  it('reports a line written when no request was waiting as protocol_error', async () => {
    const adapter = await start('chatty');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const error = await processError(() => adapter.execute({ type: 'tick', now: 0 }));
    expect(error.code).toBe('protocol_error');
    expect(error.details.received).toBe('debug: ready');
  });

  it('reports a command that cannot start as spawn_failed, with the shell saying why', async () => {
    const error = await processError(() => ProcessAdapter.start('no-such-jobstore-command-here', config));
    expect(error.code).toBe('spawn_failed');
    expect(error.details.exitCode).toBe(127);
    expect(error.details.stderr?.join('\n')).toMatch(/not found/);
  });

  it("reports a refused hello as handshake_failed with the implementation's reason", async () => {
    const error = await processError(() => ProcessAdapter.start(fake('refuse-hello'), config));
    expect(error.code).toBe('handshake_failed');
    expect(error.message).toContain('unsupported_protocol: only jobcheck/0 here');
  });

  it("reports a new process refusing its predecessor's snapshot as restore_rejected", async () => {
    const adapter = await start('refuse-restore');
    const error = await processError(() => adapter.restart());
    expect(error.code).toBe('restore_rejected');
    expect(error.message).toContain('invalid_snapshot');
  });

  it('refuses to send a command that uses a protocol message type or cannot be written as JSON', () => {
    expect(() => encodeCommand({ type: 'restore', snapshot: {} }, 'x')).toThrow(
      expect.objectContaining({ code: 'unencodable_command' }),
    );
    expect(() => encodeCommand({ type: 'tick', now: 1n }, 'x')).toThrow(
      expect.objectContaining({ code: 'unencodable_command' }),
    );
    expect(encodeCommand(undefined, 'x')).toBe('null');
    expect(encodeCommand({ type: 'tick', now: 1 }, 'x')).toBe('{"type":"tick","now":1}');
  });

  it('turns a garbage-speaking implementation into an impl_error divergence of the lockstep run, not a crash', async () => {
    const factory = processAdapterFactory(fake('garbage'));
    try {
      const result = await runLockstep(config, [{ do: { type: 'claim', worker: 'w1', now: 0 } }], factory);
      expect(result.divergence).toMatchObject({ step: 1, kind: 'impl_error' });
      expect(result.divergence?.error).toContain('protocol_error');
    } finally {
      await factory.close();
    }
  });
});

describe('snapshots in replies (replySnapshots)', () => {
  it("takes the snapshot a command's reply carries instead of asking for it, once, and asks again after any other request", async () => {
    const adapter = await start('reply-snapshots', { restarts: 'warm' });
    expect(await adapter.execute({ type: 'tick', now: 0 })).toEqual({ ok: true, type: 'tick', clock: 1 });
    expect(await adapter.snapshot()).toEqual({ commands: 1, via: 'reply' });
    // Taken once: a second read with no command between asks the store.
    expect(await adapter.snapshot()).toEqual({ commands: 1, via: 'request' });
    await adapter.execute({ type: 'tick', now: 1 });
    await adapter.restart();
    // The restart carried the reply's snapshot; the new process's store (the fake ignores restores) is asked.
    expect(await adapter.snapshot()).toEqual({ commands: 0, via: 'request' });
    await adapter.execute({ type: 'tick', now: 2 });
    await adapter.resetTo(undefined);
    expect(await adapter.snapshot()).toEqual({ commands: 0, via: 'request' });
  });

  it('reports a command reply without its snapshot, or with one that is not an object, as protocol_error', async () => {
    const missing = await start('reply-snapshots-missing');
    const error = await processError(() => missing.execute({ type: 'tick', now: 0 }));
    expect(error.code).toBe<ProcessErrorCode>('protocol_error');
    expect(error.message).toContain('snapshot: missing (the hello reply said replySnapshots');
    const array = await start('reply-snapshots-array');
    const wrong = await processError(() => array.execute({ type: 'tick', now: 0 }));
    expect(wrong.code).toBe<ProcessErrorCode>('protocol_error');
    expect(wrong.message).toContain('snapshot: must be an object (got [1])');
  });

  it('refuses a snapshot in a command reply of an implementation that did not say replySnapshots', async () => {
    const adapter = await start('extra-field');
    const error = await processError(() => adapter.execute({ type: 'tick', now: 5 }));
    expect(error.code).toBe<ProcessErrorCode>('protocol_error');
  });
});

describe('requests written ahead (pipelining)', () => {
  const run = [
    { execute: { type: 'tick', now: 1 } },
    { snapshot: true },
    { execute: { type: 'tick', now: 2 } },
    { snapshot: true },
  ] as const;

  it('writes the planned requests at once and checks each reply when its call comes, in order', async () => {
    const adapter = await start('pipelining');
    const before = (await adapter.snapshot()) as unknown as { reads: number };
    adapter.plan(run);
    expect(await adapter.execute({ type: 'tick', now: 1 })).toEqual({ ok: true, type: 'tick', clock: 1 });
    expect(await adapter.snapshot()).toEqual({ commands: 1, reads: before.reads + 1 });
    expect(await adapter.execute({ type: 'tick', now: 2 })).toEqual({ ok: true, type: 'tick', clock: 2 });
    // The four requests came in one read of stdin.
    expect(await adapter.snapshot()).toEqual({ commands: 2, reads: before.reads + 1 });
    // Nothing planned: one request at a time again.
    await adapter.execute({ type: 'tick', now: 3 });
    expect(await adapter.snapshot()).toMatchObject({ commands: 3, reads: before.reads + 3 });
  });

  it('writes nothing ahead for an implementation that did not say pipelining', async () => {
    const adapter = await start('reads');
    const before = (await adapter.snapshot()) as unknown as { reads: number };
    adapter.plan(run);
    expect(await adapter.execute({ type: 'tick', now: 1 })).toEqual({ ok: true, type: 'tick', clock: 1 });
    expect(await adapter.snapshot()).toEqual({ commands: 1, reads: before.reads + 2 });
    await adapter.execute({ type: 'tick', now: 2 });
    expect(await adapter.snapshot()).toEqual({ commands: 2, reads: before.reads + 4 });
  });

  it('refuses a call the plan did not say, and drops what is ahead when the store is given up', async () => {
    const factory = processAdapterFactory(fake('pipelining'), { spares: 0 });
    try {
      const a = (await factory(config)) as ProcessAdapter;
      a.plan(run);
      await expect(a.execute({ type: 'tick', now: 9 })).rejects.toThrow(/internal: tick was asked while requests/);
      await expect(a.restart()).rejects.toThrow(/internal: restart was asked while requests/);
      // Stopping short to give the store up: its process goes back to the pool and serves the next store.
      await a.close();
      const b = (await factory(config)) as ProcessAdapter;
      expect([b.pid, factory.processesStarted]).toEqual([a.pid, 1]);
      expect(await b.execute({ type: 'tick', now: 1 })).toEqual({ ok: true, type: 'tick', clock: 1 });
      b.plan(run);
      await b.execute({ type: 'tick', now: 1 });
      await b.resetTo(undefined);
      expect(await b.snapshot()).toMatchObject({ commands: 0 });
      await b.close();
    } finally {
      await factory.close();
    }
  });

  it('reports an implementation that says pipelining but misreads requests written together as a timeout', async () => {
    const adapter = await start('pipelining-first-line', { replyTimeoutMs: 300 });
    adapter.plan(run);
    expect(await adapter.execute({ type: 'tick', now: 1 })).toEqual({ ok: true, type: 'tick', clock: 1 });
    const error = await processError(() => adapter.snapshot());
    expect(error.code).toBe<ProcessErrorCode>('timeout');
    expect(error.details.sent).toBe('{"type":"snapshot"}');
    expect(error.details.lineNumber).toBe(3);
  });

  it('writes the hello and the restore of a warm restart together to a process that said pipelining', async () => {
    const factory = processAdapterFactory(fake('pipelining'), { spares: 0 });
    try {
      const a = (await factory.warm(config)) as ProcessAdapter;
      const b = (await factory.warm(config)) as ProcessAdapter;
      await b.close();
      await a.execute({ type: 'tick', now: 1 });
      await a.restart();
      // On b's process: b's hello (one read), the restart's hello and restore (one read), this snapshot (one read).
      expect(a.pid).toBe(b.pid);
      expect(await a.snapshot()).toEqual({ commands: 0, reads: 3 });
      await a.close();
    } finally {
      await factory.close();
    }
  });
});

describe('process reuse and restarts', () => {
  it("gives a closed store's process to the next store after a resetting hello, and restarts on a process that never served a store", async () => {
    const factory = processAdapterFactory(fake('counter'));
    try {
      const first = (await factory(config)) as ProcessAdapter;
      expect(await first.execute({ type: 'tick', now: 0 })).toEqual({ ok: true, type: 'tick', clock: 1 });
      expect(await first.execute({ type: 'tick', now: 0 })).toEqual({ ok: true, type: 'tick', clock: 2 });
      await first.close();
      const second = (await factory(config)) as ProcessAdapter;
      expect(second.implementation).toBe(first.implementation);
      expect(await second.execute({ type: 'tick', now: 0 })).toEqual({ ok: true, type: 'tick', clock: 1 });
      await second.restart();
      // The fake ignores `restore`: only a new process explains the count starting again at 1.
      expect(await second.execute({ type: 'tick', now: 0 })).toEqual({ ok: true, type: 'tick', clock: 1 });
      expect(second.restarts).toBe(1);
      await second.close();
      expect(factory.processesStarted).toBeGreaterThanOrEqual(2);
    } finally {
      await factory.close();
    }
  });

  it("keeps five closed stores' processes for the next five stores: four stores at once and a warm restart need five", async () => {
    const factory = processAdapterFactory(fake('counter'), { spares: 0 });
    try {
      const five = async (): Promise<void> => {
        const stores = await Promise.all(Array.from({ length: 5 }, () => factory(config)));
        await Promise.all(stores.map((s) => s.close()));
      };
      await five();
      expect(factory.processesStarted).toBe(5);
      await five();
      expect(factory.processesStarted).toBe(5);
    } finally {
      await factory.close();
    }
  });

  it('takes a spare for a warm restart that finds no idle process, and starts no replacement for it', async () => {
    const factory = processAdapterFactory(fake('counter'), { spares: 1 });
    try {
      const a = (await factory.warm(config)) as ProcessAdapter;
      expect(factory.processesStarted).toBe(2);
      await a.restart();
      // The spare serves the restart; a's first process is now idle and serves the next one.
      await a.restart();
      await a.restart();
      expect(factory.processesStarted).toBe(2);
      await a.close();
    } finally {
      await factory.close();
    }
  });

  it('keeps one spare started after a cold restart, not `spares` of them: two cold restarts start one process more', async () => {
    const factory = processAdapterFactory(fake('counter'), { spares: 2 });
    try {
      const a = (await factory(config)) as ProcessAdapter;
      expect(factory.processesStarted).toBe(3);
      await a.restart();
      expect(factory.processesStarted).toBe(3);
      await a.restart();
      expect(factory.processesStarted).toBe(4);
      expect(a.restarts).toBe(2);
      await a.close();
    } finally {
      await factory.close();
    }
  });

  it('starts a process per store when reuse is off', async () => {
    const factory = processAdapterFactory(fake('counter'), { reuse: false, spares: 0 });
    try {
      const a = (await factory(config)) as ProcessAdapter;
      await a.close();
      const b = (await factory(config)) as ProcessAdapter;
      expect(b.implementation).not.toBe(a.implementation);
      await b.close();
      expect(factory.processesStarted).toBe(2);
    } finally {
      await factory.close();
    }
  });
});

describe('containment: process groups, and endings that cost a correct implementation nothing', () => {
  const PEER = fileURLToPath(new URL('../hostile/peers/peer.py', import.meta.url));
  it('restarts a correct implementation with a background helper: every old process exits by itself, and the helper dies with its group', async () => {
    const tag = `JOBCHECK_TEST_TAG=${randomUUID()}`;
    const [key, value] = tag.split('=') as [string, string];
    const factory = processAdapterFactory(`sleep 300 & python3 -S '${PEER}' correct`, {
      env: { ...process.env, [key]: value },
    });
    try {
      const adapter = await factory(config);
      for (let i = 0; i < 4; i++) await adapter.restart();
      await adapter.close();
    } finally {
      await factory.close();
    }
    expect(factory.endings).toEqual({ exited: 6, SIGTERM: 0, SIGKILL: 0 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(taggedProcesses(value)).toEqual([]);
  });

  it('fails a restart with exit_timeout when the old process ignores the end of stdin and SIGTERM, and still ends it', async () => {
    const tag = `JOBCHECK_TEST_TAG=${randomUUID()}`;
    const [key, value] = tag.split('=') as [string, string];
    const factory = processAdapterFactory(`python3 -S '${PEER}' ignore-term`, {
      env: { ...process.env, [key]: value },
      endGraceMs: 200,
    });
    try {
      const adapter = await factory(config);
      const error = await processError(() => adapter.restart());
      expect(error.code).toBe('exit_timeout');
      await adapter.close();
    } finally {
      await factory.close();
    }
    expect(factory.endings.SIGTERM + factory.endings.SIGKILL).toBeGreaterThanOrEqual(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(taggedProcesses(value)).toEqual([]);
  });
});

describe('reading lines within bounds', () => {
  it('splits lines across chunks, keeps at most the bound of a long line, and reports the overflow once, before the newline', () => {
    const lines: { head: string; bytes: number }[] = [];
    const overflows: number[] = [];
    const s = new LineSplitter(4, {
      line: (l) => lines.push({ head: l.head.toString(), bytes: l.bytes }),
      overflow: (n) => overflows.push(n),
    });
    s.push(Buffer.from('ab\ncd'));
    s.push(Buffer.from('efgh'));
    expect(overflows).toEqual([6]);
    s.push(Buffer.from('ij\nk'));
    s.end();
    expect(lines).toEqual([
      { head: 'ab', bytes: 2 },
      { head: 'cdef', bytes: 8 },
      { head: 'k', bytes: 1 },
    ]);
  });

  it('finds the first byte that does not begin a valid UTF-8 sequence', () => {
    expect(firstInvalidUtf8(Buffer.from('héllo ✓ 𝄞'))).toBe(Buffer.byteLength('héllo ✓ 𝄞'));
    expect(firstInvalidUtf8(Buffer.from([0x61, 0xff]))).toBe(1);
    expect(firstInvalidUtf8(Buffer.from([0x61, 0xc0, 0xaf]))).toBe(1); // overlong
    expect(firstInvalidUtf8(Buffer.from([0xed, 0xa0, 0x80]))).toBe(0); // a surrogate
    expect(firstInvalidUtf8(Buffer.from([0xe2, 0x9c]))).toBe(0); // cut short
    expect(decodeStrictUtf8(Buffer.from([0x7b, 0xff]))).toEqual({ ok: false, offset: 1 });
  });
});

describe('warm restarts: the snapshot crosses into another process of the pool', () => {
  const python = findPython();
  it.skipIf(python === undefined)(
    'restore into a process reset by hello, keep the old one for the next store, and start no process for either',
    async () => {
      const factory = processAdapterFactory(pythonCommand(python as string, 'examples/python/jobstore.py'), {
        spares: 0,
      });
      try {
        // Two stores open at once: two processes. Closing the second leaves its process idle.
        const a = (await factory.warm(config)) as ProcessAdapter;
        const b = (await factory.warm(config)) as ProcessAdapter;
        const [first, second] = [a.pid, b.pid];
        await b.close();
        expect(factory.processesStarted).toBe(2);
        await a.execute({ type: 'submit', now: 1, id: 'j1', account: 'acct', key: 'k1', amount: 5, deadline: 50 });
        const claimed = await a.execute({ type: 'claim', now: 2, worker: 'w1' });
        const before = await a.snapshot();
        await a.restart();
        // The restored process is the idle one, not a new one; the state and the token counter crossed.
        expect(factory.processesStarted).toBe(2);
        expect([a.pid, factory.restarts]).toEqual([
          second,
          { cold: 0, warm: 1, coldMs: 0, warmMs: expect.any(Number) },
        ]);
        expect(await a.snapshot()).toEqual(before);
        expect(await a.execute({ type: 'claim', now: 3, worker: 'w2' })).toMatchObject({ ok: true, job: null });
        expect(claimed).toMatchObject({ ok: true, job: { id: 'j1', token: 1 } });
        // The process a left behind serves the next store, reset by its hello.
        const c = (await factory.warm(config)) as ProcessAdapter;
        expect([c.pid, factory.processesStarted]).toEqual([first, 2]);
        expect((await c.snapshot()).jobs).toEqual({});
        await Promise.all([a.close(), c.close()]);
      } finally {
        await factory.close();
      }
      expect(factory.endings).toEqual({ exited: 2, SIGTERM: 0, SIGKILL: 0 });
    },
  );

  it.skipIf(python === undefined)(
    'still catch a restore that resets the token counter, in a campaign whose restarts are all warm',
    async () => {
      const factory = processAdapterFactory(
        pythonCommand(python as string, 'examples/python/broken/restart_resets_tokens.py'),
      );
      try {
        const result = await runCampaign({ factory: factory.warm, runs: 100, seed: 1, parallel: 3 });
        expect(result.verdict).toBe('diverge');
        expect(result.counterexample?.steps.some((s) => 'restart' in s.action)).toBe(true);
        expect(factory.restarts.cold).toBe(0);
        expect(factory.restarts.warm).toBeGreaterThan(0);
      } finally {
        await factory.close();
      }
    },
    60_000,
  );
});
