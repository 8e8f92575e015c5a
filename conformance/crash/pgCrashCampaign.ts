/**
 * The crash campaign of the PostgreSQL store: a bounded number of runs, each a random script
 * (script.ts) run by a worker process (pgWorker.ts) that is killed by SIGKILL at one of the fault
 * points of impl/faults.ts. The server survives the client, as it does when a worker machine
 * dies: it rolls back the killed connection's open transaction. This process then opens the same
 * schema and checks the properties of crashRun.ts that make sense for a server database:
 * `intact` (the store reopens, its snapshot is one the contract accepts), `replies`, `state` (the
 * model's state after the acknowledged commands, the interrupted one wholly applied or not at all),
 * `acknowledged`, `ledger` (each balance its ledger's sum, on the rows themselves) and `recovery`.
 * Deterministic for a seed: scripts and fault points are drawn up front, as in crashCampaign.ts.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import type pg from 'pg';
import type { Command, Snapshot } from '../../contract/index.ts';
import { parseSnapshot } from '../../contract/index.ts';
import { FAULT_ENV, FAULT_POINTS } from '../../impl/faults.ts';
import type { FaultPointName } from '../../impl/faults.ts';
import { PostgresStore, postgresPool, quoteIdent } from '../../impl/postgres/index.ts';
import { step, toSnapshot } from '../../model/index.ts';
import type { ModelState } from '../../model/index.ts';
import { comparableReply, describeDifference, firstDifference } from '../compare.ts';
import { faultHits } from './crashCampaign.ts';
import type { CrashProperty, Fault, PropertyFailure } from './crashRun.ts';
import { lostAcknowledgements } from './crashRun.ts';
import { CRASH_CONFIG, Rng, crashScript, modelStates } from './script.ts';

// From the sources (tests, tsx) the worker is a .ts file that node runs through tsx; in the built
// package (dist/) it is plain JavaScript beside this file, and tsx may not be installed at all.
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const WORKER = fileURLToPath(new URL(FROM_SOURCE ? './pgWorker.ts' : './pgWorker.js', import.meta.url));
const WORKER_ARGS: readonly string[] = FROM_SOURCE ? ['--import', 'tsx', WORKER] : [WORKER];

/** What one PostgreSQL crash run saw. */
export interface PostgresCrashRun {
  readonly index: number;
  readonly fault: Fault;
  readonly killed: boolean;
  readonly acknowledged: number;
  readonly interrupted: Command | undefined;
  /** Whether the reopened store holds the interrupted command's effects (null: neither state matched, or nothing was interrupted). */
  readonly applied: boolean | null;
  readonly failures: readonly PropertyFailure[];
  readonly workerError: string | undefined;
}

/** The outcome of a PostgreSQL crash campaign. */
export interface PostgresCrashResult {
  readonly runs: readonly PostgresCrashRun[];
  readonly kills: number;
  readonly byPoint: Readonly<Record<FaultPointName, number>>;
  /** The first failing run's story, or null. */
  readonly story: string | null;
}

/** Options of a PostgreSQL crash campaign. */
export interface PostgresCrashOptions {
  readonly kills: number;
  readonly seed: number;
  /** Commands per script (default 24). */
  readonly length?: number;
  /** Worker processes at once (default 2). */
  readonly parallel?: number;
  /** The server (default: libpq's environment, PGHOST and the rest). */
  readonly target?: string;
}

function runWorker(schema: string, commands: readonly Command[], fault: Fault): Promise<{ lines: unknown[]; signal: NodeJS.Signals | null; code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, [FAULT_ENV]: `${fault.point}@${fault.at}` };
    const child = spawn(process.execPath, [...WORKER_ARGS], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ lines: stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as unknown), signal, code, stderr: stderr.slice(-2000) }));
    child.stdin.end(`${JSON.stringify({ schema, commands })}\n`);
  });
}

/** The ledger checked on the rows: balances that are not their ledger's sum (the primary key rules out duplicate rows). */
async function ledgerProblems(pool: pg.Pool, schema: string): Promise<string[]> {
  const s = quoteIdent(schema);
  const rows = (
    await pool.query(
      `SELECT encode(coalesce(b.account, e.account), 'hex') AS account, b.balance, e.total FROM ${s}.balances b
       FULL JOIN (SELECT account, SUM(amount)::bigint AS total FROM ${s}.effects GROUP BY account) e ON e.account = b.account
       WHERE b.balance IS DISTINCT FROM e.total`,
    )
  ).rows as { account: string; balance: number | null; total: number | null }[];
  return rows.map((r) => `balance of account 0x${r.account} is ${r.balance ?? 'missing'}, its ledger sums to ${r.total ?? 'nothing'}`);
}

/** After every lease has expired, a worker `recovery` claims, commits and acks until nothing is due; the store's balances and each candidate's. */
async function recover(store: PostgresStore, candidates: readonly ModelState[]): Promise<{ store: Snapshot['balances']; models: Snapshot['balances'][] }> {
  const now = (await store.snapshot()).clock + store.config.leaseTicks;
  const commands: Command[] = [{ type: 'tick', now }];
  await store.execute(commands[0]);
  for (let i = 0; i < 50; i++) {
    const claim: Command = { type: 'claim', worker: 'recovery', now };
    commands.push(claim);
    const r = await store.execute(claim);
    if (!r.ok || r.type !== 'claim' || r.job === null) break;
    for (const c of [{ type: 'commit', worker: 'recovery', token: r.job.token, now }, { type: 'ack', worker: 'recovery', token: r.job.token, now }] as Command[]) {
      commands.push(c);
      await store.execute(c);
    }
  }
  const models = candidates.map((state) => {
    let s = state;
    for (const c of commands) s = step(s, c).state;
    return toSnapshot(s).balances;
  });
  return { store: (await store.snapshot()).balances, models };
}

/** One crash run: a new schema, a worker killed at the fault point, the checks. */
async function crashRun(pool: pg.Pool, index: number, commands: readonly Command[], states: readonly ModelState[], fault: Fault): Promise<PostgresCrashRun> {
  const created = await PostgresStore.create(pool, CRASH_CONFIG);
  const schema = created.schema;
  try {
    const out = await runWorker(schema, commands, fault);
    const killed = out.signal === 'SIGKILL';
    const workerError = !killed && out.code !== 0 ? `the worker ended with ${out.signal ?? `exit code ${out.code}`}: ${out.stderr}` : undefined;
    const replies = out.lines;
    const k = replies.length;
    const interrupted = killed && k < commands.length ? commands[k] : undefined;
    const failures: PropertyFailure[] = [];
    const fail = (property: CrashProperty, detail: string): void => void failures.push({ property, detail });
    const done = (applied: boolean | null): PostgresCrashRun => ({ index, fault, killed, acknowledged: k, interrupted, applied, failures, workerError });
    let store: PostgresStore;
    let snapshot: Snapshot;
    try {
      store = await PostgresStore.open(pool, schema);
      snapshot = await store.snapshot();
      parseSnapshot(JSON.parse(JSON.stringify(snapshot)));
    } catch (error) {
      fail('intact', `the store does not reopen, or its snapshot breaks the contract: ${(error as Error).message}`);
      return done(null);
    }
    for (let i = 0; i < k; i++) {
      const expected = step(states[i] as ModelState, commands[i]).reply;
      if (!isDeepStrictEqual(comparableReply(expected), comparableReply(replies[i]))) {
        fail('replies', `command ${i + 1}: the worker was told ${JSON.stringify(replies[i])}, the model says ${JSON.stringify(expected)}`);
        break;
      }
    }
    const before = states[k] as ModelState;
    const after = interrupted === undefined ? undefined : (states[k + 1] as ModelState);
    let applied: boolean | null = null;
    const candidates: ModelState[] = [];
    if (isDeepStrictEqual(snapshot, toSnapshot(before))) {
      applied = false;
      candidates.push(before);
    }
    if (after !== undefined && isDeepStrictEqual(snapshot, toSnapshot(after))) {
      applied ??= true;
      candidates.push(after);
    }
    if (candidates.length === 0) {
      const told = (d: ReturnType<typeof firstDifference>) => (d === undefined ? 'equal' : describeDifference(d).replace('impl', 'store'));
      fail('state', `the reopened store is the model's state neither before command ${k + 1} (${told(firstDifference(toSnapshot(before), snapshot))})${after === undefined ? '' : ` nor after it (${told(firstDifference(toSnapshot(after), snapshot))})`}`);
      candidates.push(before, ...(after === undefined ? [] : [after]));
    }
    const lost = lostAcknowledgements(commands, replies, snapshot);
    if (lost.length > 0) fail('acknowledged', lost.slice(0, 3).join('; '));
    const ledger = await ledgerProblems(pool, schema);
    if (ledger.length > 0) fail('ledger', ledger.slice(0, 3).join('; '));
    const recovered = await recover(store, candidates);
    if (!recovered.models.some((m) => isDeepStrictEqual(m, recovered.store))) {
      fail('recovery', `after another worker finished the jobs, the balances are ${JSON.stringify(recovered.store)}; the model's are ${recovered.models.map((m) => JSON.stringify(m)).join(' or ')}`);
    }
    return done(applied);
  } finally {
    await created.drop();
  }
}

/** The story of a failing run: the fault point, what was acknowledged, every broken property. Pure. */
export function postgresCrashStory(seed: number, run: PostgresCrashRun, commands: readonly Command[]): string {
  return [
    `crash run ${run.index + 1} (seed ${seed}, store postgres): fault point ${run.fault.point}@${run.fault.at}, ${run.killed ? 'the worker was killed by SIGKILL' : 'the worker was not killed'}`,
    `  ${run.acknowledged} of ${commands.length} commands were acknowledged before the kill`,
    ...(run.interrupted === undefined ? [] : [`  interrupted: command ${run.acknowledged + 1}, ${JSON.stringify(run.interrupted)}`]),
    ...(run.workerError === undefined ? [] : [`  worker: ${run.workerError}`]),
    ...run.failures.map((f) => `  ${f.property}: ${f.detail}`),
    `  the script: ${commands.map((c, i) => `${i + 1}. ${JSON.stringify(c)}`).join(' ')}`,
  ].join('\n');
}

/** Runs a PostgreSQL crash campaign; failures are data. Every run's schema is dropped. */
export async function runPostgresCrashCampaign(options: PostgresCrashOptions): Promise<PostgresCrashResult> {
  const rng = new Rng(options.seed);
  const points = Object.values(FAULT_POINTS) as FaultPointName[];
  const plans = Array.from({ length: options.kills }, (_, run) => {
    const commands = crashScript(rng, options.length ?? 24);
    const hits = faultHits(commands);
    const preferred = points[run % points.length] as FaultPointName;
    const reachable = points.filter((p) => hits[p] > 0);
    const point = hits[preferred] > 0 ? preferred : rng.pick(reachable);
    return { commands, states: modelStates(CRASH_CONFIG, commands), fault: { point, at: rng.int(1, hits[point]) } };
  });
  const pool = postgresPool(options.target, { max: (options.parallel ?? 2) * 2 });
  try {
    const runs: PostgresCrashRun[] = [];
    let next = 0;
    let failed = false;
    const lane = async (): Promise<void> => {
      while (next < plans.length && !failed) {
        const i = next++;
        const plan = plans[i] as (typeof plans)[number];
        const run = await crashRun(pool, i, plan.commands, plan.states, plan.fault);
        runs[i] = run;
        if (run.failures.length > 0 || run.workerError !== undefined) failed = true;
      }
    };
    await Promise.all(Array.from({ length: options.parallel ?? 2 }, lane));
    const done = runs.filter((r): r is PostgresCrashRun => r !== undefined);
    const byPoint = Object.fromEntries(points.map((p) => [p, 0])) as Record<FaultPointName, number>;
    for (const r of done) if (r.killed) byPoint[r.fault.point] += 1;
    const failure = done.find((r) => r.failures.length > 0 || r.workerError !== undefined);
    return {
      runs: done,
      kills: done.filter((r) => r.killed).length,
      byPoint,
      story: failure === undefined ? null : postgresCrashStory(options.seed, failure, (plans[failure.index] as (typeof plans)[number]).commands),
    };
  } finally {
    await pool.end();
  }
}
