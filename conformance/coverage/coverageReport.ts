/**
 * Coverage reports for people: a Markdown summary and a self-contained HTML page. The page says
 * what was run (the verdict, the story when the run diverged, how many runs were planned and how
 * many ran) and centres on the lifecycle diagram of conformance/coverage/lifecycleDiagram.ts, every state
 * and transition coloured by its hit count. Nothing in the diagram is drawn by hand. The format
 * is described in docs/coverage-format.md.
 *
 * The Markdown of a check, or of a merge of shards, opens with the verdict line and carries the
 * story, so that the file can be a CI job's summary as it is (GitHub's `$GITHUB_STEP_SUMMARY`).
 */
import { JOB_STATES, lifecycleTransitions } from '../../model/index.ts';
import { COVERAGE_CATEGORIES, categorySummary, neverHit, shortName } from './coverage.ts';
import type { Coverage, CoverageCategory } from './coverage.ts';
import {
  NEVER_COLOUR,
  NEVER_DASH,
  NOT_REACHED_COLOUR,
  NOT_REACHED_DASH,
  heatColour,
  lifecycleSvg,
} from './lifecycleDiagram.ts';
import { htmlBlock, htmlText, markdownBlock, markdownCode, markdownText } from '../outside/outsideText.ts';

/** What the page says about the check whose coverage it shows. */
export interface CheckReportContext {
  readonly kind: 'check';
  readonly verdict: 'agree' | 'diverge' | 'incomplete';
  /** The shortest failure story as plain text, when the check diverged. */
  readonly story: string | null;
  /** Random runs planned (`--runs`) and run. */
  readonly runsPlanned: number;
  readonly runsRun: number;
  /** Paths of the path suite, and how many of them ran to the end. */
  readonly pathsPlanned: number;
  readonly pathsRun: number;
  /**
   * Why the check stopped before it ran in full (the time limit, or the campaign ending at its
   * first divergence), or null when every planned run ran: then an item at zero was never taken
   * by a full run, otherwise it was only not reached.
   */
  readonly stoppedEarly: 'time-limit' | 'divergence' | null;
  /** Why an incomplete check is not a pass when the time limit is not the reason (a phase that exercised nothing); null otherwise. */
  readonly notAPass?: string | null;
  /**
   * Each phase of the check and what it ran, as [name, words] (the summary's lines: the restore
   * phase's snapshots refused and kinds of refusal covered, the competing workers' overlap, a
   * phase NOT EXERCISED), listed under the verdict.
   */
  readonly phases?: readonly (readonly [string, string])[];
  /**
   * A concurrent failure's lanes on a timeline (conformance/concurrent/timeline.ts: an HTML
   * fragment whose text is escaped), drawn under the story.
   */
  readonly timeline?: string;
}

/**
 * What the page says about coverage merged from files: `jobcheck coverage` knows no verdict (the
 * files may come from different checks); `jobcheck merge` knows the shards' merged verdict and
 * names what it merged.
 */
export interface MergedReportContext {
  readonly kind: 'merged';
  readonly files: number;
  /** The merged verdict of the shards' checks, when the files are the parts of one check. */
  readonly mergedVerdict?: CheckReportContext['verdict'];
  /** What was merged, one name a file or shard (`shard 2/3 (shards/2/coverage.json)`). */
  readonly merged?: readonly string[];
  /** The shortest failure story among the parts, when one diverged. */
  readonly mergedStory?: string;
}

/** What the HTML page says about the run besides its counts. */
export type ReportContext = CheckReportContext | MergedReportContext;

const TITLES: Record<CoverageCategory, string> = {
  states: 'Lifecycle states entered',
  transitions: 'Transitions (source, event, guard outcome, target)',
  pairs: 'Consecutive transition pairs of one job',
  rejections: 'Rejection codes',
  paths: 'Path classes (job transition sequences, first 4)',
  rules: 'Contract rules that decided a step (docs/contract.md)',
};
const pct = (hit: number, total: number): string => (total === 0 ? '-' : `${Math.round((100 * hit) / total)}%`);
const LIST_LIMIT = 25;

/** The one-line verdict a Markdown report opens with, or null when there is none to say. Pure. */
export function verdictLine(context: ReportContext | undefined): string | null {
  if (context === undefined) return null;
  if (context.kind === 'merged') {
    const what = `merged from ${context.files} file${context.files === 1 ? '' : 's'}`;
    const names = context.merged === undefined ? '' : `: ${context.merged.map(markdownText).join('; ')}`;
    return context.mergedVerdict === undefined
      ? `**No verdict**: coverage ${what} (the files may come from different checks)${names}.`
      : `**Verdict: ${VERDICTS[context.mergedVerdict].text}** (${what}${names}).`;
  }
  const stopped = context.stoppedEarly === null ? '' : ` (${STOPPED[context.stoppedEarly]})`;
  return `**Verdict: ${verdictText(context)}.** Random runs: ${context.runsRun} of ${context.runsPlanned} planned${stopped}; path suite: ${context.pathsRun} of ${context.pathsPlanned} paths.`;
}

/** A check's verdict in words: why an incomplete one is not a pass, when the time limit is not the reason. Pure. */
const verdictText = (context: CheckReportContext): string =>
  context.verdict === 'incomplete' && context.notAPass != null
    ? `INCOMPLETE: ${context.notAPass}; not a pass`
    : VERDICTS[context.verdict].text;

/** A check's phases as Markdown list items (their words are the summary's; names and stories are escaped). Pure. */
const phaseItems = (context: ReportContext | undefined): string[] =>
  context?.kind !== 'check' || context.phases === undefined
    ? []
    : context.phases.map(([name, words]) => `- ${markdownText(name.trim())}: ${markdownText(words)}`);

/**
 * The Markdown summary of a coverage value: the verdict line and the story when `context` gives
 * them, then totals per category, transition counts, items never hit. Pure.
 */
export function coverageMarkdown(cov: Coverage, title = 'Conformance coverage', context?: ReportContext): string {
  // The title may name the implementation, and sources come from coverage files: text from outside, escaped.
  const verdict = verdictLine(context);
  const phases = phaseItems(context);
  const out: string[] = [
    ...(verdict === null ? [] : [verdict, '']),
    ...(phases.length === 0 ? [] : ['What the check ran:', '', ...phases, '']),
    `# ${markdownText(title)}`,
    '',
  ];
  const story =
    context === undefined ? null : context.kind === 'merged' ? (context.mergedStory ?? null) : context.story;
  if (story !== null) out.push('## The shortest story', '', markdownBlock(story), '');
  out.push(
    `Runs: ${cov.runs}, steps: ${cov.steps}. Sources: ${cov.sources.length === 0 ? '-' : cov.sources.map(markdownText).join('; ')}.`,
    '',
  );
  out.push('| Category | Hit | Total | Coverage |', '|---|---:|---:|---:|');
  for (const c of COVERAGE_CATEGORIES) {
    const { hit, total } = categorySummary(cov, c);
    out.push(`| ${TITLES[c]} | ${hit} | ${total} | ${pct(hit, total)} |`);
  }
  out.push('', '## Transitions', '', '| Transition | Hits |', '|---|---:|');
  for (const t of lifecycleTransitions()) out.push(`| \`${t.id}\` | ${cov.items.transitions[t.id] ?? 0} |`);
  out.push('', '## States and rejection codes', '', '| Item | Hits |', '|---|---:|');
  for (const s of JOB_STATES) out.push(`| state \`${s}\` | ${cov.items.states[s] ?? 0} |`);
  for (const [code, n] of Object.entries(cov.items.rejections)) out.push(`| rejection ${markdownCode(code)} | ${n} |`);
  out.push('', '## Never hit', '');
  for (const c of COVERAGE_CATEGORIES) {
    const missing = neverHit(cov, c);
    if (missing.length === 0) {
      out.push(`- ${TITLES[c]}: none`);
      continue;
    }
    const shown = missing.slice(0, LIST_LIMIT).map(markdownCode).join(', ');
    out.push(
      `- ${TITLES[c]} (${missing.length}): ${shown}${missing.length > LIST_LIMIT ? `, ... and ${missing.length - LIST_LIMIT} more` : ''}`,
    );
  }
  return `${out.join('\n')}\n`;
}

function table(cov: Coverage, c: CoverageCategory): string {
  const entries = Object.entries(cov.items[c]);
  const max = Math.max(1, ...entries.map(([, n]) => n));
  const rows = entries
    .map(
      ([k, n]) =>
        `<tr class="${n === 0 ? 'miss' : ''}"><td><code>${htmlText(k)}</code></td><td class="n">${n}</td><td><span class="bar" style="width:${n === 0 ? 0 : Math.max(2, Math.round((120 * Math.log(n + 1)) / Math.log(max + 1)))}px;background:${heatColour(n, max)}"></span></td></tr>`,
    )
    .join('\n');
  const { hit, total } = categorySummary(cov, c);
  return `<details${c === 'paths' || c === 'pairs' ? '' : ' open'}><summary><h2>${htmlText(TITLES[c])}: ${hit} / ${total} (${pct(hit, total)})</h2></summary><table><tr><th>Item</th><th>Hits</th><th></th></tr>\n${rows}\n</table></details>`;
}

const VERDICTS: Record<CheckReportContext['verdict'], { readonly css: string; readonly text: string }> = {
  agree: { css: 'agree', text: 'AGREE with the model' },
  diverge: { css: 'diverge', text: 'DIVERGE from the model' },
  incomplete: {
    css: 'incomplete',
    text: 'INCOMPLETE: the time limit stopped the check before it ran in full; nothing diverged in what ran, which is not a pass',
  },
};

const STOPPED: Record<NonNullable<CheckReportContext['stoppedEarly']>, string> = {
  'time-limit': 'stopped by the time limit',
  divergence: 'the campaign stops at its first divergence',
};

/** The verdict, the runs and the story: what the page says about the check before its counts. Pure. */
function contextHtml(cov: Coverage, context: ReportContext | undefined): string {
  const counted = `Coverage counts <span data-count="lockstep-runs">${cov.runs}</span> lockstep runs and ${cov.steps} steps.`;
  if (context === undefined) return `<p class="runs">${counted}</p>`;
  if (context.kind === 'merged') {
    const files = `<span data-count="files">${context.files}</span> file${context.files === 1 ? '' : 's'}`;
    const names = context.merged === undefined ? '' : `<p>Merged: ${context.merged.map(htmlText).join('; ')}.</p>\n`;
    const story =
      context.mergedStory === undefined
        ? ''
        : `\n<h2>The shortest story</h2>\n<pre class="story">${htmlBlock(context.mergedStory)}</pre>`;
    if (context.mergedVerdict !== undefined) {
      const v = VERDICTS[context.mergedVerdict];
      return `<p class="verdict ${v.css}" data-verdict="${context.mergedVerdict}">Verdict: ${htmlText(v.text)} (merged from ${files})</p>\n${names}<p class="runs">${counted}</p>${story}`;
    }
    return `<p class="verdict merged" data-verdict="merged">Merged coverage of ${files} (no verdict: the files may come from different checks).</p>\n${names}<p class="runs">${counted}</p>${story}`;
  }
  const v = VERDICTS[context.verdict];
  const stopped = context.stoppedEarly === null ? '' : ` (${STOPPED[context.stoppedEarly]})`;
  const phases =
    context.phases === undefined || context.phases.length === 0
      ? ''
      : `\n<ul class="phases">${context.phases.map(([name, words]) => `<li><b>${htmlText(name.trim())}</b>: ${htmlText(words)}</li>`).join('')}</ul>`;
  const runs = `Random runs: <span data-runs="run">${context.runsRun}</span> of <span data-runs="planned">${context.runsPlanned}</span> planned${stopped}. Path suite: ${context.pathsRun} of ${context.pathsPlanned} paths.`;
  const story =
    context.story === null ? '' : `\n<h2>The shortest story</h2>\n<pre class="story">${htmlBlock(context.story)}</pre>`;
  const timeline = context.timeline === undefined ? '' : `\n<h2>The requests on their lanes</h2>\n${context.timeline}`;
  return `<p class="verdict ${v.css}" data-verdict="${context.verdict}">Verdict: ${htmlText(verdictText(context))}</p>\n<p class="runs">${runs} ${counted}</p>${phases}${story}${timeline}`;
}

/** A short line of the given stroke, for the legend. */
const swatch = (colour: string, dash: string, width = 2.5): string =>
  `<svg class="swatch" width="36" height="10" viewBox="0 0 36 10"><line x1="2" y1="5" x2="34" y2="5" stroke="${colour}" stroke-width="${width}"${dash === '' ? '' : ` stroke-dasharray="${dash}" stroke-linecap="round"`}/></svg>`;

function legendHtml(context: ReportContext | undefined): string {
  const heat = [1, 10, 100]
    .map((n) => `${swatch(heatColour(n, 100), '', 2 + 3 * (Math.log(n + 1) / Math.log(101)))} ${n}`)
    .join(' &nbsp; ');
  const never = `${swatch(NEVER_COLOUR, NEVER_DASH)} never taken${context?.kind === 'merged' ? ' in any of the files' : ' (the run ran in full)'}`;
  const notReached = `${swatch(NOT_REACHED_COLOUR, NOT_REACHED_DASH)} not reached: the run stopped early, so a full run might have taken it`;
  return `<p class="legend">Hits: ${heat} &nbsp;&nbsp; ${never} &nbsp;&nbsp; ${notReached}</p>`;
}

/** Options of the HTML page. */
export interface CoverageHtmlOptions {
  readonly title?: string;
  /** The verdict and runs of the check (or the merge) the coverage comes from. */
  readonly context?: ReportContext;
}

/**
 * The self-contained HTML report: the verdict, the runs and the story, the summary, the lifecycle
 * diagram coloured by hits, and every item with its count. Asynchronous only because the
 * diagram's layout engine is (see lifecycleDiagram.ts); it reads and writes nothing.
 */
export async function coverageHtml(cov: Coverage, options: CoverageHtmlOptions = {}): Promise<string> {
  const title = options.title ?? 'Conformance coverage';
  const context = options.context;
  const stoppedEarly = context?.kind === 'check' && context.stoppedEarly !== null;
  const summary = COVERAGE_CATEGORIES.map((c) => {
    const { hit, total } = categorySummary(cov, c);
    return `<tr><td>${htmlText(TITLES[c])}</td><td class="n">${hit}</td><td class="n">${total}</td><td class="n">${pct(hit, total)}</td></tr>`;
  }).join('\n');
  const diagram = await lifecycleSvg(cov, { stoppedEarly });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${htmlText(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font-family:system-ui,sans-serif;margin:1.5rem 2rem;color:#222;max-width:1200px;font-size:15px}
h1{font-size:1.5rem}h2{font-size:1.1rem}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}td,th{padding:2px 10px;border-bottom:1px solid #eee;text-align:left;font-size:13px}
td.n{text-align:right;font-variant-numeric:tabular-nums}tr.miss td{color:#b2182b}
.bar{display:inline-block;height:10px}.swatch{vertical-align:middle}
.verdict{font-weight:bold;padding:.4rem .7rem;border-left:6px solid #999;background:#f4f4f4}
.verdict.agree{border-color:#1a9850}.verdict.diverge{border-color:#d73027;background:#fdecea}.verdict.incomplete{border-color:#e08214;background:#fef3e2}
pre.story{font-size:13px;line-height:1.35;background:#f7f7f7;border:1px solid #ddd;padding:.6rem .8rem;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere}
summary h2{display:inline;font-size:1.05rem}details{margin:.6rem 0}
.diagram{overflow-x:auto;border:1px solid #ddd;padding:8px;width:max-content;max-width:calc(100% - 18px)}.diagram svg{display:block}
</style></head><body>
<h1>${htmlText(title)}</h1>
${contextHtml(cov, context)}
<p>Sources: ${cov.sources.length === 0 ? '-' : cov.sources.map(htmlText).join('; ')}.</p>
<table><tr><th>Category</th><th>Hit</th><th>Total</th><th>Coverage</th></tr>
${summary}
</table>
<h2>Lifecycle (generated from the machine, laid out by Graphviz; colour and width by hit count)</h2>
${legendHtml(context)}
<div class="diagram">
${diagram}
</div>
${COVERAGE_CATEGORIES.map((c) => table(cov, c)).join('\n')}
<p>Transition names in pairs and paths: ${lifecycleTransitions()
    .map((t) => `<code>${htmlText(shortName(t))}</code>`)
    .join(', ')}.</p>
</body></html>
`;
}
