/**
 * What each phase of a check ran and found, in words: the text after the phase's name in the
 * terminal summary. It is made from the phase's end (CheckPhaseEnd), which the check tells as each
 * phase ends and phaseEndsOf reads back from a finished report, so that a line printed as its phase
 * ends (a check without a terminal) is the line the summary prints. A pass says what it exercised
 * (so many stories, snapshots refused, paths, runs and commands, states and transitions, requests
 * in flight together); a phase that exercised nothing says NOT EXERCISED and why, never that it agrees.
 * What an implementation chose (a refusal's code, why it cannot be offered a snapshot) is escaped
 * (outsideText): these lines are written to a CI log as each phase ends, none of them begun by it.
 */
import type { CheckPhaseEnd, CheckReport, FixturePhaseResult, PhaseStop } from '../../conformance/check/index.ts';
import { requestCount } from '../../conformance/concurrent/generate.ts';
import { OVERLAP_KINDS, OVERLAP_KIND_SHORT } from '../../conformance/concurrent/overlap.ts';
import type { Overlap } from '../../conformance/concurrent/overlap.ts';
import type { ConcurrentCampaignResult } from '../../conformance/concurrent/result.ts';
import { couldNotBeCreated } from '../../conformance/concurrent/result.ts';
import type { ExploreResult } from '../../conformance/explore/index.ts';
import type { PathSuiteResult } from '../../conformance/paths/pathSuite.ts';
import type { CampaignResult } from '../../conformance/random/campaign.ts';
import { showValue } from '../../conformance/lockstep/compare.ts';
import { outsideText } from '../../conformance/outside/outsideText.ts';
import { REFUSAL_KINDS } from '../../conformance/restore/index.ts';
import type { RefusalKind, RestorePhaseResult } from '../../conformance/restore/index.ts';
import { count, seconds } from './units.ts';

/** Why items of a phase were not run, in words for a parenthesis: its stop, else the time limit. Pure. */
export const whyNotRun = (stop: PhaseStop | undefined): string =>
  stop === undefined ? 'time limit' : stop.reason === 'fail_fast' ? 'stopped by --fail-fast' : stop.note;

const notRunNote = (n: number, stop: PhaseStop | undefined): string =>
  n === 0 ? '' : `; ${n} not run (${whyNotRun(stop)})`;

/** The fixture stories: how many agree, which diverge, how many did not run. Pure. */
export function fixturesText(f: FixturePhaseResult, stop: PhaseStop | undefined): string {
  const failed = f.outcomes.filter((o) => !o.result.ok);
  const total = f.outcomes.length + f.notRun.length;
  const diverging = failed.length === 0 ? '' : `; diverging: ${failed.map((o) => o.fixture.name).join(', ')}`;
  return `${f.outcomes.length - failed.length}/${total} agree${diverging}${notRunNote(f.notRun.length, stop)}`;
}

/** The path suite: how many paths agree, the first diverging, how many did not run. Pure. */
export function pathsText(p: PathSuiteResult, stop: PhaseStop | undefined): string {
  const total = p.outcomes.length + p.notRun.length;
  const first = p.failures.length === 0 ? '' : `; first diverging: ${p.failures[0]?.path.name}`;
  return `${p.outcomes.length - p.failures.length}/${total} paths agree${first}${notRunNote(p.notRun.length, stop)}`;
}

/** The random campaign: runs, commands, seed, and what it found. Pure. */
export function campaignText(c: CampaignResult, seed: number, stop: PhaseStop | undefined): string {
  const why =
    stop === undefined
      ? 'stopped by the time limit'
      : stop.reason === 'fail_fast'
        ? 'stopped by --fail-fast'
        : 'given up after a timeout';
  const shrunk = `shrunk from ${count(c.firstFailureLength, 'step')} to ${count(c.counterexample?.steps.length, 'step')} in ${seconds(c.shrinkMs)}${c.stoppedByTimeLimit ? ` (shrinking ${why})` : ''}`;
  const found =
    stop !== undefined && c.runs === 0 && c.verdict === 'incomplete'
      ? `not run (${whyNotRun(stop)})`
      : c.verdict === 'agree'
        ? c.runs > 0 && c.commands === 0
          ? 'NOT EXERCISED: its runs sent no command'
          : 'agree'
        : c.verdict === 'incomplete'
          ? `${why} after ${c.runs} of ${c.runsPlanned} runs, none diverging`
          : `diverge after ${count(c.runs, 'run')}, ${shrunk}`;
  return `${count(c.runs, 'run')}, ${count(c.commands, 'command')}, seed ${seed}: ${found}`;
}

/** The exploration that ran: states, transitions, configs, and whether it ran in full and agreed. Pure. */
export function explorationText(x: ExploreResult, stop: PhaseStop | undefined): string {
  const configs = x.configs.length + x.notRun.length;
  const what = `${count(x.states, 'state')}, ${count(x.transitions, 'transition')}, ${count(configs, 'config')}`;
  const diverging = x.configs.find((c) => c.counterexample !== null);
  if (diverging !== undefined) return `${what}: diverges in ${diverging.part}/${diverging.name}`;
  if (x.verdict === 'incomplete')
    return `${what}: ${stop === undefined ? 'stopped by the time limit' : 'given up after a timeout'} before the scope was explored in full`;
  return x.transitions === 0 ? `${what}: NOT EXERCISED: it compared no transition` : `${what}: every transition agrees`;
}

/** For each kind of refusal of contract section 10: snapshots of it offered, and refused as the model refuses them. Pure. */
export function restoreKinds(
  r: RestorePhaseResult,
): { readonly kind: RefusalKind; readonly offered: number; readonly refused: number }[] {
  return REFUSAL_KINDS.map((kind) => {
    const mine = r.outcomes.filter((o) => o.snapshot.kind === kind);
    return { kind, offered: mine.length, refused: mine.filter((o) => o.ok).length };
  });
}

/** What a wrongly answered snapshot got, in a few words. Pure. */
function wrongAnswer(o: RestorePhaseResult['outcomes'][number]): string {
  const seen = o.seen;
  if (seen.answer === 'accepted') return 'taken';
  if (seen.answer === 'failed') return 'the implementation failed';
  if (seen.answer === 'unsupported') return 'cannot be offered';
  return o.changed !== undefined ? 'refused, but the store changed' : `refused with ${outsideText(seen.code)}`;
}

/** What became of the valid snapshot the restore phase restores first, when it was not kept as it is. Pure. */
function setupText(setup: NonNullable<RestorePhaseResult['setup']>): string {
  const seen = setup.seen;
  if (setup.changed !== undefined) {
    const d = setup.changed.difference;
    return `a valid snapshot came back otherwise from its restore (${d.path === '' ? 'the value' : d.path} ${showValue(d.model)}, then ${showValue(d.impl)})`;
  }
  if (seen.answer === 'refused') return `a valid snapshot was refused (${outsideText(seen.code)})`;
  if (seen.answer === 'failed') return 'the store failed on a valid snapshot';
  return 'a valid snapshot was not restored';
}

/** The restore phase that ran: the invalid snapshots offered, refused, and the kinds of refusal they cover. Pure. */
export function restoreText(r: RestorePhaseResult, stop: PhaseStop | undefined): string {
  if (r.verdict === 'not_exercised')
    return `NOT EXERCISED: ${outsideText(r.notExercised ?? 'no snapshot could be offered')}`;
  const kinds = restoreKinds(r).filter((k) => k.offered > 0);
  const covered = `${kinds.filter((k) => k.refused === k.offered).length}/${REFUSAL_KINDS.length} kinds of refusal`;
  const notRun =
    r.setup !== null && r.notRun.length > 0
      ? `; ${r.notRun.length} not offered (a valid snapshot was not restored as it is)`
      : notRunNote(r.notRun.length, stop);
  const wrong = r.outcomes.filter((o) => !o.ok);
  const first = wrong[0];
  if (r.setup !== null && first === undefined)
    return `${setupText(r.setup)}, so none of the ${r.notRun.length} invalid ones was offered`;
  if (first !== undefined)
    return `${r.outcomes.length - wrong.length}/${r.outcomes.length} invalid snapshots refused as the model refuses them, ${covered}; first wrong: ${first.snapshot.name} (${wrongAnswer(first)})${notRun}`;
  return `${count(r.outcomes.length, 'invalid snapshot')} offered, each refused with invalid_snapshot and the store left as it was; ${covered}${notRun}`;
}

/** Requests of a concurrent campaign's shrunk failure, over its rounds; null without one. Pure. */
export const requestsOf = (r: ConcurrentCampaignResult): number | null =>
  r.failure?.run == null ? null : requestCount(r.failure.run.rounds);

/** What the competing workers overlapped: `412 of 1180 requests in flight together with another (655 overlapping pairs)`. Pure. */
export const overlapText = (o: Overlap): string =>
  `${o.overlapping} of ${count(o.requests, 'request')} in flight together with another (${count(o.pairs, 'overlapping pair')}: ${overlapKindsText(o)})`;

/** The overlapping pairs by kind: `claim+claim 12, settle at lease end 3, ...`, every kind named, 0 included. Pure. */
export const overlapKindsText = (o: Overlap): string =>
  OVERLAP_KINDS.map((k) => `${OVERLAP_KIND_SHORT[k]} ${o.kinds[k]}`).join(', ');

/** The concurrent campaign on one line of the summary. Pure. */
export function concurrentLine(r: ConcurrentCampaignResult): string {
  const what = `${count(r.runs, 'run')} of ${r.workers} workers, seed ${r.seed}`;
  switch (r.verdict) {
    case 'passed':
      return `${what}: every history linearizable; ${overlapText(r.overlap)}`;
    case 'not_exercised':
      return `${what}: NOT EXERCISED (not a concurrency pass): ${r.notExercised ?? 'no two requests were in flight together'}`;
    case 'failed': {
      const f = r.failure;
      // An implementation that could not be created failed before its first request: nothing was shrunk.
      if (couldNotBeCreated(f)) return `${what}: the implementation could not be created`;
      const cut = r.stoppedByTimeLimit ? ' (shrinking stopped by the time limit)' : '';
      const shrunk = `shrunk from ${count(r.firstFailureRequests ?? 0, 'request')} to ${count(requestsOf(r) ?? 0, 'request')}${cut}`;
      return f?.kind === 'impl_error'
        ? `${what}: the implementation failed (a request of a lane, or the final snapshot), ${shrunk}`
        : `${what}: a history no order of the model explains, ${shrunk}`;
    }
    case 'unknown':
      return `${what}: ${count(r.unknownRuns, 'history', 'histories')} the checker could not decide within its budget (not a pass)`;
    default:
      return `stopped by the time limit after ${r.runs} of ${r.runsPlanned} runs, none failing`;
  }
}

/** The summary's name of each phase, padded as the summary aligns them. */
export const PHASE_LABELS: Record<CheckPhaseEnd['phase'], string> = {
  fixtures: 'fixture stories',
  restore: 'restore        ',
  paths: 'path suite     ',
  campaign: 'random campaign',
  explore: 'exploration    ',
  concurrent: 'concurrent     ',
};

/** The words for a phase left out on purpose in this part of the check. */
const LEFT_OUT: Record<NonNullable<CheckPhaseEnd['leftOut']>, (phase: CheckPhaseEnd['phase']) => string> = {
  shard: () => 'in shard 1',
  concurrent_only: () => 'left out (--concurrent only)',
  option: (phase) => `left out (--no-${phase === 'explore' ? 'explore' : phase})`,
};

/** The summary's words for a phase that has ended, or null when the summary prints no line for it. Pure. */
export function phaseEndText(end: CheckPhaseEnd): string | null {
  if (end.leftOut !== null) return LEFT_OUT[end.leftOut](end.phase);
  const stop = end.stop;
  switch (end.phase) {
    case 'fixtures':
      return fixturesText(end.fixtures, stop);
    case 'restore':
      return end.restore === null ? `not run (${whyNotRun(stop)})` : restoreText(end.restore, stop);
    case 'paths':
      return pathsText(end.paths, stop);
    case 'campaign':
      return campaignText(end.campaign, end.campaign.seed, stop);
    case 'explore':
      return end.exploration !== null
        ? explorationText(end.exploration, stop)
        : stop?.reason === 'fail_fast'
          ? 'not run (stopped by --fail-fast)'
          : 'not run (time limit)';
    case 'concurrent':
      return end.concurrent !== null
        ? concurrentLine(end.concurrent)
        : stop === undefined
          ? null
          : `not run (${whyNotRun(stop)})`;
  }
}

/** The phases of the summary, in the order it prints them. */
export const SUMMARY_ORDER: readonly CheckPhaseEnd['phase'][] = [
  'fixtures',
  'restore',
  'paths',
  'campaign',
  'explore',
  'concurrent',
];

/**
 * The ends of a finished check's phases, in the summary's order, as the check told them when they
 * ended (the competing workers only when they were asked for in this part). Pure.
 */
export function phaseEndsOf(report: CheckReport): CheckPhaseEnd[] {
  const shard = report.shard !== null && report.shard.index > 1 ? ('shard' as const) : null;
  const only = report.concurrentWhen === 'only' ? ('concurrent_only' as const) : null;
  const stop = (phase: PhaseStop['phase']): PhaseStop | undefined => report.stops.find((s) => s.phase === phase);
  const p = report.phases;
  const ends: CheckPhaseEnd[] = [
    {
      phase: 'fixtures',
      fixtures: { outcomes: report.fixtures, notRun: report.fixturesNotRun },
      ms: p.fixturesMs,
      stop: stop('fixtures'),
      leftOut: shard ?? only,
    },
    {
      phase: 'restore',
      restore: report.restore,
      ms: p.restoreMs,
      stop: stop('restore'),
      leftOut: shard ?? only ?? (report.restoreLeftOut ? 'option' : null),
    },
    { phase: 'paths', paths: report.paths, ms: p.pathsMs, stop: stop('paths'), leftOut: shard ?? only },
    { phase: 'campaign', campaign: report.campaign, ms: p.campaignMs, stop: stop('campaign'), leftOut: only },
    {
      phase: 'explore',
      exploration: report.exploration,
      ms: p.exploreMs,
      stop: stop('explore'),
      leftOut: shard ?? only ?? (report.explorationLeftOut ? 'option' : null),
    },
  ];
  if (report.concurrent !== null || stop('concurrent') !== undefined)
    ends.push({
      phase: 'concurrent',
      concurrent: report.concurrent,
      ms: p.concurrentMs,
      stop: stop('concurrent'),
      leftOut: null,
    });
  return ends;
}
