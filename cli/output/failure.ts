/**
 * A check's failure told for the command line: the engine's story (conformance/check/failureStory.ts)
 * with the commands that repeat it and the artifact the report directory holds.
 */
import { renderCheckFailure } from '../../conformance/check/index.ts';
import type { CheckFailure, CheckReport } from '../../conformance/check/index.ts';
import type { StoryContext } from '../../conformance/lockstep/story.ts';
import type { CheckContext } from './context.ts';
import { concurrentReproduceCommand, reproduceCommand } from './reproduce.ts';

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
  const replay = files?.artifact === undefined ? undefined : `npx jobcheck replay ${files.artifact} ${ctx.flags}`;
  const sequential: StoryContext = {
    ...(failure.source === 'campaign'
      ? { seed: ctx.seed, path, ...(path === null ? {} : { reproduceCommand: reproduceCommand(ctx, path) }) }
      : {}),
    ...(files?.artifact === undefined ? {} : { artifactFile: files.artifact }),
    ...(replay === undefined ? {} : { replayCommand: replay }),
  };
  const racing = failure.kind === 'race' ? failure.concurrent : undefined;
  const again =
    racing?.path === null || racing?.path === undefined
      ? undefined
      : concurrentReproduceCommand(ctx, racing.workers, racing.path);
  return renderCheckFailure(failure, {
    sequential,
    ...(again === undefined ? {} : { concurrentReproduceCommand: again }),
  });
}
