/**
 * The OTLP JSON importer: BullMQ's spans as bullmq-otel exported them in the walkthrough's real
 * run (docs/walkthrough/audit/*.otlp.jsonl), spans of the amqplib instrumentation's attribute
 * names (@opentelemetry/instrumentation-amqplib 0.70.0) and of the current messaging conventions,
 * the absent fields and what they rule out, and hostile files: a typed error, never a crash or a pass.
 */
import { createReadStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { AuditOp, AuditResult, ReadEvent } from './index.ts';
import { auditHistory, readOtlp } from './index.ts';

const DIR = fileURLToPath(new URL('../../docs/walkthrough/audit/', import.meta.url));

async function events(text: string | Buffer, file = 'spans.otlp.jsonl'): Promise<ReadEvent[]> {
  const out: ReadEvent[] = [];
  for await (const e of readOtlp([text], file)) out.push(e);
  return out;
}
const opsOf = (es: readonly ReadEvent[]): AuditOp[] => es.flatMap((e) => (e.type === 'op' ? [e.op] : []));
const audit = (...texts: string[]): Promise<AuditResult> =>
  auditHistory(texts.map((t, i) => readOtlp([t], `f${i}.otlp.jsonl`)));
const code = (text: string) =>
  audit(text).then(
    (r) => `no error: ${r.verdict}`,
    (e: { code?: string; message: string }) => `${e.code}: ${e.message}`,
  );

const attr = (key: string, v: string | number) => ({
  key,
  value: typeof v === 'number' ? { intValue: String(v) } : { stringValue: v },
});
const NS = 1_000_000;
interface SpanSpec {
  id: string;
  kind: number;
  from: number;
  to: number;
  attrs: Record<string, string | number>;
  status?: { code: number; message?: string };
}
/** One OTLP JSON line (an export request) holding `spans` of one resource. */
function line(spans: SpanSpec[], resource: Record<string, string> = { 'service.instance.id': 'c1' }): string {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: Object.entries(resource).map(([k, v]) => attr(k, v)) },
        scopeSpans: [
          {
            scope: { name: '@opentelemetry/instrumentation-amqplib' },
            spans: spans.map((s) => ({
              traceId: '0'.repeat(32),
              spanId: s.id.padStart(16, '0'),
              name: 'span',
              kind: s.kind,
              startTimeUnixNano: String(s.from * NS),
              endTimeUnixNano: String(s.to * NS),
              attributes: Object.entries(s.attrs).map(([k, v]) => attr(k, v)),
              ...(s.status === undefined ? {} : { status: s.status }),
            })),
          },
        ],
      },
    ],
  });
}
// The attribute names instrumentation-amqplib 0.70.0 writes (its semconv-obsolete.ts).
const publish = (id: string, msg: string, at: number): SpanSpec => ({
  id,
  kind: 4,
  from: at,
  to: at + 1,
  attrs: { 'messaging.system': 'rabbitmq', 'messaging.destination': '', 'messaging.message_id': msg },
});
const consume = (id: string, msg: string, from: number, to: number, status?: SpanSpec['status']): SpanSpec => ({
  id,
  kind: 5,
  from,
  to,
  attrs: { 'messaging.system': 'rabbitmq', 'messaging.operation': 'process', 'messaging.message_id': msg },
  ...(status === undefined ? {} : { status }),
});

describe('the OTLP JSON importer', () => {
  it("reads BullMQ's spans of the walkthrough's run: no token, no lease, and no trace of the killed worker's delivery", async () => {
    const all: AuditOp[] = [];
    for (const name of ['producer', 'w1', 'w2', 'w3']) {
      const file = `${name}.otlp.jsonl`;
      const es: ReadEvent[] = [];
      for await (const e of readOtlp(createReadStream(join(DIR, file)), file)) es.push(e);
      all.push(...opsOf(es));
    }
    const story = all.map((o) => `${o.kind} ${o.job} ${o.worker ?? '-'} ${o.outcome}`).sort();
    expect(story).toEqual(
      [
        'submit order-1 - ok',
        'submit order-2 - ok',
        'redelivered order-1 - ok',
        'redelivered order-2 - ok',
        'claim order-1 w2 ok',
        'ack order-1 w2 ok',
        'claim order-2 w2 ok',
        'ack order-2 w2 ok',
        'claim order-2 w3 ok',
        'ack order-2 w3 stale_token',
        'fail order-2 w3 stale_token',
      ].sort(),
    );
    expect(all.every((o) => o.token === undefined && o.leaseUntil === undefined)).toBe(true);
    // The recorder's history of the same run holds w1's delivery of order-1; no span does.
    expect(readFileSync(join(DIR, 'w1.jsonl'), 'utf8')).toContain('"op":"claim"');
    expect(all.some((o) => o.worker === 'w1')).toBe(false);
  });

  it('translates the amqplib instrumentation: publish a submit, a consumer span a claim and its ack, nack or reject', async () => {
    const es = await events(
      line([
        publish('1', 'm1', 10),
        consume('2', 'm1', 20, 30),
        publish('3', 'm2', 11),
        consume('4', 'm2', 21, 31, { code: 2, message: 'reject called on message without requeue' }),
        publish('5', 'm3', 12),
        consume('6', 'm3', 22, 32, { code: 2, message: 'channel closed' }),
      ]),
    );
    const header = es[0];
    expect(header?.type === 'header' ? header.absent : undefined).toEqual(['token', 'leaseUntil', 'account', 'key']);
    expect(
      opsOf(es).map((o) => `${o.kind} ${o.job} ${o.outcome} ${o.next ?? ''} [${o.invokedAt},${o.returnedAt}]`),
    ).toEqual([
      'submit m1 ok  [10,11]',
      'submit m2 ok  [11,12]',
      'submit m3 ok  [12,13]',
      'claim m1 ok  [20,20]',
      'claim m2 ok  [21,21]',
      'claim m3 ok  [22,22]',
      'ack m1 ok  [20,30]',
      'fail m2 ok dead [21,31]',
    ]);
  });

  it('reads the current conventions too (messaging.operation.type, messaging.message.id)', async () => {
    const es = await events(
      line([
        {
          id: '1',
          kind: 4,
          from: 1,
          to: 2,
          attrs: { 'messaging.operation.type': 'send', 'messaging.message.id': 'x' },
        },
        {
          id: '2',
          kind: 5,
          from: 3,
          to: 4,
          attrs: { 'messaging.operation.type': 'process', 'messaging.message.id': 'x' },
        },
      ]),
    );
    expect(opsOf(es).map((o) => `${o.kind} ${o.job}`)).toEqual(['submit x', 'claim x', 'ack x']);
  });

  it('never passes a history whose spans lack what a check needs: a clean run is INCONCLUSIVE, naming the checks', async () => {
    const r = await audit(line([publish('1', 'm1', 10), consume('2', 'm1', 20, 30)]));
    expect(r.verdict).toBe('inconclusive');
    const gap = r.findings.find((f) => f.kind === 'gap' && f.gap === 'fields_missing');
    expect(gap?.summary).toContain('not established: stale-ack-landed, double-delivery, run-past-lease');
    expect(r.checked.join('; ')).toContain('account order: not established (no account)');
  });

  it('reads an unknown lease as one that may have run out: a redelivery is no double delivery, nor an INCONCLUSIVE', async () => {
    // m1 delivered to c1, never settled (its channel closed), then to c2 who acks: allowed when the lease is unknown.
    const r = await audit(
      line([publish('1', 'm1', 10), consume('2', 'm1', 20, 30, { code: 2, message: 'channel closed' })]),
      line([consume('3', 'm1', 40, 50)], { 'service.instance.id': 'c2' }),
    );
    expect(r.findings.filter((f) => f.kind !== 'gap')).toEqual([]);
    expect(r.verdict).toBe('inconclusive');
  });

  it("still finds a settlement that landed for a worker whose delivery another worker's claim had ended", async () => {
    const r = await audit(
      line([publish('1', 'm1', 10), consume('2', 'm1', 20, 60)]),
      line([consume('3', 'm1', 40, 50)], { 'service.instance.id': 'c2' }),
    );
    expect(r.verdict).toBe('fail');
  });

  it('refuses hostile files with a typed error naming the line and value, never a crash', async () => {
    const good = line([publish('1', 'm1', 10)]);
    expect(await code(good.slice(0, 50))).toMatch(/^not_json: f0.otlp.jsonl:1: /);
    expect(await code('{"resourceSpans":"x"}')).toMatch(/^not_otlp: f0.otlp.jsonl:1: resourceSpans .*\(got "x"\)/);
    expect(await code(good.replace('"startTimeUnixNano":"10000000"', '"startTimeUnixNano":"-1"'))).toMatch(
      /^not_otlp: .*startTimeUnixNano/,
    );
    expect(await code(line([{ ...publish('1', 'm1', 10), from: 20, to: 10 }]))).toMatch(/^returned_before_invoked: /);
    expect(await code(good.replace('"startTimeUnixNano":"10000000"', '"startTimeUnixNano":1e300'))).toMatch(
      /^not_otlp: .*startTimeUnixNano/,
    );
    expect(await code([good, good].join('\n'))).toMatch(/^duplicate_id: /);
    expect(await code('\u0000\u0001')).toMatch(/^not_json: /);
    expect(await code(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"spanId":"${'z'.repeat(16)}"}]}]}]}`)).toMatch(
      /^not_otlp: .*spanId must be 16 hex digits/,
    );
  });
});
