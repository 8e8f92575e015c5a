/** The command lines that repeat a check's shrunk failure, as the stories and the JSON result print them. */
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
