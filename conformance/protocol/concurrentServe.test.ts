import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { Reply, Snapshot } from '../../contract/index.ts';
import { ConcurrentProcessAdapter } from './concurrentProcessAdapter.ts';
import { claimRace, roundsArbitrary, runRounds } from './rounds.ts';
import { postgresMissing } from '../postgresEnv.ts';
import { serveLines } from '../../impl/protocol/server.ts';
import type { ServedStore, StoreMaker } from '../../impl/protocol/server.ts';

/**
 * The server's end of jobcheck/2: how `serveLines` schedules request envelopes (lanes at once for
 * a store that says it is concurrent, one at a time in arrival order for every other), and the
 * built-in stores served by `jobcheck serve`, driven in rounds of concurrent requests by the
 * harness's adapter, every round explained by some order of the model (rounds.ts).
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const config = { capacity: 4, maxAttempts: 3, leaseTicks: 4, backoffBase: 1, backoffCap: 2 };
const hello = JSON.stringify({ type: 'hello', protocol: 'jobcheck/2', config });
const envelope = (id: number, lane: number, now: number): string =>
  JSON.stringify({ type: 'request', id, lane, command: { type: 'tick', now } });

/**
 * A store whose `tick` at `now` waits until `release(now)` (or the tick of another `now` named
 * in `frees`) and records how many executions overlapped, per lane and in all.
 */
function gatedStore(concurrent: boolean, frees: Record<number, number> = {}) {
  const gates = new Map<number, () => void>();
  const waits = new Map<number, Promise<void>>();
  const stats = { active: 0, most: 0, order: [] as number[] };
  const gate = (now: number): Promise<void> => {
    let open!: () => void;
    const p = new Promise<void>((resolve) => (open = resolve));
    gates.set(now, open);
    waits.set(now, p);
    return p;
  };
  const store: ServedStore = {
    concurrent,
    execute: async (command) => {
      const now = (command as { now: number }).now;
      stats.active += 1;
      stats.most = Math.max(stats.most, stats.active);
      stats.order.push(now);
      if (frees[now] === undefined) await gate(now);
      else gates.get(frees[now] as number)?.();
      stats.active -= 1;
      return { ok: true, type: 'tick', clock: now } as Reply;
    },
    snapshot: () => ({ executed: stats.order.length }) as unknown as Snapshot,
  };
  const maker: StoreMaker = { name: 'gated', create: () => store, restore: () => store };
  return { maker, stats, release: (now: number) => gates.get(now)?.() };
}

/** serveLines on streams: send lines, read reply lines. */
function served(maker: StoreMaker) {
  const input = new PassThrough();
  const output = new PassThrough();
  const done = serveLines(input, output, maker);
  const replies: string[] = [];
  const waiting: (() => void)[] = [];
  createInterface({ input: output }).on('line', (line) => {
    replies.push(line);
    for (const w of waiting.splice(0)) w();
  });
  const count = async (n: number): Promise<string[]> => {
    while (replies.length < n) await new Promise<void>((resolve) => waiting.push(resolve));
    return replies.slice(0, n);
  };
  return {
    send: (line: string) => input.write(`${line}\n`),
    count,
    end: () => {
      input.end();
      return done;
    },
    done,
  };
}

const ids = (lines: readonly string[]): unknown[] =>
  lines.map(
    (l) => (JSON.parse(l) as { id?: unknown; type?: unknown }).id ?? (JSON.parse(l) as { type?: unknown }).type,
  );

describe('serveLines under jobcheck/2', () => {
  it('runs the envelopes of different lanes at once on a concurrent store, and replies as they finish', async () => {
    // The tick at now 1 waits until the tick at now 2, sent after it on another lane, has run.
    const { maker, stats } = gatedStore(true, { 2: 1 });
    const s = served(maker);
    s.send(hello);
    s.send(envelope(0, 0, 1));
    s.send(envelope(1, 1, 2));
    const lines = await s.count(3);
    expect(ids(lines)).toEqual(['hello', 1, 0]);
    expect(stats.most).toBe(2);
    await s.end();
  });

  it('runs the envelopes of one lane one after another, in arrival order, on a concurrent store', async () => {
    const { maker, stats, release } = gatedStore(true);
    const s = served(maker);
    s.send(hello);
    s.send(envelope(0, 0, 5));
    s.send(envelope(1, 0, 6));
    await s.count(1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(stats.order).toEqual([5]);
    release(5);
    await new Promise((resolve) => setTimeout(resolve, 30));
    release(6);
    expect(ids(await s.count(3))).toEqual(['hello', 0, 1]);
    expect(stats.most).toBe(1);
    await s.end();
  });

  it('runs every request one at a time, in arrival order, on a store that is not concurrent', async () => {
    const { maker, stats, release } = gatedStore(false);
    const s = served(maker);
    s.send(hello);
    for (let id = 0; id < 3; id++) s.send(envelope(id, id, 10 + id));
    for (let id = 0; id < 3; id++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      release(10 + id);
    }
    expect(ids(await s.count(4))).toEqual(['hello', 0, 1, 2]);
    expect({ most: stats.most, order: stats.order }).toEqual({ most: 1, order: [10, 11, 12] });
    await s.end();
  });

  it('answers snapshot only once every request in flight has replied', async () => {
    const { maker, release } = gatedStore(true);
    const s = served(maker);
    s.send(hello);
    s.send(envelope(0, 0, 1));
    s.send(envelope(1, 1, 2));
    s.send('{"type":"snapshot"}');
    await new Promise((resolve) => setTimeout(resolve, 30));
    release(2);
    release(1);
    const lines = await s.count(4);
    expect(ids(lines)).toEqual(['hello', 1, 0, 'snapshot']);
    expect(JSON.parse(lines[3] as string)).toEqual({ ok: true, type: 'snapshot', snapshot: { executed: 2 } });
    await s.end();
  });

  it('ends with the failure of a store that fails (I/O) while running a concurrent request', async () => {
    const store: ServedStore = {
      concurrent: true,
      execute: () => Promise.reject(new Error('disk on fire')),
      snapshot: () => ({}) as Snapshot,
    };
    const s = served({ name: 'failing', create: () => store, restore: () => store });
    s.send(hello);
    s.send(envelope(0, 0, 1));
    // No further line: the server ends by itself with the failure.
    await expect(s.done).rejects.toThrow('disk on fire');
  });
});

const opened: ConcurrentProcessAdapter[] = [];
afterAll(() => Promise.all(opened.map((a) => a.close())));

async function explainedBy(command: string, rounds: unknown[][]): Promise<Awaited<ReturnType<typeof runRounds>>> {
  const adapter = await ConcurrentProcessAdapter.start(command, config, {
    workers: 4,
    replyTimeoutMs: 20_000,
    cwd: ROOT,
  });
  opened.push(adapter);
  try {
    expect({ protocol: adapter.protocol, concurrent: adapter.concurrent }).toEqual({
      protocol: 'jobcheck/2',
      concurrent: true,
    });
    return await runRounds(adapter, config, rounds);
  } finally {
    await adapter.close();
  }
}

const serve = (store: string): string => `'${process.execPath}' bin/jobcheck.js serve --store '${store}'`;

describe('jobcheck serve under jobcheck/2, in rounds of concurrent requests', () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobcheck-serve2-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([['memory'], ['model']])(
    '--store %s: every round is explained by some order of its requests',
    async (store) => {
      await fc.assert(
        fc.asyncProperty(roundsArbitrary(4, 6), async (rounds) => {
          expect(await explainedBy(serve(store), rounds)).toEqual({ explained: true, rounds: rounds.length });
        }),
        { numRuns: 3, seed: 20261201 },
      );
    },
  );

  it('--store sqlite:<file>: every round is explained, claims racing included, and the store files go with the process', async () => {
    const file = join(dir, 'jobs.db');
    const race = claimRace(4, 2);
    expect(await explainedBy(serve(`sqlite:${file}`), race)).toEqual({ explained: true, rounds: race.length });
    await fc.assert(
      fc.asyncProperty(roundsArbitrary(4, 6), async (rounds) => {
        expect(await explainedBy(serve(`sqlite:${file}`), rounds)).toEqual({ explained: true, rounds: rounds.length });
      }),
      { numRuns: 2, seed: 20261201 },
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  const pgMissing = postgresMissing();
  it.skipIf(pgMissing !== undefined)(
    `--store postgres:<socket folder>: lanes on connections of their own, every round explained${pgMissing === undefined ? '' : ` (skipped: ${pgMissing})`}`,
    async () => {
      const target = `postgres:${process.env['PGHOST'] ?? ''}`;
      for (let i = 0; i < 3; i++) {
        const race = claimRace(4, 2, 4);
        expect(await explainedBy(serve(target), race)).toEqual({ explained: true, rounds: race.length });
      }
      await fc.assert(
        fc.asyncProperty(roundsArbitrary(4, 6), async (rounds) => {
          expect(await explainedBy(serve(target), rounds)).toEqual({ explained: true, rounds: rounds.length });
        }),
        { numRuns: 3, seed: 20261201 },
      );
    },
  );
});
