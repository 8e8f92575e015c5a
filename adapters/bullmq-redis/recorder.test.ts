/**
 * The BullMQ recorder on a real Redis: a worker whose lock ran out while it worked (its lock
 * renewal set past the lock's end) completes after BullMQ gave the job to a second worker; the
 * recorded history holds the submit, both claims under their lock tokens, BullMQ's stalled
 * redelivery and the late completion BullMQ refused (`stale_token`), and `jobcheck audit` passes it.
 * BullMQ's own behaviour is unchanged (the job ends completed with the second worker's result).
 * Slow (a real lock expiry, about 2 s): in SLOW_TESTS. Needs a server (JOBCHECK_REDIS_URL;
 * `bash scripts/brokers.sh redis -- npx vitest run <this file>`): in CI a missing server fails.
 */
import { createReadStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue, Worker } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { auditHistory, readHistory } from '../../conformance/audit/index.ts';
import { redisConnection } from './adapter.ts';
import { BullmqRecorder, HistoryFileWriter } from './recorder.ts';
import { redisMissing, redisRequired, redisUrl } from './redisEnv.ts';

const missing = redisMissing();
const LOCK_MS = 400;

if (missing !== undefined && redisRequired()) {
  describe('the BullMQ recorder in CI', () => {
    it('has a server (the Redis tests never skip in CI)', () => {
      expect.fail(`${missing}; CI wraps the tests in scripts/brokers.sh`);
    });
  });
}

async function until(what: string, ok: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.skipIf(missing !== undefined)(
  `the BullMQ recorder on Redis${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    it('records a late completion BullMQ refused after its stalled redelivery, and the audit passes the history', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'jobcheck-recorder-'));
      try {
        await recordAndAudit(dir);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }, 30_000);
  },
);

/** The run: records into `dir`, then reads and audits what was recorded. */
async function recordAndAudit(dir: string): Promise<void> {
  const file = join(dir, 'history.jsonl');
  const writer = new HistoryFileWriter(file, { source: 'bullmq-redis' });
  const connection = redisConnection(redisUrl() as string);
  const name = `recorder-${process.pid}-${Date.now()}`;
  const rec = (worker: string) => new BullmqRecorder({ sink: writer, worker, host: 'h' });
  const queue = rec('producer').queue(new Queue(name, { connection }));
  let release = (): void => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const r1 = rec('w1');
  const r2 = rec('w2');
  let started = false;
  const errors: string[] = [];
  const w1 = r1.worker(
    new Worker(
      name,
      r1.processor(async () => {
        started = true;
        await held;
        return 'w1';
      }),
      { connection, lockDuration: LOCK_MS, lockRenewTime: 60_000, stalledInterval: LOCK_MS / 2 },
    ),
  );
  w1.on('error', (e) => errors.push(e.message));
  let w2: Worker | undefined;
  try {
    await queue.add('job', { n: 1 }, { jobId: 'j1' });
    await until('w1 to start j1', () => started);
    let completed = false;
    w2 = r2.worker(
      new Worker(
        name,
        r2.processor(async () => 'w2'),
        { connection, lockDuration: LOCK_MS, stalledInterval: LOCK_MS / 2 },
      ),
    );
    w2.on('completed', () => {
      completed = true;
    });
    await until('w2 to complete j1 after its stalled redelivery', () => completed);
    release();
    await until('w1 to be refused', () => errors.length > 0);
    const job = await queue.getJob('j1');
    expect([await job?.getState(), job?.returnvalue]).toEqual(['completed', 'w2']);
    expect(errors.some((e) => e.startsWith('Missing lock for job j1'))).toBe(true);
  } finally {
    release();
    await Promise.all([w1.close(), w2?.close()]);
    writer.close();
    await queue.obliterate({ force: true });
    await queue.close();
  }
  const lines = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const tokens = lines.filter((l) => l['op'] === 'claim').map((l) => [l['worker'], typeof l['token']]);
  expect(tokens).toEqual([
    ['w1', 'string'],
    ['w2', 'string'],
  ]);
  expect(lines).toContainEqual(expect.objectContaining({ type: 'broker', event: 'redelivered', job: 'j1' }));
  const ackIds = lines.filter((l) => l['op'] === 'ack').map((l) => [l['worker'], l['id']]);
  const outcome = (id: unknown) => lines.find((l) => l['type'] === 'return' && l['id'] === id)?.['outcome'];
  expect(ackIds.map(([w, id]) => [w, outcome(id)])).toEqual([
    ['w2', 'ok'],
    ['w1', 'stale_token'],
  ]);
  const claim1 = lines.find((l) => l['op'] === 'claim' && l['worker'] === 'w1');
  expect((claim1?.['leaseUntil'] as number) - (claim1?.['invokedAt'] as number)).toBe(LOCK_MS);
  const audit = await auditHistory([readHistory(createReadStream(file), file)], { clockUncertainty: 5 });
  expect(audit.findings).toEqual([]);
  expect(audit.verdict).toBe('pass');
}
