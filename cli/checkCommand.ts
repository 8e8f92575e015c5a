/**
 * `jobcheck check`: parses the flags, builds the target (cli/target.ts), runs the engine's one
 * check on it (conformance/check/runCheck.ts: fixture stories, restore, path suite, random
 * campaign, exploration, competing workers), and renders the report (cli/output/): prints the
 * verdict, the shortest failure story and a coverage summary (without a terminal, written as each
 * phase ends: progress.ts, PhaseLog); writes the failure artifact and coverage reports to the
 * report directory. Exit code 0 agree, 1 diverge, 2 usage or setup error, 3 incomplete.
 */
import { isAbsolute, relative } from 'node:path';
import { jsonText } from '../conformance/outside/outsideText.ts';
import { PATH_CONFIG } from '../conformance/paths/lifecyclePaths.ts';
import type { CliIO } from './args.ts';
import { z } from 'zod';
import type { FlagRule } from './args.ts';
import {
  SetupError,
  UsageError,
  choiceFlag,
  durationFlag,
  flagValue,
  intFlag,
  pathFlag,
  readFlags,
  seedFlag,
  withRules,
} from './args.ts';
import { outputError, prepareOutputFile, prepareReportDir, writeOutput } from './outputs.ts';
import {
  CONCURRENT_WHEN,
  CheckBudget,
  DEFAULT_CONCURRENT_PERTURBATIONS,
  runCheck,
} from '../conformance/check/index.ts';
import type { CheckOptions, CheckPhaseEnd } from '../conformance/check/index.ts';
import {
  checkAgainCommand,
  checkHeader,
  checkJson,
  phaseSummary,
  renderCheckText,
  repeatCommands,
  terminalColors,
  writeReportFiles,
} from './output/index.ts';
import type { CheckContext } from './output/index.ts';
import { checkJunit, setupErrorJunit } from './junit.ts';
import { PhaseLog, progressLine } from './progress.ts';
import { TARGET_FLAGS, TARGET_USAGE, preflight, resolveTarget } from './target.ts';
import type { Target } from './target.ts';
import { MAX_PARALLEL } from '../conformance/parallel.ts';
import { MAX_COMMANDS, MAX_RUNS, parsePath, shardRuns } from '../conformance/random/campaign.ts';
import type { CampaignShard } from '../conformance/random/campaign.ts';
import { MAX_CONCURRENT_RUNS } from '../conformance/concurrent/pathCheck.ts';
import { ConformanceError } from '../conformance/errors.ts';
import { RunFolder } from './report/runFolder.ts';
import type { RunOutcome } from './report/runFolder.ts';
import { DEFAULT_KEEP_RUNS, DEFAULT_REPORT_DIR, LATEST_FILE, RUNS_DIR } from './report/runHistory.ts';
import { checkHeadline } from './report/checkHeadline.ts';
import { JOBCHECK_VERSION } from './report/version.ts';
import { CHECK_OPTIONS } from './checkFlags.ts';

/** Default number of random runs. */
export const DEFAULT_RUNS = 300;
// The default report directory is where `jobcheck report --list` looks too, which loads none of the engine.
export { DEFAULT_REPORT_DIR } from './report/runHistory.ts';
// The time limits and EXIT_INCOMPLETE live apart (limits.ts), so that other commands read them without loading the check.
import { DEFAULT_TIME_LIMIT_MS, EXIT_INCOMPLETE, MAX_TIME_LIMIT_MS } from './limits.ts';
export { DEFAULT_TIME_LIMIT_MS, EXIT_INCOMPLETE, MAX_TIME_LIMIT_MS } from './limits.ts';

/** The exit code of a check's verdict, as `jobcheck check` (and `jobcheck merge`) exits: 0 agree, 1 diverge, 3 incomplete. Pure. */
export const exitCodeOfVerdict = (verdict: 'agree' | 'diverge' | 'incomplete'): number =>
  verdict === 'agree' ? 0 : verdict === 'diverge' ? 1 : EXIT_INCOMPLETE;
/** Most worker lanes `--workers` accepts. */
export const MAX_WORKERS = 16;
/** Default scenarios of the concurrent campaign: the least, more while DEFAULT_CONCURRENT_MORE_MS allows. */
export const DEFAULT_CONCURRENT_RUNS = 100;
/** Without --concurrent-runs, new scenarios are run (up to MAX_CONCURRENT_RUNS) while the campaign has run less than this (docs/concurrency-bench.md). */
export const DEFAULT_CONCURRENT_MORE_MS = 10_000;
/** Most send-time perturbations of a concurrent scenario (each a rerun with other send times; docs/concurrency-bench.md). */
export const CONCURRENT_PERTURBATIONS = DEFAULT_CONCURRENT_PERTURBATIONS;
/** The concurrent campaign's options as the check gives them when no flag says otherwise (runConcurrentCampaign's names). */
export const CHECK_CONCURRENT_DEFAULTS = {
  numRuns: DEFAULT_CONCURRENT_RUNS,
  moreRunsWithinMs: DEFAULT_CONCURRENT_MORE_MS,
  perturbations: CONCURRENT_PERTURBATIONS,
} as const;

/** Usage text of `jobcheck check`. */
export const CHECK_USAGE = `Usage: jobcheck check (--impl "<command>" | --module <path> | --builtin | --broken <name>) [options]

Checks an implementation against the reference model: the fixture stories, the restore phase
(snapshots no store could have written, each to be refused), the path suite, a random differential
campaign, a small exhaustive exploration and, with --workers, a concurrent campaign of competing
workers checked for linearizability. Prints the verdict, the shortest failure story and a coverage
summary (without a terminal, each phase's line as it ends); writes the failure artifact and the
coverage reports to the report directory.
Exit code: 0 agree, 1 diverge, 2 usage or setup error, 3 incomplete with nothing diverging so far
(not a pass): stopped by the time limit, a concurrent history the checker could not decide, or a
phase that exercised nothing (--workers against an implementation that takes one request at a time).

${TARGET_USAGE}
Options:
  --time-limit <s>     time limit of the whole check, in seconds or with a unit: 90, 90s, 10m
                       (default ${DEFAULT_TIME_LIMIT_MS / 60_000}m); what ran by then is reported, marked as stopped
  --runs <n>           random runs, 1 to ${MAX_RUNS} (default ${DEFAULT_RUNS})
  --seed <n>           seed of the random campaign (default: random; printed, so a run can be repeated)
  --path <path>        with --seed: run only the campaign's counterexample at this fast-check path
                       (refused before any phase runs when it names no run of the seed)
  --max-commands <n>   most commands per random run, 1 to ${MAX_COMMANDS} (default 40)
  --parallel <n>       stores checked at once, each on its own implementation (default for --impl: one
                       per core, 2 to 4; 1 otherwise; at most ${MAX_PARALLEL}); the verdict and the story do not depend on it
  --shard <i/n>        run part i of n of the campaign (runs i, i+n, i+2n, ...; the fixture
                       stories, paths and exploration in part 1): n CI jobs with one --seed and
                       --runs check one campaign; jobcheck coverage adds up their coverage.json
  --no-explore         leave out the exploration phase (for an implementation too slow for it)
  --no-restore         leave out the restore phase (invalid snapshots, each to be refused): for a
                       module whose adapter has no restoreFrom, which otherwise leaves it NOT EXERCISED
  --workers <n>        also run a concurrent campaign of n competing worker lanes, 2 to ${MAX_WORKERS}, each history
                       checked for linearizability against the model (default 1: none); --impl is
                       offered jobcheck/2, a module is driven through its createConcurrentAdapter
                       export; a jobcheck/1 process or a module without it gets one request at a time
  --concurrent-runs <n>  scenarios of the concurrent campaign, 1 to ${MAX_CONCURRENT_RUNS} (default: at least ${DEFAULT_CONCURRENT_RUNS},
                       more while the campaign has run less than ${DEFAULT_CONCURRENT_MORE_MS / 1000} s)
  --concurrent-path <path>  with --seed and --workers: the concurrent campaign runs only its counterexample
                       at this path (the other phases run as usual; refused when it names no scenario)
  --concurrent <when>  with --workers: when the competing workers run: last (default, after the
                       exploration), first (before the fixture stories) or only (nothing else runs)
  --fail-fast          stop at the first divergence of any phase: its story is told (a campaign's
                       still shrunk), the verdict is DIVERGE, and what came after is reported not run
  --report <dir>       where to write failure.json and coverage.{json,md,html} (default ${DEFAULT_REPORT_DIR});
                       each run also gets a folder runs/<time>-<verdict>/ there with its page, index.html,
                       and the implementation's stderr, and latest links to the newest (jobcheck report --list)
  --keep-runs <n>      run folders kept in the report directory, the oldest deleted first (default ${DEFAULT_KEEP_RUNS})
  --junit <file>       also write JUnit XML (one test case per fixture, per kind of refusal of the
                       restore phase, per path, for the campaign and per explored config)
  --json               print the result as JSON instead of text
  -h, --help           show this text
`;

/** Most parts `--shard` splits a check into. */
export const MAX_SHARDS = 1000;
/** Most run folders `--keep-runs` keeps. */
export const MAX_KEEP_RUNS = 10_000;

/** `--shard i/n` (1 <= i <= n <= MAX_SHARDS). */
const shardFlag = flagValue(
  'shard',
  z.string().transform((value, ctx): CampaignShard => {
    const m = /^(\d{1,9})\/(\d{1,9})$/.exec(value);
    const index = Number(m?.[1]);
    const count = Number(m?.[2]);
    if (m !== null && index >= 1 && index <= count && count <= MAX_SHARDS) return { index, count };
    ctx.addIssue({ code: 'custom', message: `must be i/n with 1 <= i <= n <= ${MAX_SHARDS}, e.g. 2/3` });
    return z.NEVER;
  }),
);

/** The values of the flags of `jobcheck check`, each bounded before any work: a flag too large for memory or time is refused, not tried. */
const CHECK_FLAG_VALUES = z.object({
  ...TARGET_FLAGS,
  runs: intFlag('runs', 1, MAX_RUNS).optional(),
  seed: seedFlag.optional(),
  path: pathFlag('path', 60).optional(),
  'max-commands': intFlag('max-commands', 1, MAX_COMMANDS).optional(),
  report: z.string().default(DEFAULT_REPORT_DIR),
  junit: z.string().optional(),
  json: z.boolean().optional(),
  'time-limit': durationFlag('time-limit', 1000, MAX_TIME_LIMIT_MS).default(DEFAULT_TIME_LIMIT_MS),
  parallel: intFlag('parallel', 1, MAX_PARALLEL).optional(),
  'no-explore': z.boolean().optional(),
  'no-restore': z.boolean().optional(),
  shard: shardFlag.optional(),
  workers: intFlag('workers', 1, MAX_WORKERS).default(1),
  'concurrent-runs': intFlag('concurrent-runs', 1, MAX_CONCURRENT_RUNS).optional(),
  'concurrent-path': pathFlag('concurrent-path', 60).optional(),
  concurrent: choiceFlag('concurrent', CONCURRENT_WHEN).optional(),
  'fail-fast': z.boolean().optional(),
  'keep-runs': intFlag('keep-runs', 1, MAX_KEEP_RUNS).default(DEFAULT_KEEP_RUNS),
  help: z.boolean().optional(),
});

/** A path's run index past the runs its flag says, when that flag is given (parsePath's bounds); undefined otherwise. */
function pastRuns(flag: string, path: string | undefined, runs: number | undefined): string | undefined {
  if (path === undefined || runs === undefined) return undefined;
  try {
    parsePath(path, runs, flag);
    return undefined;
  } catch (error) {
    if (error instanceof ConformanceError) return `${error.message} (${error.code})`;
    throw error;
  }
}

/**
 * The relations between the flags of `jobcheck check`, in the order they are told. The plan itself
 * (paths against what the seed generates, a shard that holds a run) is runCheck's to check.
 */
const CHECK_FLAG_RULES: readonly FlagRule<z.output<typeof CHECK_FLAG_VALUES>>[] = [
  (f) => (f.path !== undefined && f.seed === undefined ? '--path needs the --seed it was found with' : undefined),
  (f) =>
    f['concurrent-path'] !== undefined && (f.seed === undefined || f.workers < 2)
      ? '--concurrent-path needs the --seed and the --workers it was found with'
      : undefined,
  (f) =>
    f.workers < 2 && f['concurrent-runs'] !== undefined ? '--concurrent-runs needs --workers 2 or more' : undefined,
  (f) => (f.concurrent !== undefined && f.workers < 2 ? '--concurrent needs --workers 2 or more' : undefined),
  (f) =>
    f.concurrent === 'only' && f.shard !== undefined && f.shard.index > 1
      ? `--concurrent only runs nothing in shard ${f.shard.index}/${f.shard.count}: the competing workers run in shard 1`
      : undefined,
  (f) =>
    f.shard !== undefined && f.path !== undefined
      ? '--path repeats one run of the whole campaign: leave out --shard'
      : undefined,
  // A shard that holds no run would check nothing (shard 2/2 of one run), and call that a pass.
  (f) =>
    f.shard !== undefined && shardRuns(f.runs ?? DEFAULT_RUNS, f.shard) === 0
      ? `--shard ${f.shard.index}/${f.shard.count} holds no run of a campaign of ${f.runs ?? DEFAULT_RUNS} (part i needs --runs ${f.shard.index} or more)`
      : undefined,
  (f) => pastRuns('--path', f.path, f.runs),
  (f) => pastRuns('--concurrent-path', f['concurrent-path'], f['concurrent-runs']),
];

/** The flags of `jobcheck check`, read: values bounded, relations kept, defaults filled in. */
const CHECK_FLAGS = withRules(CHECK_FLAG_VALUES, CHECK_FLAG_RULES).transform((f) => ({
  ...f,
  runs: f.runs ?? DEFAULT_RUNS,
  seed: f.seed ?? randomSeed(),
  'concurrent-runs': f['concurrent-runs'] ?? DEFAULT_CONCURRENT_RUNS,
  // Without --concurrent-runs, more scenarios while time allows; with it, exactly that many.
  'concurrent-more': f['concurrent-runs'] === undefined,
}));
type CheckFlags = z.output<typeof CHECK_FLAGS>;

/** A seed for a check given none. Impure: reads the clock and Math.random. */
const randomSeed = (): number => (Date.now() ^ (Math.random() * 0x100000000)) | 0;

/** Writes the JUnit file of a check that could not start, if one was asked for and the error is a setup or usage error. */
async function writeSetupJunit(
  file: string | undefined,
  error: unknown,
  target: string,
  startedAt: Date,
): Promise<void> {
  if (file === undefined || !(error instanceof SetupError || error instanceof UsageError)) return;
  await writeOutput(
    'check',
    'the JUnit file',
    file,
    setupErrorJunit(error.message.replace(/\s*\n\s*/g, ' '), target, startedAt),
  ).catch(() => undefined);
}

/**
 * A refusal of the engine's plan check (a path that names nothing, a shard without runs) told as
 * a usage error (exit code 2); any other error unchanged. Pure.
 */
function asUsageError(error: unknown): unknown {
  if (!(error instanceof ConformanceError) || (error.code !== 'invalid_path' && error.code !== 'invalid_campaign'))
    return error;
  return new UsageError(`check: ${error.message} (${error.code})`);
}

/** Runs `jobcheck check`; returns the exit code. Throws UsageError or SetupError for exit code 2. */
export async function checkCommand(argv: readonly string[], io: CliIO): Promise<number> {
  const read = readFlags('check', argv, CHECK_OPTIONS, CHECK_FLAGS);
  if (read.help) {
    io.stdout.write(CHECK_USAGE);
    return 0;
  }
  const flags = read.flags;
  // Every destination is checked before any work, so that a bad one costs nothing.
  await prepareReportDir('check', flags.report, { runs: { runsDir: RUNS_DIR, latestFile: LATEST_FILE } });
  if (flags.junit !== undefined) await prepareOutputFile('check', 'the JUnit file', flags.junit);
  const startedAt = new Date();
  const run = await RunFolder.start(flags.report, startedAt).catch((error: Error) => {
    throw new SetupError(`check: cannot create the run's folder in ${flags.report}: ${error.message}`);
  });
  const outcome = {
    argv: ['check', ...argv],
    seed: flags.seed,
    version: JOBCHECK_VERSION,
    target: targetOfFlags(flags),
    copies: REPORT_COPIES,
  };
  run.recordInterruption(outcome);
  const checked = await checkInto(run, flags, io, startedAt).catch(async (error: unknown) => {
    await recordFailedStart(run, outcome, error, flags['keep-runs'], startedAt);
    throw error;
  });
  const page = await finishRun(run, outcome, checked, flags);
  const shown = { ...checked.files, page };
  const { report, ctx } = checked;
  const text =
    flags.json === true
      ? `${jsonText(checkJson(report, ctx, shown), 2)}\n`
      : renderCheckText(report, ctx, shown, terminalColors(io.stdoutIsTTY === true));
  // What a log on stdout has written already is not written again: the summary goes on from it.
  io.stdout.write(checked.log?.stream === 'stdout' ? checked.log.log.rest(text) : text);
  return exitCodeOfVerdict(report.verdict);
}

/** What a run's folder records of every run: its command line, seed, version, target and copies. */
type RunStart = Pick<RunOutcome, 'argv' | 'seed' | 'version' | 'target' | 'copies'>;

/** A check that did not finish: a usage error ran nothing and its folder goes; anything else is a run that could not run, told in its folder. */
async function recordFailedStart(
  run: RunFolder,
  outcome: RunStart,
  error: unknown,
  keepRuns: number,
  startedAt: Date,
): Promise<void> {
  if (error instanceof UsageError) {
    await run.discard().catch(() => undefined);
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  const failed = {
    ...outcome,
    verdict: 'error' as const,
    exitCode: 2,
    headline: `The check could not run: ${message}`,
    durationMs: Date.now() - startedAt.getTime(),
    failure: null,
    error: message,
  };
  await run.finish(failed, keepRuns).catch(() => undefined);
}

/** Writes the finished check's run folder; returns its page. */
async function finishRun(run: RunFolder, outcome: RunStart, checked: Checked, flags: CheckFlags): Promise<string> {
  const { report, ctx, files } = checked;
  const repeat =
    report.failure === null
      ? {}
      : {
          repeat: {
            ...repeatCommands(report.failure, report.campaign.path, ctx, files.artifact),
            again: checkAgainCommand(ctx),
          },
        };
  const finished = await run
    .finish(
      {
        ...outcome,
        target: targetName(ctx.target, flags.module),
        verdict: report.verdict,
        exitCode: exitCodeOfVerdict(report.verdict),
        headline: checkHeadline(report),
        durationMs: report.durationMs,
        failure: report.failure,
        ...repeat,
        phases: phaseSummary(report),
      },
      flags['keep-runs'],
    )
    .catch((error: Error) => {
      throw new SetupError(`check: cannot write the run's folder ${run.dir}: ${error.message}`);
    });
  return finished.page;
}

/** Runs the check, its stderr going to the run's folder, and writes the report files and the JUnit file. */
async function checkInto(run: RunFolder, flags: CheckFlags, io: CliIO, startedAt: Date): Promise<Checked> {
  // A CheckBudget: the waits of a phase the check gives up (a timeout, --fail-fast) end at once too.
  const budget = new CheckBudget(flags['time-limit']);
  const target = await checkTarget(run, flags, io, budget, startedAt);
  try {
    const implementation = await preflight(target, PATH_CONFIG).catch(async (error: unknown) => {
      await writeSetupJunit(flags.junit, error, target.name, startedAt);
      throw error;
    });
    const ctx = contextOf(flags, target, implementation);
    // Without a terminal, the summary is written as it becomes known (a CI log is never silent
    // for the length of the check): on stdout, or, when stdout carries --json, on stderr.
    const log = phaseLogOf(flags.json === true, io);
    const progress = progressLine(io.isTTY && log?.stream !== 'stdout');
    const report = await runCheck(target, {
      ...checkOptionsOf(flags, budget),
      // The plan is checked (a path that names nothing is a usage error) before the summary starts.
      onStart: () => log?.log.start(checkHeader(ctx)),
      onProgress: (p) => progress.update(p),
      ...(log === undefined ? {} : { onPhaseEnd: (end: CheckPhaseEnd) => log.log.end(end) }),
    })
      .catch((error: unknown) => {
        throw asUsageError(error);
      })
      .finally(() => progress.stop());
    const files = await writeReportFiles(flags.report, report, ctx).catch((error: unknown) => {
      throw outputError('check', 'the report', flags.report, error);
    });
    if (flags.junit !== undefined)
      await writeOutput('check', 'the JUnit file', flags.junit, checkJunit(report, ctx, startedAt));
    return { report, ctx, files, log };
  } finally {
    budget.dispose();
    await target.close();
  }
}

/** The target of the flags, its stderr going to the run's folder; a check that cannot start (exit 2) still writes its JUnit file, one error case, so that the CI page says why. */
async function checkTarget(
  run: RunFolder,
  flags: CheckFlags,
  io: CliIO,
  budget: CheckBudget,
  startedAt: Date,
): Promise<Target> {
  const stderrSink = (source: string, line: string): void => run.stderr.line(source, line);
  return resolveTarget('check', { ...flags, budget, stderrSink }, io).catch(async (error: unknown) => {
    budget.dispose();
    await writeSetupJunit(flags.junit, error, 'check', startedAt);
    throw error;
  });
}

/** What the report says of the check it tells: the target, its flags, what it ran with. Pure. */
function contextOf(flags: CheckFlags, target: Target, implementation: CheckContext['implementation']): CheckContext {
  const maxCommands = flags['max-commands'];
  return {
    target: target.name,
    flags: target.flags,
    implementation,
    seed: flags.seed,
    runs: flags.runs,
    timeLimitMs: flags['time-limit'],
    ...(maxCommands === undefined ? {} : { maxCommands }),
    ...(flags.shard === undefined ? {} : { shard: flags.shard }),
    ...(flags.workers < 2 ? {} : { workers: flags.workers }),
  };
}

/** The engine's options of the check the flags ask for, the paths named as the flags name them. Pure. */
function checkOptionsOf(flags: CheckFlags, budget: CheckBudget): CheckOptions {
  const { path, shard, timeout, concurrent: when } = flags;
  const maxCommands = flags['max-commands'];
  const concurrentPath = flags['concurrent-path'];
  const concurrent = {
    workers: flags.workers,
    runs: flags['concurrent-runs'],
    ...(flags['concurrent-more'] ? { moreRunsWithinMs: DEFAULT_CONCURRENT_MORE_MS } : {}),
    perturbations: CONCURRENT_PERTURBATIONS,
    ...(concurrentPath === undefined ? {} : { path: concurrentPath }),
    ...(timeout === undefined ? {} : { timeoutMs: timeout }),
    ...(when === undefined ? {} : { when }),
  };
  return {
    runs: flags.runs,
    seed: flags.seed,
    budget,
    noExplore: flags['no-explore'] === true,
    noRestore: flags['no-restore'] === true,
    failFast: flags['fail-fast'] === true,
    names: { path: '--path', concurrentPath: '--concurrent-path' },
    ...(maxCommands === undefined ? {} : { maxCommands }),
    ...(path === undefined ? {} : { path }),
    ...(shard === undefined ? {} : { shard }),
    ...(flags.workers < 2 ? {} : { concurrent }),
  };
}

/** The files of the report directory a run's folder keeps a copy of, with what the page says they are. */
const REPORT_COPIES = [
  { href: 'coverage.html', label: 'the coverage page' },
  { href: 'coverage.md', label: 'its summary' },
  { href: 'failure.json', label: 'the story, for jobcheck replay' },
] as const;

/** A finished check before its run's folder is written. */
interface Checked {
  readonly report: Awaited<ReturnType<typeof runCheck>>;
  readonly ctx: CheckContext;
  readonly files: Awaited<ReturnType<typeof writeReportFiles>>;
  /** The log the summary was written to as the check ran, if it was. */
  readonly log: OpenLog | undefined;
}

/** A PhaseLog and where it writes. */
interface OpenLog {
  readonly log: PhaseLog;
  readonly stream: 'stdout' | 'stderr';
}

/**
 * The log of a check whose output is no terminal: the text summary on stdout when stdout is not a
 * terminal; with --json (stdout is the JSON), the same lines on stderr when stderr is not one.
 * Undefined on a terminal, where the progress line shows the check instead.
 */
function phaseLogOf(json: boolean, io: CliIO): OpenLog | undefined {
  if (!json)
    return io.stdoutIsTTY === true ? undefined : { log: new PhaseLog((t) => io.stdout.write(t)), stream: 'stdout' };
  return io.isTTY ? undefined : { log: new PhaseLog((t) => io.stderr.write(t)), stream: 'stderr' };
}

/** A module's path relative to the working directory, as run.json records targets; any other target as named. Pure but for the working directory. */
function targetName(name: string, module: string | undefined): string {
  return module !== undefined && isAbsolute(module) ? relative(process.cwd(), module) || '.' : name;
}

/** The target a run that could not start records: what its flags named. */
function targetOfFlags(values: {
  impl?: string | undefined;
  module?: string | undefined;
  builtin?: boolean | undefined;
  broken?: string | undefined;
}): RunOutcome['target'] {
  if (values.impl !== undefined) return values.impl.trim();
  if (values.module !== undefined) return targetName(values.module, values.module);
  if (values.broken !== undefined) return `broken/${values.broken}`;
  return values.builtin === true ? 'impl/JobStore' : '(none)';
}
