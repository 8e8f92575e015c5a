/**
 * The failure story in a real browser (headless Chromium, 1280×800): a real failing check's
 * story on a run page, stepped through by clicks, table rows and keys, with every assertion read
 * from the DOM: what the first screen holds (the reproduce and replay lines, the diverging step's
 * diff), which row is current, which states are lit with which jobs, which transitions are drawn,
 * and that nothing of the section reaches past its container or the viewport. The page asks the
 * network for nothing. Each check is also run once on a page broken on purpose (a script deaf to
 * a key, a line that cannot wrap, the diagram put back above the diff), so that it is seen to fail.
 */
import { beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { withChromiumPage } from '../../../docs/tools/chromium.ts';
import { describeWithChromium } from '../../../docs/tools/needsChromium.ts';
import { STORY_VIEWPORT, storyFailure, storyFixtureFailure, storyPageHtml } from '../../../docs/tools/storyScreens.ts';
import type { StoryExample } from '../../../docs/tools/storyScreens.ts';

/** What the section shows now, read from the DOM. */
interface Shown {
  readonly where: string;
  /** The current step's command, as the panel above the diagram shows it. */
  readonly command: string;
  readonly currentRows: readonly string[];
  /** State → the model's job ids written in it (lit states only). */
  readonly lit: Readonly<Record<string, string>>;
  /** State → the implementation's job ids written in it. */
  readonly implLit: Readonly<Record<string, string>>;
  /** State → the text under its name. */
  readonly labels: Readonly<Record<string, string>>;
  readonly taken: readonly string[];
  readonly implied: readonly string[];
}

const SHOWN = `(() => {
  const root = document.getElementById('story');
  const all = (s) => [...root.querySelectorAll(s)];
  const map = (s, f) => Object.fromEntries(all(s).map((g) => [g.getAttribute('data-state'), f(g)]));
  return {
    where: root.querySelector('.story-where').textContent,
    command: root.querySelector('.story-command').textContent,
    currentRows: all('tr.step.current').map((r) => r.getAttribute('data-step')),
    lit: map('g.state.lit', (g) => g.getAttribute('data-jobs')),
    implLit: map('g.state.impl-lit', (g) => g.getAttribute('data-impl-jobs')),
    labels: map('g.state', (g) => g.querySelector('text.jobs').textContent),
    taken: all('g.edge.taken').map((g) => g.getAttribute('data-transition')),
    implied: all('g.extra-edge').filter((g) => getComputedStyle(g).display !== 'none' && g.getBoundingClientRect().width > 0).map((g) => g.getAttribute('data-extra')),
  };
})()`;

/**
 * Every element of the section whose box reaches past the viewport or past its parent's box
 * (left or right), and every scrolling box whose content is wider than it; the diagram's inside
 * is checked as one box, the SVG, and its texts against the viewport.
 */
const OVERFLOW = `(() => {
  const root = document.getElementById('story');
  const vw = document.documentElement.clientWidth;
  const name = (el) => el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ').join('.') : '') + (el.id ? '#' + el.id : '');
  const problems = [];
  for (const el of [root, ...root.querySelectorAll('*')]) {
    const inSvg = el.closest('svg') !== null && el.tagName.toLowerCase() !== 'svg';
    if (['script', 'style', 'title', 'col', 'colgroup'].includes(el.tagName.toLowerCase())) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.left < -0.5 || r.right > vw + 0.5) problems.push(name(el) + ' spans ' + Math.round(r.left) + '..' + Math.round(r.right) + ' px of ' + vw);
    if (inSvg) continue;
    const p = el.parentElement;
    if (el !== root && p !== null) {
      const q = p.getBoundingClientRect();
      if (r.left < q.left - 0.5 || r.right > q.right + 0.5) problems.push(name(el) + ' reaches past its parent ' + name(p) + ': ' + Math.round(r.left) + '..' + Math.round(r.right) + ' in ' + Math.round(q.left) + '..' + Math.round(q.right));
    }
    if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).display !== 'inline') problems.push(name(el) + ' holds content ' + el.scrollWidth + ' px wide in ' + el.clientWidth + ' px');
  }
  if (document.documentElement.scrollWidth > vw) problems.push('the page scrolls sideways: ' + document.documentElement.scrollWidth + ' px in ' + vw);
  return problems;
})()`;

/** The smallest font of the diagram's text as drawn (its scale included), in CSS pixels. */
const SMALLEST_FONT = `(() => {
  const svg = document.querySelector('#story svg.lifecycle');
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  return Math.min(...[...svg.querySelectorAll('text')].map((t) => parseFloat(getComputedStyle(t).fontSize) * scale));
})()`;

/** Where a box of the page is as it opens, in CSS pixels from the top of the window; null when it is not there. */
interface Box {
  readonly top: number;
  readonly bottom: number;
  readonly text: string;
}

/** What the first screen holds: the window's height, the scroll, and the boxes of the header's commands, the diff and the diagram. */
interface FirstScreen {
  readonly height: number;
  readonly scrollY: number;
  readonly reproduce: Box | null;
  readonly replay: Box | null;
  readonly again: Box | null;
  readonly diff: Box | null;
  readonly diagram: Box | null;
}

const FIRST_SCREEN = `(() => {
  const box = (selector) => {
    const el = document.querySelector(selector);
    if (el === null) return null;
    const r = el.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, text: el.textContent.replace(/\\s+/g, ' ').trim() };
  };
  return {
    height: window.innerHeight,
    scrollY: window.scrollY,
    reproduce: box('#summary [data-repeat="reproduce"] code'),
    replay: box('#summary [data-repeat="replay"] code'),
    again: box('#summary [data-repeat="again"] code'),
    diff: box('#story table.story-diff'),
    diagram: box('#story .story-panel'),
  };
})()`;

/** The page as it was laid out before: the diagram above the diverging step's diff. */
const DIAGRAM_FIRST = `(() => {
  const diff = document.querySelector('#story table.story-diff');
  const panel = document.querySelector('#story .story-panel');
  panel.after(diff);
})()`;

/** Whether a box is wholly inside the first screen. */
const inFirstScreen = (box: Box | null, screen: FirstScreen): boolean =>
  box !== null && screen.scrollY === 0 && box.top >= 0 && box.bottom <= screen.height;

/** A script deaf to the → key, and a command that cannot wrap: the page the checks must refuse. */
const breakPage = (html: string): string =>
  html
    .replace('ArrowRight: go.next,', '')
    .replace(
      '<span class="verb">fail</span>',
      `<span class="verb" style="white-space:nowrap">fail${'_and_more'.repeat(40)}</span>`,
    );

interface Seen {
  readonly firstScreen: FirstScreen;
  /** The first screen with the diagram above the diff, as the page was laid out before. */
  readonly diagramFirst: FirstScreen;
  readonly fixtureFirstScreen: FirstScreen;
  readonly steps: Record<string, Shown>;
  readonly overflow: readonly string[];
  readonly smallestFont: number;
  readonly brokenKeys: Shown;
  readonly brokenOverflow: readonly string[];
  /** The fixture story's page as it opens, and what reaches past its container there. */
  readonly fixture: Shown;
  readonly fixtureOverflow: readonly string[];
}

let seen: Seen;
let example: StoryExample;
let fixtureExample: StoryExample;
let requests: readonly string[] = [];
let setupError: unknown;
const rendered = (): Seen => {
  if (setupError !== undefined) throw setupError;
  return seen;
};

async function walk(page: Page): Promise<Seen> {
  const shown = async (): Promise<Shown> => (await page.evaluate(SHOWN)) as Shown;
  const firstScreen = (await page.evaluate(FIRST_SCREEN)) as FirstScreen;
  const steps: Record<string, Shown> = {};
  steps['opened'] = await shown();
  const overflow = (await page.evaluate(OVERFLOW)) as string[];
  const smallestFont = (await page.evaluate(SMALLEST_FONT)) as number;
  await page.keyboard.press('ArrowLeft');
  steps['← at once'] = await shown();
  await page.click('#story button[data-go="first"]');
  steps['first'] = await shown();
  await page.click('#story button[data-go="next"]');
  steps['next'] = await shown();
  await page.click('#story button[data-go="last"]');
  steps['last'] = await shown();
  await page.click('#story button[data-go="prev"]');
  steps['prev'] = await shown();
  await page.click('#story tr.step[data-step="1"] td:nth-child(2)');
  steps['row 1'] = await shown();
  for (const [key, name] of [
    ['ArrowRight', '→'],
    ['j', 'j'],
    ['k', 'k'],
    ['ArrowLeft', '←'],
    ['End', 'End'],
    ['Home', 'Home'],
  ] as const) {
    await page.keyboard.press(key);
    steps[name] = await shown();
  }
  await page.setContent(breakPage(await storyPageHtml(example)), { waitUntil: 'load' });
  await page.click('#story tr.step[data-step="1"] td:nth-child(2)');
  await page.keyboard.press('ArrowRight');
  const brokenKeys = await shown();
  const brokenOverflow = (await page.evaluate(OVERFLOW)) as string[];
  // Each page below opens as a new one would: at its top.
  await page.goto('about:blank');
  await page.setContent(await storyPageHtml(example), { waitUntil: 'load' });
  await page.evaluate(DIAGRAM_FIRST);
  const diagramFirst = (await page.evaluate(FIRST_SCREEN)) as FirstScreen;
  await page.goto('about:blank');
  await page.setContent(await storyPageHtml(fixtureExample), { waitUntil: 'load' });
  const fixtureFirstScreen = (await page.evaluate(FIRST_SCREEN)) as FirstScreen;
  const fixture = await shown();
  const fixtureOverflow = (await page.evaluate(OVERFLOW)) as string[];
  return {
    firstScreen,
    diagramFirst,
    fixtureFirstScreen,
    steps,
    overflow,
    smallestFont,
    brokenKeys,
    brokenOverflow,
    fixture,
    fixtureOverflow,
  };
}

/** Renders the page and plays it once; what it saw is read by every test (Chromium needed). */
async function setUp(): Promise<void> {
  try {
    example = await storyFailure();
    fixtureExample = await storyFixtureFailure();
    const html = await storyPageHtml(example);
    const session = await withChromiumPage({ ...STORY_VIEWPORT, timeoutMs: 60_000 }, async (page) => {
      await page.setContent(html, { waitUntil: 'load' });
      return walk(page);
    });
    seen = session.result;
    requests = session.requests;
  } catch (error) {
    setupError = error;
  }
}

const FAIL_DEAD = 'running --FAIL [isCurrentDelivery]--> dead';

describeWithChromium('the failure story in Chromium at 1280×800', () => {
  beforeAll(setUp, 90_000);

  it("shows on its first screen the commands that repeat the failure, as the check's outcome gives them", () => {
    const { firstScreen } = rendered();
    expect(example.repeat.reproduce).toMatch(/^npx jobcheck check --broken retry-forgets-deadline --seed 1 --path \d/);
    expect(firstScreen.reproduce?.text).toBe(example.repeat.reproduce);
    expect(firstScreen.replay?.text).toBe(example.repeat.replay);
    expect(inFirstScreen(firstScreen.reproduce, firstScreen)).toBe(true);
    expect(inFirstScreen(firstScreen.replay, firstScreen)).toBe(true);
    // With a reproduce line, running the whole check again is not offered beside it.
    expect(firstScreen.again).toBeNull();
  });

  it("shows the diverging step's diff whole on its first screen, the diagram after it", () => {
    const { firstScreen } = rendered();
    expect(firstScreen.diff?.text).toContain('state after step 3 differs at');
    expect(inFirstScreen(firstScreen.diff, firstScreen)).toBe(true);
    expect(firstScreen.diagram?.top).toBeGreaterThan(firstScreen.diff?.bottom ?? Number.POSITIVE_INFINITY);
  });

  it('is seen to find the diff pushed off the first screen when the diagram comes first', () => {
    const { diagramFirst } = rendered();
    expect(inFirstScreen(diagramFirst.diff, diagramFirst)).toBe(false);
  });

  it("shows a fixture story's way to run it again and its diff on the first screen", () => {
    const { fixtureFirstScreen: s } = rendered();
    expect(fixtureExample.repeat.again).toMatch(
      /^npx jobcheck check --broken restart-resets-tokens --seed 1 --runs 100$/,
    );
    expect(s.again?.text).toBe(fixtureExample.repeat.again);
    expect(s.reproduce).toBeNull();
    expect(inFirstScreen(s.again, s)).toBe(true);
    expect(inFirstScreen(s.diff, s)).toBe(true);
  });

  it('opens at the diverging step: its row current, the job lit where the model has it and where the implementation has it', () => {
    const s = rendered().steps['opened'];
    expect(s?.where).toBe('Step 3 of 3 — diverges');
    expect(s?.command).toBe('fail worker=w1 token=1 kind=transient error=timeout now=1');
    expect(s?.currentRows).toEqual(['3']);
    expect(s?.lit).toEqual({ dead: 'a' });
    expect(s?.implLit).toEqual({ waiting: 'a' });
    expect(s?.labels).toMatchObject({ dead: 'a', waiting: 'impl: a', ready: '', running: '', done: '' });
  });

  it("draws the model's transition at the diverging step against the move the implementation implies", () => {
    const s = rendered().steps['opened'];
    expect(s?.taken).toEqual([FAIL_DEAD]);
    expect(s?.implied).toEqual(['running->waiting']);
  });

  it('steps back with ← as soon as the page opens, before anything has the focus', () => {
    expect(rendered().steps['← at once']).toMatchObject({ currentRows: ['2'], lit: { running: 'a' }, implLit: {} });
  });

  it('steps with the buttons: first, next, last, prev', () => {
    const { steps } = rendered();
    expect(steps['first']).toMatchObject({
      currentRows: ['1'],
      lit: { ready: 'a' },
      implLit: {},
      taken: [],
      implied: [],
    });
    expect(steps['next']).toMatchObject({
      currentRows: ['2'],
      lit: { running: 'a' },
      taken: ['ready --CLAIM--> running'],
    });
    expect(steps['last']).toMatchObject({ currentRows: ['3'], lit: { dead: 'a' }, taken: [FAIL_DEAD] });
    expect(steps['prev']).toMatchObject({ currentRows: ['2'], lit: { running: 'a' }, implied: [] });
  });

  it('moves to a row that is clicked, then steps with ← → j k Home End', () => {
    const { steps } = rendered();
    const at = (name: string): readonly string[] | undefined => steps[name]?.currentRows;
    expect(at('row 1')).toEqual(['1']);
    expect(steps['row 1']?.lit).toEqual({ ready: 'a' });
    expect([at('→'), at('j'), at('k'), at('←'), at('End'), at('Home')]).toEqual([
      ['2'],
      ['3'],
      ['2'],
      ['1'],
      ['3'],
      ['1'],
    ]);
    expect(steps['j']?.implied).toEqual(['running->waiting']);
    expect(steps['End']?.lit).toEqual({ dead: 'a' });
  });

  it('is seen to stay put when the script does not move on a key', () => {
    expect(rendered().brokenKeys.currentRows).toEqual(['1']);
  });

  it('lets nothing of the section reach past its container or the viewport, and draws no text below 12 px', () => {
    expect(rendered().overflow).toEqual([]);
    expect(rendered().smallestFont).toBeGreaterThanOrEqual(12);
  });

  it('is seen to find a command that cannot wrap', () => {
    expect(rendered().brokenOverflow.some((p) => /span\.verb/.test(p))).toBe(true);
  });

  it("opens a fixture's story at its failing step, where the implementation claims the job with an old token, without overflowing", () => {
    const { fixture, fixtureOverflow } = rendered();
    expect(fixture.where).toBe('Step 7 of 7 — diverges');
    expect(fixture.currentRows).toEqual(['7']);
    expect(fixture.lit).toEqual({ running: 'a' });
    // Both sides have the job running: the token differs, not the place.
    expect(fixture.implLit).toEqual({});
    expect(fixture.taken).toEqual(['ready --CLAIM--> running']);
    expect(fixtureOverflow).toEqual([]);
  });

  it('asks the network for nothing', () => {
    rendered();
    expect(requests).toEqual([]);
  });
});
