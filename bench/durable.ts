/**
 * `npm run bench:durable`: the durable stores' speed (SQLite, and PostgreSQL when a server is
 * named), written to docs/durable-bench.md.
 *
 * 1. Commands per second, single worker: the store running whole job lifecycles (submit, claim,
 *    commit, ack), against a floor of bare better-sqlite3 transactions that each do one comparable
 *    write (BEGIN IMMEDIATE; one UPDATE of an indexed row; COMMIT) at the same durability. The
 *    ratio is the figure (target <= 3x). Both at synchronous=FULL (the default) and NORMAL.
 * 2. Cost growth from 1e3 to 1e6 resident jobs (nine in ten terminal) for a claim and for a tick
 *    that expires one job by its deadline: if the indexes hold, the cost hardly moves (measured
 *    at synchronous=NORMAL, so that a disk flush of the same cost at every size does not hide it).
 * Medians of repeated batches, wall and CPU time; the load average is printed beside the tables,
 * since the machine may be shared.
 * 3. The PostgreSQL store's figures (bench/durablePg.ts) when PGHOST names a server
 *    (`npm run bench:durable:pg`); without one, a line saying how to get them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { SqliteStore } from '../impl/sqlite/index.ts';
import type { Synchronous } from '../impl/sqlite/index.ts';
import { PARTIAL, postgresSections } from './durablePg.ts';

const OUT = fileURLToPath(new URL('../docs/durable-bench.md', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'jobcheck-durable-bench-'));
const QUICK = process.env['JOBCHECK_BENCH_QUICK'] === '1';
const config = { capacity: 2_000_000, maxAttempts: 3, leaseTicks: 1_000_000, backoffBase: 1, backoffCap: 8 };
let files = 0;
const file = (): string => join(dir, `bench-${++files}.db`);

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};

interface Timing {
  readonly wallUs: number;
  readonly cpuUs: number;
}

/** Median per-operation wall and CPU microseconds over `batches` batches of `ops` operations. */
function measure(batches: number, ops: number, run: (i: number) => void): Timing {
  const walls: number[] = [];
  const cpus: number[] = [];
  let i = 0;
  for (let b = 0; b < batches; b++) {
    const cpu = process.cpuUsage();
    const t = performance.now();
    for (let k = 0; k < ops; k++) run(i++);
    walls.push(((performance.now() - t) * 1000) / ops);
    const used = process.cpuUsage(cpu);
    cpus.push((used.user + used.system) / ops);
  }
  return { wallUs: median(walls), cpuUs: median(cpus) };
}

/** The store, single worker: one lifecycle (4 commands) per operation. */
function storeLifecycle(sync: Synchronous, batches: number, jobs: number): Timing {
  const store = SqliteStore.create(file(), config, { synchronous: sync });
  let now = 0;
  const t = measure(batches, jobs, (i) => {
    now += 1;
    store.execute({ type: 'submit', id: `j${i}`, account: `a${i % 16}`, key: `k${i}`, amount: 1, deadline: 1e12, now });
    const claim = store.execute({ type: 'claim', worker: 'w', now });
    const token = claim.ok && claim.type === 'claim' && claim.job !== null ? claim.job.token : 0;
    store.execute({ type: 'commit', worker: 'w', token, now });
    store.execute({ type: 'ack', worker: 'w', token, now });
  });
  store.close();
  return { wallUs: t.wallUs / 4, cpuUs: t.cpuUs / 4 };
}

/** The floor: one bare transaction per operation, one UPDATE of an indexed row, same pragmas. */
function floor(sync: Synchronous, batches: number, ops: number): Timing {
  const db = new Database(file());
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${sync}`);
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)');
  const insert = db.prepare('INSERT INTO t (id, v) VALUES (?, 0)');
  db.transaction(() => {
    for (let i = 0; i < 1024; i++) insert.run(i);
  })();
  const update = db.prepare('UPDATE t SET v = v + 1 WHERE id = ?');
  const tx = db.transaction((i: number) => update.run(i % 1024));
  const t = measure(batches, ops, (i) => tx.immediate(i));
  db.close();
  return t;
}

/**
 * A store file with `n` resident jobs: nine in ten done, the rest ready, one per account (so each
 * is a claimable head), with deadlines 1e6 + i so that a tick to 1e6 + i kills exactly one.
 */
function residentStore(n: number, sync: Synchronous): SqliteStore {
  const path = file();
  SqliteStore.create(path, config).close();
  const db = new Database(path);
  const insert = db.prepare(
    'INSERT INTO jobs (seq, id, account, key, amount, deadline, status, attempts, token, owner, lease_until, not_before, reason, last_error, due, claimable) VALUES (?, ?, ?, ?, 1, ?, ?, ?, NULL, NULL, NULL, NULL, NULL, NULL, ?, ?)',
  );
  let unresolved = 0;
  db.transaction(() => {
    for (let seq = 1; seq <= n; seq++) {
      const ready = seq % 10 === 0;
      const deadline = 1_000_000 + seq;
      if (ready) unresolved += 1;
      insert.run(
        seq,
        `j${seq}`,
        `a${seq}`,
        `k${seq}`,
        deadline,
        ready ? 'ready' : 'done',
        ready ? 0 : 1,
        ready ? deadline : null,
        ready ? 1 : null,
      );
    }
    db.prepare('UPDATE meta SET clock = 0, next_token = 1, next_seq = ?, unresolved = ? WHERE id = 1').run(
      n + 1,
      unresolved,
    );
  })();
  db.close();
  return SqliteStore.open(path, { synchronous: sync });
}

/** Timer expiry, then claim, at the store's resident jobs. */
function growth(store: SqliteStore, batches: number, ops: number): { claim: Timing; expiry: Timing } {
  // Ticks kill the ready jobs one by one, from the lowest deadline up (seq 10, 20, ...).
  let now = 0;
  const expiry = measure(batches, ops, (i) => {
    now = 1_000_000 + 10 * (i + 1);
    store.execute({ type: 'tick', now });
  });
  const claim = measure(batches, ops, () => {
    store.execute({ type: 'claim', worker: 'w', now });
  });
  return { claim, expiry };
}

const us = (t: number): string => t.toFixed(1);
const lines: string[] = [];
const say = (s: string): void => {
  lines.push(s);
  console.log(s);
};

const started = performance.now();
const load = loadavg()
  .map((l) => l.toFixed(2))
  .join(', ');
say('# Durable store benchmark');
say('');
say('Generated by `npm run bench:durable` (bench/durable.ts); numbers from one run on the project machine');
say(`(2 cores, shared; load average at the start: ${load}). Medians of repeated batches; wall and CPU`);
say('microseconds per command. better-sqlite3 12, SQLite in WAL mode, one BEGIN IMMEDIATE transaction per command.');
say('');
say('## Commands per second, single worker, against bare SQLite transactions');
say('');
say('The store runs whole lifecycles (submit, claim, commit, ack: 4 commands per job). The floor is a bare');
say('transaction per operation doing one comparable write (`UPDATE` of one indexed row) with the same pragmas.');
say('');
say(
  '| synchronous | store µs/command (CPU) | store commands/s | floor µs/transaction (CPU) | floor transactions/s | ratio |',
);
say('| --- | --- | --- | --- | --- | --- |');
for (const sync of ['FULL', 'NORMAL'] as const) {
  const jobs = QUICK ? 200 : 1000;
  const s = storeLifecycle(sync, 5, jobs);
  const f = floor(sync, 5, jobs * 4);
  say(
    `| ${sync} | ${us(s.wallUs)} (${us(s.cpuUs)}) | ${Math.round(1e6 / s.wallUs)} | ${us(f.wallUs)} (${us(f.cpuUs)}) | ${Math.round(1e6 / f.wallUs)} | ${(s.wallUs / f.wallUs).toFixed(2)}× |`,
  );
}
say('');
say('At synchronous=FULL both sides wait for the disk at every commit, and the flush is most of the time. At');
say('NORMAL (WAL: no flush at commit, only at checkpoints) the CPU is the cost: a store command validates its');
say('input and runs about seven statements (the counters, the lookups of steps 2 and 3, its writes) inside');
say('BEGIN IMMEDIATE ... COMMIT, where the floor runs one.');
say('');
say('## Cost growth with resident jobs');
say('');
say('Nine in ten resident jobs are done, the rest ready heads of their own accounts. A claim takes the lowest');
say('claimable head; a tick expires exactly one job (its deadline has come). Synchronous=NORMAL here, so that');
say('the disk flush of the table above (the same at every size) does not hide what the indexes cost.');
say('');
say('| resident jobs | build s | claim µs (CPU) | tick expiring one job µs (CPU) |');
say('| --- | --- | --- | --- |');
for (const n of QUICK ? [1e3, 1e4] : [1e3, 1e4, 1e5, 1e6]) {
  const t = performance.now();
  const store = residentStore(n, 'NORMAL');
  const build = (performance.now() - t) / 1000;
  const g = growth(store, 5, Math.min(200, n / 100));
  store.close();
  say(
    `| ${n.toLocaleString('en-US')} | ${build.toFixed(1)} | ${us(g.claim.wallUs)} (${us(g.claim.cpuUs)}) | ${us(g.expiry.wallUs)} (${us(g.expiry.cpuUs)}) |`,
  );
}
say('');
say(
  `Load average at the end of the SQLite part: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')}.`,
);
rmSync(dir, { recursive: true, force: true });
say('');
await postgresSections(say);
say('');
say(`The whole run took ${((performance.now() - started) / 1000).toFixed(0)} s.`);
if (!QUICK && !PARTIAL) writeFileSync(OUT, `${lines.join('\n')}\n`);
