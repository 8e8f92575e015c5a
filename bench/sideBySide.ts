/**
 * `npm run bench:side -- --baseline DIR`: this checkout's three stores beside another revision's,
 * in one process and one run, so that a change to the stores (a refactor that should cost nothing)
 * is measured against the code it replaces on the same machine at the same moment.
 *
 * DIR is a checkout of the other revision with a `node_modules` (a symlink to this checkout's will
 * do: `git worktree add ../base <rev> && ln -s "$PWD/node_modules" ../base/node_modules`).
 *
 * One workload for all stores: bench/workload.ts's closed-loop driver builds a store of resident
 * jobs and records a stream of the commands it then sends (every command, expiry and refusal kind).
 * Each round, every contender restores the same snapshot (untimed) and replays the stream (timed:
 * CPU time of this process; PostgreSQL's server time is not in it, so its wall time is reported
 * too). The revisions alternate which goes first, after an uncounted warm-up round that compares
 * their replies: a refactor that changes a reply is no refactor.
 *
 * Reported per store: each revision's median per-command time, their ratio, and each one's noise
 * (interquartile range of its rounds over their median); a ratio above 1 by more than the larger
 * noise is slower beyond noise. PostgreSQL runs when PGHOST names a server
 * (`bash scripts/pg.sh npm run bench:side -- --baseline DIR`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { Reply, Snapshot } from '../contract/index.ts';
import { JobStore } from '../impl/index.ts';
import { collect, loadAverage, machine, median } from './measure.ts';
import { buildStore, configFor, recordStream, shapeFor } from './workload.ts';

interface Stores {
  readonly JobStore: { restore(snapshot: unknown): { execute(command: unknown): Reply } };
  readonly SqliteStore: {
    restore(
      path: string,
      snapshot: unknown,
      options?: { synchronous?: 'FULL' | 'NORMAL' | 'OFF' },
    ): {
      execute(command: unknown): Reply;
      close(): void;
    };
  };
  readonly PostgresStore: {
    restore(
      pool: unknown,
      snapshot: unknown,
    ): Promise<{ execute(command: unknown): Promise<Reply>; drop(): Promise<void> }>;
  };
  readonly postgresPool: (
    connectionString: string,
    options?: { max?: number; applicationName?: string },
  ) => {
    end(): Promise<void>;
  };
}

/** The three stores of the checkout at `root`. */
async function storesOf(root: string): Promise<Stores> {
  const load = (path: string): Promise<Record<string, unknown>> => import(pathToFileURL(join(root, path)).href);
  const memory = await load('impl/index.ts');
  const sqlite = await load('impl/sqlite/index.ts');
  const postgres = await load('impl/postgres/index.ts');
  return {
    JobStore: memory['JobStore'] as Stores['JobStore'],
    SqliteStore: sqlite['SqliteStore'] as Stores['SqliteStore'],
    PostgresStore: postgres['PostgresStore'] as Stores['PostgresStore'],
    postgresPool: postgres['postgresPool'] as Stores['postgresPool'],
  };
}

const { values } = parseArgs({
  options: {
    baseline: { type: 'string' },
    rounds: { type: 'string', default: '11' },
    quick: { type: 'boolean', default: false },
  },
});
if (values.baseline === undefined) {
  console.error('usage: npm run bench:side -- --baseline DIR [--rounds N] [--quick]');
  process.exit(2);
}
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 3 || rounds > 1000) {
  console.error(`--rounds: ${JSON.stringify(values.rounds)} is not a whole number from 3 to 1000`);
  process.exit(2);
}
const contenders = [
  { name: 'baseline', stores: await storesOf(resolve(values.baseline)) },
  { name: 'this checkout', stores: await storesOf(resolve(import.meta.dirname, '..')) },
] as const;

const shape = shapeFor(values.quick ? 1_000 : 10_000);
const built = buildStore(new JobStore(configFor(shape)), shape, 1);
const snapshot: Snapshot = built.store.snapshot();
const memoryStream = recordStream(built.store, shape, built.state, values.quick ? 5_000 : 50_000, 7).stream.commands;
const durableStream = memoryStream.slice(0, values.quick ? 1_000 : 5_000);
const postgresStream = memoryStream.slice(0, values.quick ? 300 : 1_000);
const dir = mkdtempSync(join(tmpdir(), 'jobcheck-side-'));
let files = 0;

interface Timing {
  readonly cpuUs: number;
  readonly wallUs: number;
  readonly replies: readonly Reply[];
}

/** Times a replay of `commands`: synchronously for a synchronous store (no promise per command), else awaited. */
async function time(commands: readonly unknown[], run: (command: unknown) => Reply | Promise<Reply>): Promise<Timing> {
  const replies: Reply[] = [];
  // A clean heap before each timed replay, so that one round does not pay for another's garbage.
  collect();
  const cpu = process.cpuUsage();
  const wall = performance.now();
  for (const command of commands) {
    const reply = run(command);
    replies.push(reply instanceof Promise ? await reply : reply);
  }
  const used = process.cpuUsage(cpu);
  return {
    cpuUs: (used.user + used.system) / commands.length,
    wallUs: ((performance.now() - wall) * 1000) / commands.length,
    replies,
  };
}

type Round = (stores: Stores) => Promise<Timing>;
const bench: { name: string; commands: number; round: Round }[] = [
  {
    name: `memory (JobStore), ${shape.resident} resident jobs`,
    commands: memoryStream.length,
    round: (s) => {
      const store = s.JobStore.restore(snapshot);
      return time(memoryStream, (c) => store.execute(c));
    },
  },
  {
    name: `SQLite (SqliteStore, synchronous=NORMAL), ${shape.resident} resident jobs`,
    commands: durableStream.length,
    round: async (s) => {
      const store = s.SqliteStore.restore(join(dir, `store-${++files}.db`), snapshot, { synchronous: 'NORMAL' });
      try {
        return await time(durableStream, (c) => store.execute(c));
      } finally {
        store.close();
      }
    },
  },
];
if (process.env['PGHOST'] !== undefined) {
  bench.push({
    name: `PostgreSQL (PostgresStore, one connection), ${shape.resident} resident jobs`,
    commands: postgresStream.length,
    round: async (s) => {
      const pool = s.postgresPool('', { max: 1, applicationName: 'jobcheck-bench-side' });
      try {
        const store = await s.PostgresStore.restore(pool, snapshot);
        try {
          return await time(postgresStream, (c) => store.execute(c));
        } finally {
          await store.drop();
        }
      } finally {
        await pool.end();
      }
    },
  });
}

const quartile = (xs: readonly number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
};
const noiseOf = (xs: readonly number[]): number => (quartile(xs, 0.75) - quartile(xs, 0.25)) / median(xs);
const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

const m = machine();
console.log(`# Stores side by side\n`);
console.log(`${m.cpu}, ${m.cores} cores, Node ${m.node}; load average at start ${loadAverage()}.`);
console.log(`Baseline: ${values.baseline}; ${rounds} rounds each, alternating which revision goes first.\n`);
console.log(
  '| store | commands a round | baseline µs/command (CPU) | this checkout | ratio | noise (baseline, this) | wall µs (baseline, this) | verdict |',
);
console.log('| --- | ---: | ---: | ---: | ---: | --- | --- | --- |');
let slower = 0;
try {
  for (const b of bench) {
    const cpu: number[][] = [[], []];
    const wall: number[][] = [[], []];
    // Round 0 warms both revisions up (and compares their replies); it is not counted.
    for (let r = 0; r <= rounds; r++) {
      const order = r % 2 === 0 ? [0, 1] : [1, 0];
      const got: Timing[] = [];
      for (const i of order) {
        const t = await b.round((contenders[i] as (typeof contenders)[number]).stores);
        got[i] = t;
        if (r === 0) continue;
        cpu[i]?.push(t.cpuUs);
        wall[i]?.push(t.wallUs);
      }
      if (r === 0 && JSON.stringify(got[0]?.replies) !== JSON.stringify(got[1]?.replies)) {
        const k = (got[0]?.replies ?? []).findIndex((x, j) => JSON.stringify(x) !== JSON.stringify(got[1]?.replies[j]));
        throw new Error(`${b.name}: the revisions answer command ${k} differently; a refactor must not change a reply`);
      }
    }
    const [base, mine] = [median(cpu[0] ?? []), median(cpu[1] ?? [])];
    const noise = [noiseOf(cpu[0] ?? []), noiseOf(cpu[1] ?? [])] as const;
    const ratio = mine / base;
    const beyond = ratio - 1 > Math.max(...noise);
    if (beyond) slower += 1;
    const verdict = beyond
      ? 'slower beyond noise'
      : ratio < 1 - Math.max(...noise)
        ? 'faster beyond noise'
        : 'within noise';
    console.log(
      `| ${b.name} | ${b.commands} | ${base.toFixed(2)} | ${mine.toFixed(2)} | ${ratio.toFixed(3)} | ${pct(noise[0])}, ${pct(noise[1])} | ${median(wall[0] ?? []).toFixed(1)}, ${median(wall[1] ?? []).toFixed(1)} | ${verdict} |`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(
  `\nLoad average at end ${loadAverage()}. The replies of both revisions were equal on every store's warm-up round.`,
);
if (process.env['PGHOST'] === undefined)
  console.log('PostgreSQL not measured: PGHOST is unset (run under scripts/pg.sh).');
process.exitCode = slower > 0 ? 1 : 0;
