/**
 * A check's failure told for the command line: the engine's story (conformance/check/failureStory.ts)
 * with the commands that repeat it and the artifact the report directory holds.
 */
import { renderCheckFailure } from '../../conformance/check/index.ts';
import type { CheckFailure, CheckReport } from '../../conformance/check/index.ts';
import type { StoryContext } from '../../conformance/lockstep/story.ts';
import type { CheckContext } from './context.ts';
import { repeatCommands } from './reproduce.ts';

/** Where the failure artifact was written, if it was. */
export interface ArtifactFile {
  readonly artifact?: string;
}

/** The story of a failure, whatever found it, with the command line's hints. Pure. */
export function renderFailure(
  failure: CheckFailure,
  report: CheckReport,
  ctx: CheckContext,
  files?: ArtifactFile,
): string {
  const path = report.campaign.path;
  const repeat = repeatCommands(failure, path, ctx, files?.artifact);
  const sequential: StoryContext = {
    ...(failure.source === 'campaign'
      ? { seed: ctx.seed, path, ...(repeat.reproduce === undefined ? {} : { reproduceCommand: repeat.reproduce }) }
      : {}),
    ...(files?.artifact === undefined ? {} : { artifactFile: files.artifact }),
    ...(repeat.replay === undefined ? {} : { replayCommand: repeat.replay }),
  };
  const again = failure.kind === 'race' ? repeat.reproduce : undefined;
  return renderCheckFailure(failure, {
    sequential,
    ...(again === undefined ? {} : { concurrentReproduceCommand: again }),
  });
}
