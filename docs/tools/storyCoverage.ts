/**
 * What the failure stories exercise: for every declared lifecycle transition and every rejection
 * code, the stories (fixtures) whose trace on the reference model takes or returns it. A small,
 * readable coverage table, used to teach how to read the full coverage report.
 */
import { listStories, traceStory } from '../../cli/demo/index.ts';
import type { Story } from '../../cli/demo/index.ts';
import { REJECTION_CODES } from '../../contract/index.ts';
import { CoverageRecorder } from '../../conformance/coverage/coverage.ts';
import type { Coverage } from '../../conformance/coverage/coverage.ts';
import { lifecycleSvg } from '../../conformance/coverage/lifecycleDiagram.ts';
import { lifecycleTransitions } from '../../model/index.ts';

/** Per item, the names of the stories that hit it and the total number of hits. */
export interface StoryCoverage {
  readonly transitions: ReadonlyMap<string, { hits: number; stories: string[] }>;
  readonly rejections: ReadonlyMap<string, { hits: number; stories: string[] }>;
}

function bump(map: Map<string, { hits: number; stories: string[] }>, item: string, story: string): void {
  const entry = map.get(item);
  if (entry === undefined) return;
  entry.hits += 1;
  if (!entry.stories.includes(story)) entry.stories.push(story);
}

/** Counts the transitions taken and rejection codes returned by the stories on the model. Pure apart from reading fixtures. */
export function storyCoverage(stories: readonly Story[] = listStories()): StoryCoverage {
  const transitions = new Map(lifecycleTransitions().map((t) => [t.id, { hits: 0, stories: [] as string[] }]));
  const rejections = new Map(REJECTION_CODES.map((c) => [c as string, { hits: 0, stories: [] as string[] }]));
  for (const story of stories) {
    for (const step of traceStory(story).steps) {
      for (const id of step.transitions) bump(transitions, id, story.name);
      if (step.reply !== undefined && !step.reply.ok) bump(rejections, step.reply.code, story.name);
    }
  }
  return { transitions, rejections };
}

/** The story coverage as a Markdown table; items no story reaches are marked **never**. */
export function storyCoverageTable(stories: readonly Story[] = listStories()): string {
  const cov = storyCoverage(stories);
  const lines = ['| item | hits | stories |', '| --- | ---: | --- |'];
  const row = (item: string, e: { hits: number; stories: string[] }): string =>
    `| ${item} | ${e.hits === 0 ? '**never**' : e.hits} | ${e.stories.map((s) => `\`${s}\``).join(', ')} |`;
  for (const [id, e] of cov.transitions) lines.push(row(`\`${id.replace(/\|/g, '\\|')}\``, e));
  for (const [code, e] of cov.rejections) lines.push(row(`rejection \`${code}\``, e));
  return lines.join('\n');
}

/**
 * The stories' coverage as a coverage value (states, transitions and rejection codes only; pairs
 * and paths stay at zero), so the coverage report's own diagram can draw it.
 */
export function storyCoverageValue(stories: readonly Story[] = listStories()): Coverage {
  const recorder = new CoverageRecorder('failure stories');
  const byId = new Map(lifecycleTransitions().map((t) => [t.id, t]));
  for (const story of stories) {
    for (const step of traceStory(story).steps) {
      const reply = step.reply;
      if (reply !== undefined && !reply.ok) recorder.hit('rejections', reply.code);
      if (reply?.ok && reply.type === 'submit' && !reply.duplicate) recorder.hit('states', 'ready');
      for (const id of step.transitions) {
        recorder.hit('transitions', id);
        const t = byId.get(id);
        if (t !== undefined && t.to !== t.from) recorder.hit('states', t.to);
      }
    }
  }
  return recorder.toCoverage();
}

/** The lifecycle diagram coloured by the stories' coverage, as a standalone SVG file (dashed red: never). */
export async function storyCoverageSvg(stories: readonly Story[] = listStories()): Promise<string> {
  return `${await lifecycleSvg(storyCoverageValue(stories))}\n`;
}
