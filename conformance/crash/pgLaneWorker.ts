/**
 * One lane of conformance/stores/postgresProcesses.ts (here beside pgWorker.ts, the other worker
 * process that loads store variants by name): a process with a pool of one connection and a
 * PostgresStore (or a variant of conformance/broken/postgres/) of its own, as a worker on another
 * machine has. Requests come on stdin, one JSON line each, one at a time; each answer is one JSON
 * line on stdout with the request's `id`:
 *
 *   {"id":1,"op":"open","schema":"jobcheck_…","variant":"postgres"}  ->  {"id":1,"ok":true}
 *   {"id":2,"op":"exec","command":{…}}                              ->  {"id":2,"reply":{…}}
 *   {"id":3,"op":"close"}                                           ->  {"id":3,"ok":true,"fast":<n>}
 *
 * (`fast`: the commands the store ran as one statement, impl/postgres/FastPath.ts). A failure
 * answers `{"id":…,"error":"<message>","code":<its code or null>,"connection":<bool>}` (`connection`:
 * the connection itself failed, so the outcome is unknown). The end of stdin ends the pool and the
 * process. Started as `node --import tsx` on this file.
 */
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { PostgresStore, postgresPool } from '../../impl/postgres/index.ts';
import { postgresVariant } from '../broken/index.ts';

const Request = z.discriminatedUnion('op', [
  z.object({ id: z.number().int(), op: z.literal('open'), schema: z.string(), variant: z.string() }),
  z.object({ id: z.number().int(), op: z.literal('exec'), command: z.unknown() }),
  z.object({ id: z.number().int(), op: z.literal('close') }),
]);

/** Whether `error` is a failure of the connection (no SQLSTATE, or the connection ended): the outcome is unknown. */
const connectionFailed = (error: unknown): boolean =>
  (error as { syscall?: unknown } | null)?.syscall !== undefined ||
  /Connection terminated|connection (is )?closed/i.test(error instanceof Error ? error.message : '');

const pool = postgresPool('', { max: 1, applicationName: 'jobcheck-lane' });
let store: PostgresStore | undefined;
const say = (line: unknown): void => {
  process.stdout.write(`${JSON.stringify(line)}\n`);
};

for await (const line of createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY })) {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    json = undefined;
  }
  const parsed = Request.safeParse(json);
  if (!parsed.success) {
    say({ id: -1, error: `not a lane request: ${line.slice(0, 200)}`, code: null, connection: false });
    continue;
  }
  const r = parsed.data;
  try {
    if (r.op === 'open') {
      const variant = postgresVariant(r.variant);
      if (variant === undefined) throw new Error(`no PostgreSQL variant named ${JSON.stringify(r.variant)}`);
      store = await PostgresStore.open.call(variant.Store, pool, r.schema);
      say({ id: r.id, ok: true });
    } else if (r.op === 'exec') {
      if (store === undefined) throw new Error('no store is open');
      say({ id: r.id, reply: await store.execute(r.command) });
    } else {
      const fast = store?.traffic.fastCommands ?? 0;
      await store?.close();
      store = undefined;
      say({ id: r.id, ok: true, fast });
    }
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    say({
      id: r.id,
      error: error instanceof Error ? error.message : String(error),
      code: typeof code === 'string' ? code : null,
      connection: connectionFailed(error),
    });
  }
}
await pool.end();
