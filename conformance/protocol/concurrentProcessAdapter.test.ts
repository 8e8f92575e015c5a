import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { IndefiniteOutcome } from '../concurrent/adapter.ts';
import { ConcurrentProcessAdapter, concurrentProcessFactory } from './concurrentProcessAdapter.ts';
import { ProcessError } from './processError.ts';
import type { ProtocolViolation } from './processError.ts';

/**
 * The concurrent process adapter against small fake peers (../hostile/peers/fakeConcurrentPeer.mjs), each
 * behaving or misbehaving in one way: replies out of order, a jobcheck/1 peer, a peer that never
 * answers some requests, one that dies mid-round, and hostile replies. What each fake answers is
 * its own rule (a command is answered as a tick at its `now`), so the expected replies follow from
 * the requests sent, never from the adapter.
 */
const FAKE = fileURLToPath(new URL('../hostile/peers/fakeConcurrentPeer.mjs', import.meta.url));
const fake = (...args: string[]): string => `'${process.execPath}' '${FAKE}' ${args.join(' ')}`;
const config = { capacity: 2, maxAttempts: 2, leaseTicks: 3, backoffBase: 1, backoffCap: 2 };
const tick = (now: number) => ({ type: 'tick', now });

const opened: ConcurrentProcessAdapter[] = [];
async function start(
  mode: string,
  options: { replyTimeoutMs?: number; workers?: number; extra?: string } = {},
): Promise<ConcurrentProcessAdapter> {
  const adapter = await ConcurrentProcessAdapter.start(fake(mode, options.extra ?? ''), config, {
    workers: options.workers ?? 4,
    ...(options.replyTimeoutMs === undefined ? {} : { replyTimeoutMs: options.replyTimeoutMs }),
  });
  opened.push(adapter);
  return adapter;
}
afterAll(() => Promise.all(opened.map((a) => a.close())));

/** The rejection of `promise` (failing the test if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/**
 * Whether any process of the group `pid` is still running, waiting a moment for a group just
 * killed to go (a zombie, dead but not yet reaped, does not count: /proc shows its state as Z).
 */
async function groupAlive(pid: number | undefined): Promise<boolean> {
  if (pid === undefined) return false;
  const running = (): boolean =>
    readdirSync('/proc').some((entry) => {
      if (!/^\d+$/.test(entry)) return false;
      try {
        // pid (comm) state ppid pgrp ...: comm may hold spaces, so read after its closing parenthesis.
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return Number(pgrp) === pid && state !== 'Z';
      } catch {
        return false;
      }
    });
  for (let i = 0; i < 20 && running(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return running();
}

describe('the concurrent process adapter speaks jobcheck/2 and falls back to jobcheck/1', () => {
  it('matches replies that come in reverse order to their requests by id, with every request in flight at once', async () => {
    const adapter = await start('reverse', { extra: '3' });
    expect({ protocol: adapter.protocol, concurrent: adapter.concurrent }).toEqual({
      protocol: 'jobcheck/2',
      concurrent: true,
    });
    const replies = await Promise.all([
      adapter.execute(0, tick(1)),
      adapter.execute(1, tick(2)),
      adapter.execute(2, tick(3)),
    ]);
    expect(replies).toEqual([1, 2, 3].map((clock) => ({ ok: true, type: 'tick', clock })));
    expect(await adapter.snapshot()).toEqual({ answered: 3, mostInFlight: 3 });
  });

  it('sends the requests of one lane one after another, and those of different lanes at once', async () => {
    const adapter = await start('v2');
    // Later `now`s are answered sooner by this fake (5 ms * (now % 4)): one lane must still wait.
    const sameLane = await Promise.all([
      adapter.execute(0, tick(3)),
      adapter.execute(0, tick(2)),
      adapter.execute(0, tick(1)),
    ]);
    expect(sameLane.map((r) => (r as { clock: number }).clock)).toEqual([3, 2, 1]);
    expect(await adapter.snapshot()).toEqual({ answered: 3, mostInFlight: 1 });
    await Promise.all([adapter.execute(0, tick(3)), adapter.execute(1, tick(2)), adapter.execute(2, tick(1))]);
    expect(await adapter.snapshot()).toMatchObject({ answered: 6, mostInFlight: 3 });
  });

  it('takes a snapshot only once everything handed to it before has settled, and holds later requests back', async () => {
    const adapter = await start('v2');
    const first = [adapter.execute(0, tick(3)), adapter.execute(1, tick(3))];
    const snapshot = adapter.snapshot();
    const later = adapter.execute(2, tick(1));
    expect(await snapshot).toEqual({ answered: 2, mostInFlight: 2 });
    await Promise.all([...first, later]);
    expect(await adapter.snapshot()).toEqual({ answered: 3, mostInFlight: 2 });
  });

  it('falls back to jobcheck/1 with a peer that refuses jobcheck/2, and then keeps one request in flight', async () => {
    const adapter = await start('v1-slow');
    expect({ protocol: adapter.protocol, concurrent: adapter.concurrent }).toEqual({
      protocol: 'jobcheck/1',
      concurrent: false,
    });
    const replies = await Promise.all([0, 1, 2, 3].map((lane) => adapter.execute(lane, tick(lane + 5))));
    expect(replies).toEqual([5, 6, 7, 8].map((clock) => ({ ok: true, type: 'tick', clock })));
    expect(await adapter.snapshot()).toEqual({ answered: 4, mostInFlight: 1 });
  });

  it('takes a jobcheck/1 hello reply to the jobcheck/2 offer as a jobcheck/1 peer', async () => {
    const adapter = await start('lax-v1');
    expect({
      protocol: adapter.protocol,
      concurrent: adapter.concurrent,
      implementation: adapter.implementation,
    }).toEqual({ protocol: 'jobcheck/1', concurrent: false, implementation: 'fake-lax' });
  });

  it('keeps one request in flight, in envelopes, with a jobcheck/2 peer that says concurrent: false', async () => {
    const adapter = await start('v2-serial');
    expect({ protocol: adapter.protocol, concurrent: adapter.concurrent }).toEqual({
      protocol: 'jobcheck/2',
      concurrent: false,
    });
    await Promise.all([0, 1, 2].map((lane) => adapter.execute(lane, tick(lane))));
    expect(await adapter.snapshot()).toEqual({ answered: 3, mostInFlight: 1 });
  });

  it('refuses a lane outside [0, workers) with a typed error naming it', async () => {
    const adapter = await start('v2', { workers: 2 });
    const error = await rejection(adapter.execute(2, tick(0)));
    expect(error).toBeInstanceOf(ProcessError);
    expect(error).toMatchObject({ code: 'unencodable_command' });
    expect((error as Error).message).toContain('lane 2: must be an integer in [0, 1]');
  });
});

describe('requests whose reply never came are indefinite', () => {
  it('makes a request that gets no reply in time indefinite (timeout), and every other one in flight too; the process group is killed', async () => {
    const adapter = await start('silent-one', { replyTimeoutMs: 300 });
    const answered = adapter.execute(0, tick(1));
    const silent = adapter.execute(1, tick(13));
    const alsoSilent = adapter.execute(2, tick(14));
    expect(await answered).toEqual({ ok: true, type: 'tick', clock: 1 });
    const [a, b] = await Promise.all([rejection(silent), rejection(alsoSilent)]);
    for (const e of [a, b]) {
      expect(e).toBeInstanceOf(IndefiniteOutcome);
      expect((e as IndefiniteOutcome).why).toBe('timeout');
    }
    expect(`${(a as Error).message} | ${(b as Error).message}`).toMatch(/no reply to request \d within 300 ms/);
    expect(await groupAlive(adapter.pid)).toBe(false);
    // A request sent after that was never written: a ProcessError, not an indefinite outcome.
    const after = await rejection(adapter.execute(0, tick(2)));
    expect(after).toBeInstanceOf(ProcessError);
    expect(after).toMatchObject({ code: 'timeout' });
  });

  it('makes every request in flight indefinite (process_died) when the process dies mid-round, with its exit code and stderr', async () => {
    const adapter = await start('die');
    const errors = await Promise.all([rejection(adapter.execute(0, tick(1))), rejection(adapter.execute(1, tick(1)))]);
    for (const e of errors) {
      expect(e).toBeInstanceOf(IndefiniteOutcome);
      expect((e as IndefiniteOutcome).why).toBe('process_died');
      expect((e as Error).message).toContain('exit code 3');
      expect((e as Error).message).toContain('panic: lost the queue');
    }
    expect(await rejection(adapter.execute(0, tick(2)))).toMatchObject({ code: 'process_exited' });
  });

  it('does the same for a jobcheck/1 peer: the request in flight at a timeout is indefinite, the next one a ProcessError', async () => {
    const adapter = await start('v1-silent', { replyTimeoutMs: 300 });
    expect(adapter.protocol).toBe('jobcheck/1');
    expect(await adapter.execute(0, tick(1))).toEqual({ ok: true, type: 'tick', clock: 1 });
    const [silent, queued] = [adapter.execute(1, tick(13)), adapter.execute(2, tick(2))];
    const e = await rejection(silent);
    expect(e).toBeInstanceOf(IndefiniteOutcome);
    expect((e as IndefiniteOutcome).why).toBe('timeout');
    // Queued behind it, never written: it certainly did not take effect.
    const q = await rejection(queued);
    expect(q).toBeInstanceOf(ProcessError);
    expect(q).toMatchObject({ code: 'timeout' });
    expect(await groupAlive(adapter.pid)).toBe(false);
  });

  it('makes a jobcheck/1 request in flight at close() indefinite (closed)', async () => {
    const adapter = await start('v1-silent', { replyTimeoutMs: 5_000 });
    const silent = adapter.execute(0, tick(20));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const pid = adapter.pid;
    await adapter.close();
    const e = await rejection(silent);
    expect(e).toBeInstanceOf(IndefiniteOutcome);
    expect((e as IndefiniteOutcome).why).toBe('closed');
    expect(await groupAlive(pid)).toBe(false);
  });

  it('makes a request in flight at close() indefinite (closed), and leaves no process', async () => {
    const adapter = await start('silent-one', { replyTimeoutMs: 5_000 });
    const silent = adapter.execute(0, tick(20));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const pid = adapter.pid;
    await adapter.close();
    const e = await rejection(silent);
    expect(e).toBeInstanceOf(IndefiniteOutcome);
    expect((e as IndefiniteOutcome).why).toBe('closed');
    expect(await groupAlive(pid)).toBe(false);
    expect(await rejection(adapter.execute(0, tick(1)))).toMatchObject({ code: 'closed' });
  });
});

describe('hostile replies are protocol errors naming the rule broken', () => {
  const cases: readonly { mode: string; violation: ProtocolViolation; says: RegExp }[] = [
    { mode: 'unknown-id', violation: 'unknown_id', says: /a reply to request 10\d, which was never sent/ },
    { mode: 'duplicate', violation: 'duplicate_id', says: /a second reply to request \d/ },
    { mode: 'bare-reply', violation: 'missing_id', says: /not a reply envelope while 1 request\(s\) were in flight/ },
    { mode: 'envelope-no-id', violation: 'missing_id', says: /a reply envelope without an id/ },
    { mode: 'garbage', violation: 'malformed_line', says: /a line is not JSON/ },
    { mode: 'string-id', violation: 'malformed_line', says: /a reply envelope is wrong shape: id: / },
    {
      mode: 'bad-reply',
      violation: 'bad_reply',
      says: /the reply to request 0 is wrong shape: elapsedMs: unknown field/,
    },
    { mode: 'stray', violation: 'unasked_line', says: /a line when no request was in flight/ },
  ];
  it.each(cases)(
    '$mode: protocol_error ($violation), the process group killed, and every later request refused',
    async ({ mode, violation, says }) => {
      const adapter = await start(mode);
      let error: unknown;
      for (let now = 0; error === undefined && now < 20; now++) {
        try {
          await adapter.execute(0, tick(now));
          if (mode === 'stray') await new Promise((resolve) => setTimeout(resolve, 100));
        } catch (e) {
          error = e;
        }
      }
      expect(error).toBeInstanceOf(ProcessError);
      const e = error as ProcessError;
      expect({ code: e.code, violation: e.details.violation }).toEqual({ code: 'protocol_error', violation });
      expect(e.message).toMatch(says);
      expect(e.details.received).toBeDefined();
      expect(await groupAlive(adapter.pid)).toBe(false);
      expect(await rejection(adapter.execute(0, tick(30)))).toBe(error);
    },
  );
});

describe('concurrentProcessFactory', () => {
  it('reuses the process a cleanly closed store left, resetting it with hello; a failed one is never reused', async () => {
    const factory = concurrentProcessFactory(fake('silent-one'), { replyTimeoutMs: 2000 });
    const a = (await factory(config, { workers: 2 })) as ConcurrentProcessAdapter;
    expect(await a.execute(0, tick(4))).toEqual({ ok: true, type: 'tick', clock: 4 });
    const pid = a.pid;
    await a.close();
    const b = (await factory(config, { workers: 3 })) as ConcurrentProcessAdapter;
    expect([b.pid, b.workers, factory.processesStarted]).toEqual([pid, 3, 1]);
    // The fake counts the commands answered since its last hello: none, so hello reset it.
    expect(await b.snapshot()).toMatchObject({ answered: 0 });
    expect(await rejection(b.execute(1, tick(13)))).toBeInstanceOf(IndefiniteOutcome);
    await b.close();
    const c = (await factory(config, { workers: 2 })) as ConcurrentProcessAdapter;
    expect(c.pid).not.toBe(pid);
    expect(factory.processesStarted).toBe(2);
    await factory.close();
    expect([await groupAlive(pid), await groupAlive(c.pid)]).toEqual([false, false]);
  });

  it('ends the processes left idle when it is closed', async () => {
    const factory = concurrentProcessFactory(fake('v2'));
    const a = (await factory(config, { workers: 2 })) as ConcurrentProcessAdapter;
    await a.close();
    expect(await groupAlive(a.pid)).toBe(true);
    await factory.close();
    expect(await groupAlive(a.pid)).toBe(false);
  });

  it('starts a process per open store with the lanes asked for, and close() ends every one still open', async () => {
    const factory = concurrentProcessFactory(fake('v2'));
    const a = (await factory(config, { workers: 2 })) as ConcurrentProcessAdapter;
    const b = (await factory(config, { workers: 3 })) as ConcurrentProcessAdapter;
    expect([a.workers, b.workers, factory.processesStarted]).toEqual([2, 3, 2]);
    expect(await a.execute(1, tick(4))).toEqual({ ok: true, type: 'tick', clock: 4 });
    await factory.close();
    expect([await groupAlive(a.pid), await groupAlive(b.pid)]).toEqual([false, false]);
  });
});

describe('a jobcheck/1 implementation whose command replies carry its snapshot (replySnapshots)', () => {
  const PLAIN = fileURLToPath(new URL('../hostile/peers/fakePeer.mjs', import.meta.url));
  const plain = (mode: string): string => `'${process.execPath}' '${PLAIN}' ${mode}`;

  it('is driven one request at a time, each reply read without its snapshot, and one without it is a protocol_error', async () => {
    const adapter = await ConcurrentProcessAdapter.start(plain('reply-snapshots'), config, { workers: 2 });
    opened.push(adapter);
    expect(adapter.protocol).toBe('jobcheck/1');
    expect(await adapter.execute(0, tick(0))).toEqual({ ok: true, type: 'tick', clock: 1 });
    expect(await adapter.snapshot()).toEqual({ commands: 1, via: 'request' });
    const missing = await ConcurrentProcessAdapter.start(plain('reply-snapshots-missing'), config, { workers: 2 });
    opened.push(missing);
    const error = await rejection(missing.execute(0, tick(0)));
    expect(error).toBeInstanceOf(ProcessError);
    expect((error as ProcessError).message).toContain('snapshot: missing');
  });
});
