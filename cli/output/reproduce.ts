/**
 * The command lines that repeat a check's failure, as the stories, the JSON result and the run's
 * page print them: one place builds them from the check's structured outcome (the campaign's and
 * the concurrent campaign's paths, the artifact written), so that no reader parses them out of a
 * story's text. A path in them is one shell word, whatever its name; the stories escape each line.
 */
import type { CheckFailure } from '../../conformance/check/index.ts';
import type { CheckContext } from './context.ts';

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

/**
 * The whole check again with its seed (and what shapes its runs: `--runs`, `--max-commands`,
 * `--workers`): where no path names the failing run, the same check finds the same story. Pure.
 */
export function checkAgainCommand(ctx: CheckContext): string {
  const maxCommands = ctx.maxCommands === undefined ? '' : ` --max-commands ${ctx.maxCommands}`;
  const workers = ctx.workers === undefined ? '' : ` --workers ${ctx.workers}`;
  return `npx jobcheck check ${ctx.flags}${workers}${maxCommands} --seed ${ctx.seed} --runs ${ctx.runs}`;
}

/**
 * The value of an implementation flag (`--impl`, `--module`) as the printed commands write it: as
 * it is when it needs no quoting, else in double quotes with `"`, `\`, `$` and `` ` `` escaped,
 * so that a shell gives the flag exactly that value and expands nothing. Pure.
 */
export const flagWord = (s: string): string => (/^[\w./:=@-]+$/.test(s) ? s : `"${s.replace(/(["\\$`])/g, '\\$1')}"`);

/**
 * A word for a POSIX shell: as it is when it needs no quoting, else in single quotes (in which
 * nothing is expanded: a path named `$(touch x); y` stays one word and runs nothing). Pure.
 */
export const shellWord = (word: string): string =>
  /^[\w./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;

/** The command that replays a failure artifact against the same target, its path one shell word. Pure. */
export const replayCommand = (ctx: CheckContext, artifact: string): string =>
  `npx jobcheck replay ${shellWord(artifact)} ${ctx.flags}`;

/** The commands that repeat one failure; each only where the check's outcome holds what it needs. */
export interface RepeatCommands {
  /** Repeats the shrunk run: a campaign's (`--path`) or a race's (`--concurrent-path`). */
  readonly reproduce?: string;
  /** Replays the failure artifact (a sequential story that replays, written to the report directory). */
  readonly replay?: string;
}

/**
 * The commands that repeat `failure`: the campaign's path when the random campaign found it, the
 * concurrent path when competing workers did, and the replay of `artifact` when one was written.
 * `campaignPath` is the campaign's shrunk path (CheckReport's `campaign.path`). Pure.
 */
export function repeatCommands(
  failure: CheckFailure,
  campaignPath: string | null,
  ctx: CheckContext,
  artifact?: string,
): RepeatCommands {
  const race = failure.kind === 'race' ? failure.concurrent : undefined;
  const reproduce =
    failure.source === 'campaign' && campaignPath !== null
      ? reproduceCommand(ctx, campaignPath)
      : race !== undefined && race.path !== null
        ? concurrentReproduceCommand(ctx, race.workers, race.path)
        : undefined;
  return {
    ...(reproduce === undefined ? {} : { reproduce }),
    ...(artifact === undefined ? {} : { replay: replayCommand(ctx, artifact) }),
  };
}
