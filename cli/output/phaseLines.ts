/**
 * The lines of a check's summary that are not one phase's words (phaseText.ts has those): the
 * implementation's name, where the time went; and, from a finished report, the exploration's and
 * the restore phase's words, as the JUnit file and the run page print them.
 */
import type { CheckReport } from '../../conformance/check/index.ts';
import { outsideText } from '../../conformance/outside/outsideText.ts';
import { clipText } from '../../contract/index.ts';
import type { CheckContext } from './context.ts';
import { phaseEndText, phaseEndsOf } from './phaseText.ts';
// The competing workers' line is phaseText.ts's, as every phase's; it is exported from here as before.
export { concurrentLine, overlapText, requestsOf } from './phaseText.ts';
import { count, seconds } from './units.ts';

/** The name an implementation gave itself, cut for headings and escaped (it is the implementation's text, and the target may quote a file's). Pure. */
export const implementationName = (ctx: CheckContext): string =>
  ctx.implementation === undefined
    ? outsideText(ctx.target)
    : `${outsideText(ctx.target)} (${outsideText(clipText(ctx.implementation, 80))})`;

/** What the check's exploration did: states, transitions, and whether it ran in full and agreed, or why it did not run. Pure. */
export const explorationLine = (report: CheckReport): string => phaseLine(report, 'explore');

/** What the check's restore phase did: the invalid snapshots offered and refused, or why it did not run. Pure. */
export const restoreLine = (report: CheckReport): string => phaseLine(report, 'restore');

/** The summary's words for one phase of a finished check. Pure. */
function phaseLine(report: CheckReport, phase: 'explore' | 'restore'): string {
  const end = phaseEndsOf(report).find((e) => e.phase === phase);
  return (end === undefined ? null : phaseEndText(end)) ?? 'not run';
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
  return `fixtures ${seconds(p.fixturesMs)}, restore ${seconds(p.restoreMs)}, paths ${seconds(p.pathsMs)}, campaign ${seconds(p.campaignMs)}, shrinking ${seconds(p.shrinkMs)}, exploration ${seconds(p.exploreMs)}${report.concurrent === null ? '' : `, competing workers ${seconds(p.concurrentMs)}`}${restarts}; ${count(p.parallel, 'store')} at once`;
}
