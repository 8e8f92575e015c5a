/**
 * Stories: a failing run told so that a person can follow it. Numbered steps, each with the
 * command, the model's reply and the implementation's reply; at the diverging step, the model's
 * lifecycle transitions with their guards, the contract rules that decided the expected value
 * (id and sentence from docs/contract.md), and every differing field of the reply and of the
 * snapshot, named by path; then how to reproduce it.
 */
import type { Config, Reply } from '../../contract/index.ts';
import { RULES } from '../../contract/rules.ts';
import type { Rule, RuleId } from '../../contract/rules.ts';
import {
  RESTART_RULES,
  describeTransition,
  fromSnapshot,
  initialState,
  rulesExercised,
  step,
} from '../../model/index.ts';
import { allDifferences, comparableReply, describeDifference, showValue } from './compare.ts';
import type { Difference } from './compare.ts';
import type { Divergence, LockstepResult, LockstepStep } from './index.ts';
import { outsideText } from '../outside/outsideText.ts';
import { describeSymbolic } from './symbolic.ts';

/** Most differing fields a story lists for the reply and for the snapshot each; the rest are counted. */
export const SHOWN_DIFFERENCES = 8;

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
      const fields = Object.entries(rest).map(
        ([k, v]) => `${k}=${typeof v === 'string' && /^[\w-]+$/.test(v) ? v : showValue(v)}`,
      );
      return [type, ...fields].join(' ');
    }
  }
  return `${showValue(command)} (malformed)`;
}

/** A reply on one line, without `message` (shown after a dash for rejections, escaped: it is the implementation's text). Pure. */
export function describeReply(reply: unknown): string {
  const text = showValue(comparableReply(reply));
  const message = (reply as (Partial<Reply> & { message?: unknown }) | null)?.message;
  return typeof message === 'string' ? `${text}  -- ${outsideText(message)}` : text;
}

/** The rules that decided the model's side of a step: as the lockstep runner recorded them, or worked out again from the state before it. Pure. */
export function stepRules(result: Pick<LockstepResult, 'config' | 'steps'>, s: LockstepStep): readonly Rule[] {
  let ids: readonly RuleId[];
  if (s.rules !== undefined) ids = s.rules;
  else if ('restart' in s.action) ids = RESTART_RULES;
  else {
    const previous = result.steps[result.steps.indexOf(s) - 1];
    const before = previous === undefined ? initialState(result.config) : fromSnapshot(previous.modelSnapshot);
    ids = rulesExercised(before, s.action.do, step(before, s.action.do));
  }
  return RULES.filter((r) => ids.includes(r.id));
}

/** `>> <what> differs at <field>` for every differing field, at most SHOWN_DIFFERENCES, then a count. Pure. */
function differenceLines(what: string, first: Difference, model: unknown, impl: unknown, path = ''): string[] {
  const all = allDifferences(model, impl, path, SHOWN_DIFFERENCES);
  // The runner's own first difference leads, whatever this walk finds (they agree for JSON values).
  const shown = all.total === 0 ? [first] : all.differences;
  const lines = shown.map((d) => `       >> ${what} differs at ${describeDifference(d)}`);
  const more = Math.max(all.total, 1) - shown.length;
  if (more > 0) lines.push(`       >> and ${more} more ${what} field${more === 1 ? '' : 's'}`);
  return lines;
}

/** What the model did and why, at the diverging step: its transitions (guards as written) and the rules that decided it. */
function modelReasons(result: LockstepResult, s: LockstepStep): string[] {
  const lines: string[] = [];
  if ('do' in s.action) {
    if (s.trace.length === 0) lines.push('       model took no lifecycle transition');
    for (const t of s.trace) lines.push(`       model took ${t.job}: ${describeTransition(t)}`);
  }
  lines.push(...ruleLines(stepRules(result, s)));
  return lines;
}

/** `rule <id> (docs/contract.md#rule-<id>): <sentence>`, the sentence without its bold marks (this is plain text). Pure. */
const ruleLines = (rules: readonly Rule[]): string[] =>
  rules.map(
    (rule) => `       rule ${rule.id} (docs/contract.md#rule-${rule.id}): ${rule.sentence.replace(/\*\*/g, '')}`,
  );

function divergenceLines(d: Divergence, s: LockstepStep, result: LockstepResult): string[] {
  // An alias is found after the last step, by changing a snapshot: the step's own command agreed.
  const lines =
    d.kind === 'alias' ? ruleLines(RULES.filter((r) => r.id === 'snapshot-is-a-copy')) : modelReasons(result, s);
  if (d.kind === 'impl_error' && s.modelReply === undefined)
    lines.push(`       impl:  ${outsideText(d.error ?? 'error')}`);
  if (d.reply !== undefined)
    lines.push(
      ...differenceLines('reply', d.reply, comparableReply(s.modelReply), comparableReply(s.implReply), 'reply'),
    );
  if (d.kind === 'alias' && d.snapshot !== undefined) {
    lines.push('       >> the caller then changed the snapshot it was given (every field overwritten)');
    lines.push(
      ...differenceLines('snapshot', d.snapshot, s.modelSnapshot, d.implSnapshot).map((l) =>
        l.replace('>> snapshot differs', '>> and the next snapshot differs'),
      ),
    );
  } else if (d.snapshot !== undefined)
    lines.push(...differenceLines('snapshot', d.snapshot, s.modelSnapshot, d.implSnapshot));
  else if (d.kind !== 'impl_error') lines.push('       >> snapshots are equal');
  return lines;
}

function renderStep(s: LockstepStep, diverging: boolean, result: LockstepResult, ctx: StoryContext): string[] {
  const lines: string[] = [];
  const what = 'restart' in s.action ? 'restart (snapshot -> JSON -> restore)' : describeCommand(s.action.do);
  lines.push(`${String(s.index).padStart(3)}. ${what}`);
  if (ctx.symbolic === true && s.symbolic !== undefined)
    lines.push(`       generated as: ${describeSymbolic(s.symbolic)}`);
  const d = diverging ? result.divergence : null;
  if (s.modelReply !== undefined) {
    lines.push(`       model: ${describeReply(s.modelReply)}`);
    if (d?.kind === 'impl_error') lines.push(`       impl:  ${outsideText(d.error ?? 'error')}`);
    else if (d?.reply !== undefined) lines.push(`       impl:  ${describeReply(s.implReply)}`);
    else lines.push('       impl:  same');
  }
  if (d !== null) lines.push(...divergenceLines(d, s, result));
  return lines;
}

/**
 * The story of a run: a headline with the verdict, the config, numbered steps and, for a
 * divergence, the first differing fields and how to reproduce it. Pure.
 */
export function renderStory(result: LockstepResult, ctx: StoryContext = {}): string {
  const d = result.divergence;
  const lines: string[] = [];
  // The adapter's name quotes the command line or a module's path; errors quote the implementation.
  const adapter = outsideText(result.adapter);
  if (d === null) lines.push(`${adapter} agrees with the model over ${result.steps.length} steps.`);
  else if (d.step === 0) lines.push(`${adapter} could not be started: ${outsideText(d.error ?? '')}`);
  else {
    const what =
      d.kind === 'impl_error'
        ? 'the implementation failed'
        : d.kind === 'alias'
          ? 'its snapshot is a live alias'
          : `${d.kind} differs`;
    lines.push(`${adapter} disagrees with the model at step ${d.step} of ${result.steps.length} (${what}).`);
  }
  lines.push(`config: ${describeConfig(result.config)}`);
  lines.push('');
  for (const s of result.steps) lines.push(...renderStep(s, d !== null && s.index === d.step, result, ctx));
  const repro: string[] = [];
  // The commands name paths and targets from outside (a report directory, an --impl): one line each.
  if (ctx.reproduceCommand !== undefined) repro.push(`reproduce: ${outsideText(ctx.reproduceCommand)}`);
  else if (ctx.seed !== undefined)
    repro.push(
      `seed: ${ctx.seed}${ctx.path ? `  path: ${ctx.path}` : ''}  (runCampaign({ seed, path }) repeats the shrunk run)`,
    );
  if (ctx.artifactFile !== undefined) repro.push(`artifact: ${outsideText(ctx.artifactFile)}`);
  const replay =
    ctx.replayCommand ??
    (ctx.artifactFile === undefined ? undefined : `npx jobcheck replay ${ctx.artifactFile} --impl "<command>"`);
  if (replay !== undefined) repro.push(`replay: ${outsideText(replay)}`);
  if (repro.length > 0) lines.push('', ...repro);
  return lines.join('\n');
}
