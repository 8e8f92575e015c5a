/** The machine-readable result of `jobcheck check` (what `--json` prints), in the format of cli/checkJsonSchema.ts. */
import type { CheckReport } from '../../conformance/check/index.ts';
import type { ConcurrentCampaignResult } from '../../conformance/concurrent/result.ts';
import { COVERAGE_CATEGORIES, categorySummary } from '../../conformance/coverage/coverage.ts';
import { CLIPPED, clipText } from '../../contract/index.ts';
import { CHECK_JSON_FORMAT, MAX_IMPLEMENTATION_CHARS } from '../checkJsonSchema.ts';
import type { CheckResultJson } from '../checkJsonSchema.ts';
import type { CheckContext } from './context.ts';
import { renderFailure } from './failure.ts';
import type { ReportFiles } from './files.ts';
import { requestsOf } from './phaseLines.ts';
import { repeatCommands } from './reproduce.ts';
import { restoreKinds } from './phaseText.ts';
import type { RestorePhaseResult } from '../../conformance/restore/index.ts';

/** The machine-readable result of a check (what `--json` prints). Pure. */
export function checkJson(report: CheckReport, ctx: CheckContext, files?: ReportFiles): CheckResultJson {
  const f = report.failure;
  const c = report.campaign;
  const r = report.phases.restarts;
  const reproduce = f === null ? undefined : repeatCommands(f, report.campaign.path, ctx).reproduce;
  return {
    format: CHECK_JSON_FORMAT,
    verdict: report.verdict,
    notAPass: report.notAPass,
    notExercised: report.notExercised.map((n) => ({ phase: n.phase, reason: n.reason })),
    stoppedByTimeLimit: report.stoppedByTimeLimit,
    stoppedByFailFast: report.stoppedByFailFast,
    stops: report.stops.map((s) => ({ phase: s.phase, reason: s.reason, note: s.note })),
    concurrentWhen: report.concurrentWhen,
    target: ctx.target,
    // Clipped to what the schema accepts, the `...` that marks the cut included: the tool reads back its own output.
    ...(ctx.implementation === undefined
      ? {}
      : { implementation: clipText(ctx.implementation, MAX_IMPLEMENTATION_CHARS - CLIPPED.length) }),
    seed: ctx.seed,
    runs: ctx.runs,
    shard: report.shard === null ? null : { index: report.shard.index, count: report.shard.count },
    durationMs: Math.round(report.durationMs),
    firstDivergenceMs: report.firstDivergenceMs === null ? null : Math.round(report.firstDivergenceMs),
    phases: {
      fixturesMs: Math.round(report.phases.fixturesMs),
      restoreMs: Math.round(report.phases.restoreMs),
      pathsMs: Math.round(report.phases.pathsMs),
      campaignMs: Math.round(report.phases.campaignMs),
      shrinkMs: Math.round(report.phases.shrinkMs),
      exploreMs: Math.round(report.phases.exploreMs),
      concurrentMs: Math.round(report.phases.concurrentMs),
      restarts:
        r === null
          ? null
          : {
              ...r,
              coldMs: Math.round(r.coldMs),
              warmMs: Math.round(r.warmMs),
              ...(r.crashMs === undefined ? {} : { crashMs: Math.round(r.crashMs) }),
            },
      parallel: report.phases.parallel,
    },
    ...(ctx.timeLimitMs === undefined ? {} : { timeLimitMs: ctx.timeLimitMs }),
    fixtures: {
      total: report.fixtures.length + report.fixturesNotRun.length,
      failed: report.fixtures
        .filter((x) => !x.result.ok)
        .map((x) => ({ name: x.fixture.name, message: x.result.ok ? '' : x.result.message })),
      notRun: [...report.fixturesNotRun],
    },
    restore: report.restore === null ? null : restoreJson(report.restore),
    paths: {
      total: report.paths.outcomes.length + report.paths.notRun.length,
      failed: report.paths.failures.map((x) => x.path.name),
      notRun: report.paths.notRun.map((x) => x.name),
    },
    exploration:
      report.exploration === null
        ? null
        : {
            verdict: report.exploration.verdict,
            states: report.exploration.states,
            transitions: report.exploration.transitions,
            configs: report.exploration.configs.map((x) => ({
              part: x.part,
              name: x.name,
              verdict: x.verdict,
              states: x.states,
              transitions: x.transitions,
            })),
            notRun: [...report.exploration.notRun],
          },
    campaign: {
      verdict: c.verdict,
      runsPlanned: c.runsPlanned,
      stoppedByTimeLimit: c.stoppedByTimeLimit,
      runs: c.runs,
      commands: c.commands,
      commandsDiscarded: c.commandsDiscarded,
      commandsToFirstFailure: c.commandsToFirstFailure,
      firstFailureMs: c.firstFailureMs === null ? null : Math.round(c.firstFailureMs),
      path: c.path,
      firstFailureLength: c.firstFailureLength,
      storyLength: c.counterexample?.steps.length ?? null,
      shrinks: c.shrinks,
      durationMs: Math.round(c.durationMs),
      shrinkMs: Math.round(c.shrinkMs),
    },
    concurrent: report.concurrent === null ? null : concurrentJson(report.concurrent),
    failure:
      f === null
        ? null
        : {
            source: f.source,
            name: f.name,
            steps: f.steps,
            story: renderFailure(f, report, ctx, files),
            ...(files?.artifact === undefined ? {} : { artifact: files.artifact }),
            ...(reproduce === undefined ? {} : { reproduce }),
          },
    coverage: Object.fromEntries(
      COVERAGE_CATEGORIES.map((cat) => [cat, categorySummary(report.coverage, cat)]),
    ) as CheckResultJson['coverage'],
    ...(files === undefined ? {} : { report: files }),
  };
}

/** Most failing snapshots the --json output lists. */
const MAX_RESTORE_FAILED = 100;

/** The restore phase in the --json output. Pure. */
function restoreJson(r: RestorePhaseResult): NonNullable<CheckResultJson['restore']> {
  return {
    verdict: r.verdict,
    snapshots: r.outcomes.length + r.notRun.length,
    offered: r.outcomes.length,
    refused: r.outcomes.filter((o) => o.ok).length,
    kinds: restoreKinds(r).map((k) => ({ ...k })),
    failed: r.outcomes
      .filter((o) => !o.ok)
      .slice(0, MAX_RESTORE_FAILED)
      .map((o) => ({
        name: o.snapshot.name,
        answer: o.seen.answer,
        ...(o.seen.answer === 'refused' ? { code: clipText(o.seen.code, 100) } : {}),
        changed: o.changed !== undefined,
      })),
    notExercised: r.notExercised,
    durationMs: Math.round(r.durationMs),
  };
}

/** The concurrent campaign in the --json output. Pure. */
function concurrentJson(r: ConcurrentCampaignResult): NonNullable<CheckResultJson['concurrent']> {
  return {
    verdict: r.verdict,
    workers: r.workers,
    runsPlanned: r.runsPlanned,
    runs: r.runs,
    histories: r.histories,
    unknownRuns: r.unknownRuns,
    overlap: { ...r.overlap, kinds: { ...r.overlap.kinds } },
    notExercised: r.notExercised,
    path: r.path,
    firstFailureRequests: r.firstFailureRequests,
    storyRequests: requestsOf(r),
    shrinks: r.shrinks,
    durationMs: Math.round(r.durationMs),
  };
}
