/**
 * What the BullMQ recorder (adapters/bullmq-redis/recorder.ts) costs: N jobs added one `add` at a
 * time (100 in flight) and processed by one Worker (concurrency 8, a processor that returns at
 * once) on Redis, with and without the recorder (every add, claim and completion a synchronous line
 * in a temporary file), alternated over `--rounds` rounds in one run: jobs a second from the first
 * add to the last completion, medians, with the load average. Prints; writes no page.
 *
 * Run: bash scripts/brokers.sh redis -- npx tsx bench/recorderBullmq.ts [--jobs N] [--rounds R]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Queue, Worker } from 'bullmq';
import { redisConnection } from '../adapters/bullmq-redis/adapter.ts';
import { BullmqRecorder, HistoryFileWriter } from '../adapters/bullmq-redis/recorder.ts';
import { redisMissing, redisUrl } from '../adapters/bullmq-redis/redisEnv.ts';
import { loadAverage, machine, median } from './measure.ts';

/** One round: jobs a second, and the history's size when recorded. */
async function round(
  url: string,
  jobs: number,
  recorded: boolean,
  dir: string,
): Promise<{ rate: number; bytes: number }> {
  const connection = redisConnection(url);
  const name = `bench-${process.pid}-${Date.now()}-${recorded ? 'r' : 'p'}`;
  const file = join(dir, `${name}.jsonl`);
  const writer = recorded ? new HistoryFileWriter(file) : undefined;
  const recorder = writer === undefined ? undefined : new BullmqRecorder({ sink: writer, worker: 'bench', host: 'h' });
  const plainQueue = new Queue(name, { connection });
  const queue = recorder === undefined ? plainQueue : recorder.queue(plainQueue);
  const handle = async (): Promise<number> => 1;
  let done = 0;
  let finished: () => void = () => undefined;
  const all = new Promise<void>((resolve) => {
    finished = resolve;
  });
  const plainWorker = new Worker(name, recorder === undefined ? handle : recorder.processor(handle), {
    connection,
    concurrency: 8,
    autorun: false,
  });
  const worker = recorder === undefined ? plainWorker : recorder.worker(plainWorker);
  worker.on('completed', () => {
    done++;
    if (done === jobs) finished();
  });
  await worker.waitUntilReady();
  const started = performance.now();
  void worker.run();
  for (let i = 0; i < jobs; i += 100)
    await Promise.all(Array.from({ length: Math.min(100, jobs - i) }, (_, k) => queue.add('j', { n: i + k })));
  await all;
  const seconds = (performance.now() - started) / 1000;
  await worker.close();
  writer?.close();
  await queue.obliterate({ force: true });
  await queue.close();
  return { rate: jobs / seconds, bytes: writer === undefined ? 0 : statSync(file).size };
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { jobs: { type: 'string', default: '5000' }, rounds: { type: 'string', default: '3' } },
  });
  const jobs = Number(values.jobs);
  const rounds = Number(values.rounds);
  const url = redisUrl();
  if (url === undefined) {
    process.stderr.write(`recorderBullmq: ${redisMissing()}\n`);
    return 2;
  }
  const dir = mkdtempSync(join(tmpdir(), 'jobcheck-recorder-bench-'));
  const plain: number[] = [];
  const recorded: number[] = [];
  let bytes = 0;
  try {
    await round(url, Math.min(jobs, 500), false, dir); // warm-up
    for (let r = 0; r < rounds; r++) {
      plain.push((await round(url, jobs, false, dir)).rate);
      const rec = await round(url, jobs, true, dir);
      recorded.push(rec.rate);
      bytes = rec.bytes;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const m = machine();
  const p = median(plain);
  const q = median(recorded);
  process.stdout.write(
    `BullMQ on Redis, ${jobs} jobs a round, ${rounds} rounds (${m.cores} cores, ${m.node}, load ${loadAverage()})\n` +
      `without the recorder: ${Math.round(p)} jobs/s (rounds: ${plain.map(Math.round).join(', ')})\n` +
      `with the recorder:    ${Math.round(q)} jobs/s (rounds: ${recorded.map(Math.round).join(', ')}); ${Math.round(bytes / jobs)} bytes of history a job\n` +
      `ratio: ${(q / p).toFixed(2)}\n`,
  );
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`recorderBullmq: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
