/**
 * The worker process of the PostgreSQL crash tests: it opens the store in one schema, runs a
 * command script against it and writes each reply on stdout as one JSON line the moment it has
 * it, as worker.ts does for SQLite.
 * The fault point chosen by JOBCHECK_FAULT (impl/faults.ts) kills it: the store's points inside
 * its transactions, the worker's own between a commit's reply and the ack that follows it.
 *
 * Started as `node --import tsx conformance/crash/pgWorker.ts`, with one JSON request on stdin:
 * `{"schema":"jobcheck_…","variant":"postgres","commands":[...]}` (the variant the correct store
 * or one of conformance/broken/postgres/; an optional `server` names the server, else libpq's
 * environment does).
 */
import { createInterface } from 'node:readline';
import { FAULT_POINTS, faultPoint } from '../../impl/faults.ts';
import { PostgresStore, postgresPool } from '../../impl/postgres/index.ts';
import { postgresVariant } from '../broken/index.ts';

/** A request to the PostgreSQL worker. */
export interface PostgresWorkerRequest {
  readonly schema: string;
  readonly variant: string;
  readonly commands: readonly unknown[];
  /** The server (postgresPool's target); absent for libpq's environment. */
  readonly server?: string;
}

const field = (value: unknown, name: string): unknown =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;

const input = createInterface({ input: process.stdin, crlfDelay: Infinity })[Symbol.asyncIterator]();
const first = await input.next();
if (first.done === true) throw new Error('no request on stdin');
const request = JSON.parse(first.value) as PostgresWorkerRequest;
const variant = postgresVariant(request.variant);
if (variant === undefined) throw new Error(`no PostgreSQL variant named ${JSON.stringify(request.variant)}`);
const pool = postgresPool(request.server ?? '', { max: 1 });
const store = await PostgresStore.open.call(variant.Store, pool, request.schema);
let previous: { command: unknown; reply: unknown } | undefined;
for (const command of request.commands) {
  const committed =
    previous !== undefined && field(previous.command, 'type') === 'commit' && field(previous.reply, 'ok') === true;
  if (committed && field(command, 'type') === 'ack' && field(command, 'token') === field(previous?.command, 'token'))
    faultPoint(FAULT_POINTS.workerBeforeAck);
  const reply = await store.execute(command);
  process.stdout.write(`${JSON.stringify(reply)}\n`);
  previous = { command, reply };
}
await store.close();
await pool.end();
process.stdin.destroy();
