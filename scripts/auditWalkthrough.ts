/**
 * The run of docs/13-audit-your-own-queue.md: a BullMQ-on-Redis application recorded through the
 * BullMQ recorder (adapters/bullmq-redis/recorder.ts) and traced through bullmq-otel, while one
 * worker is SIGKILLed mid-job and another SIGSTOPped mid-job until BullMQ gave its job to a third,
 * then resumed. Writes each process's history and spans into docs/walkthrough/audit/ (and
 * w3-accepted.jsonl, w3's history edited on purpose), then regenerates the chapter, whose console
 * blocks show those files and audit them (the docs test runs them again).
 *
 *   bash scripts/brokers.sh redis -- npx tsx scripts/auditWalkthrough.ts   record, then regenerate
 *   npx tsx scripts/auditWalkthrough.ts --audit-only                       regenerate from the stored files
 *
 * Every worker is a child process of this one, ended by its pid (SIGCONT, SIGTERM, then SIGKILL
 * after 10 s) whatever happens; the queue's keys are removed at the end. Exit code 0, 1 when a step
 * timed out, 2 without a Redis server.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { redisConnection } from '../adapters/bullmq-redis/adapter.ts';
import { BullmqRecorder, HistoryFileWriter } from '../adapters/bullmq-redis/recorder.ts';
import { redisMissing, redisUrl } from '../adapters/bullmq-redis/redisEnv.ts';
import { regenerateDoc } from '../docs/tools/generate.ts';
import { otlpTelemetry } from './auditWalkthrough/otlpFile.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Where the run's files go (relative names: the audits' output names them as the chapter shows them). */
export const WALKTHROUGH_DIR = join(ROOT, 'docs', 'walkthrough', 'audit');
const CHAPTER = join(ROOT, 'docs', '13-audit-your-own-queue.md');
const WORKER = fileURLToPath(new URL('auditWalkthrough/worker.ts', import.meta.url));
/** BullMQ's lock duration in this run (ms); the stalled checker runs every half of it. */
const LOCK_MS = 1000;
const STEP_TIMEOUT_MS = 20_000;

/** A child worker and the lines it has said. */
interface Child {
  readonly proc: ChildProcess;
  readonly said: string[];
  readonly exited: Promise<void>;
}

const children: Child[] = [];

function startWorker(name: string, queue: string, url: string, holdMs: number): Child {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', WORKER, name, queue, url, WALKTHROUGH_DIR, String(holdMs), String(LOCK_MS)],
    { stdio: ['ignore', 'pipe', 'inherit'], cwd: ROOT },
  );
  const said: string[] = [];
  let rest = '';
  proc.stdout?.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString('utf8')).split('\n');
    rest = lines.pop() ?? '';
    said.push(...lines);
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const child = { proc, said, exited };
  children.push(child);
  return child;
}

async function waitFor(what: string, ok: () => boolean): Promise<void> {
  const until = Date.now() + STEP_TIMEOUT_MS;
  while (!ok()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const heard = (child: Child, line: string) => () => child.said.some((l) => l.startsWith(line));

/** Ends a child by its pid: SIGCONT (it may be stopped), SIGTERM, SIGKILL after 10 s. */
async function stop(child: Child): Promise<void> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return;
  child.proc.kill('SIGCONT');
  child.proc.kill('SIGTERM');
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), 10_000);
  await child.exited;
  clearTimeout(timer);
}

/** Records the run into WALKTHROUGH_DIR (its old files removed first). */
async function record(url: string): Promise<void> {
  rmSync(WALKTHROUGH_DIR, { recursive: true, force: true });
  mkdirSync(WALKTHROUGH_DIR, { recursive: true });
  const queueName = `walkthrough-${process.pid}`;
  const writer = new HistoryFileWriter(join(WALKTHROUGH_DIR, 'producer.jsonl'), { source: 'bullmq-redis' });
  const recorder = new BullmqRecorder({ sink: writer, worker: 'producer', host: 'host-1' });
  const otel = otlpTelemetry(join(WALKTHROUGH_DIR, 'producer.otlp.jsonl'), 'producer', 'host-1');
  const queue = recorder.queue(new Queue(queueName, { connection: redisConnection(url), telemetry: otel.telemetry }));
  try {
    step('w1 starts; order-1 is added; w1 starts it; w1 is SIGKILLed');
    const w1 = startWorker('w1', queueName, url, 60_000);
    await waitFor('w1 ready', heard(w1, 'ready'));
    await queue.add('order', { order: 1 }, { jobId: 'order-1' });
    await waitFor('w1 to start order-1', heard(w1, 'started order-1'));
    w1.proc.kill('SIGKILL');
    await w1.exited;
    step('w3 starts; order-2 is added; w3 starts it; w3 is SIGSTOPped');
    const w3 = startWorker('w3', queueName, url, 1500);
    await waitFor('w3 ready', heard(w3, 'ready'));
    await queue.add('order', { order: 2 }, { jobId: 'order-2' });
    await waitFor('w3 to start order-2', heard(w3, 'started order-2'));
    w3.proc.kill('SIGSTOP');
    step('w2 starts; BullMQ finds both locks gone and hands both jobs to w2');
    const w2 = startWorker('w2', queueName, url, 200);
    await waitFor(
      'w2 to complete order-1 and order-2',
      () => heard(w2, 'completed order-1')() && heard(w2, 'completed order-2')(),
    );
    step('w3 is resumed (SIGCONT): its processor returns and its worker completes order-2 late');
    w3.proc.kill('SIGCONT');
    await waitFor('w3 to finish order-2', heard(w3, 'error'));
    await new Promise((resolve) => setTimeout(resolve, LOCK_MS));
    step('w2 and w3 close (SIGTERM)');
    await Promise.all([stop(w2), stop(w3)]);
  } finally {
    await Promise.all(children.map(stop));
    writer.close();
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    await otel.shutdown();
  }
}

function step(text: string): void {
  process.stdout.write(`- ${text}\n`);
}

/**
 * w3's history edited on purpose, as if BullMQ had accepted its late completion: its refused ack's
 * return says `ok`. The audit must call that a stale holder's acknowledgement. Pure but for the files.
 */
function acceptedVariant(): void {
  const lines = readFileSync(join(WALKTHROUGH_DIR, 'w3.jsonl'), 'utf8').split('\n');
  const ack = lines.find((l) => l.includes('"op":"ack"'));
  const id = ack === undefined ? undefined : (JSON.parse(ack) as { id: string }).id;
  const edited = lines.map((l) =>
    id !== undefined && l.startsWith(`{"type":"return","id":"${id}"`)
      ? l.replace('"outcome":"stale_token"', '"outcome":"ok"')
      : l,
  );
  writeFileSync(join(WALKTHROUGH_DIR, 'w3-accepted.jsonl'), edited.join('\n'));
}

/** Regenerates the chapter: its console blocks show the stored files and audit them again. */
async function regenerateChapter(): Promise<void> {
  const before = readFileSync(CHAPTER, 'utf8');
  const after = await regenerateDoc(before, `docs/${basename(CHAPTER)}`);
  writeFileSync(CHAPTER, after);
  process.stdout.write(`${after === before ? 'unchanged' : 'updated'}: docs/${basename(CHAPTER)}\n`);
}

async function main(): Promise<number> {
  if (!process.argv.includes('--audit-only')) {
    const url = redisUrl();
    if (url === undefined) {
      process.stderr.write(`auditWalkthrough: ${redisMissing()}\n`);
      return 2;
    }
    await record(url);
  }
  acceptedVariant();
  process.stdout.write(`files: ${readdirSync(WALKTHROUGH_DIR).sort().join(' ')}\n`);
  await regenerateChapter();
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`auditWalkthrough: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
