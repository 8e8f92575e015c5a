/**
 * What chapter 13's prose says of the recorded run (docs/walkthrough/audit/), held against the
 * stored files, so that a new recording (scripts/auditWalkthrough.ts) that no longer shows it
 * fails here: the killed worker's one claim and no end line; the frozen worker's refused
 * extension, completion and failure; the two stalled redeliveries; 13 recorded operations against
 * 11 from the spans, the missing two being w1's delivery and w3's extension. (docs.test.ts holds
 * the quoted outputs themselves.)
 */
import { createReadStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { AuditOp, ReadEvent } from '../conformance/audit/index.ts';
import { readHistory, readOtlp } from '../conformance/audit/index.ts';

const DIR = fileURLToPath(new URL('walkthrough/audit/', import.meta.url));
const FILES = ['producer', 'w1', 'w2', 'w3'];

async function opsOf(read: (file: string) => AsyncIterable<ReadEvent>, suffix: string): Promise<AuditOp[]> {
  const ops: AuditOp[] = [];
  for (const name of FILES) for await (const e of read(`${name}${suffix}`)) if (e.type === 'op') ops.push(e.op);
  return ops;
}
const show = (o: AuditOp): string => `${o.kind} ${o.job} ${o.worker ?? '-'} ${o.outcome}`;

describe("chapter 13's recorded run", () => {
  it("holds the killed worker's claim and no end line, and the frozen worker's refused calls", async () => {
    const w1 = readFileSync(join(DIR, 'w1.jsonl'), 'utf8').trim().split('\n');
    expect(w1.map((l) => (JSON.parse(l) as { type: string; op?: string }).op ?? 'header')).toEqual(['header', 'claim']);
    const recorded = await opsOf((f) => readHistory(createReadStream(join(DIR, f)), f), '.jsonl');
    expect(recorded.filter((o) => o.worker === 'w3').map(show)).toEqual(
      expect.arrayContaining([
        'claim order-2 w3 ok',
        'extend order-2 w3 stale_token',
        'ack order-2 w3 stale_token',
        'fail order-2 w3 stale_token',
      ]),
    );
    expect(recorded.filter((o) => o.kind === 'redelivered').map((o) => o.job)).toEqual(['order-1', 'order-2']);
    expect(recorded.filter((o) => o.worker === 'w2' && o.kind === 'ack').map(show)).toEqual([
      'ack order-1 w2 ok',
      'ack order-2 w2 ok',
    ]);
  });

  it('has 13 recorded operations and 11 from the spans: the spans lack w1’s delivery and w3’s extension', async () => {
    const recorded = (await opsOf((f) => readHistory(createReadStream(join(DIR, f)), f), '.jsonl')).map(show);
    const spans = (await opsOf((f) => readOtlp(createReadStream(join(DIR, f)), f), '.otlp.jsonl')).map((o) =>
      show(o.kind === 'submit' ? { ...o, worker: 'producer' } : o),
    );
    expect([recorded.length, spans.length]).toEqual([13, 11]);
    const missing = [...recorded];
    for (const s of spans) {
      expect(missing, `a span's operation the recorder lacks: ${s}`).toContain(s);
      missing.splice(missing.indexOf(s), 1);
    }
    expect(missing.sort()).toEqual(['claim order-1 w1 ok', 'extend order-2 w3 stale_token']);
  });
});
