/**
 * One crash run with a real kill, and what the harness checks afterwards.
 *
 * A worker process (worker.ts) runs a command script against an SQLite store file with one fault
 * point switched on (impl/faults.ts) and dies by SIGKILL when it reaches it. The harness, a new
 * process as far as the file is concerned, then opens the same file and checks:
 * - `intact`: `PRAGMA integrity_check` says ok, the store reopens, and its snapshot is one the
 *   contract accepts (balances agree with the ledger, every rule of a restore);
 * - `replies`: the replies the worker handed out before it died are the model's;
 * - `state`: the store's state is the model's after the acknowledged commands, with the
 *   interrupted command either wholly applied or not at all;
 * - `acknowledged`: nothing acknowledged is lost (an applied commit's ledger row, a submitted job,
 *   a claim's attempt, an acknowledged job's `done`);
 * - `ledger`: at most one ledger row per (account, key), and each balance is its ledger's sum;
 * - `recovery`: after the leases expire another worker claims, commits and acknowledges whatever
 *   is left, and the balances equal the model's doing the same, each effect counted once.
 * A failing run's story names the fault point, the interrupted command and every property broken.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import Database from 'better-sqlite3';
import type { Command, Config, Reply, Snapshot } from '../../contract/index.ts';
import { parseSnapshot } from '../../contract/index.ts';
import { FAULT_ENV } from '../../impl/faults.ts';
import type { FaultPointName } from '../../impl/faults.ts';
import { SqliteStore } from '../../impl/sqlite/index.ts';
import { step, toSnapshot } from '../../model/index.ts';
import type { ModelState } from '../../model/index.ts';
import { sqliteVariant } from '../broken/sqlite/index.ts';
import { comparableReply, describeDifference, firstDifference } from '../compare.ts';
import type { WorkerRequest } from './worker.ts';

/** The properties a crash run checks, in the order they are checked. */
export const CRASH_PROPERTIES = ['intact', 'replies', 'state', 'acknowledged', 'ledger', 'recovery'] as const;
/** One of CRASH_PROPERTIES. */
export type CrashProperty = (typeof CRASH_PROPERTIES)[number];

/** A fault point and the hit at which it kills. */
export interface Fault {
  readonly point: FaultPointName;
  readonly at: number;
}

/** A broken property, with what was seen. */
export interface PropertyFailure {
  readonly property: CrashProperty;
  readonly detail: string;
}

/** What one crash run saw. */
export interface CrashRunResult {
  readonly fault: Fault;
  /** Whether the worker died by SIGKILL (a fault point beyond the script's end never fires). */
  readonly killed: boolean;
  /** Commands whose reply the worker handed out. */
  readonly acknowledged: number;
  /** The command running when the worker died, if any. */
  readonly interrupted: Command | undefined;
  /** Whether the reopened store holds the interrupted command's effects (null: neither state matched, or nothing was interrupted). */
  readonly applied: boolean | null;
  /** The broken properties, in CRASH_PROPERTIES order; empty when the run passed. */
  readonly failures: readonly PropertyFailure[];
  /** Worker errors (stderr's tail) when it died otherwise than by the fault point. */
  readonly workerError: string | undefined;
}

// From the sources (tests, tsx) the worker is a .ts file that node runs through tsx; in the built
// package (dist/) it is plain JavaScript beside this file, and tsx may not be installed at all.
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const WORKER = fileURLToPath(new URL(FROM_SOURCE ? './worker.ts' : './worker.js', import.meta.url));
const WORKER_ARGS: readonly string[] = FROM_SOURCE ? ['--import', 'tsx', WORKER] : [WORKER];

/** The output of a finished worker process. */
export interface WorkerOutcome {
  readonly lines: readonly unknown[];
  readonly signal: NodeJS.Signals | null;
  readonly code: number | null;
  readonly stderr: string;
}

/** A start line for workers that must begin together: `ready` is called when the worker is, and `go` releases it. */
export interface StartGate {
  ready(): void;
  readonly go: Promise<void>;
}

/** Starts a worker process with `request` and the fault (if any), and waits for it to end. */
export function runWorker(request: WorkerRequest, fault?: Fault, gate?: StartGate): Promise<WorkerOutcome> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env };
    if (fault === undefined) delete env[FAULT_ENV];
    else env[FAULT_ENV] = `${fault.point}@${fault.at}`;
    const child = spawn(process.execPath, [...WORKER_ARGS], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
      if (gate !== undefined && stdout.startsWith('{"ready":true}\n') && !started) {
        started = true;
        gate.ready();
      }
    });
    let started = false;
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const lines = stdout.split('\n').filter((l) => l !== '' && l !== '{"ready":true}').map((l) => JSON.parse(l) as unknown);
      resolve({ lines, signal, code, stderr: stderr.slice(-2000) });
    });
    if (gate === undefined) {
      child.stdin.end(`${JSON.stringify(request)}\n`);
    } else {
      child.stdin.write(`${JSON.stringify(request)}\n`);
      void gate.go.then(() => child.stdin.end('go\n'));
    }
  });
}

/** Opens a raw connection and runs `fn` on it (integrity and ledger checks look at the file itself). */
function withRaw<T>(file: string, fn: (db: Database.Database) => T): T {
  const db = new Database(file);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** `PRAGMA integrity_check` of the file: undefined when ok, else what it said. */
export function integrityProblem(file: string): string | undefined {
  try {
    const rows = withRaw(file, (db) => db.pragma('integrity_check') as { integrity_check: string }[]);
    const said = rows.map((r) => r.integrity_check);
    return said.length === 1 && said[0] === 'ok' ? undefined : said.slice(0, 3).join('; ');
  } catch (error) {
    return `cannot open the file: ${(error as Error).message}`;
  }
}

/** The ledger checked on the rows themselves: duplicate (account, key) rows, balances that are not their ledger's sum. */
export function ledgerProblems(file: string): string[] {
  return withRaw(file, (db) => {
    const problems: string[] = [];
    for (const r of db.prepare('SELECT account, key, COUNT(*) AS n FROM effects GROUP BY account, key HAVING COUNT(*) > 1').all() as { account: unknown; key: unknown; n: number }[]) {
      problems.push(`${r.n} ledger rows for (${String(r.account)}, ${String(r.key)})`);
    }
    const sums = db
      .prepare(
        `SELECT b.account AS account, b.balance AS balance, e.total AS total FROM balances b LEFT JOIN (SELECT account, SUM(amount) AS total FROM effects GROUP BY account) e ON e.account = b.account
         UNION ALL SELECT e.account, NULL, e.total FROM (SELECT account, SUM(amount) AS total FROM effects GROUP BY account) e WHERE e.account NOT IN (SELECT account FROM balances)`,
      )
      .all() as { account: unknown; balance: number | null; total: number | null }[];
    for (const r of sums) {
      if (r.balance !== r.total) problems.push(`balance of ${String(r.account)} is ${r.balance ?? 'missing'}, its ledger sums to ${r.total ?? 'nothing'}`);
    }
    return problems;
  });
}

/** Facts that an acknowledged reply established and that no later command can undo; a list of those the snapshot lacks. Pure. */
export function lostAcknowledgements(commands: readonly Command[], replies: readonly unknown[], snapshot: Snapshot): string[] {
  const lost: string[] = [];
  const jobByToken = new Map<number, string>();
  replies.forEach((reply, i) => {
    const c = commands[i] as Command;
    const r = reply as Reply;
    if (!(!r.ok && (r.code === 'invalid_argument' || r.code === 'clock_regressed')) && snapshot.clock < c.now) {
      lost.push(`command ${i + 1}: it was answered at now ${c.now}, the store's clock is back at ${snapshot.clock}`);
    }
    if (!r.ok) return;
    if (r.type === 'claim' && r.job !== null) jobByToken.set(r.job.token, r.job.id);
    const job = (id: string) => (Object.hasOwn(snapshot.jobs, id) ? snapshot.jobs[id] : undefined);
    if (r.type === 'submit' && job(r.id) === undefined) lost.push(`command ${i + 1}: job ${r.id} was admitted, the store has no such job`);
    if (r.type === 'claim' && r.job !== null && (job(r.job.id)?.attempts ?? 0) < r.job.attempt) lost.push(`command ${i + 1}: attempt ${r.job.attempt} of ${r.job.id} was delivered, the store counts fewer`);
    if (r.type === 'commit' && r.applied && c.type === 'commit') {
      const account = (commands.find((x, j) => j < i && x.type === 'submit' && x.id === r.id) as { account?: string } | undefined)?.account;
      const ledger = account !== undefined && Object.hasOwn(snapshot.effects, account) ? snapshot.effects[account] : undefined;
      if (ledger === undefined || !Object.values(ledger).some((e) => e.token === c.token)) lost.push(`command ${i + 1}: the effect of ${r.id} was applied (token ${c.token}), the ledger has no row for it`);
    }
    if (r.type === 'ack' && job(r.id)?.status !== 'done') lost.push(`command ${i + 1}: ${r.id} was acknowledged, the store has it ${job(r.id)?.status ?? 'missing'}`);
  });
  return lost;
}

/**
 * The recovery: after every lease has expired, a worker `recovery` claims, commits and acks
 * until nothing is due. Driven by the store's replies; the model takes the same commands from
 * each candidate state. Returns the store's balances and each candidate's.
 */
function recover(store: SqliteStore, candidates: readonly ModelState[]): { store: Snapshot['balances']; models: Snapshot['balances'][] } {
  const clock = store.snapshot().clock;
  const now = clock + store.config.leaseTicks;
  const commands: Command[] = [{ type: 'tick', now }];
  store.execute(commands[0]);
  for (let i = 0; i < 50; i++) {
    const claim: Command = { type: 'claim', worker: 'recovery', now };
    commands.push(claim);
    const r = store.execute(claim);
    if (!r.ok || r.type !== 'claim' || r.job === null) break;
    for (const c of [{ type: 'commit', worker: 'recovery', token: r.job.token, now }, { type: 'ack', worker: 'recovery', token: r.job.token, now }] as Command[]) {
      commands.push(c);
      store.execute(c);
    }
  }
  const models = candidates.map((state) => {
    let s = state;
    for (const c of commands) s = step(s, c).state;
    return toSnapshot(s).balances;
  });
  return { store: store.snapshot().balances, models };
}

/** Options of one crash run. */
export interface CrashRunOptions {
  readonly file: string;
  readonly variant: string;
  readonly config: Config;
  readonly commands: readonly Command[];
  /** `states[i]`: the model after the first i commands (modelStates). */
  readonly states: readonly ModelState[];
  readonly fault: Fault;
}

/** Runs one crash run: a fresh store file, a worker killed at the fault point, the checks. */
export async function crashRun(o: CrashRunOptions): Promise<CrashRunResult> {
  const variant = sqliteVariant(o.variant);
  if (variant === undefined) throw new Error(`no SQLite variant named ${JSON.stringify(o.variant)}`);
  SqliteStore.create.call(variant.Store, o.file, o.config).close();
  const out = await runWorker({ mode: 'script', file: o.file, variant: o.variant, commands: o.commands }, o.fault);
  const killed = out.signal === 'SIGKILL';
  const workerError = !killed && out.code !== 0 ? `the worker ended with ${out.signal ?? `exit code ${out.code}`}: ${out.stderr}` : undefined;
  const replies = out.lines;
  const k = replies.length;
  const interrupted = killed && k < o.commands.length ? o.commands[k] : undefined;
  const failures: PropertyFailure[] = [];
  const fail = (property: CrashProperty, detail: string): void => {
    failures.push({ property, detail });
  };
  const done = (applied: boolean | null): CrashRunResult => ({ fault: o.fault, killed, acknowledged: k, interrupted, applied, failures, workerError });

  const integrity = integrityProblem(o.file);
  if (integrity !== undefined) {
    fail('intact', `integrity_check: ${integrity}`);
    return done(null);
  }
  let store: SqliteStore;
  let snapshot: Snapshot;
  try {
    store = SqliteStore.open.call(variant.Store, o.file);
    snapshot = store.snapshot();
  } catch (error) {
    fail('intact', `the store does not reopen: ${(error as Error).message}`);
    return done(null);
  }
  try {
    try {
      parseSnapshot(JSON.parse(JSON.stringify(snapshot)));
    } catch (error) {
      fail('intact', `the reopened store's snapshot breaks the contract: ${(error as Error).message}`);
    }
    for (let i = 0; i < k; i++) {
      const expected = step(o.states[i] as ModelState, o.commands[i]).reply;
      if (!isDeepStrictEqual(comparableReply(expected), comparableReply(replies[i]))) {
        fail('replies', `command ${i + 1}: the worker was told ${JSON.stringify(replies[i])}, the model says ${JSON.stringify(expected)}`);
        break;
      }
    }
    const before = o.states[k] as ModelState;
    const after = interrupted === undefined ? undefined : (o.states[k + 1] as ModelState);
    let applied: boolean | null = null;
    const candidates: ModelState[] = [];
    if (isDeepStrictEqual(snapshot, toSnapshot(before))) {
      applied = false;
      candidates.push(before);
    }
    if (after !== undefined && isDeepStrictEqual(snapshot, toSnapshot(after))) {
      applied = applied === null ? true : applied;
      candidates.push(after);
    }
    if (candidates.length === 0) {
      const diff = firstDifference(toSnapshot(before), snapshot);
      const diffAfter = after === undefined ? undefined : firstDifference(toSnapshot(after), snapshot);
      const told = (d: typeof diff) => (d === undefined ? 'equal' : describeDifference(d).replace('impl', 'store'));
      fail(
        'state',
        after === undefined
          ? `the reopened store is not the model's state after the ${k} acknowledged commands: ${told(diff)}`
          : `the reopened store is the model's state neither before command ${k + 1} (${told(diff)}) nor after it (${told(diffAfter)})`,
      );
      candidates.push(before, ...(after === undefined ? [] : [after]));
    }
    const lost = lostAcknowledgements(o.commands, replies, snapshot);
    if (lost.length > 0) fail('acknowledged', lost.slice(0, 3).join('; '));
    const ledger = ledgerProblems(o.file);
    if (ledger.length > 0) fail('ledger', ledger.slice(0, 3).join('; '));
    const recovered = recover(store, candidates);
    if (!recovered.models.some((m) => isDeepStrictEqual(m, recovered.store))) {
      fail('recovery', `after another worker finished the jobs, the balances are ${JSON.stringify(recovered.store)}; the model's are ${recovered.models.map((m) => JSON.stringify(m)).join(' or ')}`);
    } else {
      const afterRecovery = ledgerProblems(o.file);
      if (afterRecovery.length > 0) fail('recovery', `after another worker finished the jobs: ${afterRecovery.slice(0, 3).join('; ')}`);
    }
    return done(applied);
  } finally {
    store.close();
  }
}
