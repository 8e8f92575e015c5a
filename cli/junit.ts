/**
 * JUnit XML for CI systems: one test suite per phase of the check, one test case per fixture
 * story, per kind of refusal of the restore phase (and one for the valid snapshot it restores
 * first), per path of the path suite, and one for the random campaign; a failing case carries its
 * story as the failure text. A phase that ran and exercised nothing (competing workers whose
 * requests were never in flight together, a restore phase that could offer no snapshot) has its
 * cases skipped with why, never passed. Test names are the same from run to run (CI systems track a test's
 * history by its name): what varies, the seed, the runs, the path of a counterexample, goes into
 * the suite's `<properties>`. A check that could not start (exit 2) is one `<error>` case, so
 * that the CI page says why. Pure, given the timestamp.
 *
 * The list of cases is the list of what the check planned, not of what it ran: a case the check
 * never reached (the time limit came first, or the check stopped at a divergence) is still there,
 * marked `<skipped/>` with the reason, so that a red run lists the same tests as a green run of the
 * same options. The report lists what ran; what was planned is computed here from the same sources
 * the check uses (model/fixtures, the path suite's enumeration, the check's exploration scope),
 * so that a phase that stops early, however it records it, cannot shorten the list.
 */
import { renderStory } from '../conformance/lockstep/story.ts';
import { xmlBlock, xmlText } from '../conformance/outside/outsideText.ts';
import type { CheckReport } from '../conformance/check/index.ts';
import type { ConcurrentCampaignResult } from '../conformance/concurrent/index.ts';
import { renderFixtureStory } from '../conformance/check/index.ts';
import { REFUSAL_KINDS, renderRestoreSetupStory, renderRestoreStory } from '../conformance/restore/index.ts';
import { CHECK_EXPLORATION } from '../conformance/explore/index.ts';
import { lifecyclePaths } from '../conformance/paths/lifecyclePaths.ts';
import { listFixtures } from '../model/fixtures.ts';
import type { CheckContext } from './output/index.ts';
import { concurrentLine, renderFailure, reproduceCommand } from './output/index.ts';

interface Case {
  readonly name: string;
  readonly ms: number;
  /** One-line failure message and the story, when the case failed. */
  readonly failure?: { readonly message: string; readonly text: string };
  /** Why the case did not run (the time limit). */
  readonly skipped?: string;
  /** A case that could not reach a verdict (the time limit stopped it): a JUnit error, so that CI shows it. */
  readonly error?: string;
  /** The error's type (default `time_limit`). */
  readonly errorType?: string;
}

function testcase(suiteName: string, c: Case): string {
  const head = `    <testcase classname="${xmlText(suiteName)}" name="${xmlText(c.name)}" time="${(c.ms / 1000).toFixed(3)}"`;
  if (c.failure !== undefined)
    return `${head}>\n      <failure message="${xmlText(c.failure.message)}" type="divergence">${xmlBlock(c.failure.text)}</failure>\n    </testcase>`;
  if (c.error !== undefined)
    return `${head}>\n      <error message="${xmlText(c.error)}" type="${c.errorType ?? 'time_limit'}">${xmlBlock(c.error)}</error>\n    </testcase>`;
  if (c.skipped !== undefined) return `${head}>\n      <skipped message="${xmlText(c.skipped)}"/>\n    </testcase>`;
  return `${head}/>`;
}

const countOf = (cases: readonly Case[], key: 'failure' | 'error' | 'skipped'): number =>
  cases.filter((c) => c[key] !== undefined).length;

/** A suite's `<properties>`: name and value pairs, none when empty. */
type Properties = ReadonlyArray<readonly [string, string | number]>;

function suite(name: string, cases: readonly Case[], timestamp: string, properties: Properties = []): string {
  const time = cases.reduce((t, c) => t + c.ms, 0) / 1000;
  const head = `  <testsuite name="${xmlText(name)}" tests="${cases.length}" failures="${countOf(cases, 'failure')}" errors="${countOf(cases, 'error')}" skipped="${countOf(cases, 'skipped')}" time="${time.toFixed(3)}" timestamp="${timestamp}">`;
  const props =
    properties.length === 0
      ? []
      : [
          '    <properties>',
          ...properties.map(([k, v]) => `      <property name="${xmlText(k)}" value="${xmlText(String(v))}"/>`),
          '    </properties>',
        ];
  return [head, ...props, ...cases.map((c) => testcase(name, c)), '  </testsuite>'].join('\n');
}

/** An ISO timestamp without milliseconds, as JUnit readers expect (`2025-01-31T12:00:00Z`). Pure. */
const isoSeconds = (at: Date): string => `${at.toISOString().slice(0, 19)}Z`;

function document(
  name: string,
  all: readonly Case[],
  ms: number,
  timestamp: string,
  suites: readonly string[],
): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlText(name)}" tests="${all.length}" failures="${countOf(all, 'failure')}" errors="${countOf(all, 'error')}" skipped="${countOf(all, 'skipped')}" time="${(ms / 1000).toFixed(3)}" timestamp="${timestamp}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}

/**
 * The JUnit XML of a check that could not start (exit code 2: an implementation that does not
 * start, a module that does not load): one test case `setup` whose error names the problem. Pure.
 */
export function setupErrorJunit(message: string, target: string, startedAt: Date): string {
  const timestamp = isoSeconds(startedAt);
  const cases: Case[] = [{ name: 'setup', ms: 0, error: message, errorType: 'setup_error' }];
  return document(`jobcheck ${target}`, cases, 0, timestamp, [suite('jobcheck.setup', cases, timestamp)]);
}

/** The phases of a check as its stops name them (report.stops). */
type Phase = CheckReport['stops'][number]['phase'];

/**
 * Why a planned case of `phase` did not run: the phase's own stop (a timeout of the
 * implementation earlier in the phase, --fail-fast), else the time limit, else a divergence that
 * ended the check first. Pure.
 */
export function notRunReason(
  report: Pick<CheckReport, 'stoppedByTimeLimit' | 'verdict'> & Partial<Pick<CheckReport, 'stops'>>,
  phase?: Phase,
): string {
  const stop = report.stops?.find((s) => s.phase === phase);
  if (stop !== undefined) return stop.note;
  if (report.stoppedByTimeLimit) return 'not run: the time limit of the check was reached first';
  if (report.verdict === 'diverge') return 'not run: the check stopped at a divergence first';
  return 'not run';
}

/** Why a campaign that ran some of its runs, none diverging, stopped short. Pure. */
function campaignStopped(report: CheckReport): string {
  const c = report.campaign;
  const stop = report.stops.find((s) => s.phase === 'campaign');
  const why = stop === undefined ? 'by the time limit' : `(${stop.note})`;
  return `stopped ${why} after ${c.runs} of ${c.runsPlanned} runs, none diverging (not a pass)`;
}

/**
 * What a check planned, by name, in its order: the fixture stories, the paths and the explored
 * configs (none of them in shards after the first, nor the exploration when it was left out).
 * Computed from the same sources runCheck uses. Pure (the lists are the model's, read once).
 */
export function plannedCases(
  report: Pick<CheckReport, 'shard' | 'explorationLeftOut'> &
    Partial<Pick<CheckReport, 'concurrentWhen' | 'restoreLeftOut'>>,
): {
  readonly fixtures: readonly string[];
  readonly restore: readonly string[];
  readonly paths: readonly string[];
  readonly exploration: readonly string[];
} {
  // Shards after the first, and competing workers alone (`concurrentWhen: 'only'`), leave the sequential phases out.
  const restShard = (report.shard !== null && report.shard.index > 1) || report.concurrentWhen === 'only';
  return {
    fixtures: restShard ? [] : listFixtures(),
    restore: restShard || report.restoreLeftOut === true ? [] : [RESTORE_BASE_CASE, ...REFUSAL_KINDS.map(restoreCase)],
    paths: restShard ? [] : lifecyclePaths().map((p) => p.name),
    exploration:
      restShard || report.explorationLeftOut
        ? []
        : CHECK_EXPLORATION.flatMap((part) => part.configs.map((config) => `exploration ${part.name}/${config}`)),
  };
}

/**
 * The cases of one suite in the planned order: each planned name with its case when it ran, or
 * skipped with `reason`; a case that ran without being planned follows (none should). Pure.
 */
function inPlannedOrder(planned: readonly string[], ran: readonly Case[], reason: string): Case[] {
  const byName = new Map(ran.map((c) => [c.name, c]));
  const known = new Set(planned);
  return [
    ...planned.map((name) => byName.get(name) ?? { name, ms: 0, skipped: reason }),
    ...ran.filter((c) => !known.has(c.name)),
  ];
}

/** The restore phase's case for the valid snapshot it restores first. */
const RESTORE_BASE_CASE = 'restore: a valid snapshot, as it is';
/** The restore phase's case for a kind of refusal. */
const restoreCase = (kind: string): string => `restore refuses: ${kind}`;

/** The restore phase's cases: the valid snapshot, then one per kind of refusal, each failing with the first snapshot of its kind it got wrong. Pure. */
function restoreCases(report: CheckReport): Case[] {
  const r = report.restore;
  if (r === null) return [];
  const adapter = r.adapter;
  if (r.verdict === 'not_exercised') {
    const why = `not exercised: ${r.notExercised ?? 'no snapshot could be offered'}`;
    return [RESTORE_BASE_CASE, ...REFUSAL_KINDS.map(restoreCase)].map((name) => ({ name, ms: 0, skipped: why }));
  }
  const setup = r.setup;
  const base: Case = {
    name: RESTORE_BASE_CASE,
    ms: 0,
    ...(setup !== null
      ? {
          failure: {
            message: 'a valid snapshot was not restored as it is',
            text: renderRestoreSetupStory(setup, adapter),
          },
        }
      : {}),
  };
  const notRun = notRunReason(report, 'restore');
  const kinds = REFUSAL_KINDS.map((kind): Case => {
    const mine = r.outcomes.filter((o) => o.snapshot.kind === kind);
    const ms = mine.reduce((t, o) => t + o.durationMs, 0);
    const wrong = mine.filter((o) => !o.ok);
    const first = wrong[0];
    const left = r.notRun.filter((name) => name.startsWith(`${kind}: `)).length;
    if (first !== undefined)
      return {
        name: restoreCase(kind),
        ms,
        failure: {
          message: `${wrong.length} of ${mine.length} snapshots not refused as the model refuses them; first: ${first.snapshot.change}`,
          text: renderRestoreStory(first, adapter),
        },
      };
    if (left > 0 && mine.length === 0) return { name: restoreCase(kind), ms, skipped: notRun };
    if (left > 0)
      return {
        name: restoreCase(kind),
        ms,
        error: `stopped after ${mine.length} of ${mine.length + left} snapshots of this kind, none wrong (not a pass)`,
      };
    return { name: restoreCase(kind), ms };
  });
  return [base, ...kinds];
}

/** What a failed concurrent campaign's test case fails with: a history no order explains, or the implementation's own failure. */
const failureKind = (k: ConcurrentCampaignResult): string =>
  k.failure?.kind === 'impl_error' ? 'implementation failed' : 'not linearizable';

/** The JUnit XML document of a check that started at `startedAt`. Pure. */
export function checkJunit(report: CheckReport, ctx: CheckContext, startedAt: Date): string {
  const timestamp = isoSeconds(startedAt);
  const planned = plannedCases(report);
  const fixtures = inPlannedOrder(
    planned.fixtures,
    report.fixtures.map((f) => ({
      name: f.fixture.name,
      ms: f.durationMs,
      ...(f.result.ok ? {} : { failure: { message: f.result.message, text: renderFixtureStory(f) } }),
    })),
    notRunReason(report, 'fixtures'),
  );
  const restore = inPlannedOrder(planned.restore, restoreCases(report), notRunReason(report, 'restore'));
  const paths = inPlannedOrder(
    planned.paths,
    report.paths.outcomes.map((o, i) => {
      const d = o.result.divergence;
      return {
        name: o.path.name,
        ms: report.pathMs[i] ?? 0,
        ...(d === null
          ? {}
          : { failure: { message: `diverges at step ${d.step} (${d.kind})`, text: renderStory(o.result) } }),
      };
    }),
    notRunReason(report, 'paths'),
  );
  const c = report.campaign;
  const campaign: Case[] = [
    {
      name: 'random campaign',
      ms: c.durationMs,
      ...(c.counterexample !== null
        ? {
            failure: {
              message: `diverges; shrunk from ${c.firstFailureLength} to ${c.counterexample.steps.length} steps`,
              text: renderStory(c.counterexample, {
                seed: ctx.seed,
                path: c.path,
                ...(c.path === null ? {} : { reproduceCommand: reproduceCommand(ctx, c.path) }),
              }),
            },
          }
        : // Not started because a divergence ended the check: skipped. Stopped by the time limit: an
          // error, as before, so that a JUnit reader never shows an incomplete check as a pass.
          c.verdict === 'incomplete' && c.runs === 0 && !report.stoppedByTimeLimit
          ? { skipped: notRunReason(report, 'campaign') }
          : c.verdict === 'incomplete'
            ? { error: campaignStopped(report) }
            : {}),
    },
  ];
  // One case per explored config: complete, diverging (with its story), not run to the end, or not run.
  const exploration = inPlannedOrder(
    planned.exploration,
    (report.exploration?.configs ?? []).map((x) => ({
      name: `exploration ${x.part}/${x.name}`,
      ms: x.durationMs,
      ...(x.counterexample !== null
        ? { failure: { message: x.counterexample.message, text: x.counterexample.story } }
        : x.verdict === 'incomplete'
          ? { error: `stopped after ${x.states} states, before the scope was explored in full (not a pass)` }
          : {}),
    })),
    notRunReason(report, 'explore'),
  );
  const k = report.concurrent;
  // Competing workers were asked for (--workers) and belong to this part of the check.
  const concurrentPlanned = ctx.workers !== undefined && (report.shard === null || report.shard.index === 1);
  const concurrent: Case[] =
    k === null
      ? concurrentPlanned
        ? [{ name: 'concurrent campaign', ms: 0, skipped: notRunReason(report, 'concurrent') }]
        : []
      : [
          {
            name: 'concurrent campaign',
            ms: k.durationMs,
            ...(k.verdict === 'failed' && report.failure?.source === 'concurrent'
              ? {
                  failure: {
                    message: `${failureKind(k)}: ${concurrentLine(k)}`,
                    text: renderFailure(report.failure, report, ctx),
                  },
                }
              : k.verdict === 'failed'
                ? { failure: { message: `${failureKind(k)}: ${concurrentLine(k)}`, text: k.story ?? '' } }
                : k.verdict === 'passed'
                  ? {}
                  : k.verdict === 'not_exercised'
                    ? { skipped: `not exercised: ${k.notExercised ?? 'no two requests were in flight together'}` }
                    : { error: concurrentLine(k) }),
          },
        ];
  const all = [...fixtures, ...restore, ...paths, ...campaign, ...exploration, ...concurrent];
  const properties: Properties = [
    ['seed', ctx.seed],
    ['runs', ctx.runs],
    ...(ctx.maxCommands === undefined ? [] : [['max-commands', ctx.maxCommands] as const]),
    ...(ctx.shard === undefined ? [] : [['shard', `${ctx.shard.index}/${ctx.shard.count}`] as const]),
    ...(c.path === null ? [] : [['path', c.path] as const]),
  ];
  return document(`jobcheck ${ctx.target}`, all, report.durationMs, timestamp, [
    suite('jobcheck.fixtures', fixtures, timestamp),
    ...(restore.length === 0 ? [] : [suite('jobcheck.restore', restore, timestamp)]),
    suite('jobcheck.paths', paths, timestamp),
    suite('jobcheck.campaign', campaign, timestamp, properties),
    suite('jobcheck.exploration', exploration, timestamp),
    ...(concurrent.length === 0
      ? []
      : [
          suite('jobcheck.concurrent', concurrent, timestamp, [
            ['workers', k?.workers ?? ctx.workers ?? 0],
            ['seed', k?.seed ?? ctx.seed],
            ...(k === null || k.path === null ? [] : [['path', k.path] as const]),
          ]),
        ]),
  ]);
}
