/**
 * The coverage page as a person sees it: rendered in headless Chromium at a laptop's 1366×768,
 * for a check that agrees and one that diverges. The assertions come from the DOM (the boxes of
 * every state and every label of the diagram), so they hold whatever the browser's PNG bytes are.
 * Chromium is the system's (`.ci/run` installs Debian's package); without it the tests are skipped,
 * saying how to install it, and with `CI` set they fail instead (docs/tools/needsChromium.ts). A
 * browser that is there but does not start fails every test, with why.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { withChromiumPage } from './tools/chromium.ts';
import { describeWithChromium } from './tools/needsChromium.ts';
import { DOCS_DIR } from './tools/generate.ts';
import {
  COVERAGE_PAGES,
  VIEWPORT,
  coveragePage,
  layoutProblems,
  measurePage,
  screenshotPage,
} from './tools/coveragePages.ts';
import type { CoveragePage, PageMeasure } from './tools/coveragePages.ts';

interface Seen {
  readonly page: CoveragePage;
  readonly measure: PageMeasure;
  readonly screenshotBytes: number;
}

/** Labels of the diagram moved on top of each other and one state pushed out of the viewport: what the assertions must refuse. */
const BREAK_LAYOUT = `(() => {
  for (const t of document.querySelectorAll('svg.lifecycle g.edge-label text')) { t.setAttribute('x', '300'); t.setAttribute('y', '300'); }
  const rect = document.querySelector('svg.lifecycle g.state .shape');
  rect.setAttribute('x', '2000');
})()`;

let seen: Seen[] = [];
let broken: PageMeasure | undefined;
let requests: readonly string[] = [];
/** Why the pages could not be rendered (a browser that is there but will not start, say): every test then fails with it, none is skipped. */
let setupError: unknown;
const rendered = (): void => {
  if (setupError !== undefined) throw setupError;
};

async function render(): Promise<void> {
  const pages = [await coveragePage('agree'), await coveragePage('diverge')];
  const session = await withChromiumPage({ ...VIEWPORT, timeoutMs: 60_000 }, async (browser: Page) => {
    const out: Seen[] = [];
    for (const page of pages) {
      const png = await screenshotPage(browser, page.html);
      out.push({ page, measure: await measurePage(browser), screenshotBytes: png.length });
    }
    await browser.evaluate(BREAK_LAYOUT);
    return { out, broken: await measurePage(browser) };
  });
  seen = session.result.out;
  broken = session.result.broken;
  requests = session.requests;
}

describeWithChromium('the coverage page in Chromium at 1366×768', () => {
  beforeAll(async () => {
    try {
      await render();
    } catch (error) {
      setupError = error;
    }
  }, 90_000);

  it('draws both pages, each a screenshot, without asking the network for anything', () => {
    rendered();
    expect(seen.map((s) => s.page.name)).toEqual(['agree', 'diverge']);
    for (const s of seen) expect(s.screenshotBytes, s.page.name).toBeGreaterThan(10_000);
    expect(requests).toEqual([]);
  });

  it('shows all five states and all thirteen transition labels, none smaller than 12 px', () => {
    rendered();
    for (const { page, measure } of seen) {
      expect(measure.states.map((s) => s.name).sort(), page.name).toEqual([
        'dead',
        'done',
        'ready',
        'running',
        'waiting',
      ]);
      expect(measure.edgeLabels, page.name).toHaveLength(13);
      expect(measure.smallestFontPx, page.name).toBeGreaterThanOrEqual(12);
    }
  });

  it('keeps every state and label inside the viewport, and no label on another label or on a state', () => {
    rendered();
    for (const { page, measure } of seen) expect(layoutProblems(measure, VIEWPORT.width), page.name).toEqual([]);
  });

  it('refuses a layout whose labels lie on top of each other or whose state is outside the viewport', () => {
    rendered();
    const problems = broken === undefined ? [] : layoutProblems(broken, VIEWPORT.width);
    expect(problems.some((p) => /^label of .* overlaps label of /.test(p))).toBe(true);
    expect(problems.some((p) => / is outside the viewport/.test(p))).toBe(true);
  });

  it('shows the verdict, and the true number of runs: all of them when the check agrees', () => {
    rendered();
    const agree = seen.find((s) => s.page.name === 'agree');
    expect(agree?.measure.verdict).toBe('Verdict: AGREE with the model');
    expect(agree?.measure.story).toBeNull();
    expect(agree?.measure.runsRun).toBe(String(agree?.page.report.campaign.runs));
    expect(agree?.measure.runsPlanned).toBe(String(COVERAGE_PAGES.agree.runs));
  });

  it("shows a diverging check's verdict, its story as text, and the runs it stopped after", () => {
    rendered();
    const diverge = seen.find((s) => s.page.name === 'diverge');
    expect(diverge?.measure.verdict).toBe('Verdict: DIVERGE from the model');
    expect(diverge?.page.story).toMatch(/disagrees with the model at step/);
    expect(diverge?.measure.story).toBe(diverge?.page.story);
    expect(diverge?.measure.runsRun).toBe(String(diverge?.page.report.campaign.runs));
    expect(Number(diverge?.measure.runsRun)).toBeLessThan(COVERAGE_PAGES.diverge.runs);
    expect(diverge?.measure.runsPlanned).toBe(String(COVERAGE_PAGES.diverge.runs));
    // Chapter 5 says how many runs its screenshot shows.
    const chapter = readFileSync(join(DOCS_DIR, '05-reading-coverage.md'), 'utf8');
    expect(chapter).toContain(`the runs, ${diverge?.measure.runsRun} of the ${COVERAGE_PAGES.diverge.runs} planned`);
  });
});
