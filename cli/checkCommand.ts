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
import { SetupError, UsageError, choiceFlag, durationFlag, intFlag, parseCommandArgs } from './args.ts';
import { outputError, prepareOutputFile, prepareReportDir, writeOutput } from './outputs.ts';
import { CONCURRENT_WHEN, CheckBudget, runCheck } from '../conformance/check/index.ts';
import type { CheckPhaseEnd } from '../conformance/check/index.ts';
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
import { TARGET_USAGE, preflight, replyTimeoutFlag, resolveTarget } from './target.ts';
import { MAX_PARALLEL } from '../conformance/parallel.ts';
import { MAX_COMMANDS, MAX_RUNS, checkCampaignPlan, parsePath, shardRuns } from '../conformance/random/campaign.ts';
import type { CampaignShard } from '../conformance/random/campaign.ts';
import { MAX_CONCURRENT_RUNS, checkConcurrentPath } from '../conformance/concurrent/pathCheck.ts';
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
/** Default scenarios of the concurrent campaign. */
export const DEFAULT_CONCURRENT_RUNS = 100;

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
                       (refused, before any work, when it names no run of the seed)
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
  --concurrent-runs <n>  scenarios of the concurrent campaign, 1 to ${MAX_CONCURRENT_RUNS} (default ${DEFAULT_CONCURRENT_RUNS})
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

/** Parses `--shard i/n` (1 <= i <= n <= MAX_SHARDS). */
function shardFlag(value: string | undefined): CampaignShard | undefined {
  if (value === undefined) return undefined;
  const m = /^(\d{1,9})\/(\d{1,9})$/.exec(value);
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (m === null || index < 1 || index > count || count > MAX_SHARDS)
    throw new UsageError(
      `check: --shard must be i/n with 1 <= i <= n <= ${MAX_SHARDS}, e.g. 2/3 (got ${JSON.stringify(value)})`,
    );
  return { index, count };
}

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

/** Most parts `--shard` splits a check into. */
export const MAX_SHARDS = 1000;

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
  const { values } = parseCommandArgs('check', argv, CHECK_OPTIONS, false);
  if (values.help === true) {
    io.stdout.write(CHECK_USAGE);
    return 0;
  }
  // Every number is bounded before any work: a flag too large for memory or time is refused, not tried.
  const runs = intFlag('check', 'runs', values.runs, DEFAULT_RUNS, 1, MAX_RUNS);
  if (values.path !== undefined && values.seed === undefined)
    throw new UsageError('check: --path needs the --seed it was found with');
  if (values.path !== undefined && !/^\d+(:\d+)*$/.test(values.path))
    throw new UsageError(`check: --path must look like 3:0:1 (got ${JSON.stringify(values.path.slice(0, 60))})`);
  const shard = shardFlag(values.shard);
  const workers = intFlag('check', 'workers', values.workers, 1, 1, MAX_WORKERS);
  const concurrentRuns = intFlag(
    'check',
    'concurrent-runs',
    values['concurrent-runs'],
    DEFAULT_CONCURRENT_RUNS,
    1,
    MAX_CONCURRENT_RUNS,
  );
  const concurrentPath = values['concurrent-path'];
  if (concurrentPath !== undefined) {
    if (values.seed === undefined || workers < 2)
      throw new UsageError('check: --concurrent-path needs the --seed and the --workers it was found with');
    if (!/^\d+(:\d+)*$/.test(concurrentPath))
      throw new UsageError(
        `check: --concurrent-path must look like 3:0:1 (got ${JSON.stringify(concurrentPath.slice(0, 60))})`,
      );
  }
  if (workers < 2 && values['concurrent-runs'] !== undefined)
    throw new UsageError('check: --concurrent-runs needs --workers 2 or more');
  const when = choiceFlag('check', 'concurrent', values.concurrent, CONCURRENT_WHEN);
  if (when !== undefined && workers < 2) throw new UsageError('check: --concurrent needs --workers 2 or more');
  if (when === 'only' && shard !== undefined && shard.index > 1)
    throw new UsageError(
      `check: --concurrent only runs nothing in shard ${shard.index}/${shard.count}: the competing workers run in shard 1`,
    );
  if (shard !== undefined && values.path !== undefined)
    throw new UsageError('check: --path repeats one run of the whole campaign: leave out --shard');
  // A shard that holds no run would check nothing (shard 2/2 of one run), and call that a pass.
  if (shard !== undefined && shardRuns(runs, shard) === 0) {
    const needs = `part i needs --runs ${shard.index} or more`;
    throw new UsageError(
      `check: --shard ${shard.index}/${shard.count} holds no run of a campaign of ${runs} (${needs})`,
    );
  }
  const seed = intFlag('check', 'seed', values.seed, (Date.now() ^ (Math.random() * 0x100000000)) | 0);
  const maxCommands =
    values['max-commands'] === undefined
      ? undefined
      : intFlag('check', 'max-commands', values['max-commands'], 40, 1, MAX_COMMANDS);
  // Paths are bounded (a run index below --runs when given, else below its largest value), then
  // walked against what the seed generates: one that names no run is refused here, before any work.
  try {
    if (values.path !== undefined) parsePath(values.path, values.runs === undefined ? MAX_RUNS : runs, '--path');
    const scenarios = values['concurrent-runs'] === undefined ? MAX_CONCURRENT_RUNS : concurrentRuns;
    if (concurrentPath !== undefined) parsePath(concurrentPath, scenarios, '--concurrent-path');
    const planned = {
      runs,
      seed,
      what: '--path',
      ...(maxCommands === undefined ? {} : { maxCommands }),
      ...(shard === undefined ? {} : { shard }),
    };
    await checkCampaignPlan({ ...planned, ...(values.path === undefined ? {} : { path: values.path }) });
  } catch (error) {
    throw asUsageError(error);
  }
  const timeout = replyTimeoutFlag('check', values.timeout);
  const timeLimitMs = durationFlag(
    'check',
    'time-limit',
    values['time-limit'],
    DEFAULT_TIME_LIMIT_MS,
    1000,
    MAX_TIME_LIMIT_MS,
  );
  const parallel =
    values.parallel === undefined ? undefined : intFlag('check', 'parallel', values.parallel, 1, 1, MAX_PARALLEL);
  const dir = values.report ?? DEFAULT_REPORT_DIR;
  const keepRuns = intFlag('check', 'keep-runs', values['keep-runs'], DEFAULT_KEEP_RUNS, 1, MAX_KEEP_RUNS);
  const junit = values.junit;
  // Every destination is checked before any work, so that a bad one costs nothing.
  await prepareReportDir('check', dir, { runs: { runsDir: RUNS_DIR, latestFile: LATEST_FILE } });
  if (junit !== undefined) await prepareOutputFile('check', 'the JUnit file', junit);
  const startedAt = new Date();
  const run = await RunFolder.start(dir, startedAt).catch((error: Error) => {
    throw new SetupError(`check: cannot create the run's folder in ${dir}: ${error.message}`);
  });
  const outcome = {
    argv: ['check', ...argv],
    seed,
    version: JOBCHECK_VERSION,
    target: targetOfFlags(values),
    copies: REPORT_COPIES,
  };
  run.recordInterruption(outcome);
  let checked: Checked;
  try {
    checked = await checkInto(run);
  } catch (error) {
    // A usage error ran nothing: its folder goes. Anything else is a run that could not run, told in its folder.
    if (error instanceof UsageError) await run.discard().catch(() => undefined);
    else
      await run
        .finish(
          {
            ...outcome,
            verdict: 'error',
            exitCode: 2,
            headline: `The check could not run: ${error instanceof Error ? error.message : String(error)}`,
            durationMs: Date.now() - startedAt.getTime(),
            failure: null,
            error: error instanceof Error ? error.message : String(error),
          },
          keepRuns,
        )
        .catch(() => undefined);
    throw error;
  }
  const { report, ctx, files } = checked;
  const exitCode = exitCodeOfVerdict(report.verdict);
  const finished = await run
    .finish(
      {
        ...outcome,
        target: targetName(ctx.target, values.module),
        verdict: report.verdict,
        exitCode,
        headline: checkHeadline(report),
        durationMs: report.durationMs,
        failure: report.failure,
        ...(report.failure === null
          ? {}
          : {
              repeat: {
                ...repeatCommands(report.failure, report.campaign.path, ctx, files.artifact),
                again: checkAgainCommand(ctx),
              },
            }),
        phases: phaseSummary(report),
      },
      keepRuns,
    )
    .catch((error: Error) => {
      throw new SetupError(`check: cannot write the run's folder ${run.dir}: ${error.message}`);
    });
  const shown = { ...files, page: finished.page };
  const text =
    values.json === true
      ? `${jsonText(checkJson(report, ctx, shown), 2)}\n`
      : renderCheckText(report, ctx, shown, terminalColors(io.stdoutIsTTY === true));
  // What a log on stdout has written already is not written again: the summary goes on from it.
  io.stdout.write(checked.log?.stream === 'stdout' ? checked.log.log.rest(text) : text);
  return exitCode;

  /** Runs the check, its stderr going to the run's folder, and writes the report files and the JUnit file. */
  async function checkInto(run: RunFolder): Promise<Checked> {
    // A CheckBudget: the waits of a phase the check gives up (a timeout, --fail-fast) end at once too.
    const budget = new CheckBudget(timeLimitMs);
    const stderrSink = (source: string, line: string): void => run.stderr.line(source, line);
    // A check that cannot start (exit 2) still writes its JUnit file: one error case, so that the CI page says why.
    const target = await resolveTarget('check', { ...values, timeout, budget, parallel, stderrSink }, io).catch(
      async (error: unknown) => {
        budget.dispose();
        await writeSetupJunit(junit, error, 'check', startedAt);
        throw error;
      },
    );
    try {
      if (concurrentPath !== undefined && workers >= 2) {
        // Whether the target's factory can pause shapes the path (fast-check's scheduler is part of it).
        const named = {
          factory: target.concurrentFactory,
          workers,
          seed,
          path: concurrentPath,
          what: '--concurrent-path',
        };
        await checkConcurrentPath(named).catch((error: unknown) => {
          throw asUsageError(error);
        });
      }
      const implementation = await preflight(target, PATH_CONFIG).catch(async (error: unknown) => {
        await writeSetupJunit(junit, error, target.name, startedAt);
        throw error;
      });
      const ctx: CheckContext = {
        target: target.name,
        flags: target.flags,
        implementation,
        seed,
        runs,
        timeLimitMs,
        ...(maxCommands === undefined ? {} : { maxCommands }),
        ...(shard === undefined ? {} : { shard }),
        ...(workers < 2 ? {} : { workers }),
      };
      // Without a terminal, the summary is written as it becomes known (a CI log is never silent
      // for the length of the check): on stdout, or, when stdout carries --json, on stderr.
      const log = phaseLogOf(values.json === true, io);
      log?.log.start(checkHeader(ctx));
      const progress = progressLine(io.isTTY && log?.stream !== 'stdout');
      const report = await runCheck(target, {
        runs,
        seed,
        budget,
        noExplore: values['no-explore'] === true,
        noRestore: values['no-restore'] === true,
        failFast: values['fail-fast'] === true,
        ...(maxCommands === undefined ? {} : { maxCommands }),
        ...(values.path === undefined ? {} : { path: values.path }),
        ...(shard === undefined ? {} : { shard }),
        ...(workers < 2
          ? {}
          : {
              concurrent: {
                workers,
                runs: concurrentRuns,
                ...(concurrentPath === undefined ? {} : { path: concurrentPath }),
                ...(timeout === undefined ? {} : { timeoutMs: timeout }),
                ...(when === undefined ? {} : { when }),
              },
            }),
        onProgress: (p) => progress.update(p),
        ...(log === undefined ? {} : { onPhaseEnd: (end: CheckPhaseEnd) => log.log.end(end) }),
      }).finally(() => progress.stop());
      const files = await writeReportFiles(dir, report, ctx).catch((error: unknown) => {
        throw outputError('check', 'the report', dir, error);
      });
      if (junit !== undefined) {
        await writeOutput('check', 'the JUnit file', junit, checkJunit(report, ctx, startedAt));
      }
      return { report, ctx, files, log };
    } finally {
      budget.dispose();
      await target.close();
    }
  }
}

/** Most run folders `--keep-runs` keeps. */
export const MAX_KEEP_RUNS = 10_000;

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
