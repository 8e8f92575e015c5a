/**
 * The worker process of the crash tests: it opens an SQLite store file (the correct store or a
 * broken variant), runs commands against it and writes each reply on stdout as one JSON line the
 * moment it has it, so that the harness knows exactly which commands were acknowledged when the
 * process dies. The fault point chosen by JOBCHECK_FAULT (impl/faults.ts) kills it; the store's
 * own points fire inside its transactions, the worker's point between a commit's reply and the
 * ack that follows it.
 *
 * Started as `node --import tsx conformance/crash/worker.ts` (dist/conformance/crash/worker.js
 * when built), with one JSON request on stdin:
 * - `{"mode":"script","file","variant","commands":[...]}` runs the commands in order;
 * - `{"mode":"contend","file","variant","worker","rounds"}` runs `rounds` times submit, claim,
 *   commit and ack at now 0 as fast as it can, against another worker on the same file; a command
 *   that throws (SQLITE_BUSY) is reported as `{"error": ...}` and the worker goes on. It writes
 *   `{"ready":true}` once the store is open and starts at the next line on stdin.
 * Stdout on Linux pipes is synchronous, so a line written is in the pipe before any kill.
 */
import { createInterface } from 'node:readline';
import { FAULT_POINTS, faultPoint } from '../../impl/faults.ts';
import { SqliteStore } from '../../impl/sqlite/index.ts';
import { sqliteVariant } from '../broken/index.ts';
import { codeOf, messageOf } from '../../contract/index.ts';

/** A request to the worker. */
export type WorkerRequest =
  | { readonly mode: 'script'; readonly file: string; readonly variant: string; readonly commands: readonly unknown[] }
  | {
      readonly mode: 'contend';
      readonly file: string;
      readonly variant: string;
      readonly worker: string;
      readonly rounds: number;
    };

const line = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value)}\n`);
};

const field = (value: unknown, name: string): unknown =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;

function runScript(store: SqliteStore, commands: readonly unknown[]): void {
  let previous: { command: unknown; reply: unknown } | undefined;
  for (const command of commands) {
    const committed =
      previous !== undefined && field(previous.command, 'type') === 'commit' && field(previous.reply, 'ok') === true;
    if (committed && field(command, 'type') === 'ack' && field(command, 'token') === field(previous?.command, 'token'))
      faultPoint(FAULT_POINTS.workerBeforeAck);
    const reply = store.execute(command);
    line(reply);
    previous = { command, reply };
  }
}

function contend(store: SqliteStore, worker: string, rounds: number): void {
  const attempt = (command: unknown): unknown => {
    try {
      const reply = store.execute(command);
      line(reply);
      return reply;
    } catch (error) {
      line({ error: messageOf(error), code: codeOf(error) ?? null, command });
      return undefined;
    }
  };
  for (let i = 0; i < rounds; i++) {
    attempt({
      type: 'submit',
      id: `${worker}-${i}`,
      account: `${worker}-${i % 4}`,
      key: `k${i}`,
      amount: 1,
      deadline: 1_000_000,
      now: 0,
    });
    const claim = attempt({ type: 'claim', worker, now: 0 });
    const job = field(claim, 'job');
    const token = field(job, 'token');
    if (typeof token !== 'number') continue;
    attempt({ type: 'commit', worker, token, now: 0 });
    attempt({ type: 'ack', worker, token, now: 0 });
  }
}

const input = createInterface({ input: process.stdin, crlfDelay: Infinity })[Symbol.asyncIterator]();
const first = await input.next();
if (first.done === true) throw new Error('no request on stdin');
const request = JSON.parse(first.value) as WorkerRequest;
const variant = sqliteVariant(request.variant);
if (variant === undefined) throw new Error(`no SQLite variant named ${JSON.stringify(request.variant)}`);
const store = SqliteStore.open.call(variant.Store, request.file);
if (request.mode === 'script') {
  runScript(store, request.commands);
} else {
  // A start line: both contending workers begin together, or one would finish before the other starts.
  line({ ready: true });
  await input.next();
  contend(store, request.worker, request.rounds);
}
store.close();
process.stdin.destroy();
