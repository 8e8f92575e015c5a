/**
 * The RabbitMQ recorder (amqplib) on a real server: a small run through a confirm channel and a
 * worker's channel (get, consume, ack, a requeueing nack) is recorded as valid
 * `jobcheck-history/1`, the quorum queue's `x-delivery-count` + 1 as the attempt, and its audit
 * passes. Needs JOBCHECK_AMQP_URL (`bash scripts/brokers.sh rabbitmq -- npx vitest run <this file>`).
 */
import { randomBytes } from 'node:crypto';
import amqp from 'amqplib';
import type { ChannelModel, ConsumeMessage } from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HistoryWriter } from '../historyWriter.ts';
import { audit, historyLines, scratch } from '../recorderAudit.ts';
import { amqpMissing, amqpRequired, amqpUrl } from './amqpEnv.ts';
import { recordChannel } from './recorder.ts';

const missing = amqpMissing();

describe.skipIf(missing !== undefined && !amqpRequired())('the RabbitMQ recorder', () => {
  const files = scratch();
  let connection: ChannelModel;

  beforeAll(async () => {
    if (missing !== undefined) throw new Error(missing);
    connection = await amqp.connect(amqpUrl() as string);
  });
  afterAll(async () => {
    await connection?.close();
    files.remove();
  });

  it('records a small run whose audit passes, every line valid', async () => {
    const queue = `rec-${randomBytes(6).toString('hex')}`;
    const writer = HistoryWriter.open({ path: files.file('run.jsonl'), source: 'rabbitmq' });
    const producer = recordChannel(await connection.createConfirmChannel(), writer, { worker: 'p' });
    await producer.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
    for (const id of ['a', 'b', 'c'])
      await new Promise<void>((resolve, reject) =>
        producer.sendToQueue(queue, Buffer.from(`payload ${id}`), { messageId: id }, (err) =>
          err == null ? resolve() : reject(err),
        ),
      );
    const worker = recordChannel(await connection.createChannel(), writer, { worker: 'w1', consumerTimeoutMs: 800 });
    const a = await worker.get(queue);
    expect(a === false ? undefined : a.content.toString()).toBe('payload a');
    if (a !== false) worker.ack(a);
    const b = await worker.get(queue);
    if (b !== false) worker.nack(b, false, true);
    // A quorum queue puts a requeued message behind the others: the rest come in the broker's order.
    const rest = await new Promise<ConsumeMessage[]>((resolve) => {
      const got: ConsumeMessage[] = [];
      void worker.consume(queue, (msg) => {
        if (msg !== null) got.push(msg);
        if (got.length === 2) resolve(got);
      });
    });
    for (const msg of rest) worker.ack(msg);
    await producer.deleteQueue(queue);
    await writer.close();

    const ops = historyLines(files.file('run.jsonl')).flatMap((l) => (l.type === 'op' ? [l] : []));
    const told = ops.map((o) => `${o.op}:${o.job ?? '-'}:${o.op === 'claim' ? o.attempt : '-'}:${o.outcome}`);
    expect(told.slice(0, 7)).toEqual([
      'submit:a:-:ok',
      'submit:b:-:ok',
      'submit:c:-:ok',
      'claim:a:1:ok',
      'ack:a:-:unknown',
      'claim:b:1:ok',
      'fail:b:-:unknown',
    ]);
    // The attempt is RabbitMQ's word, translated: x-delivery-count + 1.
    const redelivered = rest.find((m) => m.properties.messageId === 'b');
    const attempt = Number(redelivered?.properties.headers?.['x-delivery-count'] ?? 0) + 1;
    expect(told.slice(7).sort()).toEqual([
      'ack:b:-:unknown',
      'ack:c:-:unknown',
      `claim:b:${attempt}:ok`,
      'claim:c:1:ok',
    ]);
    const [firstB, secondB] = ops.filter((o) => o.op === 'claim' && o.job === 'b');
    expect(secondB?.token).not.toBe(firstB?.token);
    expect(ops[4]?.token).toBe(ops[3]?.token);
    expect(typeof ops[3]?.leaseUntil).toBe('number');
    const result = await audit([files.file('run.jsonl')]);
    expect(result.verdict, JSON.stringify(result.findings)).toBe('pass');
    expect(result.jobs).toBe(3);
  });
});
