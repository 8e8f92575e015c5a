/**
 * The human report of `jobcheck check`: a line per phase, the verdict, the failure story, coverage
 * and what it never hit, and the files written.
 */
import type { CheckFailure, CheckReport } from '../../conformance/check/index.ts';
import { unknownFailure } from '../../conformance/check/index.ts';
import { terminalBlock } from '../../conformance/outside/outsideText.ts';
import type { Colors } from './colour.ts';
import { terminalColors, verdictWord } from './colour.ts';
import type { CheckContext } from './context.ts';
import { coverageSummary, neverHitLines } from './coverageLines.ts';
import { renderFailure } from './failure.ts';
import type { ReportFiles } from './files.ts';
import { concurrentLine, explorationLine, implementationName, phasesLine } from './phaseLines.ts';
import { count, seconds } from './units.ts';

const notRunNote = (n: number): string => (n === 0 ? '' : `; ${n} not run (time limit)`);

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
    default:
      return unknownFailure(f);
  }
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
  lines.push(`jobcheck check: ${implementationName(ctx)}`);
  if (report.shard !== null) {
    const { index, count: n } = report.shard;
    const rest =
      index === 1
        ? ', and the fixture stories, paths and exploration'
        : '; the fixture stories, paths and exploration are in shard 1';
    lines.push(
      `  shard            ${index}/${n}: the campaign's runs ${index}, ${index + n}, ${index + 2 * n}, ... of ${ctx.runs}${rest}`,
    );
  }
  const failedFixtures = report.fixtures.filter((f) => !f.result.ok);
  const fixtureTotal = report.fixtures.length + report.fixturesNotRun.length;
  // A shard after the first runs no fixture stories and no paths: shard 1 does (conformance/check/runCheck.ts).
  const inShardOne = report.shard !== null && report.shard.index > 1;
  const diverging =
    failedFixtures.length === 0 ? '' : `; diverging: ${failedFixtures.map((f) => f.fixture.name).join(', ')}`;
  lines.push(
    inShardOne
      ? `  fixture stories  in shard 1`
      : `  fixture stories  ${report.fixtures.length - failedFixtures.length}/${fixtureTotal} agree${diverging}${notRunNote(report.fixturesNotRun.length)}`,
  );
  const p = report.paths;
  const pathTotal = p.outcomes.length + p.notRun.length;
  lines.push(
    inShardOne
      ? `  path suite       in shard 1`
      : `  path suite       ${p.outcomes.length - p.failures.length}/${pathTotal} paths agree${p.failures.length === 0 ? '' : `; first diverging: ${p.failures[0]?.path.name}`}${notRunNote(p.notRun.length)}`,
  );
  const c = report.campaign;
  const shrunk = `shrunk from ${count(c.firstFailureLength, 'step')} to ${count(c.counterexample?.steps.length, 'step')} in ${seconds(c.shrinkMs)}${c.stoppedByTimeLimit ? ' (shrinking stopped by the time limit)' : ''}`;
  const found =
    c.verdict === 'agree'
      ? 'agree'
      : c.verdict === 'incomplete'
        ? `stopped by the time limit after ${c.runs} of ${c.runsPlanned} runs, none diverging`
        : `diverge after ${count(c.runs, 'run')}, ${shrunk}`;
  lines.push(`  random campaign  ${count(c.runs, 'run')}, ${count(c.commands, 'command')}, seed ${ctx.seed}: ${found}`);
  lines.push(`  exploration      ${explorationLine(report)}`);
  if (report.concurrent !== null) lines.push(`  concurrent       ${concurrentLine(report.concurrent)}`);
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
    lines.push(`verdict: ${verdictWord('agree', colors)} with the model (${seconds(report.durationMs)})`);
  } else {
    const f = report.failure;
    const first =
      report.firstDivergenceMs === null ? '' : `, first divergence after ${seconds(report.firstDivergenceMs)}`;
    const size = f.kind === 'race' ? count(f.steps, 'request') : count(f.steps, 'step');
    lines.push(
      `verdict: ${verdictWord('diverge', colors)} from the model (${seconds(report.durationMs)}${first}); the shortest story (${size}) comes from ${failureOrigin(f)}:`,
    );
    lines.push('');
    // The story quotes the implementation (replies, stderr, names): its newlines are the story's own, every other control is escaped.
    lines.push(terminalBlock(renderFailure(f, report, ctx, files)));
  }
  lines.push('');
  lines.push(
    `coverage (path suite + campaign + exploration${report.stoppedByTimeLimit ? ', what ran before the time limit' : ''}): ${coverageSummary(report.coverage)}`,
  );
  lines.push(...neverHitLines(report.coverage));
  if (files !== undefined) {
    const written = [files.artifact, files.coverageJson, files.coverageMd, files.coverageHtml]
      .filter((x) => x !== undefined)
      .map((x) => x.slice(files.dir.length + 1));
    lines.push(`report: ${files.dir} (${written.join(', ')})`);
  }
  return `${lines.join('\n')}\n`;
}
