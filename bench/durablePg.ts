/**
 * The PostgreSQL part of `npm run bench:durable` (bench/durable.ts), run when a server is named by
 * PGHOST (`npm run bench:durable:pg` starts a throw-away one with scripts/pg.sh):
 * 1. Commands per second, single worker: PostgresStore running whole lifecycles on one connection,
 *    against a floor of bare node-postgres transactions of one comparable write (BEGIN; one UPDATE
 *    of a primary-key row; COMMIT), at synchronous_commit on and, as a second row, off.
 * 2. Claims per second with 1, 4 and 16 workers, each a loop of claim + ack: PostgresStore as one
 *    store over a pool (its concurrent commands grouped), the same with one store and connection per
 *    worker (no grouping), a baseline store when JOBCHECK_BENCH_BASELINE names another working tree
 *    (its impl/postgres loaded here), and pg-boss's fetch + complete, on the same server, interleaved
 *    in rotating order, each point on fresh rows: wall time over a fixed window, the median of the
 *    repetitions, and the store's counters for round trips per command and open transaction time.
 * 3. Cost growth of a claim and of a tick that expires one job, from 1e3 to 1e6 resident jobs (the
 *    SQLite table's rows, nine in ten done), at synchronous_commit off so that the flush does not
 *    hide what the indexes cost.
 *
 * JOBCHECK_BENCH_PG_ONLY=claims runs the claims table alone, JOBCHECK_BENCH_PG_WORKERS (`1,4`) and
 * JOBCHECK_BENCH_PG_REPS choose its points and repetitions; such a run writes no doc.
 */
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PostgresStore, STORE_TYPES, postgresPool, quoteIdent } from '../impl/postgres/index.ts';
import { PG_DESIGN_NOTES } from './pgDesignNotes.ts';

type Say = (s: string) => void;

const QUICK = process.env['JOBCHECK_BENCH_QUICK'] === '1';
const config = { capacity: 2_000_000, maxAttempts: 3, leaseTicks: 1_000_000, backoffBase: 1, backoffCap: 8 };
/** Set when only a part of the PostgreSQL sections runs (see the header): no doc is written then. */
export const PARTIAL =
  process.env['JOBCHECK_BENCH_PG_ONLY'] !== undefined ||
  process.env['JOBCHECK_BENCH_PG_WORKERS'] !== undefined ||
  process.env['JOBCHECK_BENCH_PG_REPS'] !== undefined;
const WORKERS: readonly number[] = (process.env['JOBCHECK_BENCH_PG_WORKERS'] ?? '1,4,16').split(',').map(Number);
const ONLY_CLAIMS = process.env['JOBCHECK_BENCH_PG_ONLY'] === 'claims';
const REPS = Number(process.env['JOBCHECK_BENCH_PG_REPS'] ?? (QUICK ? 1 : 3));
const WINDOW_MS = QUICK ? 500 : 2000;
/** Claims each worker process settles before the window opens (bench/durablePgWorker.ts). */
const WARM = QUICK ? 20 : 300;
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
async function storeLifecycle(
  syncCommit: 'on' | 'off',
  batches: number,
  jobs: number,
  Store: { create(pool: pg.Pool, config: unknown): Promise<PostgresStore> } = PostgresStore,
): Promise<Timing> {
  const pool = pool1(syncCommit);
  const store = await Store.create(pool, config);
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
async function fillStore(
  pool: pg.Pool,
  n: number,
  allReady: boolean,
  Store: { create(pool: pg.Pool, config: unknown): Promise<{ readonly schema: string }> } = PostgresStore,
): Promise<string> {
  const store = await Store.create(pool, config);
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

/** What a store contender must offer: the store of bench/durablePg.ts's run or of an older tree (JOBCHECK_BENCH_BASELINE). */
interface StoreLike {
  execute(
    command: unknown,
  ): Promise<
    | { ok: true; type: 'claim'; job: { token: number } | null }
    | { ok: boolean; type?: string; code?: string; message?: string }
  >;
  readonly traffic?: {
    roundTrips: number;
    groups: number;
    commands: number;
    heldMs: number;
    readAheadGroups?: number;
    staleGroups?: number;
    fastCommands?: number;
  };
}
interface StoreModule {
  readonly PostgresStore: {
    open(pool: pg.Pool, schema: string): Promise<StoreLike & { drop(): Promise<void> }>;
    create(pool: pg.Pool, config: unknown): Promise<{ readonly schema: string }>;
  };
}

/**
 * The store contenders: this tree's store shared by the workers of one process, one store per worker
 * process (`procs`, bench/durablePgWorker.ts), and the baseline tree's shared by the workers.
 */
type StoreKind = 'store' | 'procs' | 'baseline';

/** A checkout of the store before this change, named by JOBCHECK_BENCH_BASELINE (the folder of another working tree of this repository). */
const BASELINE = process.env['JOBCHECK_BENCH_BASELINE'];
const baseline: StoreModule | undefined =
  BASELINE === undefined
    ? undefined
    : ((await import(pathToFileURL(join(BASELINE, 'impl/postgres/index.ts')).href)) as StoreModule);

/** Totals of a contender's traffic over its points (this tree's store only). */
const traffic = { store: [] as Traffic[], procs: [] as Traffic[] };
interface Traffic {
  readonly workers: number;
  readonly claims: number;
  readonly roundTrips: number;
  readonly groups: number;
  readonly commands: number;
  readonly heldMs: number;
  readonly wallMs: number;
  readonly readAheadGroups: number;
  readonly staleGroups: number;
  readonly fastCommands: number;
}

/**
 * A store contender with `workers` lanes doing claim + ack on a pre-filled schema, in this process:
 * one store object over one pool of `workers` connections, the lanes calling it at once (as the
 * pg-boss side is one PgBoss of `workers` connections).
 */
async function storeClaims(kind: 'store' | 'baseline', workers: number): Promise<number> {
  const admin = postgresPool('', { max: 1, applicationName: 'jobcheck-bench' }) as pg.Pool;
  const module = kind === 'baseline' ? (baseline as StoreModule) : ({ PostgresStore } as unknown as StoreModule);
  // Each tree's store makes its own schema (the layouts' tags differ between trees).
  const schema = await fillStore(admin, PREFILL, true, module.PostgresStore);
  const pool = postgresPool('', { max: workers, applicationName: 'jobcheck-bench' }) as pg.Pool;
  const shared = await module.PostgresStore.open(pool, schema);
  // Every connection opened before the window: as many queries at once as the pool holds.
  await Promise.all(Array.from({ length: workers }, () => pool.query('SELECT 1')));
  const lanes = Array.from(
    { length: workers },
    (_, w): Lane =>
      async () => {
        const claim = await shared.execute({ type: 'claim', worker: `w${w}`, now: 1 });
        if (!claim.ok || claim.type !== 'claim' || !('job' in claim) || claim.job === null) return false;
        const ack = await shared.execute({ type: 'ack', worker: `w${w}`, token: claim.job.token, now: 1 });
        if (!ack.ok) throw new Error(`ack rejected: ${'code' in ack ? ack.code : ''}`);
        return true;
      },
  );
  const before = shared.traffic;
  const t = performance.now();
  const rate = await runLanes(lanes);
  const wallMs = performance.now() - t;
  if (kind === 'store' && before !== undefined && shared.traffic !== undefined)
    traffic.store.push(trafficOf(workers, (rate * wallMs) / 1000, wallMs, [shared.traffic], [before]));
  await pool.end();
  await (await module.PostgresStore.open(admin, schema)).drop();
  await admin.end();
  return rate;
}

/** A store's counters as StoreLike has them. */
type Counters = NonNullable<StoreLike['traffic']>;

/** One point's traffic: the counters `after` less `before`, summed over stores. Pure. */
function trafficOf(
  workers: number,
  claims: number,
  wallMs: number,
  after: readonly Counters[],
  before: readonly Counters[],
): Traffic {
  const sum = (xs: readonly Counters[], k: keyof Counters): number => xs.reduce((n, x) => n + (x[k] ?? 0), 0);
  const d = (k: keyof Counters): number => sum(after, k) - sum(before, k);
  return {
    workers,
    claims,
    roundTrips: d('roundTrips'),
    groups: d('groups'),
    commands: d('commands'),
    heldMs: d('heldMs'),
    readAheadGroups: d('readAheadGroups'),
    staleGroups: d('staleGroups'),
    fastCommands: d('fastCommands'),
    wallMs,
  };
}

/** What a worker process says at the end of its window (bench/durablePgWorker.ts). */
interface WorkerEnd {
  readonly claims: number;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly traffic: Counters | null;
  readonly trafficBefore: Counters | null;
  readonly cpuUs: number;
}

/**
 * `workers` worker processes (bench/durablePgWorker.ts), each with `start` and its own connection,
 * started and warmed up before the window; then the window opens for all at once. Claims settled
 * by them together per second, from the window's opening to the last one's end. Every process is
 * killed if the point fails.
 */
async function processClaims(
  workers: number,
  start: (w: number) => Record<string, unknown>,
): Promise<{ rate: number; ends: WorkerEnd[]; wallMs: number; cpuPerClaim: number }> {
  const file = fileURLToPath(new URL('./durablePgWorker.ts', import.meta.url));
  const children = Array.from({ length: workers }, () =>
    spawn(process.execPath, ['--import', 'tsx', file], { stdio: ['pipe', 'pipe', 'inherit'] }),
  );
  try {
    const said = children.map((child) => {
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      return async (): Promise<unknown> => {
        const l = await lines.next();
        if (l.done === true) throw new Error('a bench worker process ended early');
        return JSON.parse(l.value) as unknown;
      };
    });
    children.forEach((child, w) => {
      child.stdin.write(`${JSON.stringify(start(w))}\n`);
    });
    await Promise.all(said.map((next) => next()));
    const opened = Date.now();
    for (const child of children) child.stdin.write(`go ${opened + WINDOW_MS}\n`);
    const ends = (await Promise.all(said.map((next) => next()))) as WorkerEnd[];
    const wallMs = Math.max(...ends.map((e) => e.endedAt)) - opened;
    const claims = ends.reduce((n, e) => n + e.claims, 0);
    const cpuUs = ends.reduce((n, e) => n + e.cpuUs, 0);
    return { rate: claims / (wallMs / 1000), ends, wallMs, cpuPerClaim: cpuUs / Math.max(1, claims) };
  } finally {
    for (const child of children) {
      child.stdin.end();
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }
}

/** The worker processes' CPU µs per claim at each point, by contender and worker count (the repetitions in order). */
const processCpu = { procs: new Map<number, number[]>(), bossProcs: new Map<number, number[]>() };
const noteCpu = (kind: keyof typeof processCpu, workers: number, perClaim: number): void => {
  processCpu[kind].set(workers, [...(processCpu[kind].get(workers) ?? []), perClaim]);
};

/** One store per worker process, on a pre-filled schema. */
async function procsClaims(workers: number): Promise<number> {
  const admin = postgresPool('', { max: 1, applicationName: 'jobcheck-bench' }) as pg.Pool;
  const schema = await fillStore(admin, PREFILL, true);
  try {
    const { rate, ends, wallMs, cpuPerClaim } = await processClaims(workers, (w) => ({
      kind: 'store',
      schema,
      worker: `w${w}`,
      warm: WARM,
    }));
    noteCpu('procs', workers, cpuPerClaim);
    const after = ends.flatMap((e) => (e.traffic === null ? [] : [e.traffic]));
    const before = ends.flatMap((e) => (e.trafficBefore === null ? [] : [e.trafficBefore]));
    traffic.procs.push(
      trafficOf(
        workers,
        ends.reduce((n, e) => n + e.claims, 0),
        wallMs,
        after,
        before,
      ),
    );
    return rate;
  } finally {
    await (await PostgresStore.open(admin, schema)).drop();
    await admin.end();
  }
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

/** A new pg-boss queue pre-filled with `insert`. */
async function bossQueue(owner: PgBoss, queue: string): Promise<void> {
  await owner.createQueue(queue);
  for (let i = 0; i < PREFILL; i += 5000) {
    await owner.insert(
      queue,
      Array.from({ length: Math.min(5000, PREFILL - i) }, (_, k) => ({ data: { i: i + k } })),
    );
  }
  await owner.getQueue(queue);
}

/** pg-boss: one PgBoss of one connection per worker process, each looping fetch + complete on a pre-filled queue. */
async function bossProcsClaims(owner: PgBoss, queue: string, workers: number): Promise<number> {
  await bossQueue(owner, queue);
  try {
    const { rate, cpuPerClaim } = await processClaims(workers, (w) => ({
      kind: 'boss',
      queue,
      worker: `w${w}`,
      warm: WARM,
    }));
    noteCpu('bossProcs', workers, cpuPerClaim);
    return rate;
  } finally {
    await owner.deleteQueue(queue);
  }
}

/** pg-boss: a new queue pre-filled with `insert`, then `workers` lanes each looping fetch + complete; one PgBoss of `workers` connections, so each lane in flight holds one. */
async function bossClaims(owner: PgBoss, queue: string, workers: number): Promise<number> {
  await bossQueue(owner, queue);
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
    say('');
    for (const line of PG_DESIGN_NOTES) say(line);
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
  say('`COMMIT`, three round trips) on a connection taken from a pool of one, as the store takes it. The store');
  say('before is the baseline tree of the claims table below, run the same way.');
  say('');
  const before = baseline?.PostgresStore as unknown as {
    create(pool: pg.Pool, config: unknown): Promise<PostgresStore>;
  };
  say(
    `| synchronous_commit | store µs/command (CPU) | store commands/s |${before === undefined ? '' : ' store before µs/command (CPU) |'} floor µs/transaction (CPU) | floor transactions/s | ratio |`,
  );
  say(`| --- | --- | --- |${before === undefined ? '' : ' --- |'} --- | --- | --- |`);
  for (const sc of ONLY_CLAIMS ? [] : (['on', 'off'] as const)) {
    const jobs = QUICK ? 50 : 150;
    const s = await storeLifecycle(sc, 5, jobs);
    const b = before === undefined ? undefined : await storeLifecycle(sc, 5, jobs, before);
    const f = await floor(sc, 5, jobs * 4);
    say(
      `| ${sc} | ${us(s.wallUs)} (${us(s.cpuUs)}) | ${Math.round(1e6 / s.wallUs)} |${b === undefined ? '' : ` ${us(b.wallUs)} (${us(b.cpuUs)}) |`} ${us(f.wallUs)} (${us(f.cpuUs)}) | ${Math.round(1e6 / f.wallUs)} | ${(s.wallUs / f.wallUs).toFixed(2)}× |`,
    );
  }
  say('');
  say("CPU is this process only (node-postgres and the store), not the server's.");
  say('');
  say('### Claims per second by worker count, against pg-boss');
  say('');
  type Contender = StoreKind | 'boss' | 'bossProcs';
  const contenders: readonly Contender[] = [
    'procs',
    'bossProcs',
    ...(baseline === undefined ? [] : (['baseline'] as const)),
    'store',
    'boss',
  ];
  say(
    `Each point starts from ${PREFILL.toLocaleString('en-US')} fresh ready jobs and counts claims settled in a ${WINDOW_MS / 1000} s window of wall time; the`,
  );
  say(
    `median of ${REPS} repetitions, the contenders interleaved (the order rotates between repetitions), a database-wide`,
  );
  say('VACUUM ANALYZE before every point (the rows of the points before are deleted by then). A worker is a loop of');
  say('claim one job, then settle it, each awaited before the next; every worker holds at most one connection at a');
  say('time, and no side uses a batch API. Two setups, each with its pg-boss beside it. This table alone:');
  say('`JOBCHECK_BENCH_PG_ONLY=claims JOBCHECK_BENCH_PG_REPS=3 bash scripts/pg.sh npx tsx bench/durable.ts` (it');
  say('prints the table and writes no page).');
  say('');
  say('**A process per worker** (what workers on many machines run): each worker is an OS process of its own');
  say(`(bench/durablePgWorker.ts), started, connected and warmed up before the window (each settles ${WARM} claims`);
  say("first), which opens for all at once; the rate is their claims together over the time from the window's");
  say("opening to the last one's end.");
  say('');
  say('- PostgresStore, one store per worker process: each process a store object over a pool of one connection.');
  say('  Nothing groups commands across processes: a claim or an ack runs as one CALL of a procedure in the');
  say("  store's schema that takes the meta row's lock, decides, writes and commits asynchronously on the server");
  say("  (impl/postgres/FastPath.ts), so the lock is held for the server's work alone, never across a round trip");
  say('  nor a WAL flush; then, in the same CALL, a durability barrier (a transaction that writes WAL and commits');
  say('  synchronously) flushes past that commit before the reply, and the barriers of the processes share flushes.');
  say('  A command the procedure leaves (a clock to advance over due jobs, a rejection) runs on the paths below.');
  say('- pg-boss, one per worker process: each process a PgBoss of one connection (maintenance and scheduling');
  say('  off), looping `fetch(queue)` (one job) + `complete(queue, job)`: two statements, each its own transaction,');
  say('  the fetch with SKIP LOCKED.');
  say('');
  say('**One process, shared** (every worker in one process): the grouping rows.');
  say('');
  say('- PostgresStore, one store shared by the workers: one store object over one pool of as many connections as');
  say('  workers, the workers calling it at once. Commands that wait while a group runs form the next group (one');
  say('  transaction, one meta row lock, one COMMIT, replies after it; a group of one claim or ack is the one');
  say('  statement above). A group opens on the rows its store read and wrote in its last transaction when nobody');
  say("  else wrote since (a guarded lock checks the meta row's version): then it is one round trip, else two (BEGIN");
  say('  with the lock and the reads its commands will ask for; the writes with COMMIT), each of several prepared');
  say('  statements.');
  if (baseline !== undefined)
    say(
      '- PostgresStore before (the tree named by JOBCHECK_BENCH_BASELINE, the commit before this change): the same setup as the shared row.',
    );
  say('- pg-boss, one PgBoss shared by the workers: one PgBoss of as many connections as workers, the same loop.');
  say('');
  say('Synchronous_commit on for every side (the server default), but for the first transaction of a');
  say("PostgresStore CALL above, whose reply waits for its barrier's flush: every reply is durable on every side.");
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
  const names: Record<Contender, string> = {
    procs: 'PostgresStore, one store per worker process',
    bossProcs: 'pg-boss, one per worker process',
    store: 'PostgresStore, one store shared by the workers of one process',
    baseline: 'PostgresStore before, shared',
    boss: 'pg-boss, one PgBoss shared by the workers of one process',
  };
  const rates = new Map(contenders.map((c) => [c, WORKERS.map((): number[] => [])]));
  // Each point's rows are deleted after it; a VACUUM before every point keeps their dead tuples
  // (pg-boss's queues share one table) from slowing the points after it.
  const vacuum = new pg.Client();
  await vacuum.connect();
  const point = (c: Contender, w: number, r: number): Promise<number> => {
    if (c === 'boss') return bossClaims(owner, `bench-${w}-${r}`, w);
    if (c === 'bossProcs') return bossProcsClaims(owner, `bench-procs-${w}-${r}`, w);
    if (c === 'procs') return procsClaims(w);
    return storeClaims(c, w);
  };
  for (let r = 0; r < REPS; r++) {
    for (const [k, w] of WORKERS.entries()) {
      for (let i = 0; i < contenders.length; i++) {
        const c = contenders[(i + r + k) % contenders.length] as Contender;
        await vacuum.query('VACUUM ANALYZE');
        const rate = await point(c, w, r);
        rates.get(c)?.[k]?.push(rate);
        console.log(
          `bench:durable:pg ${names[c]} ${w} workers rep ${r + 1}: ${Math.round(rate)} claims/s (load ${load()})`,
        );
      }
    }
  }
  await vacuum.end();
  await owner.stop({ graceful: false, close: true });
  const medians = new Map(contenders.map((c) => [c, (rates.get(c) as number[][]).map(median)]));
  const med = (c: Contender, k: number): number => (medians.get(c) as number[])[k] as number;
  const table = (rows: readonly Contender[], ratios: readonly (readonly [string, Contender, Contender])[]): void => {
    say(
      `| workers | ${rows.map((c) => `${names[c]}: claims/s (each repetition)`).join(' | ')} | ${ratios.map(([n]) => n).join(' | ')} |`,
    );
    say(`| --- | ${rows.map(() => '---').join(' | ')} | ${ratios.map(() => '---').join(' | ')} |`);
    for (const [k, w] of WORKERS.entries()) {
      const cells = rows.map(
        (c) => `${Math.round(med(c, k))} (${(rates.get(c)?.[k] ?? []).map(Math.round).join(', ')})`,
      );
      say(
        `| ${w} | ${cells.join(' | ')} | ${ratios.map(([, a, b]) => `${(med(a, k) / med(b, k)).toFixed(2)}×`).join(' | ')} |`,
      );
    }
    say('');
  };
  say('A process per worker:');
  say('');
  table(
    ['procs', 'bossProcs'],
    [
      ['PostgresStore / pg-boss, a process per worker', 'procs', 'bossProcs'],
      ['PostgresStore a process per worker / pg-boss shared', 'procs', 'boss'],
    ],
  );
  const cpuCell = (kind: keyof typeof processCpu, w: number): string => {
    const each = processCpu[kind].get(w) ?? [];
    return `${Math.round(median(each))} (${each.map(Math.round).join(', ')})`;
  };
  say(
    `The worker processes' CPU per claim (user + system time of every worker process over the window, over the claims they settled), µs, on a machine of ${availableParallelism()} cores that runs the server too:`,
  );
  say('');
  say(`| workers | ${names.procs} | ${names.bossProcs} |`);
  say('| --- | --- | --- |');
  for (const w of WORKERS) say(`| ${w} | ${cpuCell('procs', w)} | ${cpuCell('bossProcs', w)} |`);
  say('');
  say('One process, shared:');
  say('');
  table(
    [...(baseline === undefined ? [] : (['baseline'] as const)), 'store', 'boss'],
    [
      ['PostgresStore / pg-boss, shared', 'store', 'boss'],
      ...(baseline === undefined ? [] : ([['PostgresStore / before, shared', 'store', 'baseline']] as const)),
    ],
  );
  say(`Load average before the tables: ${loadBefore}; after them: ${load()}. Scaling (the worker count after which`);
  say(
    `claims/s rises by no more than 10%): ${contenders.map((c) => `${names[c]} ${stopsScaling(medians.get(c) as number[])}`).join('; ')}.`,
  );
  say('');
  say("Where the time goes, from the store's own counters over every repetition of each point (a claim + ack");
  say('is two commands; "held" is the time from sending the first statement of a transaction to its COMMIT\'s');
  say('answer, which the meta row lock spans but for the wait to get it, summed over transactions and divided by the');
  say("window's wall time; one statement: the commands run as the schema's function):");
  say('');
  say(
    '| contender | workers | commands per transaction | round trips per command | µs held per command | lock held, share of wall time | one statement | groups opened on rows read ahead | of them stale |',
  );
  say('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const kind of ['procs', 'store'] as const) {
    for (const w of WORKERS) {
      const ts = traffic[kind].filter((t) => t.workers === w);
      const total = (f: (t: Traffic) => number): number => ts.reduce((n, t) => n + f(t), 0);
      const commands = total((t) => t.commands);
      const pct = (a: number, b: number): string => `${((100 * a) / Math.max(1, b)).toFixed(0)}%`;
      say(
        `| ${names[kind]} | ${w} | ${(commands / total((t) => t.groups)).toFixed(1)} | ${(total((t) => t.roundTrips) / commands).toFixed(2)} | ${((total((t) => t.heldMs) * 1000) / commands).toFixed(0)} | ${pct(
          total((t) => t.heldMs),
          total((t) => t.wallMs),
        )}${kind === 'procs' ? ' (summed over the processes)' : ''} | ${pct(
          total((t) => t.fastCommands),
          commands,
        )} | ${pct(
          total((t) => t.readAheadGroups),
          total((t) => t.groups),
        )} | ${pct(
          total((t) => t.staleGroups),
          total((t) => t.readAheadGroups),
        )} |`,
      );
    }
  }
  say('');
  say('### Cost growth with resident jobs');
  say('');
  say('The resident rows of the SQLite table above (nine in ten done, the rest ready heads of their own');
  say('accounts); a claim takes the lowest claimable head, a tick expires exactly one job. Sessions at');
  say('synchronous_commit off, so that the flush (the same at every size) does not hide what the indexes cost.');
  say('');
  say('| resident jobs | build s | claim µs (CPU) | tick expiring one job µs (CPU) |');
  say('| --- | --- | --- | --- |');
  for (const n of ONLY_CLAIMS ? [] : QUICK ? [1e3, 1e4] : [1e3, 1e4, 1e5, 1e6]) {
    const g = await growth(n, 5, Math.min(200, n / 100));
    say(
      `| ${n.toLocaleString('en-US')} | ${g.build.toFixed(1)} | ${us(g.claim.wallUs)} (${us(g.claim.cpuUs)}) | ${us(g.expiry.wallUs)} (${us(g.expiry.cpuUs)}) |`,
    );
  }
  say('');
  say(
    `Load average at the end of this part: ${load()}; it took ${((performance.now() - started) / 1000).toFixed(0)} s.`,
  );
  say('');
  for (const line of PG_DESIGN_NOTES) say(line);
}
