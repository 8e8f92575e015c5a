/**
 * `jobcheck explore`: bounded exhaustive exploration of the model (conformance/explore/), alone
 * or against an implementation. Prints one line per config explored, the verdict and, on
 * failure, the shortest counterexample; writes the coverage reports (and, for a divergence, the
 * failure artifact) to the report directory. Exit code 0 complete, 1 violation or divergence,
 * 3 incomplete.
 */
// Only what an exploration of the model alone needs is loaded with this file: the implementation's
// side (target.ts: the engine, the protocol, the catalogue) and the failure artifact are imported
// when they are used, so that the installed command starts with the explorer and the coverage
// report only (docs/explore-bench.md measures the command as users run it).
import { join } from 'node:path';
import { Budget } from '../conformance/budget.ts';
import { writeCoverageReport } from '../conformance/coverage/coverageFiles.ts';
import { neverHit } from '../conformance/coverage/coverage.ts';
import {
  DEFAULT_EXPLORATION,
  DEFAULT_MAX_STATES,
  DEFAULT_SCOPE,
  EXPLORE_CONFIGS,
  collisionProbability,
  explore,
  exploreConfig,
} from '../conformance/explore/index.ts';
import type { ExplorePart, ExploreResult, ExploreScope } from '../conformance/explore/index.ts';
import type { CliIO } from './args.ts';
import { z } from 'zod';
import { UsageError, durationFlag, flagValue, intFlag, readFlags, withRules } from './args.ts';
import { coverageSummary, neverHitLine } from './output/coverageLines.ts';
import { DEFAULT_TIME_LIMIT_MS, EXIT_INCOMPLETE, MAX_TIME_LIMIT_MS } from './limits.ts';
import { outputError, prepareReportDir } from './outputs.ts';
import { TARGET_FLAGS, TARGET_OPTIONS, TARGET_USAGE } from './targetFlags.ts';
import type { Target } from './target.ts';
import { jsonText, terminalBlock } from '../conformance/outside/outsideText.ts';

/** Default report directory of `jobcheck explore`. */
export const DEFAULT_EXPLORE_REPORT_DIR = '.jobcheck/explore';

const list = (xs: readonly number[]): string => xs.join(',');

/** Usage text of `jobcheck explore`. */
export const EXPLORE_USAGE = `Usage: jobcheck explore [--impl "<command>" | --module <path> | --builtin | --broken <name>] [options]

Explores the reference model breadth-first over every command sequence of a bounded scope and
holds every state reached to the store invariants; with an implementation, every explored
transition is also run against it and compared. Without scope flags it explores the default
scope (one job over a long horizon, then two jobs over a short one); any scope flag explores
that one scope (the flags changing the base scope below) instead.
Exit code: 0 complete (no invariant broken, the implementation agreed), 1 an invariant broken or
a divergence, 2 usage or setup error, 3 stopped by --max-states or --time-limit first (not a pass).

${TARGET_USAGE.replace('Implementation (exactly one):', 'Implementation (at most one; without one, the model alone):')}
Scope (base: ${DEFAULT_SCOPE.jobs} jobs, ${DEFAULT_SCOPE.accounts} accounts, ${DEFAULT_SCOPE.workers} workers, ${DEFAULT_SCOPE.keys} key, amounts ${list(DEFAULT_SCOPE.amounts)}, lifetimes ${list(DEFAULT_SCOPE.lifetimes)}, horizon ${DEFAULT_SCOPE.horizon}):
  --jobs <n>           job ids (a, b, ...)
  --accounts <n>       accounts (x, y, ...)
  --workers <n>        workers (w1, w2, ...)
  --keys <n>           operation keys (k1, k2, ...)
  --amounts <list>     amounts a job may carry, e.g. 1,2
  --lifetimes <list>   deadlines a job may be submitted with, as now + lifetime, e.g. 3,6
  --horizon <t>        no command's now passes it
  --configs <names>    configs to explore: ${EXPLORE_CONFIGS.map((c) => c.name).join(', ')} (default: all)
  --no-restarts        no restarts in the alphabet
  --no-probes          no refused commands (stale tokens, duplicates, ...) in the alphabet
  --no-symmetry        no reduction by renaming ids, accounts, keys and workers
Options:
  --max-states <n>     most distinct states per config (default ${DEFAULT_MAX_STATES})
  --time-limit <s>     time limit of the whole exploration, as for check (default ${DEFAULT_TIME_LIMIT_MS / 60_000}m)
  --threads <n>        worker threads, model alone only (default 1)
  --report <dir>       where to write coverage.{json,md,html} and failure.json (default ${DEFAULT_EXPLORE_REPORT_DIR})
  --json               print the result as JSON instead of text
  -h, --help           show this text
`;

const SCOPE_FLAGS = [
  'jobs',
  'accounts',
  'workers',
  'keys',
  'amounts',
  'lifetimes',
  'horizon',
  'configs',
  'no-restarts',
  'no-probes',
  'no-symmetry',
] as const;

/** A comma-separated list of integers from `min` to `max`. */
const numberList = (flag: string, min: number, max: number) =>
  flagValue(
    flag,
    z
      .string()
      .transform((value) => value.split(',').map((s) => s.trim()))
      .pipe(z.array(z.string().regex(/^-?\d+$/, 'must be a comma-separated list of integers')))
      .transform((parts) => parts.map(Number))
      .pipe(z.array(z.number().min(min, `must be from ${min} to ${max}`).max(max, `must be from ${min} to ${max}`))),
  );

/** `--configs`: names of EXPLORE_CONFIGS. */
const configNames = z.string().transform((value, ctx): string[] => {
  const names = value.split(',').map((s) => s.trim());
  const unknown = names.find((n) => exploreConfig(n) === undefined);
  if (unknown === undefined) return names;
  const known = EXPLORE_CONFIGS.map((c) => c.name).join(', ');
  ctx.addIssue({ code: 'custom', message: `no config named ${JSON.stringify(unknown)} (known: ${known})` });
  return z.NEVER;
});

/** The flags of `jobcheck explore`, read. */
const EXPLORE_FLAGS = withRules(
  z.object({
    ...TARGET_FLAGS,
    jobs: intFlag('jobs', 1, 15).optional(),
    accounts: intFlag('accounts', 1, 64).optional(),
    workers: intFlag('workers', 1, 64).optional(),
    keys: intFlag('keys', 1, 64).optional(),
    amounts: numberList('amounts', -1_000_000, 1_000_000).optional(),
    lifetimes: numberList('lifetimes', 1, 10_000).optional(),
    horizon: intFlag('horizon', 0, 10_000).optional(),
    configs: configNames.optional(),
    'no-restarts': z.boolean().optional(),
    'no-probes': z.boolean().optional(),
    'no-symmetry': z.boolean().optional(),
    'max-states': intFlag('max-states', 1, 100_000_000).default(DEFAULT_MAX_STATES),
    'time-limit': durationFlag('time-limit', 1000, MAX_TIME_LIMIT_MS).default(DEFAULT_TIME_LIMIT_MS),
    threads: intFlag('threads', 1, 64).default(1),
    report: z.string().default(DEFAULT_EXPLORE_REPORT_DIR),
    json: z.boolean().optional(),
    help: z.boolean().optional(),
  }),
  [
    (f) =>
      chosenTarget(f) && f.threads > 1
        ? '--threads is for the model alone; an implementation is explored on one thread'
        : undefined,
  ],
);
type ExploreFlags = z.output<typeof EXPLORE_FLAGS>;

/** Whether the flags choose an implementation. Pure. */
const chosenTarget = (
  f: { readonly [K in 'impl' | 'module' | 'builtin' | 'broken']?: string | boolean | undefined },
): boolean => (['impl', 'module', 'builtin', 'broken'] as const).some((k) => f[k] !== undefined && f[k] !== false);

/** The parts the flags ask for: the default exploration, or one scope from DEFAULT_SCOPE changed by the flags. Pure. */
function partsOf(flags: ExploreFlags): ExplorePart[] {
  if (!SCOPE_FLAGS.some((f) => flags[f] !== undefined)) return [...DEFAULT_EXPLORATION];
  const scope: Partial<{ -readonly [K in keyof ExploreScope]: ExploreScope[K] }> = {};
  for (const f of ['jobs', 'accounts', 'workers', 'keys', 'horizon', 'amounts', 'lifetimes'] as const) {
    const value = flags[f];
    if (value !== undefined) Object.assign(scope, { [f]: value });
  }
  if (flags['no-restarts'] === true) scope.restarts = false;
  if (flags['no-probes'] === true) scope.probes = false;
  if (flags['no-symmetry'] === true) scope.symmetry = false;
  return [{ name: 'scope', scope, configs: flags.configs ?? EXPLORE_CONFIGS.map((c) => c.name) }];
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** The text report of an exploration. Pure. */
export function renderExploreText(
  result: ExploreResult,
  target: string,
  files: { dir: string; artifact?: string },
  replayFlags: string | undefined,
): string {
  const lines = [`jobcheck explore: ${target}`];
  for (const p of result.parts) {
    const s = p.scope;
    lines.push(
      `  scope ${p.name}: ${s.jobs} jobs, ${s.accounts} accounts, ${s.workers} workers, ${s.keys} keys, amounts ${list(s.amounts)}, lifetimes ${list(s.lifetimes)}, horizon ${s.horizon}${s.restarts ? '' : ', no restarts'}${s.probes ? '' : ', no probes'}${s.symmetry ? ', symmetry' : ', no symmetry'}`,
    );
  }
  for (const c of result.configs) {
    const b = c.boundaries;
    lines.push(
      `  ${`${c.part}/${c.name}`.padEnd(28)} ${c.verdict.padEnd(10)} ${String(c.states).padStart(8)} states ${String(c.transitions).padStart(9)} transitions  depth ${String(c.depth).padStart(2)}  ${seconds(c.durationMs)}${c.verdict !== 'complete' ? '' : `  boundaries ${b.expected.length - b.missing.length}/${b.expected.length}${b.missing.length > 0 ? ` (missing ${b.missing.join(', ')})` : ''}`}${c.stoppedBy === undefined ? '' : `  stopped by ${c.stoppedBy}`}`,
    );
  }
  for (const n of result.notRun) lines.push(`  ${n.padEnd(28)} not run`);
  lines.push('');
  const against = result.adapter === null ? '' : ', and the implementation agreed on every transition';
  const verdicts = {
    complete: `verdict: COMPLETE: every state of the scope reached, no invariant broken${against} (${seconds(result.durationMs)})`,
    violation: `verdict: VIOLATION: the model breaks an invariant (${seconds(result.durationMs)}); the shortest path:`,
    diverge: `verdict: DIVERGE from the model (${seconds(result.durationMs)}); the shortest story:`,
    incomplete: `verdict: INCOMPLETE: stopped before every state of the scope was reached (${seconds(result.durationMs)}); nothing broke in what ran, which is not a pass`,
  };
  lines.push(verdicts[result.verdict]);
  if (result.story !== null) {
    lines.push('', result.story);
    if (files.artifact !== undefined) {
      lines.push('', `artifact: ${files.artifact}`);
      if (replayFlags !== undefined) lines.push(`replay: npx jobcheck replay ${files.artifact} ${replayFlags}`);
    }
  }
  lines.push('');
  lines.push(`states: ${result.states} distinct, ${result.transitions} transitions; CPU ${seconds(result.cpuMs)}`);
  lines.push(
    `fingerprints: 64-bit; chance that two of these states collided: about ${collisionProbability(Math.max(...result.configs.map((c) => c.states), 0)).toExponential(1)} per config`,
  );
  lines.push(`coverage (exploration): ${coverageSummary(result.coverage)}`);
  lines.push(`  transitions never hit: ${neverHitLine(neverHit(result.coverage, 'transitions'))}`);
  lines.push(
    `report: ${files.dir} (${files.artifact === undefined ? '' : 'failure.json, '}coverage.json, coverage.md, coverage.html)`,
  );
  return `${lines.join('\n')}\n`;
}

/** The JSON report of an exploration (counterexample runs shortened to their steps). Pure. */
export function exploreJson(result: ExploreResult, target: string, files: { dir: string; artifact?: string }): unknown {
  return {
    verdict: result.verdict,
    target,
    adapter: result.adapter,
    durationMs: Math.round(result.durationMs),
    cpuMs: Math.round(result.cpuMs),
    states: result.states,
    transitions: result.transitions,
    parts: result.parts,
    configs: result.configs.map((c) => ({
      part: c.part,
      name: c.name,
      config: c.config,
      verdict: c.verdict,
      ...(c.stoppedBy === undefined ? {} : { stoppedBy: c.stoppedBy }),
      states: c.states,
      transitions: c.transitions,
      depth: c.depth,
      levels: c.levels,
      durationMs: Math.round(c.durationMs),
      cpuMs: Math.round(c.cpuMs),
      bytesPerState: Math.round(c.bytesPerState * 10) / 10,
      collisionProbability: c.collisionProbability,
      boundaries: c.boundaries,
      ...(c.differential === undefined ? {} : { differential: c.differential }),
      counterexample:
        c.counterexample === null
          ? null
          : {
              kind: c.counterexample.kind,
              invariant: c.counterexample.invariant ?? null,
              message: c.counterexample.message,
              steps: c.counterexample.path.length,
              path: c.counterexample.path,
            },
    })),
    notRun: result.notRun,
    story: result.story,
    coverage: result.coverage.items,
    report: { dir: files.dir, ...(files.artifact === undefined ? {} : { artifact: files.artifact }) },
  };
}

/** The option table of `jobcheck explore`. */
const EXPLORE_OPTIONS = {
  ...TARGET_OPTIONS,
  jobs: { type: 'string' },
  accounts: { type: 'string' },
  workers: { type: 'string' },
  keys: { type: 'string' },
  amounts: { type: 'string' },
  lifetimes: { type: 'string' },
  horizon: { type: 'string' },
  configs: { type: 'string' },
  'no-restarts': { type: 'boolean' },
  'no-probes': { type: 'boolean' },
  'no-symmetry': { type: 'boolean' },
  'max-states': { type: 'string' },
  'time-limit': { type: 'string' },
  threads: { type: 'string' },
  report: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Runs `jobcheck explore`; returns the exit code. Throws UsageError or SetupError for exit code 2. */
export async function exploreCommand(argv: readonly string[], io: CliIO): Promise<number> {
  const read = readFlags('explore', argv, EXPLORE_OPTIONS, EXPLORE_FLAGS);
  if (read.help) {
    io.stdout.write(EXPLORE_USAGE);
    return 0;
  }
  const values = read.flags;
  const parts = partsOf(values);
  const maxStates = values['max-states'];
  const threads = values.threads;
  const timeLimitMs = values['time-limit'];
  const chosen = chosenTarget(values);
  const dir = values.report;
  await prepareReportDir('explore', dir);
  const budget = new Budget(timeLimitMs);
  let target: Target | undefined;
  try {
    if (chosen) {
      const { preflight, resolveTarget } = await import('./target.ts');
      target = await resolveTarget('explore', { ...values, budget }, io);
      const first = exploreConfig(parts[0]?.configs[0] ?? '') ?? EXPLORE_CONFIGS[0];
      if (first !== undefined) await preflight(target, first.config);
    }
    let result: ExploreResult;
    try {
      result = await explore({
        parts,
        maxStates,
        budget,
        threads,
        ...(target === undefined ? {} : { factory: target.warmFactory ?? target.factory }),
      });
    } catch (error) {
      if (error instanceof RangeError) throw new UsageError(`explore: ${error.message}`);
      throw error;
    }
    const name = target?.name ?? 'the model alone';
    const run = result.configs.find((c) => c.counterexample?.run !== undefined)?.counterexample?.run;
    const files: { dir: string; artifact?: string } = { dir };
    try {
      await writeCoverageReport(dir, result.coverage, { title: `Exploration coverage: ${name}` });
      if (run !== undefined && run.steps.length > 0 && run.divergence !== null) {
        const { toArtifact, writeArtifact } = await import('../conformance/lockstep/artifact.ts');
        files.artifact = await writeArtifact(dir, { ...toArtifact(run), foundAgainst: name }, 'failure.json');
      }
    } catch (error) {
      throw outputError('explore', 'the report', dir, error);
    }
    if (files.artifact !== undefined) files.artifact = join(dir, 'failure.json');
    io.stdout.write(
      values.json === true
        ? `${jsonText(exploreJson(result, name, files), 2)}\n`
        : terminalBlock(renderExploreText(result, name, files, target?.flags)),
    );
    return result.verdict === 'complete' ? 0 : result.verdict === 'incomplete' ? EXIT_INCOMPLETE : 1;
  } finally {
    budget.dispose();
    await target?.close();
  }
}
