/**
 * The phases of a check on one line each, as the terminal summary and the JUnit file print them:
 * the implementation's name, the exploration, the competing workers, where the time went.
 */
import type { CheckReport } from '../../conformance/check/index.ts';
import type { ConcurrentCampaignResult } from '../../conformance/concurrent/result.ts';
import { couldNotBeCreated } from '../../conformance/concurrent/result.ts';
import { requestCount } from '../../conformance/concurrent/generate.ts';
import { outsideText } from '../../conformance/outside/outsideText.ts';
import { clipText } from '../../contract/index.ts';
import type { CheckContext } from './context.ts';
import { count, seconds } from './units.ts';

/** The name an implementation gave itself, cut for headings and escaped (it is the implementation's text, and the target may quote a file's). Pure. */
export const implementationName = (ctx: CheckContext): string =>
  ctx.implementation === undefined
    ? outsideText(ctx.target)
    : `${outsideText(ctx.target)} (${outsideText(clipText(ctx.implementation, 80))})`;

/** What the check's exploration did: states, transitions, and whether it ran in full and agreed. Pure. */
export function explorationLine(report: CheckReport): string {
  const x = report.exploration;
  const stop = report.stops.find((s) => s.phase === 'explore');
  if (x === null)
    return report.shard !== null && report.shard.index > 1
      ? 'in shard 1'
      : report.concurrentWhen === 'only'
        ? 'left out (--concurrent only)'
        : report.explorationLeftOut
          ? 'left out (--no-explore)'
          : stop?.reason === 'fail_fast'
            ? 'not run (stopped by --fail-fast)'
            : 'not run (time limit)';
  const configs = x.configs.length + x.notRun.length;
  const what = `${count(x.states, 'state')}, ${count(x.transitions, 'transition')}, ${count(configs, 'config')}`;
  const diverging = x.configs.find((c) => c.counterexample !== null);
  if (diverging !== undefined) return `${what}: diverges in ${diverging.part}/${diverging.name}`;
  return x.verdict === 'incomplete'
    ? `${what}: ${stop === undefined ? 'stopped by the time limit' : 'given up after a timeout'} before the scope was explored in full`
    : `${what}: every transition agrees`;
}

/** Where the time went: each phase, the restarts, how many stores at once. Pure. */
export function phasesLine(report: CheckReport): string {
  const p = report.phases;
  const r = p.restarts;
  // Counts of restarts vary with the parallel runs under way at a failure: they are in --json only.
  const restarts =
    r === null
      ? ''
      : `; restarts ${seconds(r.coldMs)} cold, ${seconds(r.warmMs)} warm${r.crash === undefined ? '' : `, ${seconds(r.crashMs ?? 0)} crash`}`;
  return `fixtures ${seconds(p.fixturesMs)}, paths ${seconds(p.pathsMs)}, campaign ${seconds(p.campaignMs)}, shrinking ${seconds(p.shrinkMs)}, exploration ${seconds(p.exploreMs)}${report.concurrent === null ? '' : `, competing workers ${seconds(p.concurrentMs)}`}${restarts}; ${count(p.parallel, 'store')} at once`;
}

/** Requests of a concurrent campaign's shrunk failure, over its rounds; null without one. Pure. */
export const requestsOf = (r: ConcurrentCampaignResult): number | null =>
  r.failure?.run == null ? null : requestCount(r.failure.run.rounds);

/** The concurrent campaign on one line of the summary. Pure. */
export function concurrentLine(r: ConcurrentCampaignResult): string {
  const what = `${count(r.runs, 'run')} of ${r.workers} workers, seed ${r.seed}`;
  switch (r.verdict) {
    case 'passed':
      return `${what}: every history linearizable`;
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
