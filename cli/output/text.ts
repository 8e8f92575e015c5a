/**
 * The human report of `jobcheck check`: a line per phase, the verdict, the failure story, coverage
 * and what it never hit, and the files written.
 */
import type { CheckFailure, CheckReport, PhaseStop } from '../../conformance/check/index.ts';
import { unknownFailure } from '../../conformance/check/index.ts';
import { outsideText, terminalBlock } from '../../conformance/outside/outsideText.ts';
import type { Colors } from './colour.ts';
import { colourStory, terminalColors, verdictWord } from './colour.ts';
import type { CheckContext } from './context.ts';
import { coverageSummary, neverHitLines } from './coverageLines.ts';
import { renderFailure } from './failure.ts';
import type { ReportFiles } from './files.ts';
import { implementationName, phasesLine } from './phaseLines.ts';
import { PHASE_LABELS, phaseEndText, phaseEndsOf, whyNotRun } from './phaseText.ts';
import { count, seconds } from './units.ts';

/** Why items of `phase` were not run, in words for a parenthesis: the phase's stop, else the time limit. Pure. */
export function notRunWhy(report: CheckReport, phase: PhaseStop['phase']): string {
  return whyNotRun(report.stops.find((s) => s.phase === phase));
}

/** Where the shown story came from, in words: `the random campaign`, `the path "..."`. Pure. */
export function failureOrigin(f: CheckFailure): string {
  switch (f.kind) {
    case 'divergence':
      return f.source === 'campaign'
        ? 'the random campaign'
        : f.source === 'path'
          ? `the path "${f.name}"`
          : `the ${f.name}`;
    case 'unrepeated':
      return `the ${f.name}`;
    case 'race':
      return 'the concurrent campaign of competing workers';
    case 'fixture':
      return `the fixture story "${f.name}"`;
    case 'restore':
      return 'the restore phase';
    default:
      return unknownFailure(f);
  }
}

/** The summary's first lines, known before the check runs: the implementation's name, and the shard when there is one. Pure. */
export function checkHeader(ctx: CheckContext, shard: CheckReport['shard'] = ctx.shard ?? null): string[] {
  const lines = [`jobcheck check: ${implementationName(ctx)}`];
  if (shard !== null) {
    const { index, count: n } = shard;
    const rest =
      index === 1
        ? ', and the fixture stories, restore, paths and exploration'
        : '; the fixture stories, restore, paths and exploration are in shard 1';
    lines.push(
      `  shard            ${index}/${n}: the campaign's runs ${index}, ${index + n}, ${index + 2 * n}, ... of ${ctx.runs}${rest}`,
    );
  }
  return lines;
}

/**
 * Each phase of the check with what it ran and found, in the summary's words, as [label, text]
 * pairs in the order they are printed (the terminal summary, the run's page). Pure.
 */
export function phaseSummary(report: CheckReport): [string, string][] {
  return phaseEndsOf(report).flatMap((end): [string, string][] => {
    const text = phaseEndText(end);
    return text === null ? [] : [[PHASE_LABELS[end.phase], text]];
  });
}

/**
 * The human report of a check: phases, verdict, the failure story, coverage and what it never
 * hit, files. Pure apart from the default `colors`, which reads this process's stdout and environment.
 */
export function renderCheckText(
  report: CheckReport,
  ctx: CheckContext,
  files?: ReportFiles,
  colors: Colors = terminalColors(),
): string {
  const lines: string[] = [];
  lines.push(...checkHeader(ctx, report.shard));
  for (const [label, text] of phaseSummary(report)) lines.push(`  ${label}  ${text}`);
  lines.push(`  time             ${phasesLine(report)}`);
  lines.push('');
  if (report.verdict === 'incomplete' && report.concurrent?.verdict === 'unknown') {
    const histories = count(report.concurrent.unknownRuns, 'history', 'histories');
    lines.push(
      `verdict: ${verdictWord('incomplete', colors)}: the checker ran out of its budget on ${histories} of the concurrent campaign before deciding it (${seconds(report.durationMs)}); nothing diverged, which is not a pass`,
    );
  } else if (report.verdict === 'incomplete' && report.notAPass !== null) {
    lines.push(
      `verdict: ${verdictWord('incomplete', colors)}: ${report.notAPass} (${seconds(report.durationMs)}); not a pass`,
    );
  } else if (report.verdict === 'incomplete') {
    const limit = ctx.timeLimitMs === undefined ? 'the time limit' : `the time limit (${seconds(ctx.timeLimitMs)})`;
    lines.push(
      `verdict: ${verdictWord('incomplete', colors)}: stopped by ${limit} before the check ran in full (${seconds(report.durationMs)}); nothing diverged in what ran, which is not a pass`,
    );
  } else if (report.failure === null) {
    const only = report.concurrentWhen === 'only' ? '; only the competing workers ran (--concurrent only)' : '';
    lines.push(`verdict: ${verdictWord('agree', colors)} with the model (${seconds(report.durationMs)}${only})`);
  } else {
    const f = report.failure;
    const first =
      report.firstDivergenceMs === null ? '' : `, first divergence after ${seconds(report.firstDivergenceMs)}`;
    const early = report.stoppedByFailFast ? '; --fail-fast stopped the check there, what came after was not run' : '';
    const size = f.kind === 'race' ? count(f.steps, 'request') : count(f.steps, 'step');
    lines.push(
      `verdict: ${verdictWord('diverge', colors)} from the model (${seconds(report.durationMs)}${first}${early}); the shortest story (${size}) comes from ${failureOrigin(f)}:`,
    );
    lines.push('');
    // The story quotes the implementation (replies, stderr, names): its newlines are the story's own, every other control is escaped.
    lines.push(colourStory(terminalBlock(renderFailure(f, report, ctx, files)), colors));
  }
  lines.push('');
  lines.push(
    `coverage (path suite + campaign + exploration${report.stoppedByTimeLimit ? ', what ran before the time limit' : report.stops.length > 0 ? ', what ran before the check stopped' : ''}): ${coverageSummary(report.coverage)}`,
  );
  lines.push(...neverHitLines(report.coverage));
  if (files !== undefined) {
    const written = [files.artifact, files.coverageJson, files.coverageMd, files.coverageHtml]
      .filter((x) => x !== undefined)
      .map((x) => x.slice(files.dir.length + 1));
    // The report directory is the user's --report: a path of any bytes.
    if (files.page !== undefined) lines.push(`report: ${outsideText(files.page)}`);
    lines.push(
      `${files.page === undefined ? 'report' : 'files'}: ${outsideText(files.dir)} (${outsideText(written.join(', '))})`,
    );
  }
  return `${lines.join('\n')}\n`;
}
