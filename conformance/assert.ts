/**
 * Thin throwing wrappers for test runners: the engine's results are data; these turn a
 * divergence into a ConformanceError whose message is the story.
 */
import type { CampaignOptions, CampaignResult } from './random/campaign.ts';
import { runCampaign } from './random/campaign.ts';
import { ConformanceError } from './errors.ts';
import type { PathSuiteOptions, PathSuiteResult } from './paths/pathSuite.ts';
import { runPathSuite } from './paths/pathSuite.ts';
import { renderStory } from './lockstep/story.ts';

/** Runs a campaign and throws ConformanceError `divergence` (message: the story) if it diverges. */
export async function assertConforms(options: CampaignOptions): Promise<CampaignResult> {
  const result = await runCampaign(options);
  if (result.counterexample !== null) {
    throw new ConformanceError(
      'divergence',
      renderStory(result.counterexample, { seed: result.seed, path: result.path, symbolic: true }),
    );
  }
  return result;
}

/** Runs the path suite and throws ConformanceError `divergence` (message: the first failing path's story). */
export async function assertPathsConform(options: PathSuiteOptions): Promise<PathSuiteResult> {
  const result = await runPathSuite(options);
  if (result.story !== null) throw new ConformanceError('divergence', result.story);
  return result;
}
