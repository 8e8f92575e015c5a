/**
 * One crash run with a real kill, and what the harness checks afterwards, whatever the database:
 * the store is reached through a CrashTarget (sqliteCrash.ts for SQLite files, pgCrashCampaign.ts
 * for PostgreSQL schemas), which says where a run's store lives, how its worker process starts,
 * how a new process opens it and how its rows are checked.
 *
 * A worker process runs a command script on a fresh store with one fault point on (impl/faults.ts)
 * and dies by SIGKILL when it reaches it. The harness, a new process to the store, then reopens it:
 * - `intact`: the storage is sound (SQLite's `PRAGMA integrity_check`), the store reopens, and its
 *   snapshot is one the contract accepts (balances agree with the ledger, every rule of a restore);
 * - `replies`: the replies the worker handed out before it died are the model's;
 * - `state`: the store's state is the model's after the acknowledged commands, with the
 *   interrupted command either wholly applied or not at all;
 * - `acknowledged`: nothing acknowledged is lost (an applied commit's ledger row, a submitted job,
 *   a claim's attempt, an acknowledged job's `done`);
 * - `ledger`: at most one ledger row per (account, key), each balance its ledger's sum, on the rows;
 * - `recovery`: after the leases expire another worker claims, commits and acknowledges whatever
 *   is left, and the balances equal the model's doing the same, each effect counted once.
 * A failing run's story names the fault point, the interrupted command and every property broken.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import type { Command, Config, Reply, Snapshot } from '../../contract/index.ts';
import { messageOf, parseSnapshot } from '../../contract/index.ts';
import { FAULT_ENV } from '../../impl/faults.ts';
import type { FaultPointName } from '../../impl/faults.ts';
import { step, toSnapshot } from '../../model/index.ts';
import type { ModelState } from '../../model/index.ts';
import { comparableReply, describeDifference, firstDifference } from '../lockstep/compare.ts';

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

/** What a contention check (competing workers on one store, no kill) saw. */
export interface ContentionResult {
  /** How the workers competed, for the story (`3 worker processes on one file`). */
  readonly setup: string;
  /** Commands that threw (SQLITE_BUSY, a unique violation and the like) instead of getting a reply. */
  readonly errors: readonly string[];
  /** Broken properties besides errors: repeated tokens, a snapshot that breaks the contract, lost claims. */
  readonly problems: readonly string[];
  readonly commands: number;
}

/** A store that a new process opened after the crash (async whatever the database, so that one harness serves both). */
export interface CrashStore {
  readonly config: Config;
  execute(command: unknown): Promise<Reply>;
  snapshot(): Promise<Snapshot>;
  close(): Promise<void>;
}

/** A store under crash test, as the harness sees it: the opener and the checkers of one database. */
export interface CrashTarget {
  /** The store's name in stories (`sqlite`, `postgres`, a broken variant's name). */
  readonly name: string;
  /** Makes a fresh, empty store with `config` for run `index`; returns where it lives (a file, a schema). */
  create(index: number, config: Config): Promise<string>;
  /** Runs a worker process on the store at `location` with the commands and the fault, until it ends. */
  work(location: string, commands: readonly Command[], fault: Fault): Promise<WorkerOutcome>;
  /** What is wrong with the storage itself before any store opens it (SQLite's integrity_check), or undefined. */
  integrity(location: string): Promise<string | undefined>;
  /** Opens the store found at `location`, as a new process does. */
  open(location: string): Promise<CrashStore>;
  /** The ledger checked on the rows themselves: duplicate rows, balances that are not their ledger's sum. */
  ledger(location: string): Promise<string[]>;
  /** Removes a run's store. */
  discard(location: string): Promise<void>;
  /** Competing workers on one store for `rounds` rounds each, no kill; absent when the target has no such check. */
  contention?(rounds: number): Promise<ContentionResult>;
  /** Releases what the target holds (a scratch folder, a pool). */
  close(): Promise<void>;
}

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

/**
 * The node arguments that start the worker script `name` (`worker` or `pgWorker`) beside this
 * file: from the sources (tests, tsx) a .ts file that node runs through tsx; in the built package
 * (dist/) plain JavaScript, and tsx may not be installed at all.
 */
export function workerArgs(name: string): string[] {
  const fromSource = import.meta.url.endsWith('.ts');
  const file = fileURLToPath(new URL(fromSource ? `./${name}.ts` : `./${name}.js`, import.meta.url));
  return fromSource ? ['--import', 'tsx', file] : [file];
}

/**
 * Starts a worker process (`script`, default the SQLite worker) with `request` on stdin and the
 * fault (if any) switched on, and waits for it to end. With a gate, the worker first says
 * `{"ready":true}` and starts at the gate's `go`.
 */
export function runWorker(
  request: unknown,
  fault?: Fault,
  gate?: StartGate,
  script = 'worker',
): Promise<WorkerOutcome> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env };
    if (fault === undefined) delete env[FAULT_ENV];
    else env[FAULT_ENV] = `${fault.point}@${fault.at}`;
    const child = spawn(process.execPath, workerArgs(script), { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let started = false;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
      if (gate !== undefined && stdout.startsWith('{"ready":true}\n') && !started) {
        started = true;
        gate.ready();
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const lines = stdout
        .split('\n')
        .filter((l) => l !== '' && l !== '{"ready":true}')
        .map((l): unknown => JSON.parse(l));
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

/** What is wrong with the store at the end of a contention check that answered `claims` deliveries: a snapshot the contract refuses, tokens issued that no claim was told. Pure. */
export function contentionEndProblems(snapshot: Snapshot, claims: number): string[] {
  const problems: string[] = [];
  try {
    parseSnapshot(JSON.parse(JSON.stringify(snapshot)));
  } catch (error) {
    problems.push(`the final snapshot breaks the contract: ${messageOf(error)}`);
  }
  if (snapshot.nextToken - 1 !== claims)
    problems.push(`${snapshot.nextToken - 1} tokens were issued, ${claims} claims were answered`);
  return problems;
}

/** Facts that an acknowledged reply established and that no later command can undo; a list of those the snapshot lacks. Pure. */
export function lostAcknowledgements(
  commands: readonly Command[],
  replies: readonly unknown[],
  snapshot: Snapshot,
): string[] {
  const lost: string[] = [];
  replies.forEach((reply, i) => {
    const c = commands[i] as Command;
    const r = reply as Reply;
    if (!(!r.ok && (r.code === 'invalid_argument' || r.code === 'clock_regressed')) && snapshot.clock < c.now) {
      lost.push(`command ${i + 1}: it was answered at now ${c.now}, the store's clock is back at ${snapshot.clock}`);
    }
    if (!r.ok) return;
    const job = (id: string) => (Object.hasOwn(snapshot.jobs, id) ? snapshot.jobs[id] : undefined);
    if (r.type === 'submit' && job(r.id) === undefined)
      lost.push(`command ${i + 1}: job ${r.id} was admitted, the store has no such job`);
    if (r.type === 'claim' && r.job !== null && (job(r.job.id)?.attempts ?? 0) < r.job.attempt)
      lost.push(`command ${i + 1}: attempt ${r.job.attempt} of ${r.job.id} was delivered, the store counts fewer`);
    if (r.type === 'commit' && r.applied && c.type === 'commit') {
      const account = (
        commands.find((x, j) => j < i && x.type === 'submit' && x.id === r.id) as { account?: string } | undefined
      )?.account;
      const ledger =
        account !== undefined && Object.hasOwn(snapshot.effects, account) ? snapshot.effects[account] : undefined;
      if (ledger === undefined || !Object.values(ledger).some((e) => e.token === c.token))
        lost.push(
          `command ${i + 1}: the effect of ${r.id} was applied (token ${c.token}), the ledger has no row for it`,
        );
    }
    if (r.type === 'ack' && job(r.id)?.status !== 'done')
      lost.push(`command ${i + 1}: ${r.id} was acknowledged, the store has it ${job(r.id)?.status ?? 'missing'}`);
  });
  return lost;
}

/**
 * The recovery: after every lease has expired, a worker `recovery` claims, commits and acks
 * until nothing is due. Driven by the store's replies; the model takes the same commands from
 * each candidate state. Returns the store's balances and each candidate's.
 */
async function recover(
  store: CrashStore,
  candidates: readonly ModelState[],
): Promise<{ store: Snapshot['balances']; models: Snapshot['balances'][] }> {
  const now = (await store.snapshot()).clock + store.config.leaseTicks;
  const commands: Command[] = [{ type: 'tick', now }];
  await store.execute(commands[0]);
  for (let i = 0; i < 50; i++) {
    const claim: Command = { type: 'claim', worker: 'recovery', now };
    commands.push(claim);
    const r = await store.execute(claim);
    if (!r.ok || r.type !== 'claim' || r.job === null) break;
    for (const c of [
      { type: 'commit', worker: 'recovery', token: r.job.token, now },
      { type: 'ack', worker: 'recovery', token: r.job.token, now },
    ] as Command[]) {
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

/** One crash run's plan. */
export interface CrashRunOptions {
  /** The run's number in its campaign (names its store). */
  readonly index: number;
  readonly config: Config;
  readonly commands: readonly Command[];
  /** `states[i]`: the model after the first i commands (modelStates). */
  readonly states: readonly ModelState[];
  readonly fault: Fault;
}

/** Runs one crash run on `target`: a fresh store, a worker killed at the fault point, the checks. The run's store is discarded. */
export async function crashRun(target: CrashTarget, o: CrashRunOptions): Promise<CrashRunResult> {
  const location = await target.create(o.index, o.config);
  try {
    return await checkRun(target, location, o);
  } finally {
    await target.discard(location);
  }
}

async function checkRun(target: CrashTarget, location: string, o: CrashRunOptions): Promise<CrashRunResult> {
  const out = await target.work(location, o.commands, o.fault);
  const killed = out.signal === 'SIGKILL';
  const workerError =
    !killed && out.code !== 0
      ? `the worker ended with ${out.signal ?? `exit code ${out.code}`}: ${out.stderr}`
      : undefined;
  const replies = out.lines;
  const k = replies.length;
  const interrupted = killed && k < o.commands.length ? o.commands[k] : undefined;
  const failures: PropertyFailure[] = [];
  const fail = (property: CrashProperty, detail: string): void => void failures.push({ property, detail });
  const done = (applied: boolean | null): CrashRunResult => ({
    fault: o.fault,
    killed,
    acknowledged: k,
    interrupted,
    applied,
    failures,
    workerError,
  });

  const integrity = await target.integrity(location);
  if (integrity !== undefined) {
    fail('intact', integrity);
    return done(null);
  }
  let store: CrashStore;
  let snapshot: Snapshot;
  try {
    store = await target.open(location);
  } catch (error) {
    fail('intact', `the store does not reopen: ${messageOf(error)}`);
    return done(null);
  }
  try {
    try {
      snapshot = await store.snapshot();
    } catch (error) {
      fail('intact', `the reopened store gives no snapshot: ${messageOf(error)}`);
      return done(null);
    }
    try {
      parseSnapshot(JSON.parse(JSON.stringify(snapshot)));
    } catch (error) {
      fail('intact', `the reopened store's snapshot breaks the contract: ${messageOf(error)}`);
    }
    for (let i = 0; i < k; i++) {
      const expected = step(o.states[i] as ModelState, o.commands[i]).reply;
      if (!isDeepStrictEqual(comparableReply(expected), comparableReply(replies[i]))) {
        fail(
          'replies',
          `command ${i + 1}: the worker was told ${JSON.stringify(replies[i])}, the model says ${JSON.stringify(expected)}`,
        );
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
      applied ??= true;
      candidates.push(after);
    }
    if (candidates.length === 0) {
      const told = (d: ReturnType<typeof firstDifference>) =>
        d === undefined ? 'equal' : describeDifference(d).replace('impl', 'store');
      const diff = told(firstDifference(toSnapshot(before), snapshot));
      fail(
        'state',
        after === undefined
          ? `the reopened store is not the model's state after the ${k} acknowledged commands: ${diff}`
          : `the reopened store is the model's state neither before command ${k + 1} (${diff}) nor after it (${told(firstDifference(toSnapshot(after), snapshot))})`,
      );
      candidates.push(before, ...(after === undefined ? [] : [after]));
    }
    const lost = lostAcknowledgements(o.commands, replies, snapshot);
    if (lost.length > 0) fail('acknowledged', lost.slice(0, 3).join('; '));
    const ledger = await target.ledger(location);
    if (ledger.length > 0) fail('ledger', ledger.slice(0, 3).join('; '));
    const recovered = await recover(store, candidates);
    if (!recovered.models.some((m) => isDeepStrictEqual(m, recovered.store))) {
      fail(
        'recovery',
        `after another worker finished the jobs, the balances are ${JSON.stringify(recovered.store)}; the model's are ${recovered.models.map((m) => JSON.stringify(m)).join(' or ')}`,
      );
    } else {
      const afterRecovery = await target.ledger(location);
      if (afterRecovery.length > 0)
        fail('recovery', `after another worker finished the jobs: ${afterRecovery.slice(0, 3).join('; ')}`);
    }
    return done(applied);
  } finally {
    await store.close();
  }
}
