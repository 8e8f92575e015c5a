/**
 * The NATS JetStream recorder on a real server: a small run recorded through it is valid
 * `jobcheck-history/1` and its audit passes; the stale holder's acknowledgement (a worker whose
 * ack wait ran out, its message redelivered to another, acks and JetStream takes it) recorded
 * through it is found by `jobcheck audit` as a story, and the same files without that ack pass.
 * Needs JOBCHECK_NATS_URL (`bash scripts/brokers.sh nats -- npx vitest run <this file>`).
 */
import { randomBytes } from 'node:crypto';
import { AckPolicy, RetentionPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { JetStreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HistoryWriter } from '../historyWriter.ts';
import { audit, auditCommand, historyLines, scratch, withoutLines } from '../recorderAudit.ts';
import { natsMissing, natsRequired, natsUrl } from './natsEnv.ts';
import { recordConsumer, recordJetStream } from './recorder.ts';

const missing = natsMissing();
const ACK_WAIT_MS = 1000;

describe.skipIf(missing !== undefined && !natsRequired())('the NATS JetStream recorder', () => {
  const files = scratch();
  const ncs: NatsConnection[] = [];
  let jsm: JetStreamManager;
  const streams: string[] = [];

  beforeAll(async () => {
    if (missing !== undefined) throw new Error(missing);
    for (let i = 0; i < 2; i++) ncs.push(await connect({ servers: natsUrl() as string }));
    jsm = await jetstreamManager(ncs[0] as NatsConnection);
  });
  afterAll(async () => {
    for (const s of streams) await jsm.streams.delete(s).catch(() => undefined);
    for (const nc of ncs) await nc.close();
    files.remove();
  });

  /** A work-queue stream with a durable pull consumer, ack_wait ACK_WAIT_MS. */
  async function stream(): Promise<string> {
    const name = `REC_${randomBytes(6).toString('hex')}`;
    streams.push(name);
    await jsm.streams.add({ name, subjects: [`${name}.>`], retention: RetentionPolicy.Workqueue });
    await jsm.consumers.add(name, {
      durable_name: 'workers',
      ack_policy: AckPolicy.Explicit,
      ack_wait: ACK_WAIT_MS * 1e6,
      max_deliver: 3,
    });
    return name;
  }

  it('records a small run whose audit passes, every line valid', async () => {
    const name = await stream();
    const nc = ncs[0] as NatsConnection;
    const writer = HistoryWriter.open({ path: files.file('run.jsonl'), source: 'nats-jetstream' });
    const js = recordJetStream(jetstream(nc), writer, { worker: 'p' });
    for (const id of ['a', 'b', 'c']) await js.publish(`${name}.jobs`, `payload ${id}`, { msgID: id });
    const c = await recordConsumer(await jetstream(nc).consumers.get(name, 'workers'), writer, { worker: 'w1' });
    const a = await c.next({ expires: 2000 });
    expect(a?.string()).toBe('payload a');
    expect(await a?.ackAck()).toBe(true);
    (await c.next({ expires: 2000 }))?.nak(0);
    // A nak asks no reply: the redelivered b and the first delivery of c come in the broker's order.
    const rest = [await c.next({ expires: 2000 }), await c.next({ expires: 2000 })];
    const b = rest.find((m) => m?.headers?.get('Nats-Msg-Id') === 'b');
    const third = rest.find((m) => m?.headers?.get('Nats-Msg-Id') === 'c');
    expect(b?.info.deliveryCount).toBe(2);
    expect(await b?.ackAck()).toBe(true);
    third?.working();
    third?.ack();
    expect(await c.next({ expires: 1000 })).toBeNull();
    await writer.close();

    const lines = historyLines(files.file('run.jsonl'));
    const ops = lines.flatMap((l) => (l.type === 'op' ? [l] : []));
    const told = ops.map((o) => `${o.op}:${o.job ?? '-'}:${o.outcome}`);
    expect(told.slice(0, 7)).toEqual([
      'submit:a:ok',
      'submit:b:ok',
      'submit:c:ok',
      'claim:a:ok',
      'ack:a:ok',
      'claim:b:ok',
      'fail:b:unknown',
    ]);
    expect(told.slice(7, 9).sort()).toEqual(['claim:b:ok', 'claim:c:ok']);
    expect(told.slice(9)).toEqual(['ack:b:ok', 'extend:c:unknown', 'ack:c:unknown', 'claim:-:ok']);
    const redelivered = ops.slice(7, 9).find((o) => o.job === 'b');
    expect([redelivered?.attempt, typeof redelivered?.token, typeof redelivered?.leaseUntil]).toEqual([
      2,
      'string',
      'number',
    ]);
    const result = await audit([files.file('run.jsonl')]);
    expect(result.verdict, JSON.stringify(result.findings)).toBe('pass');
    expect(result.jobs).toBe(3);
  });

  it("finds the stale holder's acknowledgement as a story, and passes the files without it", async () => {
    const name = await stream();
    const [nc1, nc2] = ncs as [NatsConnection, NatsConnection];
    const one = HistoryWriter.open({ path: files.file('w1.jsonl'), source: 'nats-jetstream' });
    const two = HistoryWriter.open({ path: files.file('w2.jsonl'), source: 'nats-jetstream' });
    await recordJetStream(jetstream(nc1), one, { worker: 'p' }).publish(`${name}.jobs`, 'x', { msgID: 'j1' });
    const w1 = await recordConsumer(await jetstream(nc1).consumers.get(name, 'workers'), one, { worker: 'w1' });
    const w2 = await recordConsumer(await jetstream(nc2).consumers.get(name, 'workers'), two, { worker: 'w2' });
    const held = await w1.next({ expires: 2000 });
    await new Promise((r) => setTimeout(r, ACK_WAIT_MS + 300));
    const again = await w2.next({ expires: 3000 });
    expect(again?.info.deliveryCount).toBe(2);
    // JetStream takes the old holder's ack (an ack names the stream sequence, not the delivery).
    expect(await held?.ackAck()).toBe(true);
    await one.close();
    await two.close();

    const stale = auditCommand([files.file('w1.jsonl'), files.file('w2.jsonl')], files.file('report'));
    expect(stale.status, stale.stdout).toBe(1);
    expect(stale.stdout).toMatch(/VIOLATION stale-ack-landed: job "j1"/);
    expect(stale.stdout).toMatch(/w1\.jsonl:\d+/);

    const dropped = withoutLines(
      files.file('w1.jsonl'),
      files.file('w1-clean.jsonl'),
      (l) => l.type === 'op' && l.op === 'ack',
    );
    expect(dropped).toBe(1);
    const clean = auditCommand([files.file('w1-clean.jsonl'), files.file('w2.jsonl')], files.file('report'));
    expect(clean.status, clean.stdout).toBe(0);
  });
});
