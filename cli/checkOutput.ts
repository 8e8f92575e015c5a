/**
 * What `jobcheck check` shows and writes: the human summary with the failure story, the
 * machine-readable JSON result, and the report directory (failure artifact, coverage JSON,
 * Markdown and HTML). Rendering is pure; only writeReportFiles touches the file system.
 *
 * The verdict is coloured (picocolors) only for a terminal: NO_COLOR turns colour off, FORCE_COLOR
 * turns it on for any output, and otherwise only a stdout that is a TTY gets colour. picocolors'
 * own detection is not used as it stands: it also colours whenever CI is set, into logs and pipes.
 */
import { mkdir } from 'node:fs/promises';
import pc from 'picocolors';
import { toArtifact, writeArtifact } from '../conformance/artifact.ts';
import { COVERAGE_CATEGORIES, categorySummary, neverHit } from '../conformance/coverage.ts';
import type { Coverage } from '../conformance/coverage.ts';
import type { CheckReportContext } from '../conformance/coverageReport.ts';
import { writeCoverageReport } from '../conformance/coverageFiles.ts';
import { describeConfig, describeCommand, renderStory } from '../conformance/story.ts';
import { renderConcurrentStory } from '../conformance/concurrent/story.ts';
import { renderTimeline } from '../conformance/concurrent/timeline.ts';
import { requestCount } from '../conformance/concurrent/generate.ts';
import type { ConcurrentCampaignResult } from '../conformance/concurrent/campaign.ts';
import { firstDifference, showValue } from '../conformance/compare.ts';
import { clipText } from '../contract/index.ts';
import { outsideText, terminalBlock } from '../conformance/outsideText.ts';
import type { RuleId } from '../contract/rules.ts';
import type { CheckFailure, CheckReport, FixtureOutcome } from './check.ts';
import { CHECK_JSON_FORMAT } from './checkJsonSchema.ts';
import type { CheckResultJson } from './checkJsonSchema.ts';

/** How the check was run, for headings and reproduction hints. */
export interface CheckContext {
  /** The implementation's name for reports (command, module, impl/JobStore...). */
  readonly target: string;
  /** The flags that select it again (`--impl "..."`). */
  readonly flags: string;
  /** The name the implementation gave itself in hello, if it is a process. */
  readonly implementation?: string | undefined;
  readonly seed: number;
  readonly runs: number;
  /** `--max-commands`, when given: it shapes the generated runs, so a reproduction repeats it. */
  readonly maxCommands?: number;
  /** `--shard i/n`, when given. */
  readonly shard?: { readonly index: number; readonly count: number };
  /** The check's time limit, in ms. */
  readonly timeLimitMs?: number;
  /** `--workers`, when 2 or more: the concurrent campaign's lanes (its scenarios depend on it). */
  readonly workers?: number;
}

/** Files written into the report directory. */
export interface ReportFiles {
  readonly dir: string;
  /** The failure artifact, when the check failed with a replayable story. */
  readonly artifact?: string;
  readonly coverageJson: string;
  readonly coverageMd: string;
  readonly coverageHtml: string;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
/** `1 step`, `3 steps`. Pure. */
export const count = (n: number | null | undefined, word: string, plural = `${word}s`): string => `${n ?? '?'} ${n === 1 ? word : plural}`;

/**
 * What the coverage page says about a check: its verdict, its story, and how much of it ran. The
 * check stopped early when the time limit stopped it, or when its campaign ended at the first
 * divergence with runs still planned: coverage at zero then means "not reached". Pure.
 */
export function reportContext(report: CheckReport, story: string | null): CheckReportContext {
  const c = report.campaign;
  const pathsPlanned = report.paths.outcomes.length + report.paths.notRun.length;
  const stoppedEarly = report.stoppedByTimeLimit ? 'time-limit' : c.runs < c.runsPlanned && report.verdict === 'diverge' ? 'divergence' : null;
  const racing = report.failure?.concurrent?.failure;
  const timeline =
    racing?.run === null || racing?.run === undefined
      ? undefined
      : renderTimeline(racing.run.history, racing.witness === null ? undefined : { verdict: 'not_linearizable', witness: racing.witness, steps: 0 });
  return {
    kind: 'check',
    verdict: report.verdict,
    story,
    runsPlanned: c.runsPlanned,
    runsRun: c.runs,
    pathsPlanned,
    pathsRun: report.paths.outcomes.length,
    stoppedEarly,
    ...(timeline === undefined ? {} : { timeline }),
  };
}

/** The title of a check's coverage reports. It names what was asked for; the page's context says how much of it ran. Pure. */
export const reportTitle = (ctx: CheckContext): string => `Conformance coverage of ${ctx.target}: path suite + ${ctx.runs} random runs planned (seed ${ctx.seed})`;

/** Writes the failure artifact (if any) and the coverage files; returns their paths. */
export async function writeReportFiles(dir: string, report: CheckReport, ctx: CheckContext): Promise<ReportFiles> {
  await mkdir(dir, { recursive: true });
  let artifact: string | undefined;
  const f = report.failure;
  // A failure before the first step (the implementation could not even start a store) has nothing to replay.
  if (f?.run !== undefined && f.run.steps.length > 0) {
    const meta = f.source === 'campaign' ? { seed: ctx.seed, path: report.campaign.path } : {};
    artifact = await writeArtifact(dir, toArtifact(f.run, meta), 'failure.json');
  }
  const story = f === null ? null : renderFailure(f, report, ctx, artifact === undefined ? {} : { artifact });
  const cov = await writeCoverageReport(dir, report.coverage, { title: reportTitle(ctx), context: reportContext(report, story) });
  return { dir, ...(artifact === undefined ? {} : { artifact }), coverageJson: cov.json, coverageMd: cov.markdown, coverageHtml: cov.html };
}

/** The story of a fixture that failed: its own words, the steps up to the failing one, and what differed. Pure. */
export function renderFixtureStory(outcome: FixtureOutcome): string {
  const { fixture, result } = outcome;
  if (result.ok) return `fixture ${fixture.name} agrees (${result.steps} steps).`;
  const lines = [`fixture ${fixture.name} ("${fixture.title}") fails at step ${result.step} (${result.check} check).`, fixture.story, `config: ${describeConfig(fixture.config)}`, ''];
  const upTo = result.step === 'final' ? fixture.steps.length : result.step;
  fixture.steps.slice(0, upTo).forEach((s, i) => {
    const what =
      'do' in s
        ? `${describeCommand(s.do)}\n       expect: ${showValue(s.expect)}`
        : 'restart' in s
          ? 'restart (snapshot -> JSON -> restore)'
          : 'aliasSnapshot' in s
            ? 'take a snapshot, change the object received, take another: it must not have changed'
            : 'restore from a snapshot object, change that object: the store must not change';
    lines.push(`${String(i + 1).padStart(3)}. ${what}`);
  });
  const d = result.check === 'error' ? undefined : firstDifference(result.expected, result.actual);
  lines.push(d === undefined ? `       >> ${result.message}` : `       >> ${result.check} differs at ${d.path === '' ? '(value)' : d.path}: expected ${showValue(d.model)}, got ${showValue(d.impl)}`);
  return lines.join('\n');
}

/**
 * The command that repeats a campaign's shrunk run: the target's flags, the seed and the path
 * (and `--max-commands`, which shapes the runs). No `--shard` or `--runs`: the path names the run
 * by its index in the whole campaign. Pure.
 */
export function reproduceCommand(ctx: CheckContext, path: string): string {
  return `npx jobcheck check ${ctx.flags}${ctx.maxCommands === undefined ? '' : ` --max-commands ${ctx.maxCommands}`} --seed ${ctx.seed} --path ${path}`;
}

/**
 * The command that repeats a concurrent campaign's shrunk failure: the target's flags, the
 * workers, the seed and the concurrent path. (The sequential phases run again too: they are the
 * same with the same seed.) Pure.
 */
export function concurrentReproduceCommand(ctx: CheckContext, workers: number, path: string): string {
  return `npx jobcheck check ${ctx.flags} --workers ${workers} --seed ${ctx.seed} --concurrent-path ${path}`;
}

/** The story of a failure, whatever found it. Pure. */
export function renderFailure(failure: CheckFailure, report: CheckReport, ctx: CheckContext, files?: Pick<ReportFiles, 'artifact'>): string {
  if (failure.fixture !== undefined) return renderFixtureStory(failure.fixture);
  const racing = failure.concurrent;
  if (racing !== undefined && racing.failure !== null) {
    return renderConcurrentStory(racing.failure, {
      adapter: racing.adapter,
      workers: racing.workers,
      seed: racing.seed,
      path: racing.path,
      ...(racing.path === null ? {} : { reproduceCommand: concurrentReproduceCommand(ctx, racing.workers, racing.path) }),
    });
  }
  if (failure.run === undefined) return failure.story ?? `${failure.name} failed.`;
  const replay = files?.artifact === undefined ? undefined : `npx jobcheck replay ${files.artifact} ${ctx.flags}`;
  const path = report.campaign.path;
  return renderStory(failure.run, {
    ...(failure.source === 'campaign' ? { seed: ctx.seed, path, ...(path === null ? {} : { reproduceCommand: reproduceCommand(ctx, path) }) } : {}),
    ...(files?.artifact === undefined ? {} : { artifactFile: files.artifact }),
    ...(replay === undefined ? {} : { replayCommand: replay }),
  });
}

/**
 * Items never hit, on one line: all of them when few, the first three and a count otherwise,
 * saying where the whole list is (`where`; null when no file lists them). Pure.
 */
export function neverHitLine(missing: readonly string[], where: string | null = 'coverage.md'): string {
  if (missing.length === 0) return 'none';
  if (missing.length <= 4) return missing.join(', ');
  return `${missing.length}, e.g. ${missing.slice(0, 3).join(', ')} ${where === null ? `and ${missing.length - 3} more` : `(all in ${where})`}`;
}

/** One line per coverage category, `transitions 13/13`. Pure. */
export function coverageSummary(cov: Coverage): string {
  return COVERAGE_CATEGORIES.map((c) => {
    const { hit, total } = categorySummary(cov, c);
    return `${c} ${hit}/${total}`;
  }).join(', ');
}

/** The name an implementation gave itself, cut for headings and escaped (it is the implementation's text, and the target may quote a file's). Pure. */
export const implementationName = (ctx: CheckContext): string =>
  ctx.implementation === undefined ? outsideText(ctx.target) : `${outsideText(ctx.target)} (${outsideText(clipText(ctx.implementation, 80))})`;

const notRunNote = (n: number): string => (n === 0 ? '' : `; ${n} not run (time limit)`);

/** What the check's exploration did: states, transitions, and whether it ran in full and agreed. Pure. */
export function explorationLine(report: CheckReport): string {
  const x = report.exploration;
  if (x === null) return report.shard !== null && report.shard.index > 1 ? 'in shard 1' : report.explorationLeftOut ? 'left out (--no-explore)' : 'not run (time limit)';
  const configs = x.configs.length + x.notRun.length;
  const what = `${count(x.states, 'state')}, ${count(x.transitions, 'transition')}, ${count(configs, 'config')}`;
  const diverging = x.configs.find((c) => c.counterexample !== null);
  if (diverging !== undefined) return `${what}: diverges in ${diverging.part}/${diverging.name}`;
  return x.verdict === 'incomplete' ? `${what}: stopped by the time limit before the scope was explored in full` : `${what}: every transition agrees`;
}

/** Where the time went: each phase, the restarts, how many stores at once. Pure. */
export function phasesLine(report: CheckReport): string {
  const p = report.phases;
  const r = p.restarts;
  // Counts of restarts vary with the parallel runs under way at a failure: they are in --json only.
  const restarts = r === null ? '' : `; restarts ${seconds(r.coldMs)} cold, ${seconds(r.warmMs)} warm${r.crash === undefined ? '' : `, ${seconds(r.crashMs ?? 0)} crash`}`;
  return `fixtures ${seconds(p.fixturesMs)}, paths ${seconds(p.pathsMs)}, campaign ${seconds(p.campaignMs)}, shrinking ${seconds(p.shrinkMs)}, exploration ${seconds(p.exploreMs)}${report.concurrent === null ? '' : `, competing workers ${seconds(p.concurrentMs)}`}${restarts}; ${count(p.parallel, 'store')} at once`;
}

/** The colours of the terminal summary: picocolors' functions, or functions that return their text unchanged. */
export type Colors = ReturnType<typeof pc.createColors>;

/**
 * Whether output to a stream gets colour: never with NO_COLOR (non-empty), always with
 * FORCE_COLOR (non-empty, whatever its value, as picocolors and force-color.org read it), else
 * only on a TTY whose TERM is not `dumb`. Pure.
 */
export function colorEnabled(isTTY: boolean, env: Readonly<Record<string, string | undefined>>): boolean {
  if ((env['NO_COLOR'] ?? '') !== '') return false;
  if ((env['FORCE_COLOR'] ?? '') !== '') return true;
  return isTTY && env['TERM'] !== 'dumb';
}

/** The colours for an output stream (default: this process's stdout and environment). */
export function terminalColors(isTTY: boolean = process.stdout.isTTY === true, env: Readonly<Record<string, string | undefined>> = process.env): Colors {
  return pc.createColors(colorEnabled(isTTY, env));
}

/** The verdict word, coloured: AGREE green, DIVERGE red, INCOMPLETE yellow, each bold. Pure. */
export function verdictWord(verdict: CheckReport['verdict'], colors: Colors): string {
  if (verdict === 'agree') return colors.bold(colors.green('AGREE'));
  if (verdict === 'diverge') return colors.bold(colors.red('DIVERGE'));
  return colors.bold(colors.yellow('INCOMPLETE'));
}

/** The rules no step of the run was decided by, in contract order. Pure. */
export function rulesNeverHit(cov: Coverage): readonly RuleId[] {
  return neverHit(cov, 'rules') as RuleId[];
}

/** The "never hit" lines of the summary: rejection codes, transitions and rules no step reached. Pure. */
export function neverHitLines(cov: Coverage): string[] {
  return [
    `  rejection codes never hit: ${neverHitLine(neverHit(cov, 'rejections'))}`,
    `  transitions never hit: ${neverHitLine(neverHit(cov, 'transitions'))}`,
    `  rules never hit: ${neverHitLine(rulesNeverHit(cov), null)}`,
  ];
}

/**
 * The human report of a check: phases, verdict, the failure story, coverage and what it never
 * hit, files. Pure apart from the default `colors`, which reads this process's stdout and environment.
 */
export function renderCheckText(report: CheckReport, ctx: CheckContext, files?: ReportFiles, colors: Colors = terminalColors()): string {
  const lines: string[] = [];
  lines.push(`jobcheck check: ${implementationName(ctx)}`);
  if (report.shard !== null) {
    const { index, count: n } = report.shard;
    lines.push(`  shard            ${index}/${n}: the campaign's runs ${index}, ${index + n}, ${index + 2 * n}, ... of ${ctx.runs}${index === 1 ? ', and the fixture stories, paths and exploration' : '; the fixture stories, paths and exploration are in shard 1'}`);
  }
  const failedFixtures = report.fixtures.filter((f) => !f.result.ok);
  const fixtureTotal = report.fixtures.length + report.fixturesNotRun.length;
  // A shard after the first runs no fixture stories and no paths: shard 1 does (cli/check.ts).
  const inShardOne = report.shard !== null && report.shard.index > 1;
  lines.push(
    inShardOne
      ? `  fixture stories  in shard 1`
      : `  fixture stories  ${report.fixtures.length - failedFixtures.length}/${fixtureTotal} agree${failedFixtures.length === 0 ? '' : `; diverging: ${failedFixtures.map((f) => f.fixture.name).join(', ')}`}${notRunNote(report.fixturesNotRun.length)}`,
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
  const found = c.verdict === 'agree' ? 'agree' : c.verdict === 'incomplete' ? `stopped by the time limit after ${c.runs} of ${c.runsPlanned} runs, none diverging` : `diverge after ${count(c.runs, 'run')}, ${shrunk}`;
  lines.push(`  random campaign  ${count(c.runs, 'run')}, ${count(c.commands, 'command')}, seed ${ctx.seed}: ${found}`);
  lines.push(`  exploration      ${explorationLine(report)}`);
  if (report.concurrent !== null) lines.push(`  concurrent       ${concurrentLine(report.concurrent)}`);
  lines.push(`  time             ${phasesLine(report)}`);
  lines.push('');
  if (report.verdict === 'incomplete' && report.concurrent?.verdict === 'unknown') {
    lines.push(`verdict: ${verdictWord('incomplete', colors)}: the checker ran out of its budget on ${count(report.concurrent.unknownRuns, 'history', 'histories')} of the concurrent campaign before deciding it (${seconds(report.durationMs)}); nothing diverged, which is not a pass`);
  } else if (report.verdict === 'incomplete' && report.notAPass !== null) {
    lines.push(`verdict: ${verdictWord('incomplete', colors)}: ${report.notAPass} (${seconds(report.durationMs)}); not a pass`);
  } else if (report.verdict === 'incomplete') {
    const limit = ctx.timeLimitMs === undefined ? 'the time limit' : `the time limit (${seconds(ctx.timeLimitMs)})`;
    lines.push(`verdict: ${verdictWord('incomplete', colors)}: stopped by ${limit} before the check ran in full (${seconds(report.durationMs)}); nothing diverged in what ran, which is not a pass`);
  } else if (report.failure === null) {
    lines.push(`verdict: ${verdictWord('agree', colors)} with the model (${seconds(report.durationMs)})`);
  } else {
    const f = report.failure;
    const from =
      f.source === 'campaign'
        ? 'the random campaign'
        : f.source === 'path'
          ? `the path "${f.name}"`
          : f.source === 'explore'
            ? `the ${f.name}`
            : f.source === 'concurrent'
              ? 'the concurrent campaign of competing workers'
              : `the fixture story "${f.name}"`;
    const first = report.firstDivergenceMs === null ? '' : `, first divergence after ${seconds(report.firstDivergenceMs)}`;
    const size = f.source === 'concurrent' ? count(f.steps, 'request') : count(f.steps, 'step');
    lines.push(`verdict: ${verdictWord('diverge', colors)} from the model (${seconds(report.durationMs)}${first}); the shortest story (${size}) comes from ${from}:`);
    lines.push('');
    // The story quotes the implementation (replies, stderr, names): its newlines are the story's own, every other control is escaped.
    lines.push(terminalBlock(renderFailure(f, report, ctx, files)));
  }
  lines.push('');
  lines.push(`coverage (path suite + campaign + exploration${report.stoppedByTimeLimit ? ', what ran before the time limit' : ''}): ${coverageSummary(report.coverage)}`);
  lines.push(...neverHitLines(report.coverage));
  if (files !== undefined) {
    lines.push(`report: ${files.dir} (${[files.artifact, files.coverageJson, files.coverageMd, files.coverageHtml].filter((x) => x !== undefined).map((x) => x.slice(files.dir.length + 1)).join(', ')})`);
  }
  return `${lines.join('\n')}\n`;
}

/** The machine-readable result of a check (what `--json` prints), in the format of cli/checkJsonSchema.ts. Pure. */
export function checkJson(report: CheckReport, ctx: CheckContext, files?: ReportFiles): CheckResultJson {
  const f = report.failure;
  const c = report.campaign;
  const r = report.phases.restarts;
  return {
    format: CHECK_JSON_FORMAT,
    verdict: report.verdict,
    stoppedByTimeLimit: report.stoppedByTimeLimit,
    target: ctx.target,
    ...(ctx.implementation === undefined ? {} : { implementation: clipText(ctx.implementation, 200) }),
    seed: ctx.seed,
    runs: ctx.runs,
    shard: report.shard === null ? null : { index: report.shard.index, count: report.shard.count },
    durationMs: Math.round(report.durationMs),
    firstDivergenceMs: report.firstDivergenceMs === null ? null : Math.round(report.firstDivergenceMs),
    phases: {
      fixturesMs: Math.round(report.phases.fixturesMs),
      pathsMs: Math.round(report.phases.pathsMs),
      campaignMs: Math.round(report.phases.campaignMs),
      shrinkMs: Math.round(report.phases.shrinkMs),
      exploreMs: Math.round(report.phases.exploreMs),
      concurrentMs: Math.round(report.phases.concurrentMs),
      restarts: r === null ? null : { ...r, coldMs: Math.round(r.coldMs), warmMs: Math.round(r.warmMs), ...(r.crashMs === undefined ? {} : { crashMs: Math.round(r.crashMs) }) },
      parallel: report.phases.parallel,
    },
    ...(ctx.timeLimitMs === undefined ? {} : { timeLimitMs: ctx.timeLimitMs }),
    fixtures: {
      total: report.fixtures.length + report.fixturesNotRun.length,
      failed: report.fixtures.filter((x) => !x.result.ok).map((x) => ({ name: x.fixture.name, message: x.result.ok ? '' : x.result.message })),
      notRun: [...report.fixturesNotRun],
    },
    paths: { total: report.paths.outcomes.length + report.paths.notRun.length, failed: report.paths.failures.map((x) => x.path.name), notRun: report.paths.notRun.map((x) => x.name) },
    exploration:
      report.exploration === null
        ? null
        : {
            verdict: report.exploration.verdict,
            states: report.exploration.states,
            transitions: report.exploration.transitions,
            configs: report.exploration.configs.map((x) => ({ part: x.part, name: x.name, verdict: x.verdict, states: x.states, transitions: x.transitions })),
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
            ...(f.source === 'campaign' && c.path !== null ? { reproduce: reproduceCommand(ctx, c.path) } : {}),
            ...(f.source === 'concurrent' && f.concurrent?.path != null ? { reproduce: concurrentReproduceCommand(ctx, f.concurrent.workers, f.concurrent.path) } : {}),
          },
    coverage: Object.fromEntries(COVERAGE_CATEGORIES.map((cat) => [cat, categorySummary(report.coverage, cat)])) as CheckResultJson['coverage'],
    ...(files === undefined ? {} : { report: files }),
  };
}

/** Requests of a concurrent run, over its rounds. Pure. */
const requestsOf = (r: ConcurrentCampaignResult): number | null => (r.failure?.run == null ? null : requestCount(r.failure.run.rounds));

/** The concurrent campaign on one line of the summary. Pure. */
export function concurrentLine(r: ConcurrentCampaignResult): string {
  const what = `${count(r.runs, 'run')} of ${r.workers} workers, seed ${r.seed}`;
  switch (r.verdict) {
    case 'passed':
      return `${what}: every history linearizable`;
    case 'failed':
      return `${what}: a history no order of the model explains, shrunk from ${count(r.firstFailureRequests ?? 0, 'request')} to ${count(requestsOf(r) ?? 0, 'request')}`;
    case 'unknown':
      return `${what}: ${count(r.unknownRuns, 'history', 'histories')} the checker could not decide within its budget (not a pass)`;
    default:
      return `stopped by the time limit after ${r.runs} of ${r.runsPlanned} runs, none failing`;
  }
}

/** The concurrent campaign in the --json output. Pure. */
function concurrentJson(r: ConcurrentCampaignResult): NonNullable<CheckResultJson['concurrent']> {
  return {
    verdict: r.verdict,
    workers: r.workers,
    runsPlanned: r.runsPlanned,
    runs: r.runs,
    unknownRuns: r.unknownRuns,
    path: r.path,
    firstFailureRequests: r.firstFailureRequests,
    storyRequests: requestsOf(r),
    shrinks: r.shrinks,
    durationMs: Math.round(r.durationMs),
  };
}
