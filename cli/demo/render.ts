/**
 * Text renderings of stories for the terminal and for the docs. Plain ASCII, one fact per line,
 * labels in a fixed column so that a trace reads top to bottom like a lab notebook. Commands and
 * replies are shown as the JSON the protocol carries, so a reader sees exactly what is exchanged.
 * Every renderer takes the terminal's colours (plain by default, as the docs quote it): step
 * headings bold, commands cyan, accepted replies green and refusals yellow, transitions magenta,
 * mismatches bold red. A story read from a file is text from outside: its title, story, notes and
 * ids are escaped where they are put into a line (conformance/outside/outsideText.ts), commands
 * and replies written as jsonText.
 */
import { jsonText, outsideText } from '../../conformance/outside/outsideText.ts';
import type { JobRecord, Snapshot } from '../../contract/index.ts';
import type { Colors } from '../output/colour.ts';
import { plainColors } from './colours.ts';
import type { Story } from './story.ts';
import { traceStory } from './trace.ts';
import type { FocusView, StoryTrace, TracedStep } from './trace.ts';

const label = (name: string, text: string): string => `  ${name.padEnd(8)} ${text}`;

/** The focus line: status, token and attempts of the focus job, balance of the focus account. Pure. */
export function renderFocus(focus: FocusView, story: Pick<Story, 'focus'>): string {
  const job = outsideText(story.focus.job);
  const account = outsideText(story.focus.account);
  const jobPart =
    focus.status === null
      ? `job ${job}: not submitted yet`
      : `job ${job}: ${focus.status}, token ${focus.token ?? '-'}, attempts ${focus.attempts}`;
  return `${jobPart}; ${account} balance ${focus.balance}`;
}

/**
 * The heading of a story: name, title, focus, config and the story text, on one line. The text of
 * a story read from a file (`fromFile`) comes after `  | `, so that it cannot pass for the demo's own. Pure.
 */
export function renderStoryHeader(story: Story, colors: Colors = plainColors, fromFile = false): string {
  const c = story.config;
  return [
    colors.bold(`Story ${outsideText(story.name)}: ${outsideText(story.title)}`),
    `Focus: job ${outsideText(story.focus.job)}, account ${outsideText(story.focus.account)}.`,
    `Config: capacity ${c.capacity}, maxAttempts ${c.maxAttempts}, leaseTicks ${c.leaseTicks}, backoffBase ${c.backoffBase}, backoffCap ${c.backoffCap}.`,
    '',
    `${fromFile ? '  | ' : ''}${outsideText(story.story)}`,
  ].join('\n');
}

/** What is known before a step runs: its number and the command (or the kind of step). Pure. */
export function renderStepBefore(step: TracedStep, total: number, colors: Colors = plainColors): string {
  const head = colors.bold(`Step ${step.index} of ${total}`);
  switch (step.kind) {
    case 'do':
      return [head, label('command', colors.cyan(jsonText(step.command)))].join('\n');
    case 'restart':
      return [head, label('restart', 'snapshot -> JSON text -> fresh store')].join('\n');
    case 'aliasSnapshot':
      return [head, label('check', 'take a snapshot, then change the snapshot object in place')].join('\n');
    case 'aliasRestore':
      return [head, label('check', 'restore a fresh store from a snapshot, then change that snapshot object')].join(
        '\n',
      );
  }
}

/** What a step produced: the reply (or outcome), the transitions, the focus and the note. Pure. */
export function renderStepAfter(step: TracedStep, story: Pick<Story, 'focus'>, colors: Colors = plainColors): string {
  const lines: string[] = [];
  if (step.reply !== undefined) {
    const text = jsonText(step.reply);
    lines.push(label('reply', step.reply.ok ? colors.green(text) : colors.yellow(text)));
  }
  if (step.outcome !== undefined) lines.push(label('outcome', outsideText(step.outcome)));
  for (const moved of step.moved) lines.push(label('moved', colors.magenta(outsideText(moved))));
  lines.push(label('focus', colors.bold(renderFocus(step.focus, story))));
  if (step.note !== undefined) lines.push(label('note', colors.dim(outsideText(step.note))));
  for (const m of step.mismatches) lines.push(colors.bold(colors.red(label('MISMATCH', outsideText(m)))));
  return lines.join('\n');
}

function renderJob(job: JobRecord): string {
  const reason = job.reason === undefined ? '' : ` (${job.reason})`;
  return `${job.status}${reason}, attempts ${job.attempts}`;
}

/** The closing block: every job's end state, the balances, and whether the story's final state held. Pure. */
export function renderFinal(
  trace: Pick<StoryTrace, 'final' | 'finalMismatches'>,
  colors: Colors = plainColors,
): string {
  const final: Snapshot = trace.final;
  const lines = [colors.bold('Final state')];
  for (const [id, job] of Object.entries(final.jobs)) lines.push(label(`job ${outsideText(id)}`, renderJob(job)));
  lines.push(label('balances', jsonText(final.balances)));
  lines.push(label('ledger', jsonText(final.effects)));
  if (trace.finalMismatches.length === 0) lines.push(colors.green('The model ends where the story says it ends.'));
  for (const m of trace.finalMismatches) lines.push(colors.bold(colors.red(label('MISMATCH', outsideText(m)))));
  return lines.join('\n');
}

/** A whole traced story as text (its story quoted when it was read from a file, `fromFile`). Pure. */
export function renderTrace(trace: StoryTrace, colors: Colors = plainColors, fromFile = false): string {
  const parts = [renderStoryHeader(trace.story, colors, fromFile)];
  for (const s of trace.steps)
    parts.push(`${renderStepBefore(s, trace.steps.length, colors)}\n${renderStepAfter(s, trace.story, colors)}`);
  parts.push(renderFinal(trace, colors));
  return `${parts.join('\n\n')}\n`;
}

/** A fixture told as a step-by-step trace from the reference model (what `jobcheck demo <story>` prints). Pure. */
export function renderStory(fixture: Story): string {
  return renderTrace(traceStory(fixture));
}

/** The list of stories with their titles (what `jobcheck demo` prints). Pure. */
export function renderStoryList(stories: readonly Story[]): string {
  if (stories.length === 0) return 'No stories found.\n';
  const width = Math.max(...stories.map((s) => s.name.length));
  const lines = ['Stories (run one with: jobcheck demo <story>, add --predict to guess each step first):', ''];
  for (const s of stories) lines.push(`  ${s.name.padEnd(width)}  ${outsideText(s.title)}`);
  return `${lines.join('\n')}\n`;
}
