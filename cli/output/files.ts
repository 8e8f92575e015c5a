/**
 * The report directory of `jobcheck check`: the failure artifact (when the story replays) and the
 * coverage JSON, Markdown and HTML, whose page says what the check found and how much of it ran.
 * Only writeReportFiles touches the file system.
 */
import { toArtifact, writeArtifact } from '../../conformance/lockstep/artifact.ts';
import type { CheckReport } from '../../conformance/check/index.ts';
import type { CheckReportContext } from '../../conformance/coverage/coverageReport.ts';
import { writeCoverageReport } from '../../conformance/coverage/coverageFiles.ts';
import { renderTimeline } from '../../conformance/concurrent/timeline.ts';
import { makeOutputFolder } from '../../conformance/outside/outputFile.ts';
import type { CheckContext } from './context.ts';
import { renderFailure } from './failure.ts';
import { phaseSummary } from './text.ts';

/** Files written into the report directory. */
export interface ReportFiles {
  readonly dir: string;
  /** The failure artifact, when the check failed with a replayable story. */
  readonly artifact?: string;
  readonly coverageJson: string;
  readonly coverageMd: string;
  readonly coverageHtml: string;
  /** The run's page (index.html in its run folder, reached through `latest`), once the run's folder is written. */
  readonly page?: string;
}

/**
 * What the coverage page says about a check: its verdict, its story, each phase's line of the
 * summary (what it ran, or that it exercised nothing), and how much of it ran. The
 * check stopped early when the time limit stopped it, or when its campaign ended at the first
 * divergence with runs still planned: coverage at zero then means "not reached". Pure.
 */
export function reportContext(report: CheckReport, story: string | null): CheckReportContext {
  const phases = phaseSummary(report);
  const c = report.campaign;
  const pathsPlanned = report.paths.outcomes.length + report.paths.notRun.length;
  const stoppedEarly = report.stoppedByTimeLimit
    ? 'time-limit'
    : c.runs < c.runsPlanned && report.verdict === 'diverge'
      ? 'divergence'
      : null;
  const race = report.failure?.kind === 'race' ? report.failure.race : undefined;
  const timeline =
    race?.run === null || race?.run === undefined
      ? undefined
      : renderTimeline(
          race.run.history,
          race.witness === null ? undefined : { verdict: 'not_linearizable', witness: race.witness, steps: 0 },
        );
  return {
    kind: 'check',
    verdict: report.verdict,
    story,
    runsPlanned: c.runsPlanned,
    runsRun: c.runs,
    pathsPlanned,
    pathsRun: report.paths.outcomes.length,
    stoppedEarly,
    notAPass: report.notAPass,
    phases,
    ...(timeline === undefined ? {} : { timeline }),
  };
}

/** The title of a check's coverage reports. It names what was asked for; the page's context says how much of it ran. Pure. */
export const reportTitle = (ctx: CheckContext): string =>
  `Conformance coverage of ${ctx.target}: path suite + ${ctx.runs} random runs planned (seed ${ctx.seed})`;

/** Writes the failure artifact (if any) and the coverage files into `dir`; returns their paths. */
export async function writeReportFiles(dir: string, report: CheckReport, ctx: CheckContext): Promise<ReportFiles> {
  await makeOutputFolder(dir);
  let artifact: string | undefined;
  const f = report.failure;
  // A failure before the first step (the implementation could not even start a store) has nothing to replay.
  if (f?.kind === 'divergence' && f.run.steps.length > 0) {
    const meta = f.source === 'campaign' ? { seed: ctx.seed, path: report.campaign.path } : {};
    artifact = await writeArtifact(dir, toArtifact(f.run, meta), 'failure.json');
  }
  const story = f === null ? null : renderFailure(f, report, ctx, artifact === undefined ? {} : { artifact });
  const cov = await writeCoverageReport(dir, report.coverage, {
    title: reportTitle(ctx),
    context: reportContext(report, story),
  });
  return {
    dir,
    ...(artifact === undefined ? {} : { artifact }),
    coverageJson: cov.json,
    coverageMd: cov.markdown,
    coverageHtml: cov.html,
  };
}
