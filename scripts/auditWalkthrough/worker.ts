/**
 * One worker process of the walkthrough (scripts/auditWalkthrough.ts): a BullMQ Worker on Redis
 * whose processor holds each job `holdMs`, recorded by the BullMQ recorder into `<name>.jsonl` and
 * traced by bullmq-otel into `<name>.otlp.jsonl`. It tells its parent, one line on stdout each,
 * `ready`, `started <job>`, `completed <job>`, `error <message>`; on SIGTERM it closes the Worker
 * and ends its history file, then exits 0.
 *
 *   node --import tsx scripts/auditWalkthrough/worker.ts <name> <queue> <redis-url> <dir> <holdMs> <lockMs>
 */
import { join } from 'node:path';
import { Worker } from 'bullmq';
import { redisConnection } from '../../adapters/bullmq-redis/adapter.ts';
import { BullmqRecorder, HistoryFileWriter } from '../../adapters/bullmq-redis/recorder.ts';
import { otlpTelemetry } from './otlpFile.ts';

const [name, queue, url, dir, hold, lock] = process.argv.slice(2);
if (name === undefined || queue === undefined || url === undefined || dir === undefined || lock === undefined) {
  process.stderr.write('usage: worker.ts <name> <queue> <redis-url> <dir> <holdMs> <lockMs>\n');
  process.exit(2);
}
const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const holdMs = Number(hold);
const lockDuration = Number(lock);
const writer = new HistoryFileWriter(join(dir, `${name}.jsonl`), { source: 'bullmq-redis' });
const recorder = new BullmqRecorder({ sink: writer, worker: name, host: 'host-1' });
const otel = otlpTelemetry(join(dir, `${name}.otlp.jsonl`), name, 'host-1');
const worker = recorder.worker(
  new Worker(
    queue,
    recorder.processor(async (job) => {
      say(`started ${job.id}`);
      await new Promise((resolve) => setTimeout(resolve, holdMs));
      return { done: job.id };
    }),
    {
      connection: redisConnection(url),
      name,
      lockDuration,
      stalledInterval: lockDuration / 2,
      telemetry: otel.telemetry,
    },
  ),
);
worker.on('completed', (job) => say(`completed ${job.id}`));
worker.on('error', (error) => say(`error ${error.message}`));
process.on('SIGTERM', () => {
  void (async () => {
    await worker.close();
    writer.close();
    await otel.shutdown();
    process.exit(0);
  })();
});
await worker.waitUntilReady();
say('ready');
