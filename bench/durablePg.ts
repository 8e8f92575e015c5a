/**
 * The PostgreSQL part of `npm run bench:durable` (bench/durable.ts), run when a server is named by
 * PGHOST (`npm run bench:durable:pg` starts a throw-away one with scripts/pg.sh):
 *
 * 1. Commands per second, single worker: PostgresStore running whole lifecycles (submit, claim,
 *    commit, ack) on one connection, against a floor of bare node-postgres transactions that each
 *    do one comparable write (BEGIN; one UPDATE of a primary-key row; COMMIT), at the server's
 *    durability (fsync on, synchronous_commit on) and, as a second row, synchronous_commit off.
 * 2. Claims per second with 1, 4 and 16 workers, each worker its own connection: PostgresStore
 *    lanes (one pool of one connection each, all opening the same schema) doing claim + ack from a
 *    pre-filled store, side by side with pg-boss's fetch + complete on a pre-filled queue of the same
 *    server, interleaved (the order alternates between repetitions), each point on fresh rows.
 *    Throughput is wall time over a fixed window; the table gives the median of the repetitions.
 * 3. Cost growth of a claim and of a tick that expires one job, from 1e3 to 1e6 resident jobs,
 *    with the same resident rows as the SQLite table (nine in ten done), at synchronous_commit off
 *    so that the flush (the same at every size) does not hide what the indexes cost.
 */
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { PostgresStore, STORE_TYPES, postgresPool, quoteIdent } from '../impl/postgres/index.ts';

type Say = (s: string) => void;

const QUICK = process.env['JOBCHECK_BENCH_QUICK'] === '1';
const config = { capacity: 2_000_000, maxAttempts: 3, leaseTicks: 1_000_000, backoffBase: 1, backoffCap: 8 };
const WORKERS = [1, 4, 16] as const;
const REPS = QUICK ? 1 : 5;
const WINDOW_MS = QUICK ? 500 : 2000;
/** Rows put in front of each scaling point; more than any of them claims in its window. */
const PREFILL = QUICK ? 2_000 : 20_000;

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');
const us = (t: number): string => t.toFixed(1);

interface Timing {
  readonly wallUs: number;
  readonly cpuUs: number;
}

/** Median per-operation wall and CPU (of this process) microseconds over `batches` batches of `ops` operations. */
async function measure(batches: number, ops: number, run: (i: number) => Promise<void>): Promise<Timing> {
  const walls: number[] = [];
  const cpus: number[] = [];
  let i = 0;
  for (let b = 0; b < batches; b++) {
    const cpu = process.cpuUsage();
    const t = performance.now();
    for (let k = 0; k < ops; k++) await run(i++);
    walls.push(((performance.now() - t) * 1000) / ops);
    const used = process.cpuUsage(cpu);
    cpus.push((used.user + used.system) / ops);
  }
  return { wallUs: median(walls), cpuUs: median(cpus) };
}

/** A store's pool (postgresPool's, with libpq's environment) of one connection whose session runs with `synchronous_commit` as given. */
const pool1 = (syncCommit: 'on' | 'off'): pg.Pool =>
  new pg.Pool({
    max: 1,
    application_name: 'jobcheck-bench',
    types: STORE_TYPES,
    options: `-c synchronous_commit=${syncCommit}`,
  });

/** The store, single worker: one lifecycle (4 commands, 4 transactions) per operation. */
async function storeLifecycle(syncCommit: 'on' | 'off', batches: number, jobs: number): Promise<Timing> {
  const pool = pool1(syncCommit);
  const store = await PostgresStore.create(pool, config);
  let now = 0;
  const t = await measure(batches, jobs, async (i) => {
    now += 1;
    await store.execute({
      type: 'submit',
      id: `j${i}`,
      account: `a${i % 16}`,
      key: `k${i}`,
      amount: 1,
      deadline: 1e12,
      now,
    });
    const claim = await store.execute({ type: 'claim', worker: 'w', now });
    const token = claim.ok && claim.type === 'claim' && claim.job !== null ? claim.job.token : 0;
    await store.execute({ type: 'commit', worker: 'w', token, now });
    await store.execute({ type: 'ack', worker: 'w', token, now });
  });
  await store.drop();
  await pool.end();
  return { wallUs: t.wallUs / 4, cpuUs: t.cpuUs / 4 };
}

/** The floor: one bare transaction per operation on a connection taken from the pool, as the store takes it; one UPDATE of a primary-key row. */
async function floor(syncCommit: 'on' | 'off', batches: number, ops: number): Promise<Timing> {
  const pool = pool1(syncCommit);
  const table = `jobcheck_floor_${process.pid}`;
  await pool.query(
    `DROP TABLE IF EXISTS ${table}; CREATE TABLE ${table} (id integer PRIMARY KEY, v bigint NOT NULL); INSERT INTO ${table} SELECT g, 0 FROM generate_series(0, 1023) g; ANALYZE ${table}`,
  );
  const update = `UPDATE ${table} SET v = v + 1 WHERE id = $1`;
  const t = await measure(batches, ops, async (i) => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(update, [i % 1024]);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  });
  await pool.query(`DROP TABLE ${table}`);
  await pool.end();
  return t;
}

/**
 * Fills a new store's jobs table with `n` rows: with `ready`, every row a ready head of its own
 * account (claimable); else nine in ten done and the rest ready heads, with deadlines 1e6 + seq
 * (the rows of bench/durable.ts's SQLite growth table). Returns the store's schema.
 */
async function fillStore(pool: pg.Pool, n: number, allReady: boolean): Promise<string> {
  const store = await PostgresStore.create(pool, config);
  const s = quoteIdent(store.schema);
  const ready = allReady ? 'true' : 'g % 10 = 0';
  await pool.query(`
    INSERT INTO ${s}.jobs (seq, id, account, key, amount, deadline, status, attempts, due, claimable)
    SELECT g, convert_to('j' || g, 'UTF8'), convert_to('a' || g, 'UTF8'), convert_to('k' || g, 'UTF8'), 1, 1000000 + g,
           CASE WHEN ${ready} THEN 'ready' ELSE 'done' END, CASE WHEN ${ready} THEN 0 ELSE 1 END,
           CASE WHEN ${ready} THEN 1000000 + g END, CASE WHEN ${ready} THEN true END
    FROM generate_series(1, ${n}) g`);
  const unresolved = allReady ? n : Math.floor(n / 10);
  await pool.query(`UPDATE ${s}.meta SET clock = 0, next_token = 1, next_seq = $1, unresolved = $2 WHERE id = 1`, [
    n + 1,
    unresolved,
  ]);
  await pool.query(`ANALYZE ${s}.jobs`);
  return store.schema;
}

/** One worker's step: claim and settle one job; false once there was none to claim. */
type Lane = () => Promise<boolean>;

/** Claims settled by the lanes together over the window, per second of wall time. */
async function runLanes(lanes: readonly Lane[]): Promise<number> {
  let claims = 0;
  const t = performance.now();
  const until = t + WINDOW_MS;
  await Promise.all(
    lanes.map(async (lane) => {
      while (performance.now() < until && (await lane())) claims += 1;
    }),
  );
  return claims / ((performance.now() - t) / 1000);
}

/** PostgresStore: `workers` lanes, each a pool of one connection opening the same pre-filled schema, doing claim + ack. */
async function storeClaims(workers: number): Promise<number> {
  const admin = postgresPool('', { max: 1, applicationName: 'jobcheck-bench' });
  const schema = await fillStore(admin, PREFILL, true);
  const pools = Array.from({ length: workers }, () => postgresPool('', { max: 1, applicationName: 'jobcheck-bench' }));
  const stores = await Promise.all(pools.map((p) => PostgresStore.open(p, schema)));
  await Promise.all(pools.map((p) => p.query('SELECT 1')));
  // The clock stays at 1: no command scans for due jobs (deadlines are 1e6 and more).
  const lanes = stores.map(
    (store, w): Lane =>
      async () => {
        const claim = await store.execute({ type: 'claim', worker: `w${w}`, now: 1 });
        if (!claim.ok || claim.type !== 'claim' || claim.job === null) return false;
        const ack = await store.execute({ type: 'ack', worker: `w${w}`, token: claim.job.token, now: 1 });
        if (!ack.ok) throw new Error(`ack rejected: ${ack.code} ${ack.message}`);
        return true;
      },
  );
  const rate = await runLanes(lanes);
  await Promise.all(pools.map((p) => p.end()));
  await (await PostgresStore.open(admin, schema)).drop();
  await admin.end();
  return rate;
}

/** Connection options of pg-boss from libpq's environment (PGHOST is the socket folder). */
const bossConnection = (): { host?: string; database?: string; user?: string; port?: number } => {
  const e = process.env;
  return {
    ...(e['PGHOST'] !== undefined ? { host: e['PGHOST'] } : {}),
    ...(e['PGDATABASE'] !== undefined ? { database: e['PGDATABASE'] } : {}),
    ...(e['PGUSER'] !== undefined ? { user: e['PGUSER'] } : {}),
    ...(e['PGPORT'] !== undefined ? { port: Number(e['PGPORT']) } : {}),
  };
};

/** pg-boss: a new queue pre-filled with `insert`, then `workers` lanes each looping fetch + complete; one PgBoss of `workers` connections, so each lane in flight holds one. */
async function bossClaims(owner: PgBoss, queue: string, workers: number): Promise<number> {
  await owner.createQueue(queue);
  for (let i = 0; i < PREFILL; i += 5000) {
    await owner.insert(
      queue,
      Array.from({ length: Math.min(5000, PREFILL - i) }, (_, k) => ({ data: { i: i + k } })),
    );
  }
  await owner.getQueue(queue);
  const boss = new PgBoss({
    ...bossConnection(),
    max: workers,
    supervise: false,
    schedule: false,
    migrate: false,
    registerInstance: false,
    application_name: 'jobcheck-bench',
  });
  boss.on('error', (e: unknown) => console.error('pg-boss error:', e));
  await boss.start();
  // Warm every connection and the queue cache before the window opens.
  await Promise.all(Array.from({ length: workers }, () => boss.getQueue(queue)));
  const [warm] = await boss.fetch(queue);
  if (warm !== undefined) await boss.complete(queue, warm);
  const lanes = Array.from(
    { length: workers },
    (): Lane => async () => {
      const [job] = await boss.fetch(queue);
      if (job === undefined) return false;
      // The declared CommandResponse is empty; at run time it carries `affected` (dist/manager.js).
      const done = (await boss.complete(queue, job)) as { affected?: number };
      if (done.affected !== 1) throw new Error(`pg-boss complete affected ${String(done.affected)} jobs`);
      return true;
    },
  );
  const rate = await runLanes(lanes);
  await boss.stop({ graceful: false, close: true });
  await owner.deleteQueue(queue);
  return rate;
}

/** Timer expiry, then claim, at `n` resident jobs (synchronous_commit off). */
async function growth(
  n: number,
  batches: number,
  ops: number,
): Promise<{ build: number; claim: Timing; expiry: Timing }> {
  const pool = pool1('off');
  const t = performance.now();
  const schema = await fillStore(pool, n, false);
  const build = (performance.now() - t) / 1000;
  const store = await PostgresStore.open(pool, schema);
  // Ticks kill the ready jobs one by one, from the lowest deadline up (seq 10, 20, ...).
  let now = 0;
  const expiry = await measure(batches, ops, async (i) => {
    now = 1_000_000 + 10 * (i + 1);
    await store.execute({ type: 'tick', now });
  });
  const claim = await measure(batches, ops, async () => {
    await store.execute({ type: 'claim', worker: 'w', now });
  });
  await store.drop();
  await pool.end();
  return { build, claim, expiry };
}

/** Where claims/s stops rising by more than 10% (the worker count after which it does not), with the gain of each step. Pure. */
function stopsScaling(rates: readonly number[]): string {
  const gains = WORKERS.slice(1).map(
    (w, k) => `${WORKERS[k]} to ${w}: ${(((rates[k + 1] as number) / (rates[k] as number) - 1) * 100).toFixed(0)}%`,
  );
  const k = WORKERS.findIndex(
    (_, i) => i + 1 < WORKERS.length && (rates[i + 1] as number) <= (rates[i] as number) * 1.1,
  );
  const where =
    k === -1
      ? `still rising at ${WORKERS[WORKERS.length - 1]} workers`
      : `stops at ${WORKERS[k]} worker${WORKERS[k] === 1 ? '' : 's'}`;
  return `${where} (${gains.join(', ')})`;
}

/** Writes the PostgreSQL sections with `say`; without a server (no PGHOST), a line saying how to get them. */
export async function postgresSections(say: Say): Promise<void> {
  say('## PostgreSQL');
  say('');
  if (process.env['PGHOST'] === undefined) {
    say('Not measured in this run: no PostgreSQL server (PGHOST is unset). The PostgreSQL rows need');
    say(
      '`bash scripts/pg.sh npm run bench:durable` (or `npm run bench:durable:pg`), which runs this benchmark beside a',
    );
    say('throw-away server.');
    console.log(
      '\nbench:durable: the PostgreSQL rows need `bash scripts/pg.sh npm run bench:durable` (npm run bench:durable:pg)',
    );
    return;
  }
  const started = performance.now();
  const probe = new pg.Client();
  await probe.connect();
  const settings = await probe.query(
    "SELECT current_setting('server_version') AS v, current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS sc",
  );
  await probe.end();
  const server = settings.rows[0] as { v: string; fsync: string; sc: string };
  const bossVersion = (createRequire(import.meta.url)('pg-boss/package.json') as { version: string }).version;
  say(`PostgreSQL ${server.v} on the same machine, over a unix socket; server settings fsync=${server.fsync},`);
  say(
    `synchronous_commit=${server.sc} (a session may turn the latter off, as the rows marked so do). node-postgres 8,`,
  );
  say(`pg-boss ${bossVersion}. Load average at the start of this part: ${load()}.`);
  say('');
  say('### Commands per second, single worker, against bare PostgreSQL transactions');
  say('');
  say('The store runs whole lifecycles (submit, claim, commit, ack: 4 commands per job) on a pool of one');
  say('connection. The floor is a bare transaction per operation (`BEGIN`; `UPDATE` of one primary-key row;');
  say('`COMMIT`, three round trips) on a connection taken from a pool of one, as the store takes it.');
  say('');
  say(
    '| synchronous_commit | store µs/command (CPU) | store commands/s | floor µs/transaction (CPU) | floor transactions/s | ratio |',
  );
  say('| --- | --- | --- | --- | --- | --- |');
  for (const sc of ['on', 'off'] as const) {
    const jobs = QUICK ? 50 : 150;
    const s = await storeLifecycle(sc, 5, jobs);
    const f = await floor(sc, 5, jobs * 4);
    say(
      `| ${sc} | ${us(s.wallUs)} (${us(s.cpuUs)}) | ${Math.round(1e6 / s.wallUs)} | ${us(f.wallUs)} (${us(f.cpuUs)}) | ${Math.round(1e6 / f.wallUs)} | ${(s.wallUs / f.wallUs).toFixed(2)}× |`,
    );
  }
  say('');
  say("CPU is this process only (node-postgres and the store), not the server's.");
  say('');
  say('### Claims per second by worker count, against pg-boss');
  say('');
  say(
    `Each point starts from ${PREFILL.toLocaleString('en-US')} fresh ready jobs and counts claims settled in a ${WINDOW_MS / 1000} s window of wall time; the`,
  );
  say(
    `median of ${REPS} repetitions, the two queues interleaved (the order alternates), a database-wide VACUUM ANALYZE`,
  );
  say('before every point (the rows of the points before are deleted by then). PostgresStore: each worker');
  say('is a pool of one connection opening the same schema, looping claim + ack (2 transactions, both');
  say('queueing on the meta row lock). pg-boss: one PgBoss of as many connections as workers (maintenance');
  say('and scheduling off), each worker looping `fetch(queue)` + `complete(queue, job)` (2 statements, the');
  say('fetch with SKIP LOCKED). Synchronous_commit on for both.');
  say('');
  const owner = new PgBoss({
    ...bossConnection(),
    max: 2,
    supervise: false,
    schedule: false,
    application_name: 'jobcheck-bench',
  });
  owner.on('error', (e: unknown) => console.error('pg-boss error:', e));
  await owner.start();
  const loadBefore = load();
  const rates = { store: WORKERS.map((): number[] => []), boss: WORKERS.map((): number[] => []) };
  // Each point's rows are deleted after it; a VACUUM before every point keeps their dead tuples
  // (pg-boss's queues share one table) from slowing the points after it.
  const vacuum = new pg.Client();
  await vacuum.connect();
  for (let r = 0; r < REPS; r++) {
    for (const [k, w] of WORKERS.entries()) {
      const first = (r + k) % 2 === 0;
      await vacuum.query('VACUUM ANALYZE');
      if (first) rates.store[k]?.push(await storeClaims(w));
      await vacuum.query('VACUUM ANALYZE');
      rates.boss[k]?.push(await bossClaims(owner, `bench-${w}-${r}`, w));
      await vacuum.query('VACUUM ANALYZE');
      if (!first) rates.store[k]?.push(await storeClaims(w));
    }
  }
  await vacuum.end();
  await owner.stop({ graceful: false, close: true });
  const storeMedians = rates.store.map(median);
  const bossMedians = rates.boss.map(median);
  say(`| workers | PostgresStore claims/s (each repetition) | pg-boss claims/s (each repetition) | pg-boss / store |`);
  say('| --- | --- | --- | --- |');
  for (const [k, w] of WORKERS.entries()) {
    const st = rates.store[k] as number[];
    const bo = rates.boss[k] as number[];
    say(
      `| ${w} | ${Math.round(storeMedians[k] as number)} (${st.map(Math.round).join(', ')}) | ${Math.round(bossMedians[k] as number)} (${bo.map(Math.round).join(', ')}) | ${((bossMedians[k] as number) / (storeMedians[k] as number)).toFixed(2)}× |`,
    );
  }
  say('');
  say(`Load average before the table: ${loadBefore}; after it: ${load()}. Scaling (the worker count after which`);
  say(
    `claims/s rises by no more than 10%): PostgresStore ${stopsScaling(storeMedians)}, pg-boss ${stopsScaling(bossMedians)}.`,
  );
  say('');
  say('### Cost growth with resident jobs');
  say('');
  say('The resident rows of the SQLite table above (nine in ten done, the rest ready heads of their own');
  say('accounts); a claim takes the lowest claimable head, a tick expires exactly one job. Sessions at');
  say('synchronous_commit off, so that the flush (the same at every size) does not hide what the indexes cost.');
  say('');
  say('| resident jobs | build s | claim µs (CPU) | tick expiring one job µs (CPU) |');
  say('| --- | --- | --- | --- |');
  for (const n of QUICK ? [1e3, 1e4] : [1e3, 1e4, 1e5, 1e6]) {
    const g = await growth(n, 5, Math.min(200, n / 100));
    say(
      `| ${n.toLocaleString('en-US')} | ${g.build.toFixed(1)} | ${us(g.claim.wallUs)} (${us(g.claim.cpuUs)}) | ${us(g.expiry.wallUs)} (${us(g.expiry.cpuUs)}) |`,
    );
  }
  say('');
  say(
    `Load average at the end of this part: ${load()}; it took ${((performance.now() - started) / 1000).toFixed(0)} s.`,
  );
}
