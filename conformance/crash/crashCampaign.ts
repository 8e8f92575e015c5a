/**
 * The crash campaign: a bounded number of crash runs (crashRun.ts), each a random script and a
 * worker process killed at a random fault point with SIGKILL, then a contention check: two
 * worker processes on one file, writing as fast as they can. Deterministic for a seed (the
 * scripts and fault points; the contention's interleaving is the machine's).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Command, Reply } from '../../contract/index.ts';
import { parseSnapshot } from '../../contract/index.ts';
import { FAULT_POINTS } from '../../impl/faults.ts';
import type { FaultPointName } from '../../impl/faults.ts';
import { SqliteStore } from '../../impl/sqlite/index.ts';
import { step, toSnapshot } from '../../model/index.ts';
import { sqliteVariant } from '../broken/sqlite/index.ts';
import { crashRun, runWorker } from './crashRun.ts';
import type { CrashRunResult, Fault } from './crashRun.ts';
import { CRASH_CONFIG, Rng, crashScript, modelStates } from './script.ts';

/** Options of a crash campaign. */
export interface CrashCampaignOptions {
  /** The store: `sqlite` or a broken variant's name (conformance/broken/sqlite/). */
  readonly variant?: string;
  /** Crash runs (each one process killed). */
  readonly kills: number;
  readonly seed: number;
  /** Commands per script (default 24). */
  readonly length?: number;
  /** Worker processes at once (default 2). */
  readonly parallel?: number;
  /** Stop at the first failing run (default true). */
  readonly stopAtFailure?: boolean;
  /** Rounds of each contention worker (default 100; 0 skips the contention check). */
  readonly contentionRounds?: number;
  /** The fault points to choose among (default: all of them). */
  readonly points?: readonly FaultPointName[];
}

/** What the contention check saw. */
export interface ContentionResult {
  /** Commands that threw (SQLITE_BUSY and the like) instead of getting a reply. */
  readonly errors: readonly string[];
  /** Broken properties besides errors: repeated tokens, a snapshot that breaks the contract, lost claims. */
  readonly problems: readonly string[];
  readonly commands: number;
}

/** One crash run of a campaign, with its script. */
export interface CampaignRun {
  readonly index: number;
  readonly commands: readonly Command[];
  readonly result: CrashRunResult;
}

/** The outcome of a crash campaign. */
export interface CrashCampaignResult {
  readonly variant: string;
  readonly seed: number;
  readonly runs: readonly CampaignRun[];
  /** Runs whose worker was killed by its fault point. */
  readonly kills: number;
  /** Kills per fault point. */
  readonly byPoint: Readonly<Record<FaultPointName, number>>;
  /** The first failing run, if any. */
  readonly failure: CampaignRun | null;
  readonly contention: ContentionResult | null;
  /** The story of the first failure (a run, else the contention check), or null. */
  readonly story: string | null;
}

/** How often each fault point is reached along a script, by the correct store. Pure. */
export function faultHits(commands: readonly Command[]): Record<FaultPointName, number> {
  const states = modelStates(CRASH_CONFIG, commands);
  let writes = 0;
  let beforeAck = 0;
  commands.forEach((c, i) => {
    if (!isDeepStrictEqual(toSnapshot(states[i] as never), toSnapshot(states[i + 1] as never))) writes += 1;
    const prev = commands[i - 1];
    if (c.type === 'ack' && prev?.type === 'commit' && prev.token === c.token && step(states[i - 1] as never, prev).reply.ok) beforeAck += 1;
  });
  return { 'after-begin': commands.length, 'after-first-write': writes, 'after-commit': commands.length, 'worker-before-ack': beforeAck };
}

/**
 * A fault that fires along the script: the points take turns (run i prefers the i-th point, so
 * that a short campaign reaches every one), the hit is random.
 */
function chooseFault(rng: Rng, commands: readonly Command[], allowed: readonly FaultPointName[], run: number): Fault {
  const hits = faultHits(commands);
  const points = allowed.filter((p) => hits[p] > 0);
  if (points.length === 0) return { point: allowed[0] ?? FAULT_POINTS.afterCommit, at: 1 };
  const preferred = allowed[run % allowed.length] as FaultPointName;
  const point = hits[preferred] > 0 ? preferred : rng.pick(points);
  return { point, at: rng.int(1, hits[point]) };
}

/** Runs `tasks` with at most `parallel` at once, in order of index. */
async function pool<T>(count: number, parallel: number, task: (i: number) => Promise<T>, stop: () => boolean): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count && !stop()) {
      const i = next++;
      results[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, parallel) }, lane));
  return results;
}

/** Worker processes on one file at once; checks that every command got a contract reply and nothing was handed out twice. */
export async function runContention(variant: string, dir: string, rounds: number): Promise<ContentionResult> {
  const v = sqliteVariant(variant);
  if (v === undefined) throw new Error(`no SQLite variant named ${JSON.stringify(variant)}`);
  const file = join(dir, 'contention.db');
  SqliteStore.create.call(v.Store, file, { capacity: 10_000, maxAttempts: 3, leaseTicks: 1_000_000, backoffBase: 1, backoffCap: 1 }).close();
  let release = (): void => undefined;
  const go = new Promise<void>((resolve) => (release = resolve));
  let ready = 0;
  const names = ['a', 'b', 'c', 'd'].slice(0, CONTENDERS);
  const gate = { ready: () => (++ready === names.length ? release() : undefined), go };
  const outs = await Promise.all(names.map((worker) => runWorker({ mode: 'contend', file, variant, worker, rounds }, undefined, gate)));
  const errors: string[] = [];
  const problems: string[] = [];
  const tokens = new Map<number, string>();
  let claims = 0;
  let commands = 0;
  outs.forEach((out, w) => {
    if (out.code !== 0) problems.push(`worker ${w === 0 ? 'a' : 'b'} ended with ${out.signal ?? `exit code ${out.code}`}: ${out.stderr.split('\n').slice(-3).join(' ')}`);
    for (const line of out.lines) {
      commands += 1;
      const l = line as { error?: string; code?: string; command?: unknown } & Reply;
      if (l.error !== undefined) {
        errors.push(`${l.code ?? 'error'}: ${l.error} (during ${JSON.stringify(l.command)})`);
        continue;
      }
      if (l.ok && l.type === 'claim' && l.job !== null) {
        claims += 1;
        const seen = tokens.get(l.job.token);
        if (seen !== undefined) problems.push(`token ${l.job.token} was handed out twice (${seen} and ${l.job.id})`);
        tokens.set(l.job.token, l.job.id);
      }
    }
  });
  const store = SqliteStore.open(file);
  try {
    const snap = store.snapshot();
    try {
      parseSnapshot(JSON.parse(JSON.stringify(snap)));
    } catch (error) {
      problems.push(`the final snapshot breaks the contract: ${(error as Error).message}`);
    }
    if (snap.nextToken - 1 !== claims) problems.push(`${snap.nextToken - 1} tokens were issued, ${claims} claims were answered`);
  } finally {
    store.close();
  }
  return { errors, problems, commands };
}

/** Worker processes of the contention check: with two, one often sleeps in its busy handler while the other runs alone. */
const CONTENDERS = 3;

const clip = (s: string, n = 300): string => (s.length > n ? `${s.slice(0, n - 3)}...` : s);

/** The story of a failing crash run: the fault point, what was acknowledged, the interrupted command, every broken property. Pure. */
export function crashStory(variant: string, seed: number, run: CampaignRun): string {
  const r = run.result;
  const lines = [
    `crash run ${run.index + 1} (seed ${seed}, store ${variant}): fault point ${r.fault.point}@${r.fault.at}, ${r.killed ? 'the worker was killed by SIGKILL' : 'the worker was not killed'}`,
    `  ${r.acknowledged} of ${run.commands.length} commands were acknowledged before the kill`,
  ];
  if (r.interrupted !== undefined) lines.push(`  interrupted: command ${r.acknowledged + 1}, ${JSON.stringify(r.interrupted)}`);
  if (r.workerError !== undefined) lines.push(`  worker: ${clip(r.workerError)}`);
  for (const f of r.failures) lines.push(`  ${f.property}: ${clip(f.detail, 600)}`);
  lines.push(`  the script: ${run.commands.map((c, i) => `${i + 1}. ${JSON.stringify(c)}`).join(' ')}`);
  return lines.join('\n');
}

/** Runs a crash campaign. Failures are data; throws only for a setup error. */
export async function runCrashCampaign(options: CrashCampaignOptions): Promise<CrashCampaignResult> {
  const variant = options.variant ?? 'sqlite';
  const dir = mkdtempSync(join(tmpdir(), 'jobcheck-crash-'));
  const stopAtFailure = options.stopAtFailure ?? true;
  let failed = false;
  try {
    const rng = new Rng(options.seed);
    // Scripts and faults are drawn up front, so that a run's script does not depend on timing.
    const plans = Array.from({ length: options.kills }, (_, run) => {
      const commands = crashScript(rng, options.length ?? 24);
      return { commands, states: modelStates(CRASH_CONFIG, commands), fault: chooseFault(rng, commands, options.points ?? (Object.values(FAULT_POINTS) as FaultPointName[]), run) };
    });
    const done = await pool(
      plans.length,
      options.parallel ?? 2,
      async (index): Promise<CampaignRun> => {
        const plan = plans[index] as (typeof plans)[number];
        const result = await crashRun({ file: join(dir, `crash-${index + 1}.db`), variant, config: CRASH_CONFIG, ...plan });
        if (result.failures.length > 0 || result.workerError !== undefined) failed = true;
        return { index, commands: plan.commands, result };
      },
      () => failed && stopAtFailure,
    );
    const runs = done.filter((r): r is CampaignRun => r !== undefined);
    const byPoint = Object.fromEntries(Object.values(FAULT_POINTS).map((p) => [p, 0])) as Record<FaultPointName, number>;
    for (const r of runs) if (r.result.killed) byPoint[r.result.fault.point] += 1;
    const failure = runs.find((r) => r.result.failures.length > 0 || r.result.workerError !== undefined) ?? null;
    const rounds = options.contentionRounds ?? 100;
    const contention = failure !== null && stopAtFailure ? null : rounds === 0 ? null : await runContention(variant, dir, rounds);
    let story: string | null = failure === null ? null : crashStory(variant, options.seed, failure);
    if (story === null && contention !== null && (contention.errors.length > 0 || contention.problems.length > 0)) {
      story = [
        `contention (store ${variant}): two worker processes on one file, ${contention.commands} commands`,
        ...contention.errors.slice(0, 3).map((e) => `  a command failed instead of waiting for the lock: ${clip(e)}`),
        ...(contention.errors.length > 3 ? [`  ... ${contention.errors.length} commands failed in all`] : []),
        ...contention.problems.slice(0, 3).map((p) => `  ${clip(p)}`),
      ].join('\n');
    }
    return { variant, seed: options.seed, runs, kills: runs.filter((r) => r.result.killed).length, byPoint, failure, contention, story };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
