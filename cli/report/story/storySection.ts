/**
 * A sequential failure told story-first, as a section of the report page: a headline that says in
 * one sentence what went wrong, right under it the diverging step's diff (the command, both
 * replies with every differing field marked, the state's differing fields), then the lifecycle
 * diagram that follows the story (each job's state lit, the model's transition against the one
 * the implementation's answer implies), the step table, and the contract's rules quoted, each linked.
 *
 * The page is one self-contained file: the diagram is inline SVG laid out here (Graphviz in
 * WebAssembly, which is why building the section is asynchronous), the story's data is a JSON
 * element, the script and styles are inline, and the links to the contract point at the copy
 * shipped with the jobcheck that wrote the page (cli/report/shippedDocs.ts), never fetched. Given
 * the lab's address, a link opens the story there as an editable story (cli/report/lab/failureStory.ts).
 */
import type { DivergenceFailure, FixtureFailure } from '../../../conformance/check/failure.ts';
import type { Difference } from '../../../conformance/lockstep/compare.ts';
import { describeConfig } from '../../../conformance/lockstep/story.ts';
import { htmlText, scriptJson } from '../../../conformance/outside/outsideText.ts';
import { emptyCoverage } from '../../../conformance/coverage/coverage.ts';
import { lifecycleSvg } from '../../../conformance/coverage/lifecycleDiagram.ts';
import type { ExtraEdge } from '../../../conformance/coverage/lifecycleDiagram.ts';
import { RULES } from '../../../contract/rules.ts';
import type { Rule } from '../../../contract/rules.ts';
import type { PageSection } from '../section.ts';
import type { ShippedContract } from '../shippedDocs.ts';
import { compactValue, replyFields, replyMessage } from './replyFields.ts';
import { failureLabLink } from '../lab/failureStory.ts';
import { storyData } from './storyData.ts';
import type { StoryData, StoryStep } from './storyData.ts';
import { STORY_SCRIPT } from './storyScript.ts';
import { IMPL_RED, LIT_FILL, MODEL_GREEN, storyStyles } from './storyStyles.ts';

/** The section's id in the page. */
export const STORY_ID = 'story';

/** A rule's sentence as HTML: its `**bold**` and `` `code` `` marks kept, everything else escaped. Pure. */
export function ruleSentenceHtml(sentence: string): string {
  return htmlText(sentence)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
}

/** The anchor of a quoted rule inside the page. Pure. */
export const ruleAnchor = (id: string): string => `${STORY_ID}-rule-${id}`;

function fieldsHtml(reply: unknown, step: StoryStep, side: 'model' | 'impl'): string {
  const items = replyFields(reply, step.replyDifferences, side)
    .map(
      (f) =>
        `<li${f.differs ? ` class="differs${f.absent === true ? ' absent' : ''}" data-field="${htmlText(f.path)}"` : ''}>${f.path === '' ? '' : `<span class="k">${htmlText(f.path)}</span> `}<span class="v">${htmlText(f.value)}</span></li>`,
    )
    .join('');
  const message = replyMessage(reply);
  return `<ul class="fields">${items}</ul>${message === undefined ? '' : `<div class="msg">${htmlText(message)}</div>`}`;
}

function implCell(step: StoryStep, data: StoryData): string {
  switch (step.impl) {
    case 'same':
      return '<span class="same">✓ same as the model</span>';
    case 'differs':
      return fieldsHtml(step.implReply, step, 'impl');
    case 'error':
      return `<span class="error">failed: ${htmlText(data.verdict.error ?? 'an error')}</span>`;
    case 'as-expected':
      return '<span class="unknown">as the fixture expects</span>';
    case 'none':
      return '<span class="unknown">—</span>';
  }
}

function commandHtml(command: string): string {
  const [verb = '', ...rest] = command.split(' ');
  return `<span class="cmd"><span class="verb">${htmlText(verb)}</span>${rest.length === 0 ? '' : ` ${htmlText(rest.join(' '))}`}</span>`;
}

function snapshotRow(data: StoryData): string {
  const v = data.verdict;
  if (v.snapshotDifferences.length === 0) return '';
  const other = v.against === 'model' ? 'model' : 'fixture';
  const rows = v.snapshotDifferences
    .map(
      (d: Difference) =>
        `<tr><td class="mono">${htmlText(d.path === '' ? '(value)' : d.path)}</td><td class="model mono">${htmlText(compactValue(d.model))}</td><td class="impl mono">${htmlText(compactValue(d.impl))}</td></tr>`,
    )
    .join('');
  const more = v.snapshotTotal - v.snapshotDifferences.length;
  return `<tr class="snapdiff"><td colspan="5"><table class="snap" aria-label="state after step ${v.step}"><thead><tr><th>state after step ${v.step} differs at</th><th>${other}</th><th>implementation</th></tr></thead><tbody>${rows}</tbody></table>${more > 0 ? `<div class="msg">and ${more} more field${more === 1 ? '' : 's'}</div>` : ''}</td></tr>`;
}

/** The cells of a step's row: number, command, both replies, the rules that decided the model's. */
function stepCells(step: StoryStep, data: StoryData): string {
  const rules = step.rules
    .map((id) => `<a class="rule" href="#${ruleAnchor(id)}" title="rule ${htmlText(id)}">${htmlText(id)}</a>`)
    .join('');
  const model =
    step.modelReply === undefined ? '<span class="unknown">—</span>' : fieldsHtml(step.modelReply, step, 'model');
  return `<td>${step.index}${step.diverging ? '<span class="marker">◆ diverges</span>' : ''}</td><td>${commandHtml(step.command)}</td><td>${model}</td><td>${implCell(step, data)}</td><td>${rules || '<span class="unknown">—</span>'}</td>`;
}

function stepRow(step: StoryStep, data: StoryData): string {
  return `<tr class="step${step.diverging ? ' diverging' : ''}" data-step="${step.index}" tabindex="0">${stepCells(step, data)}</tr>${step.diverging ? snapshotRow(data) : ''}`;
}

const STEP_COLUMNS = `<colgroup><col class="n"><col class="cmd"><col><col><col class="rules"></colgroup>
<thead><tr><th>#</th><th>command</th><th>the model replied</th><th>the implementation replied</th><th>rules (model's side)</th></tr></thead>`;

/** The diverging step alone, with the state's differing fields: what answers "what went wrong", right under the headline. */
function diffHtml(data: StoryData): string {
  const step = data.steps.find((s) => s.diverging);
  if (step === undefined) return '';
  return `<table class="story-steps story-diff" aria-label="the diverging step: step ${step.index}">${STEP_COLUMNS}
<tbody><tr class="diff diverging" data-diff-step="${step.index}">${stepCells(step, data)}</tr>${snapshotRow(data)}</tbody></table>`;
}

function rulesHtml(rules: readonly Rule[], contract: ShippedContract | undefined): string {
  const of = contract === undefined ? 'docs/contract.md' : `docs/contract.md of jobcheck ${htmlText(contract.version)}`;
  const items = rules
    .map((r) => {
      const id = `[${htmlText(r.id)}]`;
      const link =
        contract === undefined
          ? `<span class="rule-id">${id}</span>`
          : `<a class="rule-id" href="${htmlText(contract.url)}#rule-${htmlText(r.id)}" title="the rule in the contract shipped with jobcheck ${htmlText(contract.version)}">${id}</a>`;
      return `<li id="${ruleAnchor(r.id)}">${link} ${ruleSentenceHtml(r.sentence)}<span class="where">${ruleSentenceHtml(r.title)} · ${of}, ${ruleSentenceHtml(r.section)}</span></li>`;
    })
    .join('');
  return `<h3>Rules that decided the model's replies</h3><ol class="story-rules">${items}</ol>`;
}

const swatch = (inner: string): string =>
  `<svg width="34" height="18" viewBox="0 0 34 18" aria-hidden="true">${inner}</svg>`;

const LEGEND = `<ul class="story-legend" aria-label="legend">
<li>${swatch(`<rect x="2" y="2" width="30" height="14" rx="4" fill="${LIT_FILL}" stroke="#9a6700" stroke-width="2"/>`)}where the model has a job (its ids inside)</li>
<li>${swatch(`<rect x="2" y="2" width="30" height="14" rx="4" fill="#fff" stroke="${IMPL_RED}" stroke-width="2" stroke-dasharray="5 3"/>`)}where the implementation has it instead</li>
<li>${swatch(`<line x1="2" y1="9" x2="32" y2="9" stroke="${MODEL_GREEN}" stroke-width="4"/>`)}transition the model took</li>
<li>${swatch(`<line x1="2" y1="9" x2="32" y2="9" stroke="${IMPL_RED}" stroke-width="3" stroke-dasharray="6 4"/>`)}move the implementation's answer implies</li>
<li><span class="mono" style="background:#fff1a8;outline:1px solid #d4a72c;border-radius:3px;padding:0 3px">field</span>a field that differs</li>
</ul>`;

/** The JSON the script reads: each step's jobs and moves, and the verdict's. `<` is escaped so no value can close the element. Pure. */
export function storyJson(data: StoryData): string {
  const value = {
    steps: data.steps.map((s) => ({
      index: s.index,
      command: s.command,
      jobs: s.jobs,
      moves: s.moves,
      diverging: s.diverging,
    })),
    verdict: { step: data.verdict.step, implJobs: data.verdict.implJobs, implied: data.verdict.implied },
  };
  return scriptJson(value);
}

/** The extra edges the diagram needs: one per distinct move the implementation implies (from a known state). Pure. */
export function impliedEdges(data: StoryData): ExtraEdge[] {
  const out: ExtraEdge[] = [];
  for (const m of data.verdict.implied) {
    if (m.from === null) continue;
    const id = `${m.from}->${m.to}`;
    if (!out.some((e) => e.id === id)) out.push({ id, from: m.from, to: m.to });
  }
  return out;
}

/** The section's HTML for a story whose diagram is `svg`, its rules linked into `contract` when given. Pure. */
export function storyHtml(data: StoryData, svg: string, contract?: ShippedContract, lab?: string): string {
  const cited = RULES.filter((r) => data.steps.some((s) => s.rules.includes(r.id)));
  const v = data.verdict;
  const head = `<section id="${STORY_ID}" class="story" aria-labelledby="${STORY_ID}-headline">
<h2 class="story-headline" id="${STORY_ID}-headline"><span class="badge">diverges</span>${htmlText(v.headline)}</h2>
<p class="story-sub">${htmlText(data.subject)} · ${data.steps.length} step${data.steps.length === 1 ? '' : 's'} · <span class="mono">${htmlText(describeConfig(data.config))}</span>${data.intro === undefined ? '' : `<br>${htmlText(data.intro)}`}</p>`;
  // Nothing ran (the implementation could not be started): the headline is the whole story.
  if (data.steps.length === 0) return `${head}\n</section>`;
  return `${head}
${diffHtml(data)}${lab === undefined ? '' : `\n<p class="story-lab"><a href="${htmlText(lab)}" data-lab>Try variations of this story in the lab</a>: it opens there as a story you can edit step by step, and the model answers each variation (the lab is the page <code>npx --no-install jobcheck lab</code> writes to .jobcheck/lab/; write it first).</p>`}
<h3>The story on the lifecycle</h3>
<div class="story-panel">
<div class="story-controls" role="toolbar" aria-label="step through the story">
<button type="button" data-go="first" aria-label="first step">« First</button><button type="button" data-go="prev" aria-label="previous step">◀ Prev</button><span class="story-where" aria-live="polite"></span><button type="button" data-go="next" aria-label="next step">Next ▶</button><button type="button" data-go="last" aria-label="last step">Last »</button>
<span class="story-keys">keys: ← → or j k, Home End · or pick a row</span>
</div>
<p class="story-now"><span class="story-command cmd"></span> <span class="story-moves"></span></p>
${LEGEND}
<div class="story-svg">${svg}</div>
</div>
<h3>The story, step by step</h3>
<table class="story-steps">${STEP_COLUMNS}
<tbody>${data.steps.map((s) => stepRow(s, data)).join('\n')}</tbody></table>
${cited.length === 0 ? '' : rulesHtml(cited, contract)}
<script type="application/json" class="story-data">${storyJson(data)}</script>
</section>`;
}

/**
 * The failure story as a page section: headline, the diverging step's diff, the diagram that
 * steps with the story, step table, rules (linked into `contract`, the shipped docs, when given). Asynchronous only because the diagram is laid out by Graphviz in WebAssembly; otherwise
 * pure.
 */
export async function storySection(
  failure: DivergenceFailure | FixtureFailure,
  contract?: ShippedContract,
  labUrl?: string,
): Promise<PageSection> {
  const data = storyData(failure);
  const lab = labUrl === undefined ? undefined : failureLabLink(failure, labUrl);
  const svg = await lifecycleSvg(emptyCoverage(), { plain: true, extraEdges: impliedEdges(data) });
  return {
    id: STORY_ID,
    title: 'What went wrong',
    html: storyHtml(data, svg, contract, lab),
    css: storyStyles(STORY_ID),
    script: STORY_SCRIPT.replace('ID', JSON.stringify(STORY_ID)),
  };
}
