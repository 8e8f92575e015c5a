/**
 * Benchmark of the recorders (adapters/*\/recorder.ts), written to docs/recorders-bench.md: for
 * each client library, a run of N jobs through the client alone, then through the client wrapped
 * in its recorder writing `jobcheck-history/1` to a file, against the same throw-away server, in
 * one process. A job is three client calls in sequence (submit, claim, ack: `publish`/`next`/`ackAck`
 * on NATS JetStream, a confirmed `sendToQueue`/`get`/`ack` on RabbitMQ, `send`/`fetch`/`complete`
 * on pg-boss, `put`/`reserve-with-timeout 0`/`delete` on beanstalkd); a run's time includes the
 * writer's close (its last flush). Runs are short, plain and recorded alternate, 15 of each a
 * library (a shared machine's load drifts); operations per second are medians. A first row
 * measures the recorder alone, around a client that needs no server. Each recorded run's file is
 * counted line by line, so that a recorder that recorded nothing cannot read as free.
 *
 * Run: npm run bench:recorders (PostgreSQL, RabbitMQ, NATS and beanstalkd beside it), or
 * bash scripts/pg.sh bash scripts/brokers.sh rabbitmq nats beanstalkd -- npx tsx bench/recorders.ts [--reps R] [--no-write]
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AckPolicy, RetentionPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import amqp from 'amqplib';
import { PgBoss } from 'pg-boss';
import { BeanstalkdConnection } from '../adapters/beanstalkd/BeanstalkdConnection.ts';
import { recordBeanstalkd } from '../adapters/beanstalkd/recorder.ts';
import { HistoryWriter } from '../adapters/historyWriter.ts';
import { recordConsumer, recordJetStream } from '../adapters/nats-jetstream/recorder.ts';
import { recordPgBoss } from '../adapters/pg-boss/recorder.ts';
import { recordChannel } from '../adapters/rabbitmq/recorder.ts';
import { loadPg } from '../impl/postgres/loadPg.ts';
import { loadAverage, machine, median } from './measure.ts';

/** One library's run of `n` jobs: its seconds, the writer (when recorded) closed inside the timing. */
interface Library {
  readonly name: string;
  readonly jobs: number;
  run(n: number, writer: HistoryWriter | undefined): Promise<number>;
  close(): Promise<void>;
}

const seconds = (from: bigint): number => Number(process.hrtime.bigint() - from) / 1e9;

async function nats(url: string): Promise<Library> {
  const nc = await connect({ servers: url });
  const jsm = await jetstreamManager(nc);
  return {
    name: 'NATS JetStream (`@nats-io/jetstream`)',
    jobs: 100,
    async run(n, writer) {
      const name = `BENCH_${randomBytes(6).toString('hex')}`;
      await jsm.streams.add({ name, subjects: [`${name}.>`], retention: RetentionPolicy.Workqueue });
      await jsm.consumers.add(name, { durable_name: 'w', ack_policy: AckPolicy.Explicit, ack_wait: 30e9 });
      let js = jetstream(nc);
      let consumer = await js.consumers.get(name, 'w');
      if (writer !== undefined) {
        js = recordJetStream(js, writer, { worker: 'w1' });
        consumer = await recordConsumer(consumer, writer, { worker: 'w1' });
      }
      const start = process.hrtime.bigint();
      for (let i = 0; i < n; i++) await js.publish(`${name}.jobs`, `payload ${i}`, { msgID: `j${i}` });
      for (let i = 0; i < n; i++) await (await consumer.next({ expires: 5000 }))?.ackAck();
      await writer?.close();
      const s = seconds(start);
      await jsm.streams.delete(name);
      return s;
    },
    close: () => nc.close(),
  };
}

async function rabbitmq(url: string): Promise<Library> {
  const connection = await amqp.connect(url);
  return {
    name: 'RabbitMQ (amqplib, quorum queue)',
    jobs: 50,
    async run(n, writer) {
      const queue = `bench-${randomBytes(6).toString('hex')}`;
      let producer = await connection.createConfirmChannel();
      let worker = await connection.createChannel();
      await producer.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
      if (writer !== undefined) {
        producer = recordChannel(producer, writer, { worker: 'p' });
        worker = recordChannel(worker, writer, { worker: 'w1' });
      }
      const start = process.hrtime.bigint();
      for (let i = 0; i < n; i++)
        await new Promise<void>((resolve, reject) =>
          producer.sendToQueue(queue, Buffer.from(`payload ${i}`), { messageId: `j${i}` }, (err) =>
            err == null ? resolve() : reject(err),
          ),
        );
      for (let i = 0; i < n; i++) {
        const msg = await worker.get(queue);
        if (msg !== false) worker.ack(msg);
      }
      await worker.checkQueue(queue); // one round trip after the last ack, in both runs
      await writer?.close();
      const s = seconds(start);
      await producer.deleteQueue(queue);
      await producer.close();
      await worker.close();
      return s;
    },
    close: () => connection.close(),
  };
}

async function pgBoss(): Promise<Library> {
  const schema = `jcbench_${randomBytes(6).toString('hex')}`;
  const boss = new PgBoss({ schema, supervise: false, schedule: false, max: 2 } as ConstructorParameters<
    typeof PgBoss
  >[0]);
  boss.on('error', () => undefined);
  await boss.start();
  return {
    name: 'pg-boss 12 (PostgreSQL)',
    jobs: 50,
    async run(n, writer) {
      const queue = `q${randomBytes(4).toString('hex')}`;
      await boss.createQueue(queue);
      const b = writer === undefined ? boss : recordPgBoss(boss, writer, { worker: 'w1' });
      const start = process.hrtime.bigint();
      for (let i = 0; i < n; i++) await b.send(queue, { i });
      for (let i = 0; i < n; i++) {
        const [job] = await b.fetch(queue);
        if (job !== undefined) await b.complete(queue, job);
      }
      await writer?.close();
      const s = seconds(start);
      await boss.deleteQueue(queue);
      return s;
    },
    async close() {
      await boss.stop({ graceful: false, close: true });
      const pool = new (loadPg('bench/recorders.ts').Pool)({ max: 1 });
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await pool.end();
    },
  };
}

async function beanstalkd(addr: string): Promise<Library> {
  const [host, port] = addr.split(':') as [string, string];
  const connection = await BeanstalkdConnection.open(host, Number(port));
  return {
    name: 'beanstalkd (its text protocol, one connection)',
    jobs: 300,
    async run(n, writer) {
      const tube = `bench-${randomBytes(6).toString('hex')}`;
      const c =
        writer === undefined ? connection : recordBeanstalkd(connection, writer, { worker: 'w1', ttrSeconds: 60 });
      for (const line of [`use ${tube}`, `watch ${tube}`, 'ignore default']) await connection.send(line);
      const start = process.hrtime.bigint();
      for (let i = 0; i < n; i++) await c.send('put 0 0 60 9', `payload ${i % 10}`);
      for (let i = 0; i < n; i++) {
        const id = (await c.send('reserve-with-timeout 0')).head.split(' ')[1];
        await c.send(`delete ${id}`);
      }
      await writer?.close();
      const s = seconds(start);
      for (const line of ['watch default', `ignore ${tube}`]) await connection.send(line);
      return s;
    },
    close: () => connection.close(),
  };
}

/**
 * The recorder's own cost: beanstalkd's recorder around a client that answers each command on the
 * event loop's next turn, without a server (the turn lets the writer's file writes run, as a
 * socket's replies do).
 */
function noServer(): Library {
  const client = {
    send: (line: string, _body?: string): Promise<{ head: string; body?: string }> =>
      new Promise((resolve) =>
        setImmediate(() =>
          resolve(
            line.startsWith('put')
              ? { head: 'INSERTED 1' }
              : line.startsWith('reserve')
                ? { head: 'RESERVED 1 9', body: 'payload 1' }
                : { head: 'DELETED' },
          ),
        ),
      ),
  };
  return {
    name: 'no server: the beanstalkd recorder around a client that answers on the next turn',
    jobs: 3000,
    async run(n, writer) {
      const c = writer === undefined ? client : recordBeanstalkd(client, writer, { worker: 'w1', ttrSeconds: 60 });
      const start = process.hrtime.bigint();
      for (let i = 0; i < n; i++) {
        await c.send('put 0 0 60 9', 'payload 1');
        await c.send('reserve-with-timeout 0');
        await c.send('delete 1');
      }
      await writer?.close();
      return seconds(start);
    },
    close: async () => undefined,
  };
}

/** The libraries whose servers the environment names. */
async function libraries(): Promise<{ libs: Library[]; absent: string[] }> {
  const libs: Library[] = [noServer()];
  const absent: string[] = [];
  const env = process.env;
  if (env['JOBCHECK_NATS_URL']) libs.push(await nats(env['JOBCHECK_NATS_URL']));
  else absent.push('NATS (JOBCHECK_NATS_URL)');
  if (env['JOBCHECK_AMQP_URL']) libs.push(await rabbitmq(env['JOBCHECK_AMQP_URL']));
  else absent.push('RabbitMQ (JOBCHECK_AMQP_URL)');
  if (env['PGHOST']) libs.push(await pgBoss());
  else absent.push('PostgreSQL (PGHOST)');
  if (env['JOBCHECK_BEANSTALKD_ADDR']) libs.push(await beanstalkd(env['JOBCHECK_BEANSTALKD_ADDR']));
  else absent.push('beanstalkd (JOBCHECK_BEANSTALKD_ADDR)');
  return { libs, absent };
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const at = args.indexOf('--reps');
  const reps = at < 0 ? 15 : Number(args[at + 1]);
  if (!Number.isInteger(reps) || reps < 1) throw new Error(`--reps must be a whole number >= 1, got ${args[at + 1]}`);
  const loadBefore = loadAverage();
  const { libs, absent } = await libraries();
  if (absent.length > 0) {
    console.error(`bench/recorders.ts: no server for ${absent.join(', ')}; run it as npm run bench:recorders`);
    process.exitCode = 2;
  }
  const dir = mkdtempSync(join(tmpdir(), 'jobcheck-bench-recorders-'));
  const rows: string[] = [];
  try {
    for (const lib of libs) {
      const plain: number[] = [];
      const recorded: number[] = [];
      const calls = 3 * lib.jobs;
      await lib.run(20, undefined); // warm-up: connections, statements, JIT
      for (let r = 0; r < reps; r++) {
        for (const withRecorder of r % 2 === 0 ? [false, true] : [true, false]) {
          const path = join(dir, `${r}-${randomBytes(4).toString('hex')}.jsonl`);
          const writer = withRecorder ? HistoryWriter.open({ path, source: 'bench' }) : undefined;
          const s = await lib.run(lib.jobs, writer);
          console.error(`${lib.name} ${withRecorder ? 'recorded' : 'plain'}: ${fmt(calls / s)} ops/s`);
          if (withRecorder) {
            const lines = readFileSync(path, 'utf8').split('\n').length - 1;
            if (lines < calls + 2) throw new Error(`${lib.name}: ${lines} lines recorded for ${calls} calls`);
            recorded.push(calls / s);
          } else plain.push(calls / s);
        }
      }
      const a = median(plain);
      const b = median(recorded);
      const added = (1 / b - 1 / a) * 1e6;
      rows.push(
        `| ${lib.name} | ${fmt(calls)} | ${fmt(a)} | ${fmt(b)} | ${((b / a) * 100).toFixed(0)} % | ${added.toFixed(1)} µs |`,
      );
      console.error(rows.at(-1));
      await lib.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const m = machine();
  const page = `# Recorder benchmark

What recording costs a worker: each client library's calls alone, then through its recorder
(adapters/*/recorder.ts) writing \`jobcheck-history/1\` to a file, against the same throw-away
server, in one run (\`npm run bench:recorders\`, bench/recorders.ts says what a job is). A job is
three client calls in sequence (submit, claim, ack); operations per second are client calls per
second, medians of ${reps} short runs of each kind, the two kinds alternating (each run's figure
varies severalfold on this shared machine; the medians are what the table shows). The first row
is the recorder's own cost: a client that answers at once, so the recorder's work is all there is.
"Added a call" is the difference of the medians' time a call; against a server it is smaller
than the run-to-run spread, and a negative figure is that spread, not a recorder that speeds a
client up.

| client library | calls a run | without the recorder (ops/s) | with the recorder (ops/s) | with / without | added a call |
| --- | ---: | ---: | ---: | ---: | ---: |
${rows.join('\n')}

Each call waits for its server's reply (but RabbitMQ's ack, which has none), so these figures are
round trips on a shared machine; the recorder's own work a call (two clock readings, a payload
hash, one JSON line in a buffer) is the same whatever the server's speed.

Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, node ${m.node}; load average ${loadBefore} when
the run began and ${loadAverage()} when it ended (the machine is shared: other work ran beside it).
`;
  if (!args.includes('--no-write'))
    writeFileSync(fileURLToPath(new URL('../docs/recorders-bench.md', import.meta.url)), page);
  else console.log(page);
}

await main();
