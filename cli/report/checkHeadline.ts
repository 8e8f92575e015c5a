/**
 * The sentence under the verdict at the top of a run's page: the terminal's verdict line, said
 * without the verdict word (the page shows that big above it) and without colour codes.
 */
import type { CheckReport } from '../../conformance/check/index.ts';
import { failureOrigin } from '../output/text.ts';
import { durationText } from './page.ts';

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** What a check's verdict means for this run, in one sentence. Pure. */
export function checkHeadline(report: CheckReport): string {
  const took = durationText(report.durationMs);
  if (report.verdict === 'incomplete') {
    if (report.concurrent?.verdict === 'unknown')
      return `The checker ran out of its budget on ${plural(report.concurrent.unknownRuns, 'history', 'histories')} of the competing workers before deciding (${took}); nothing diverged, which is not a pass.`;
    if (report.notAPass !== null)
      return `${report.notAPass.charAt(0).toUpperCase()}${report.notAPass.slice(1)} (${took}); not a pass.`;
    return `Stopped by the time limit before the check ran in full (${took}); nothing diverged in what ran, which is not a pass.`;
  }
  const f = report.failure;
  if (f === null) return `The implementation agrees with the model in everything the check ran (${took}).`;
  const size = f.kind === 'race' ? plural(f.steps, 'request') : plural(f.steps, 'step');
  const early = report.stoppedByFailFast ? '; --fail-fast stopped the check there' : '';
  return `The implementation departs from the model (${took}${early}): the shortest story, ${size}, comes from ${failureOrigin(f)}.`;
}
