/**
 * The fault campaign on each broker, a few seconds of faults each, on servers it starts itself:
 * - BullMQ on Redis: a kill under RDB snapshots loses acknowledged submits (departs, figures say
 *   how many); under `appendfsync always` the kill holds; a worker cut off by its proxy (hold) has
 *   its late ack land after the rival's claim, and BullMQ's lock token refuses it (holds);
 * - beanstalkd: a kill without a binlog loses acknowledged submits, with the binlog it holds;
 * - NATS JetStream: the cut-off worker's late ack settles the job another worker claimed (departs,
 *   replayed at least 2 times of 3);
 * - pg-boss, BullMQ on PostgreSQL (synchronous_commit on): the cut-off worker's late ack crosses the
 *   partition and is refused; pg-boss keeps every acknowledged job through a kill.
 * - Redis Streams: the cut-off worker's late XACK settles the entry another worker took with
 *   XAUTOCLAIM (departs, replayed at least 2 times of 3).
 * - RabbitMQ (quorum queue): the cut-off worker keeps its job past consumer_timeout (the broker
 *   returns it only when the channel's close completes), so the rival claims the other job; the
 *   late ack is refused (one run, its departure's story).
 * - SQS on fauxqs and local-aws-sqs: the cut-off worker's expired DeleteMessage is accepted
 *   (departs), but refused on local-aws-sqs's FIFO queue; a kill empties the emulator (unknown).
 * Each test checks that the held bytes were there, and that nothing is left behind: the servers'
 * processes (by pid) and folders. A missing server skips with a hint outside CI, fails under it.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ConcurrentRun } from '../conformance/concurrent/index.ts';
import { runFault } from '../conformance/faults/index.ts';
import type { FaultName } from '../conformance/faults/index.ts';
import type { FaultResult } from '../conformance/profile/index.ts';
import { alive } from '../conformance/servers/processes.ts';
import { faultSubject, startFaultServer } from './faultSubjects.ts';
import type { FaultQueue, FaultServer } from './faultSubjects.ts';

const required = (process.env['CI'] ?? '') !== '';

/** One fault asked of one queue; its result and runs. */
interface Asked {
  readonly result: FaultResult;
  readonly runs: ConcurrentRun[];
}

/**
 * Runs each of `asks` (a queue and a fault) in turn on one server of `name` for `queue`, started
 * and disposed of here; their results, and the server's pids and folder.
 */
async function campaigns(
  queue: FaultQueue,
  name: string,
  asks: readonly { readonly queue: FaultQueue; readonly fault: FaultName; readonly replays?: number }[],
): Promise<{ asked: Asked[]; pids: number[]; folder: string | undefined } | { missing: string }> {
  let server: FaultServer;
  try {
    server = await startFaultServer(queue, name);
  } catch (error) {
    const message = (error as Error).message;
    if (required || !/server_missing|not installed|not found/i.test(`${(error as { code?: string }).code} ${message}`))
      throw error;
    return { missing: message };
  }
  const pids = new Set<number>(server.pids);
  try {
    const asked: Asked[] = [];
    for (const ask of asks) {
      const runs: ConcurrentRun[] = [];
      const result = await runFault({
        subject: faultSubject(ask.queue, name, server),
        server,
        fault: ask.fault,
        ...(ask.replays === undefined ? {} : { replays: ask.replays }),
        onRun: (run) => {
          if (run !== undefined) runs.push(run);
          for (const pid of server.pids) pids.add(pid);
        },
      });
      asked.push({ result, runs });
    }
    return { asked, pids: [...pids], folder: server.folder };
  } finally {
    await server.dispose();
  }
}

/** Runs `fault` against `queue` on a server of `name` it starts and disposes of; returns the result, its runs and the server's pids. */
async function campaign(
  queue: FaultQueue,
  name: string,
  fault: FaultName,
  replays?: number,
): Promise<(Asked & { pids: number[]; folder: string | undefined }) | { missing: string }> {
  const r = await campaigns(queue, name, [{ queue, fault, ...(replays === undefined ? {} : { replays }) }]);
  if ('missing' in r) return r;
  return { ...(r.asked[0] as Asked), pids: r.pids, folder: r.folder };
}

/** Nothing of the server is left: no process, no folder. */
function leftNothing(r: { pids: number[]; folder: string | undefined }): void {
  expect(r.pids.length).toBeGreaterThan(0);
  expect(alive(r.pids)).toEqual([]);
  if (r.folder !== undefined) expect(existsSync(r.folder)).toBe(false);
}

/** The bytes the partition held, from its end event's note. */
const heldBytes = (run: ConcurrentRun): number =>
  Number(/^(\d+) bytes held/.exec(run.history.nemesis?.find((e) => e.phase === 'end')?.note ?? '')?.[1] ?? 0);

describe('the fault campaign on real brokers', () => {
  it('BullMQ on Redis: RDB loses acknowledged submits to a kill, appendfsync always keeps them', async (ctx) => {
    const rdb = await campaign('bullmq-redis', 'redis-rdb', 'kill');
    if ('missing' in rdb) return ctx.skip(`${rdb.missing} (install it; under CI this fails)`);
    expect(rdb.result.verdict, rdb.result.reason).toBe('departs');
    expect(rdb.result.figures?.submitsLost).toBeGreaterThan(0);
    expect(rdb.result.replays?.departed).toBeGreaterThanOrEqual(2);
    leftNothing(rdb);
    const always = await campaign('bullmq-redis', 'redis-aof-always', 'kill');
    if ('missing' in always) return ctx.skip(`${always.missing} (install it; under CI this fails)`);
    expect(always.result.verdict, always.result.reason).toBe('holds');
    expect(always.result.figures?.submitsLost).toBe(0);
    leftNothing(always);
  }, 60_000);

  it("BullMQ on Redis: the cut-off worker's late ack lands after the rival's claim and is refused", async (ctx) => {
    const r = await campaign('bullmq-redis', 'redis-aof-always', 'partition-hold');
    if ('missing' in r) return ctx.skip(`${r.missing} (install it; under CI this fails)`);
    expect(r.result.verdict, r.result.reason).toBe('holds');
    const run = r.runs[0] as ConcurrentRun;
    expect(heldBytes(run)).toBeGreaterThan(0);
    const ops = run.history.operations;
    const lateAck = ops.find((o) => (o.input as { type?: string; worker?: string }).type === 'ack' && o.lane === 1);
    const rivalClaim = ops.find((o) => (o.input as { worker?: string }).worker === 'w1' && o.lane === 0);
    // The late ack was sent before the rival's claim and answered after it: it crossed the partition.
    expect(lateAck?.invoked).toBeLessThan(rivalClaim?.returned ?? -1);
    expect(lateAck?.returned).toBeGreaterThan(rivalClaim?.returned ?? Number.POSITIVE_INFINITY);
    expect(lateAck?.output).toMatchObject({ ok: false, code: 'stale_token' });
    leftNothing(r);
  }, 60_000);

  it('beanstalkd: a kill loses acknowledged jobs without a binlog and keeps them with it', async (ctx) => {
    const memory = await campaign('beanstalkd', 'beanstalkd', 'kill');
    if ('missing' in memory) return ctx.skip(`${memory.missing} (install it; under CI this fails)`);
    expect(memory.result.verdict, memory.result.reason).toBe('departs');
    expect(memory.result.figures?.submitsLost).toBeGreaterThan(0);
    leftNothing(memory);
    const binlog = await campaign('beanstalkd', 'beanstalkd-binlog', 'kill');
    if ('missing' in binlog) return ctx.skip(`${binlog.missing} (install it; under CI this fails)`);
    expect(binlog.result.verdict, binlog.result.reason).toBe('holds');
    expect(binlog.result.figures?.submitsLost).toBe(0);
    leftNothing(binlog);
  }, 60_000);

  it("NATS JetStream: the cut-off worker's late ack settles the job another worker claimed", async (ctx) => {
    const r = await campaign('nats-jetstream', 'nats-file', 'partition-hold');
    if ('missing' in r) return ctx.skip(`${r.missing} (install it; under CI this fails)`);
    expect(r.result.verdict, r.result.reason).toBe('departs');
    expect(r.result.replays?.departed).toBeGreaterThanOrEqual(2);
    const run = r.runs[0] as ConcurrentRun;
    expect(heldBytes(run)).toBeGreaterThan(0);
    const lateAck = run.history.operations.find((o) => (o.input as { type?: string }).type === 'ack' && o.lane === 1);
    expect(lateAck?.output).toMatchObject({ ok: true, type: 'ack' });
    leftNothing(r);
  }, 90_000);

  /** The cut-off worker's late ack in the first run: held by the proxy, sent before the rival's claim returned, answered after it with `reply`. */
  function lateAckCrossed(asked: Asked, reply: object): void {
    const run = asked.runs[0] as ConcurrentRun;
    expect(heldBytes(run)).toBeGreaterThan(0);
    const ops = run.history.operations;
    const lateAck = ops.find((o) => (o.input as { type?: string }).type === 'ack' && o.lane === 1);
    const rivalClaim = ops.find((o) => (o.input as { type?: string }).type === 'claim' && o.lane === 0);
    expect(lateAck?.invoked).toBeLessThan(rivalClaim?.returned ?? -1);
    expect(lateAck?.returned).toBeGreaterThan(rivalClaim?.returned ?? Number.POSITIVE_INFINITY);
    expect(lateAck?.output).toMatchObject(reply);
  }

  /** The cut-off worker's late ack on `queue`: held by the proxy, answered after the rival's claim, refused. */
  async function lateAckRefused(queue: FaultQueue, ctx: { skip(note: string): void }): Promise<void> {
    const r = await campaign(queue, 'postgres-sync', 'partition-hold');
    if ('missing' in r) return ctx.skip(`${r.missing} (install it; under CI this fails)`);
    lateAckCrossed(r, { ok: false, code: 'stale_token' });
    leftNothing(r);
  }

  it("pg-boss: the cut-off worker's late ack is refused; a kill loses no acknowledged job", async (ctx) => {
    await lateAckRefused('pg-boss', ctx);
    const kill = await campaign('pg-boss', 'postgres-sync', 'kill');
    if ('missing' in kill) return ctx.skip(`${kill.missing} (install it; under CI this fails)`);
    expect(kill.result.verdict, kill.result.reason).toBe('holds');
    expect(kill.result.figures?.submitsLost).toBe(0);
    leftNothing(kill);
  }, 90_000);

  it("BullMQ on PostgreSQL: the cut-off worker's late ack crosses the partition and is refused", async (ctx) => {
    await lateAckRefused('bullmq-postgres', ctx);
  }, 60_000);

  it("Redis Streams: the cut-off worker's late XACK settles the entry another worker took with XAUTOCLAIM", async (ctx) => {
    const r = await campaign('redis-streams', 'redis-aof-always', 'partition-hold');
    if ('missing' in r) return ctx.skip(`${r.missing} (install it; under CI this fails)`);
    expect(r.result.verdict, r.result.reason).toBe('departs');
    expect(r.result.replays?.departed).toBeGreaterThanOrEqual(2);
    const run = r.runs[0] as ConcurrentRun;
    expect(heldBytes(run)).toBeGreaterThan(0);
    const ops = run.history.operations;
    const lateAck = ops.find((o) => (o.input as { type?: string }).type === 'ack' && o.lane === 1);
    const rivalClaim = ops.find((o) => (o.input as { worker?: string }).worker === 'w1' && o.lane === 0);
    // Sent before the rival's claim, answered after it: accepted, and the rival's own ack then finds nothing pending.
    expect(lateAck?.returned).toBeGreaterThan(rivalClaim?.returned ?? Number.POSITIVE_INFINITY);
    expect(lateAck?.output).toMatchObject({ ok: true, type: 'ack', id: 'a' });
    const rivalAck = ops.find((o) => (o.input as { type?: string }).type === 'ack' && o.lane === 0);
    expect(rivalAck?.output).toMatchObject({ ok: false, code: 'stale_token' });
    leftNothing(r);
  }, 60_000);

  it('RabbitMQ: the cut-off worker keeps its job past consumer_timeout, and its late ack is refused', async (ctx) => {
    const r = await campaign('rabbitmq', 'rabbitmq-quorum', 'partition-hold', 0);
    if ('missing' in r) return ctx.skip(`${r.missing} (install it; under CI this fails)`);
    const run = r.runs[0] as ConcurrentRun;
    expect(heldBytes(run)).toBeGreaterThan(0);
    const ops = run.history.operations;
    const lateAck = ops.find((o) => (o.input as { type?: string }).type === 'ack' && o.lane === 1);
    const rivalClaim = ops.find((o) => (o.input as { worker?: string }).worker === 'w1' && o.lane === 0);
    expect(lateAck?.invoked).toBeLessThan(rivalClaim?.returned ?? -1);
    expect(lateAck?.returned).toBeGreaterThan(rivalClaim?.returned ?? Number.POSITIVE_INFINITY);
    expect(lateAck?.output).toMatchObject({ ok: false, code: 'stale_token' });
    // The lease had run out on the broker's clock, yet a stayed with the cut-off worker.
    expect(rivalClaim?.output).toMatchObject({ ok: true, job: { id: 'b' } });
    expect(r.result.story).toMatch(/reply\.job\.id: model "a", impl "b"/);
    leftNothing(r);
  }, 60_000);

  it('SQS on fauxqs: the late DeleteMessage is accepted on either queue type; a kill empties the emulator', async (ctx) => {
    const r = await campaigns('fauxqs-standard', 'fauxqs-memory', [
      { queue: 'fauxqs-standard', fault: 'partition-hold' },
      { queue: 'fauxqs-fifo', fault: 'partition-hold' },
      { queue: 'fauxqs-fifo', fault: 'kill' },
    ]);
    if ('missing' in r) return ctx.skip(`${r.missing} (install it; under CI this fails)`);
    const [standard, fifo, kill] = r.asked as [Asked, Asked, Asked];
    for (const asked of [standard, fifo]) {
      expect(asked.result.verdict, asked.result.reason).toBe('departs');
      expect(asked.result.replays?.departed).toBeGreaterThanOrEqual(2);
      lateAckCrossed(asked, { ok: true, type: 'ack', id: 'a' });
    }
    // In memory only: the restarted process has no queue, and so no final snapshot.
    expect(kill.result.verdict).toBe('unknown');
    expect(kill.result.reason).toMatch(/queue does not exist/);
    expect(kill.result.figures).toBeUndefined();
    leftNothing(r);
  }, 60_000);

  it('SQS on local-aws-sqs: the late DeleteMessage is accepted on a standard queue, refused on a FIFO queue', async (ctx) => {
    const r = await campaigns('local-aws-sqs-standard', 'local-aws-sqs-memory', [
      { queue: 'local-aws-sqs-standard', fault: 'partition-hold' },
      { queue: 'local-aws-sqs-fifo', fault: 'partition-hold' },
    ]);
    if ('missing' in r) return ctx.skip(`${r.missing} (install it; under CI this fails)`);
    const [standard, fifo] = r.asked as [Asked, Asked];
    expect(standard.result.verdict, standard.result.reason).toBe('departs');
    expect(standard.result.replays?.departed).toBeGreaterThanOrEqual(2);
    lateAckCrossed(standard, { ok: true, type: 'ack', id: 'a' });
    expect(fifo.result.verdict, fifo.result.reason).toBe('holds');
    lateAckCrossed(fifo, { ok: false, code: 'stale_token' });
    leftNothing(r);
  }, 60_000);
});
