/**
 * The failure stories as documentation, generated from the fixtures and traced on the reference
 * model: the list of stories, and each story as a quiz in which the reader predicts the focus
 * job's status and token and the account's balance before opening the answer.
 */
import { Readable } from 'node:stream';
import {
  findStory,
  listStories,
  renderFinal,
  renderStepAfter,
  ruleLines,
  runDemo,
  traceStory,
} from '../../cli/demo/index.ts';
import type { Story, TracedStep } from '../../cli/demo/index.ts';

const cell = (text: string): string => text.replace(/\|/g, '\\|');

/** A Markdown table of every fixture story: name, title, focus and number of steps. */
export function storiesTable(stories: readonly Story[] = listStories()): string {
  const lines = ['| story | what it shows | focus | steps |', '| --- | --- | --- | --- |'];
  for (const s of stories) {
    lines.push(
      `| \`${s.name}\` | ${cell(s.title)} | job \`${s.focus.job}\`, account \`${s.focus.account}\` | ${s.steps.length} |`,
    );
  }
  return lines.join('\n');
}

function stepQuestion(step: TracedStep): string {
  switch (step.kind) {
    case 'do':
      return `\`${JSON.stringify(step.command)}\``;
    case 'restart':
      return 'The store restarts: snapshot, JSON text, a fresh store restored from it.';
    case 'aliasSnapshot':
      return 'A snapshot is taken and then changed in place by its receiver. Does the store change with it?';
    case 'aliasRestore':
      return 'A fresh store is restored from a snapshot object, then that object is changed. Does the store change with it?';
  }
}

/** The answer to one step: what it produced and, when a contract rule decided it, that rule with its sentence. Pure. */
export function stepAnswer(step: TracedStep, story: Parameters<typeof renderStepAfter>[1]): string {
  const after = renderStepAfter(step, story);
  return step.rules.length === 0 ? after : `${after}\n${ruleLines(step.rules).join('\n')}`;
}

/**
 * One story as a quiz in Markdown: the story, then per step the command, the prediction prompt,
 * and the answer (with the rules that decided the step) folded in a `<details>` block so that it
 * stays hidden until the reader opens it.
 */
export function storyQuiz(name: string): string {
  const story = findStory(name);
  const trace = traceStory(story);
  const { job, account } = story.focus;
  const c = story.config;
  const out = [
    `> ${story.story}`,
    '',
    `Config: capacity ${c.capacity}, maxAttempts ${c.maxAttempts}, leaseTicks ${c.leaseTicks}, backoffBase ${c.backoffBase}, backoffCap ${c.backoffCap}. ` +
      `Run it yourself: \`jobcheck demo ${story.name} --predict\`.`,
    '',
  ];
  for (const step of trace.steps) {
    out.push(
      `**Step ${step.index}.** ${stepQuestion(step)}`,
      '',
      `Predict: the status of job \`${job}\`, its token, the balance of \`${account}\`.`,
      '',
      '<details><summary>Answer</summary>',
      '',
      '```text',
      stepAnswer(step, story),
      '```',
      '',
      '</details>',
      '',
    );
  }
  out.push('```text', renderFinal(trace), '```');
  return out.join('\n');
}

/** Answers typed in the example `--predict` transcripts, by story: one line per step. */
const TRANSCRIPT_ANSWERS: Readonly<Record<string, readonly string[]>> = {
  // The third answer is the classic mistake: a commit does not settle the job.
  normal: ['ready - 0', 'running 1 0', 'done - 1', 'done - 1', 'done - 1'],
};

/**
 * A `--predict` session as a reader sees it in a terminal: runs the demo with `isTTY` and the
 * scripted answers, then puts each answer back after its prompt (a terminal echoes what is typed).
 * Undefined for a story without scripted answers.
 */
export async function predictTranscript(name: string): Promise<string | undefined> {
  const answers = TRANSCRIPT_ANSWERS[name];
  if (answers === undefined) return undefined;
  let out = '';
  const sink = { write: (s: string) => (out += s) };
  await runDemo([name, '--predict'], { stdin: Readable.from(answers.map((a) => `${a}\n`)), stdout: sink, isTTY: true });
  const parts = out.split('predict  > ');
  const typed = parts.map((p, i) => (i === 0 ? p : `${answers[i - 1] ?? ''}\n${p}`)).join('predict  > ');
  return ['```text', `$ npx --no-install jobcheck demo ${name} --predict`, typed.replace(/\n+$/, ''), '```'].join('\n');
}
