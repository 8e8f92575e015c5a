/**
 * The crash campaign, one loop for every durable store: a bounded number of crash runs
 * (crashRun.ts), each a random script and a worker process killed at a random fault point with
 * SIGKILL, then a contention check: worker processes (or lanes) competing for one store, writing
 * as fast as they can. The store is a CrashTarget: sqliteCrash.ts for SQLite files (the default),
 * pgCrashCampaign.ts for PostgreSQL schemas. Deterministic for a seed (the scripts and fault
 * points; the contention's interleaving is the machine's).
 */
import { isDeepStrictEqual } from 'node:util';
import type { Command } from '../../contract/index.ts';
import { FAULT_POINTS } from '../../impl/faults.ts';
import type { FaultPointName } from '../../impl/faults.ts';
import { step, toSnapshot } from '../../model/index.ts';
import { crashRun } from './crashRun.ts';
import type { ContentionResult, CrashRunResult, CrashTarget, Fault } from './crashRun.ts';
import { CRASH_CONFIG, Rng, crashScript, modelStates } from './script.ts';
import { sqliteCrashTarget } from './sqliteCrash.ts';

/** Options of a crash campaign. */
export interface CrashCampaignOptions {
  /** The store (default: `sqliteCrashTarget(variant)`); the campaign closes it. */
  readonly target?: CrashTarget;
  /** Without a target: `sqlite` or a broken variant's name (conformance/broken/sqlite/). */
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

/** One crash run of a campaign, with its script. */
export interface CampaignRun {
  readonly index: number;
  readonly commands: readonly Command[];
  readonly result: CrashRunResult;
}

/** The outcome of a crash campaign. */
export interface CrashCampaignResult {
  /** The store's name (the target's). */
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
    if (
      c.type === 'ack' &&
      prev?.type === 'commit' &&
      prev.token === c.token &&
      step(states[i - 1] as never, prev).reply.ok
    )
      beforeAck += 1;
  });
  return {
    'after-begin': commands.length,
    'after-first-write': writes,
    'after-commit': commands.length,
    'worker-before-ack': beforeAck,
  };
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
async function pool<T>(
  count: number,
  parallel: number,
  task: (i: number) => Promise<T>,
  stop: () => boolean,
): Promise<T[]> {
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

const clip = (s: string, n = 300): string => (s.length > n ? `${s.slice(0, n - 3)}...` : s);

/** The story of a failing crash run: the fault point, what was acknowledged, the interrupted command, every broken property. Pure. */
export function crashStory(variant: string, seed: number, run: CampaignRun): string {
  const r = run.result;
  const lines = [
    `crash run ${run.index + 1} (seed ${seed}, store ${variant}): fault point ${r.fault.point}@${r.fault.at}, ${r.killed ? 'the worker was killed by SIGKILL' : 'the worker was not killed'}`,
    `  ${r.acknowledged} of ${run.commands.length} commands were acknowledged before the kill`,
  ];
  if (r.interrupted !== undefined)
    lines.push(`  interrupted: command ${r.acknowledged + 1}, ${JSON.stringify(r.interrupted)}`);
  if (r.workerError !== undefined) lines.push(`  worker: ${clip(r.workerError)}`);
  for (const f of r.failures) lines.push(`  ${f.property}: ${clip(f.detail, 600)}`);
  lines.push(`  the script: ${run.commands.map((c, i) => `${i + 1}. ${JSON.stringify(c)}`).join(' ')}`);
  return lines.join('\n');
}

/** The story of a contention check that saw errors or problems, or null. Pure. */
export function contentionStory(variant: string, c: ContentionResult): string | null {
  if (c.errors.length === 0 && c.problems.length === 0) return null;
  return [
    `contention (store ${variant}): ${c.setup}, ${c.commands} commands`,
    ...c.errors.slice(0, 3).map((e) => `  a command threw instead of replying: ${clip(e)}`),
    ...(c.errors.length > 3 ? [`  ... ${c.errors.length} commands failed in all`] : []),
    ...c.problems.slice(0, 3).map((p) => `  ${clip(p)}`),
  ].join('\n');
}

/** Runs a crash campaign against `options.target` (default: the SQLite store). Failures are data; throws only for a setup error. */
export async function runCrashCampaign(options: CrashCampaignOptions): Promise<CrashCampaignResult> {
  const target = options.target ?? sqliteCrashTarget(options.variant ?? 'sqlite');
  const variant = target.name;
  const stopAtFailure = options.stopAtFailure ?? true;
  let failed = false;
  try {
    const rng = new Rng(options.seed);
    // Scripts and faults are drawn up front, so that a run's script does not depend on timing.
    const plans = Array.from({ length: options.kills }, (_, run) => {
      const commands = crashScript(rng, options.length ?? 24);
      return {
        commands,
        states: modelStates(CRASH_CONFIG, commands),
        fault: chooseFault(rng, commands, options.points ?? (Object.values(FAULT_POINTS) as FaultPointName[]), run),
      };
    });
    const done = await pool(
      plans.length,
      options.parallel ?? 2,
      async (index): Promise<CampaignRun> => {
        const plan = plans[index] as (typeof plans)[number];
        const result = await crashRun(target, { index, config: CRASH_CONFIG, ...plan });
        if (result.failures.length > 0 || result.workerError !== undefined) failed = true;
        return { index, commands: plan.commands, result };
      },
      () => failed && stopAtFailure,
    );
    const runs = done.filter((r): r is CampaignRun => r !== undefined);
    const byPoint = Object.fromEntries(Object.values(FAULT_POINTS).map((p) => [p, 0])) as Record<
      FaultPointName,
      number
    >;
    for (const r of runs) if (r.result.killed) byPoint[r.result.fault.point] += 1;
    const failure = runs.find((r) => r.result.failures.length > 0 || r.result.workerError !== undefined) ?? null;
    const rounds = options.contentionRounds ?? 100;
    const contention =
      (failure !== null && stopAtFailure) || rounds === 0 || target.contention === undefined
        ? null
        : await target.contention(rounds);
    const story =
      failure !== null
        ? crashStory(variant, options.seed, failure)
        : contention === null
          ? null
          : contentionStory(variant, contention);
    return {
      variant,
      seed: options.seed,
      runs,
      kills: runs.filter((r) => r.result.killed).length,
      byPoint,
      failure,
      contention,
      story,
    };
  } finally {
    await target.close();
  }
}
