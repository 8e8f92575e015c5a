/**
 * The coverage page as people see it: two pages made in-process from deterministic checks (the
 * built-in store, which agrees, and a broken variant, which diverges), their screenshots in
 * Chromium for docs/images/, and the measurements of the rendered diagram that the layout test
 * asserts on (every state and label inside the viewport, no two labels on top of each other).
 */
import type { Page } from 'playwright-core';
import { runCheck } from '../../conformance/check/index.ts';
import type { CheckReport } from '../../conformance/check/index.ts';
import { renderFailure, reportContext, reportTitle } from '../../cli/output/index.ts';
import type { CheckContext } from '../../cli/output/index.ts';
import { jobStoreFactory } from '../../conformance/stores/jobStore.ts';
import { brokenVariant } from '../../conformance/broken/index.ts';
import { coverageHtml } from '../../conformance/coverage/coverageReport.ts';
import { withChromiumPage } from './chromium.ts';

/** The laptop screen the page must be readable on, at 1:1. */
export const VIEWPORT = { width: 1366, height: 768 } as const;

/** The two pages shown in docs/05-reading-coverage.md, by the name of their screenshot. */
export const COVERAGE_PAGES = {
  agree: { target: 'builtin', seed: 7, runs: 100 },
  diverge: { target: 'retry-forgets-deadline', seed: 1, runs: 100 },
} as const;
/** Which of the two pages. */
export type CoveragePageName = keyof typeof COVERAGE_PAGES;

/** A rendered page and the check it shows. */
export interface CoveragePage {
  readonly name: CoveragePageName;
  readonly html: string;
  readonly report: CheckReport;
  readonly ctx: CheckContext;
  /** The story the page must show (null when the check agreed). */
  readonly story: string | null;
}

/**
 * Runs the check behind one page (in-process, a few hundred milliseconds) and renders its HTML as
 * `jobcheck check` writes it. The story is told without the artifact's file name, which would be
 * a path of the machine the screenshot was taken on.
 */
export async function coveragePage(name: CoveragePageName): Promise<CoveragePage> {
  const spec = COVERAGE_PAGES[name];
  const broken = spec.target === 'builtin' ? undefined : brokenVariant(spec.target);
  if (spec.target !== 'builtin' && broken === undefined) throw new Error(`no broken variant named ${spec.target}`);
  const factory = broken?.factory ?? jobStoreFactory();
  const report = await runCheck({ factory }, { runs: spec.runs, seed: spec.seed });
  const ctx: CheckContext = {
    target: broken === undefined ? 'impl/JobStore' : `broken/${broken.name}`,
    flags: broken === undefined ? '--builtin' : `--broken ${broken.name}`,
    seed: spec.seed,
    runs: spec.runs,
  };
  const story = report.failure === null ? null : renderFailure(report.failure, report, ctx);
  const html = await coverageHtml(report.coverage, { title: reportTitle(ctx), context: reportContext(report, story) });
  return { name, html, report, ctx, story };
}

/** A box in page coordinates (scrolled content included). */
export interface Box {
  readonly left: number;
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
}

/** What the layout test looks at on a rendered page. */
export interface PageMeasure {
  /** The page's width without its vertical scroll bar, and the width of its content. */
  readonly clientWidth: number;
  readonly scrollWidth: number;
  readonly states: ReadonlyArray<{ readonly name: string; readonly shape: Box; readonly label: Box }>;
  /** One box per transition label (the union of its lines). */
  readonly edgeLabels: ReadonlyArray<{ readonly name: string; readonly box: Box }>;
  /** The smallest font size of any text of the diagram, in CSS pixels. */
  readonly smallestFontPx: number;
  readonly verdict: string | null;
  readonly story: string | null;
  readonly runsRun: string | null;
  readonly runsPlanned: string | null;
}

/**
 * The measuring script, run in the page. It is kept as source text because the project's types
 * describe Node, not the browser's DOM.
 */
const MEASURE = `(() => {
  const box = (els) => {
    const rs = els.map((e) => e.getBoundingClientRect());
    return {
      left: Math.min(...rs.map((r) => r.left)) + window.scrollX,
      top: Math.min(...rs.map((r) => r.top)) + window.scrollY,
      right: Math.max(...rs.map((r) => r.right)) + window.scrollX,
      bottom: Math.max(...rs.map((r) => r.bottom)) + window.scrollY,
    };
  };
  const svg = document.querySelector('svg.lifecycle');
  const all = (root, selector) => (root === null ? [] : [...root.querySelectorAll(selector)]);
  const text = (selector) => document.querySelector(selector)?.textContent ?? null;
  return {
    clientWidth: document.documentElement.clientWidth,
    scrollWidth: document.documentElement.scrollWidth,
    states: all(svg, 'g.state').map((g) => ({ name: g.getAttribute('data-state') ?? '', shape: box(all(g, '.shape')), label: box(all(g, 'text.label')) })),
    edgeLabels: all(svg, 'g.edge-label').map((g) => ({ name: g.getAttribute('data-transition') ?? '', box: box(all(g, 'text.label')) })),
    smallestFontPx: Math.min(...all(svg, 'text').map((t) => parseFloat(getComputedStyle(t).fontSize))),
    verdict: text('.verdict'),
    story: text('pre.story'),
    runsRun: text('[data-runs="run"]'),
    runsPlanned: text('[data-runs="planned"]'),
  };
})()`;

/** Measures the diagram (getBoundingClientRect of every state and label) and the context of the coverage page loaded in `page`. */
export async function measurePage(page: Page): Promise<PageMeasure> {
  return (await page.evaluate(MEASURE)) as PageMeasure;
}

const overlap = (a: Box, b: Box): boolean =>
  Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 &&
  Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;

/** What is wrong with the diagram's layout at this viewport width, one sentence a problem; empty when nothing. Pure. */
export function layoutProblems(m: PageMeasure, viewportWidth: number): string[] {
  const problems: string[] = [];
  const width = Math.min(viewportWidth, m.clientWidth);
  if (m.scrollWidth > width)
    problems.push(`the page is ${m.scrollWidth} px wide, wider than the viewport's ${width} px`);
  const labels = [
    ...m.states.map((s) => ({ name: `state ${s.name}`, box: s.label })),
    ...m.edgeLabels.map((e) => ({ name: `label of ${e.name}`, box: e.box })),
  ];
  for (const item of [...m.states.map((s) => ({ name: `state ${s.name}`, box: s.shape })), ...labels]) {
    if (item.box.left < 0 || item.box.right > width)
      problems.push(
        `${item.name} is outside the viewport: ${Math.round(item.box.left)}..${Math.round(item.box.right)} px of ${width}`,
      );
  }
  labels.forEach((a, i) => {
    for (const b of labels.slice(i + 1)) if (overlap(a.box, b.box)) problems.push(`${a.name} overlaps ${b.name}`);
  });
  for (const e of m.edgeLabels)
    for (const s of m.states) if (overlap(e.box, s.shape)) problems.push(`label of ${e.name} overlaps state ${s.name}`);
  m.states.forEach((a, i) => {
    for (const b of m.states.slice(i + 1))
      if (overlap(a.shape, b.shape)) problems.push(`state ${a.name} overlaps state ${b.name}`);
  });
  if (m.smallestFontPx < 12) problems.push(`the smallest text of the diagram is ${m.smallestFontPx} px, below 12 px`);
  return problems;
}

/** Loads a page's HTML into `page` and takes a screenshot from the top to the bottom of its diagram. */
export async function screenshotPage(page: Page, html: string): Promise<Buffer> {
  await page.setContent(html, { waitUntil: 'load' });
  const diagram = await page.locator('.diagram').boundingBox();
  const bottom = diagram === null ? VIEWPORT.height : Math.ceil(diagram.y + diagram.height + 16);
  return page.screenshot({
    fullPage: true,
    clip: { x: 0, y: 0, width: VIEWPORT.width, height: bottom },
    animations: 'disabled',
  });
}

/** The screenshots of docs/images/, by path relative to docs/: both pages in one browser session. */
export async function coverageScreenshots(): Promise<Map<string, Buffer>> {
  const pages = await Promise.all((Object.keys(COVERAGE_PAGES) as CoveragePageName[]).map(coveragePage));
  const { result } = await withChromiumPage(VIEWPORT, async (page) => {
    const shots = new Map<string, Buffer>();
    for (const p of pages) shots.set(`images/coverage-${p.name}.png`, await screenshotPage(page, p.html));
    return shots;
  });
  return result;
}
