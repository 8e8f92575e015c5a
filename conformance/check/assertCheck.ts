/**
 * The thin throwing wrapper of the one check, for test runners: runCheck's result is data; this
 * turns a failure into a ConformanceError whose message is the story, as assertConforms does for a
 * campaign alone.
 */
import { ConformanceError } from '../errors.ts';
import { renderCheckFailure } from './failureStory.ts';
import type { CheckOptions } from './options.ts';
import type { CheckReport } from './report.ts';
import { runCheck } from './runCheck.ts';
import type { CheckTarget } from './target.ts';

/**
 * Runs the check and throws ConformanceError `divergence` (message: the shortest story) if it
 * diverges, and Error if it did not run in full (a time limit, or a replayed path whose runs all
 * agree: not a pass). Returns the report of a check that agrees.
 */
export async function assertCheck(target: CheckTarget, options: CheckOptions = {}): Promise<CheckReport> {
  const report = await runCheck(target, options);
  const f = report.failure;
  if (f !== null) {
    const sequential =
      f.source === 'campaign' ? { seed: report.campaign.seed, path: report.campaign.path, symbolic: true } : {};
    throw new ConformanceError('divergence', renderCheckFailure(f, { sequential }));
  }
  if (report.verdict !== 'agree') {
    // ConformanceError has no code for this yet; an incomplete check is not a divergence either.
    throw new Error(
      `the check is incomplete, not a pass: ${report.notAPass ?? 'the time limit stopped it before it ran in full'}`,
    );
  }
  return report;
}
