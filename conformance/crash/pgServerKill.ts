/**
 * A crash of the PostgreSQL server itself under a PostgresStore: a throw-away server of its own
 * (conformance/servers/, synchronous_commit on), a store filled with ready jobs, lanes each with a
 * store object and a connection of its own looping claim + ack, and a SIGKILL of every server
 * process while they run (a process crash: the WAL buffers in shared memory are lost, the files
 * and the page cache kept), its WAL writers stopped meanwhile (`WRITERS`). The server restarts on
 * its folder and every reply acknowledged before the kill is looked for in the reopened store: a
 * claimed job holds its delivery or is done, an acked job is done, and the token counter is past
 * every token handed out. A store that replies before a flush covers its commit loses some; a
 * durable one none.
 * - Only replies received before the kill was sent count as acknowledged; a command in flight
 *   then may or may not have taken effect.
 * - Several stores run one after the other on one server (`runServerKills`), which is disposed of
 *   (its processes ended, its folder removed) whatever happens.
 */
import type { Reply, Snapshot } from '../../contract/index.ts';
import type { PgPool, PostgresStoreClass } from '../../impl/postgres/index.ts';
import { PostgresStore, postgresPool } from '../../impl/postgres/index.ts';
import { BrokerServer } from '../servers/index.ts';

/** Options of one server kill. */
export interface ServerKillOptions {
  /** The store class: PostgresStore or a broken variant. */
  readonly Store: PostgresStoreClass;
  /** Lanes at once (default 4). */
  readonly lanes?: number;
  /** Ready jobs the store starts with (default 5,000: more than the lanes claim before the kill). */
  readonly jobs?: number;
  /** Milliseconds the lanes run before the kill (default 300). */
  readonly runMs?: number;
}

/** What a server kill found. */
export interface ServerKillResult {
  /** Claims and acks acknowledged before the kill. */
  readonly claims: number;
  readonly acks: number;
  /** What the reopened store lacks of the acknowledged replies, one line each (a claim may give two). */
  readonly lost: readonly string[];
}

/** A reply acknowledged before the kill: a claim of job `id` with `token`, or an ack of it. */
interface Acknowledged {
  readonly type: 'claim' | 'ack';
  readonly id: string;
  readonly token: number;
}

const CONFIG = { capacity: 1_000_000, maxAttempts: 3, leaseTicks: 1_000_000, backoffBase: 1, backoffCap: 4 };
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A pool of the store to `server`, whose idle connections' errors (the kill) are not the process's. */
function poolTo(server: BrokerServer, max: number): PgPool {
  const e = server.env;
  const url = `postgres://${encodeURIComponent(e['PGUSER'] ?? '')}@${e['PGHOST']}:${e['PGPORT']}/${e['PGDATABASE']}`;
  const pool = postgresPool(url, { max, applicationName: 'jobcheck-server-kill' });
  (pool as unknown as { on(event: 'error', f: () => void): void }).on('error', () => undefined);
  return pool;
}

/** The acknowledged replies `snapshot` lacks, described. Pure. */
export function lostReplies(snapshot: Snapshot, acknowledged: readonly Acknowledged[]): string[] {
  const lost: string[] = [];
  for (const a of acknowledged) {
    const job = snapshot.jobs[a.id];
    const kept =
      a.type === 'ack'
        ? job?.status === 'done'
        : job?.status === 'done' || (job?.status === 'running' && job.token === a.token);
    if (!kept)
      lost.push(`${a.type} of ${a.id} with token ${a.token}: the job is ${JSON.stringify(job?.status ?? null)}`);
    if (a.token >= snapshot.nextToken)
      lost.push(`token ${a.token} handed out, the counter is back at ${snapshot.nextToken}`);
  }
  return lost;
}

/**
 * The server's processes that write WAL out behind the backends: the WAL writer (every 200 ms, and
 * whenever an asynchronous commit completes a page) and the background writer (a dirty page's WAL
 * is flushed before the page is written). They are stopped (SIGSTOP) while the lanes run, so that
 * what a store does not flush itself stays in the WAL buffers until the kill, whenever it comes.
 */
const WRITERS = ['walwriter', 'background writer'];

/**
 * Runs one server kill per store class of `options.stores`, one after the other on one server (see
 * the top of the file): the results in that order. Rejects when the server cannot start.
 */
export async function runServerKills(
  stores: readonly PostgresStoreClass[],
  options: Omit<ServerKillOptions, 'Store'> = {},
): Promise<ServerKillResult[]> {
  const server = await BrokerServer.start({ broker: 'postgres', synchronousCommit: true });
  const pools: PgPool[] = [];
  try {
    const results: ServerKillResult[] = [];
    for (const Store of stores) results.push(await killOnce(server, pools, { ...options, Store }));
    return results;
  } finally {
    for (const pool of pools) await Promise.race([pool.end().catch(() => undefined), sleep(2_000)]);
    await server.dispose();
  }
}

/** One run on `server` (running): fill, lanes, kill, restart, look. Every pool it opens goes to `pools`. */
async function killOnce(server: BrokerServer, pools: PgPool[], options: ServerKillOptions): Promise<ServerKillResult> {
  const lanes = options.lanes ?? 4;
  const jobs = options.jobs ?? 5_000;
  const admin = poolTo(server, 8);
  pools.push(admin);
  const first = await PostgresStore.create.call(options.Store, admin, CONFIG);
  // Submitted at once, they commit in a few groups, synchronously.
  const submitted = await Promise.all(
    Array.from({ length: jobs }, (_, i) =>
      first.execute({ type: 'submit', id: `j${i}`, account: `a${i}`, key: 'k', amount: 1, deadline: 1e12, now: 0 }),
    ),
  );
  const refused = submitted.find((r) => !r.ok);
  if (refused !== undefined) throw new Error(`a submit was refused: ${JSON.stringify(refused)}`);
  const acknowledged: Acknowledged[] = [];
  let killing = false;
  const lane = async (w: number): Promise<void> => {
    const pool = poolTo(server, 1);
    pools.push(pool);
    const store = await PostgresStore.open.call(options.Store, pool, first.schema);
    const worker = `w${w}`;
    for (;;) {
      const claim: Reply = await store.execute({ type: 'claim', worker, now: 1 });
      if (killing || !claim.ok || claim.type !== 'claim' || claim.job === null) return;
      const { id, token } = claim.job;
      acknowledged.push({ type: 'claim', id, token });
      const ack: Reply = await store.execute({ type: 'ack', worker, token, now: 1 });
      if (killing || !ack.ok) return;
      acknowledged.push({ type: 'ack', id, token });
    }
  };
  const writers = await admin.query<{ pid: number }>(
    'SELECT pid FROM pg_catalog.pg_stat_activity WHERE backend_type = ANY($1::text[])',
    [WRITERS],
  );
  if (writers.rows.length !== WRITERS.length) throw new Error(`found ${writers.rows.length} of the server's writers`);
  for (const { pid } of writers.rows) process.kill(pid, 'SIGSTOP');
  const running = Array.from({ length: lanes }, (_, w) => lane(w).catch(() => undefined));
  await sleep(options.runMs ?? 300);
  killing = true;
  const counted = [...acknowledged];
  await server.kill();
  await Promise.all(running);
  await server.restart();
  const after = poolTo(server, 2);
  pools.push(after);
  const reopened = await PostgresStore.open.call(options.Store, after, first.schema);
  const snapshot = await reopened.snapshot();
  return {
    claims: counted.filter((a) => a.type === 'claim').length,
    acks: counted.filter((a) => a.type === 'ack').length,
    lost: lostReplies(snapshot, counted),
  };
}
