/**
 * One worker process of bench/durablePg.ts's claims table: a loop of claim one job, then settle it,
 * on a connection of its own, either through a PostgresStore of its own opened on the bench's
 * schema or through a PgBoss of its own on the bench's queue. Started as `node --import tsx` on this
 * file with one JSON line on stdin, `{"kind":"store","schema":…,"worker":…}` or
 * `{"kind":"boss","queue":…,"worker":…}` (each with `"warm"`, claims to settle before the window); it
 * connects and warms up, says `{"ready":true}`, waits for the line `go <until>` (epoch milliseconds),
 * loops until then or until nothing is left to claim, and says `{"claims":…,"startedAt":…,"endedAt":…,
 * "traffic":…,"trafficBefore":…,"cpuUs":…}` (epoch ms; traffic: the store's counters at the end and at
 * the window's opening; cpuUs: this process's user + system CPU time over the window, in µs).
 */
import { createInterface } from 'node:readline';
import { PgBoss } from 'pg-boss';
import { PostgresStore, postgresPool } from '../impl/postgres/index.ts';

interface Start {
  readonly kind: 'store' | 'boss';
  readonly schema?: string;
  readonly queue?: string;
  readonly worker: string;
  /** Claims settled before saying ready (the window's own rows). */
  readonly warm: number;
}

const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY })[Symbol.asyncIterator]();
const nextLine = async (): Promise<string> => {
  const l = await lines.next();
  if (l.done === true) throw new Error('stdin ended');
  return l.value;
};
const start = JSON.parse(await nextLine()) as Start;
const say = (x: unknown): void => {
  process.stdout.write(`${JSON.stringify(x)}\n`);
};

/** One claim and its settling; false once nothing was left to claim. */
let step: () => Promise<boolean>;
let traffic: () => unknown = () => null;
let end: () => Promise<void>;
if (start.kind === 'store') {
  const pool = postgresPool('', { max: 1, applicationName: 'jobcheck-bench' });
  const store = await PostgresStore.open(pool, start.schema as string);
  // Prepares the store's statements on the connection (a tick at the window's `now` moves nothing after the first).
  await store.execute({ type: 'tick', now: 1 });
  step = async () => {
    const claim = await store.execute({ type: 'claim', worker: start.worker, now: 1 });
    if (!claim.ok || claim.type !== 'claim' || claim.job === null) return false;
    const ack = await store.execute({ type: 'ack', worker: start.worker, token: claim.job.token, now: 1 });
    if (!ack.ok) throw new Error(`ack rejected: ${ack.code}`);
    return true;
  };
  traffic = () => store.traffic;
  end = () => pool.end();
} else {
  const e = process.env;
  const boss = new PgBoss({
    ...(e['PGHOST'] !== undefined ? { host: e['PGHOST'] } : {}),
    ...(e['PGDATABASE'] !== undefined ? { database: e['PGDATABASE'] } : {}),
    ...(e['PGUSER'] !== undefined ? { user: e['PGUSER'] } : {}),
    ...(e['PGPORT'] !== undefined ? { port: Number(e['PGPORT']) } : {}),
    max: 1,
    supervise: false,
    schedule: false,
    migrate: false,
    registerInstance: false,
    application_name: 'jobcheck-bench',
  });
  boss.on('error', (error: unknown) => console.error('pg-boss error:', error));
  await boss.start();
  const queue = start.queue as string;
  await boss.getQueue(queue);
  step = async () => {
    const [job] = await boss.fetch(queue);
    if (job === undefined) return false;
    // The declared CommandResponse is empty; at run time it carries `affected` (dist/manager.js).
    const done = (await boss.complete(queue, job)) as { affected?: number };
    if (done.affected !== 1) throw new Error(`pg-boss complete affected ${String(done.affected)} jobs`);
    return true;
  };
  end = () => boss.stop({ graceful: false, close: true });
}
// The claim and settle paths run here first, so that the window measures code the runtime has
// compiled rather than a first pass through it: at 16 processes each settles a few dozen a second.
for (let i = 0; i < start.warm; i += 1)
  if (!(await step())) throw new Error('nothing was left to claim in the warm-up');
say({ ready: true });
const go = /^go (\d+)$/.exec(await nextLine());
if (go === null) throw new Error('expected `go <until>`');
const until = Number(go[1]);
const trafficBefore = traffic();
const cpuBefore = process.cpuUsage();
const startedAt = Date.now();
let claims = 0;
while (Date.now() < until && (await step())) claims += 1;
const endedAt = Date.now();
const cpu = process.cpuUsage(cpuBefore);
say({ claims, startedAt, endedAt, traffic: traffic(), trafficBefore, cpuUs: cpu.user + cpu.system });
await end();
process.stdin.destroy();
