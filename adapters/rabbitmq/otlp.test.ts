/**
 * The OTLP importer (conformance/audit/otlp.ts) on spans the real @opentelemetry/instrumentation-amqplib
 * wrote around a real RabbitMQ: three messages published with a message id, one acked, one
 * rejected without requeue, one nacked with requeue then acked on its redelivery. The spans, as
 * OTLP JSON, become the submits, claims and settlements they stand for; nothing names a token or a
 * lease, so the audit is INCONCLUSIVE, naming what it could not establish. The traffic runs in a
 * process of its own (otlpTraffic.ts), where the instrumentation patches amqplib through Node's
 * require hook before anything else loads it. Slow (a broker):
 * in SLOW_TESTS. Needs JOBCHECK_AMQP_URL (`bash scripts/brokers.sh rabbitmq -- npx vitest run
 * <this file>`): in CI a missing server fails the file, elsewhere it is skipped.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { AuditOp } from '../../conformance/audit/index.ts';
import { auditHistory, readOtlp } from '../../conformance/audit/index.ts';
import { amqpMissing, amqpRequired, amqpUrl } from './amqpEnv.ts';

const missing = amqpMissing();
const TRAFFIC = fileURLToPath(new URL('otlpTraffic.ts', import.meta.url));

if (missing !== undefined && amqpRequired()) {
  describe('the amqplib spans in CI', () => {
    it('has a server (the RabbitMQ tests never skip in CI)', () => {
      expect.fail(`${missing}; CI wraps the tests in scripts/brokers.sh`);
    });
  });
}

/** Runs otlpTraffic.ts in a process of its own; returns the OTLP JSON line it printed. */
function tracedTraffic(url: string): string {
  const run = spawnSync(process.execPath, ['--import', 'tsx', TRAFFIC, url], { encoding: 'utf8', timeout: 20_000 });
  if (run.status !== 0) throw new Error(`otlpTraffic.ts exited ${run.status}: ${run.stderr}`);
  return run.stdout.trim();
}

describe.skipIf(missing !== undefined)(
  `spans of @opentelemetry/instrumentation-amqplib on RabbitMQ${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    it('become submits, claims, an ack, a dead fail, a retry fail and the redelivery’s ack; the audit names what spans lack', async () => {
      const line = tracedTraffic(amqpUrl() as string);
      const ops: AuditOp[] = [];
      for await (const e of readOtlp([line], 'amqp.otlp.jsonl')) if (e.type === 'op') ops.push(e.op);
      const settled = ops
        .filter((o) => o.kind !== 'submit' && o.kind !== 'claim')
        .map((o) => `${o.kind} ${o.job} ${o.next ?? ''}`.trim())
        .sort();
      expect(settled).toEqual(['ack m1', 'ack m3', 'fail m2 dead', 'fail m3 retry']);
      expect(ops.filter((o) => o.kind === 'submit').map((o) => o.job)).toEqual(['m1', 'm2', 'm3']);
      expect(ops.filter((o) => o.kind === 'claim')).toHaveLength(4);
      const result = await auditHistory([readOtlp([line], 'amqp.otlp.jsonl')]);
      expect(result.findings.filter((f) => f.kind !== 'gap')).toEqual([]);
      expect(result.verdict).toBe('inconclusive');
      expect(result.findings).toContainEqual(expect.objectContaining({ kind: 'gap', gap: 'fields_missing' }));
    }, 30_000);
  },
);
