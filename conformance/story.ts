/**
 * Stories: a failing run told so that a person can follow it. Numbered steps, each with the
 * command, the model's reply and the implementation's reply; at the diverging step, the first
 * differing field of the reply and of the snapshot, named by path; then how to reproduce it.
 */
import type { Config, Reply } from '../contract/index.ts';
import { comparableReply, describeDifference, showValue } from './compare.ts';
import type { LockstepResult, LockstepStep } from './lockstep.ts';
import { describeSymbolic } from './symbolic.ts';

/** How to reproduce the run, printed under the story. All optional. */
export interface StoryContext {
  /** fast-check seed of the campaign. */
  readonly seed?: number;
  /** fast-check path of the counterexample. */
  readonly path?: string | null;
  /**
   * The command line that repeats the shrunk run (the CLI's `npx jobcheck check ... --seed N
   * --path P`); without it, the library call `runCampaign({ seed, path })` is named.
   */
  readonly reproduceCommand?: string;
  /** Where the artifact was written. */
  readonly artifactFile?: string;
  /** The command that replays the artifact (default: `npx jobcheck replay <artifactFile> ...`). */
  readonly replayCommand?: string;
  /** Also print each step's generated (symbolic) form, e.g. `now=leaseUntil(a)-1`. */
  readonly symbolic?: boolean;
}

/** `capacity=1 maxAttempts=2 ...`. Pure. */
export const describeConfig = (c: Config): string =>
  `capacity=${c.capacity} maxAttempts=${c.maxAttempts} leaseTicks=${c.leaseTicks} backoffBase=${c.backoffBase} backoffCap=${c.backoffCap}`;

/** A command on one line: `submit id=a account=x ... now=0` for well-formed objects, JSON otherwise. Pure. */
export function describeCommand(command: unknown): string {
  if (typeof command === 'object' && command !== null && !Array.isArray(command)) {
    const { type, ...rest } = command as Record<string, unknown>;
    if (typeof type === 'string' && /^[a-z]+$/.test(type)) {
      const fields = Object.entries(rest).map(([k, v]) => `${k}=${typeof v === 'string' && /^[\w-]+$/.test(v) ? v : showValue(v)}`);
      return [type, ...fields].join(' ');
    }
  }
  return `${showValue(command)} (malformed)`;
}

/** A reply on one line, without `message` (shown after a dash for rejections). Pure. */
export function describeReply(reply: unknown): string {
  const text = showValue(comparableReply(reply));
  const message = (reply as Partial<Reply> & { message?: unknown } | null)?.message;
  return typeof message === 'string' ? `${text}  -- ${message}` : text;
}

function renderStep(s: LockstepStep, diverging: boolean, result: LockstepResult, ctx: StoryContext): string[] {
  const lines: string[] = [];
  const what = 'restart' in s.action ? 'restart (snapshot -> JSON -> restore)' : describeCommand(s.action.do);
  lines.push(`${String(s.index).padStart(3)}. ${what}`);
  if (ctx.symbolic === true && s.symbolic !== undefined) lines.push(`       generated as: ${describeSymbolic(s.symbolic)}`);
  if (s.modelReply !== undefined) {
    lines.push(`       model: ${describeReply(s.modelReply)}`);
    const d = diverging ? result.divergence : null;
    if (d?.kind === 'impl_error') lines.push(`       impl:  ${d.error ?? 'error'}`);
    else if (d?.reply !== undefined) lines.push(`       impl:  ${describeReply(s.implReply)}`);
    else lines.push('       impl:  same');
  }
  if (diverging) {
    const d = result.divergence;
    if (d?.kind === 'impl_error' && s.modelReply === undefined) lines.push(`       impl:  ${d.error ?? 'error'}`);
    if (d?.reply !== undefined) lines.push(`       >> reply differs at ${describeDifference(d.reply)}`);
    if (d?.kind === 'alias' && d.snapshot !== undefined) {
      lines.push('       >> the caller then changed the snapshot it was given (every field overwritten)');
      lines.push(`       >> and the next snapshot differs at ${describeDifference(d.snapshot)}`);
    } else if (d?.snapshot !== undefined) lines.push(`       >> snapshot differs at ${describeDifference(d.snapshot)}`);
    else if (d?.kind !== 'impl_error') lines.push('       >> snapshots are equal');
  }
  return lines;
}

/**
 * The story of a run: a headline with the verdict, the config, numbered steps and, for a
 * divergence, the first differing fields and how to reproduce it. Pure.
 */
export function renderStory(result: LockstepResult, ctx: StoryContext = {}): string {
  const d = result.divergence;
  const lines: string[] = [];
  if (d === null) lines.push(`${result.adapter} agrees with the model over ${result.steps.length} steps.`);
  else if (d.step === 0) lines.push(`${result.adapter} could not be started: ${d.error ?? ''}`);
  else {
    const what = d.kind === 'impl_error' ? 'the implementation failed' : d.kind === 'alias' ? 'its snapshot is a live alias' : `${d.kind} differs`;
    lines.push(`${result.adapter} disagrees with the model at step ${d.step} of ${result.steps.length} (${what}).`);
  }
  lines.push(`config: ${describeConfig(result.config)}`);
  lines.push('');
  for (const s of result.steps) lines.push(...renderStep(s, d !== null && s.index === d.step, result, ctx));
  const repro: string[] = [];
  if (ctx.reproduceCommand !== undefined) repro.push(`reproduce: ${ctx.reproduceCommand}`);
  else if (ctx.seed !== undefined) repro.push(`seed: ${ctx.seed}${ctx.path ? `  path: ${ctx.path}` : ''}  (runCampaign({ seed, path }) repeats the shrunk run)`);
  if (ctx.artifactFile !== undefined) repro.push(`artifact: ${ctx.artifactFile}`);
  const replay = ctx.replayCommand ?? (ctx.artifactFile === undefined ? undefined : `npx jobcheck replay ${ctx.artifactFile} --impl "<command>"`);
  if (replay !== undefined) repro.push(`replay: ${replay}`);
  if (repro.length > 0) lines.push('', ...repro);
  return lines.join('\n');
}
