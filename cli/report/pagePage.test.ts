/**
 * The run page's shell as a person sees it: rendered in headless Chromium at 1280×800, read back
 * from the DOM (the header's facts, the table of contents and where its links lead, focus order,
 * what overflows), with no network. The failure sections are the other parts' own: here a local
 * fake section stands in for them, to show that the shell inlines a section's style and script.
 */
import { beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { withChromiumPage } from '../../docs/tools/chromium.ts';
import { describeWithChromium } from '../../docs/tools/needsChromium.ts';
import { reportPage } from './page.ts';
import type { ReportPageInput } from './page.ts';
import type { PageSection } from './section.ts';

const VIEWPORT = { width: 1280, height: 800 } as const;

/** A stand-in section: scoped style, its data in a JSON script element, and a script that reads it. */
const FAKE: PageSection = {
  id: 'fake-story',
  title: 'What went wrong',
  html: `<section id="fake-story"><h2>What went wrong</h2><p class="said">not yet run</p>
<script type="application/json" class="data">{"steps": 3}</script></section>`,
  css: '#fake-story .said{font-weight:700}',
  script: `(() => {
  const root = document.getElementById('fake-story');
  const data = JSON.parse(root.querySelector('script.data').textContent);
  root.querySelector('.said').textContent = 'story of ' + data.steps + ' steps';
})();`,
};

const LONG = `python3 ${'very/long/path/'.repeat(12)}jobstore.py --flag=${'x'.repeat(160)}`;

const INPUT: ReportPageInput = {
  verdict: 'diverge',
  headline:
    'The implementation departs from the model (4.2 s): the shortest story, 3 steps, comes from the random campaign.',
  version: '0.1.0',
  time: '2026-12-02T05:30:12.345Z',
  durationMs: 4210,
  command: `jobcheck check --impl '${LONG}' --seed 7`,
  target: LONG,
  seed: 7,
  repeat: {
    reproduce: `npx jobcheck check --impl '${LONG}' --seed 7 --path 12:0:3`,
    replay: `npx jobcheck replay .jobcheck/report/failure.json --impl '${LONG}'`,
    again: `npx jobcheck check --impl '${LONG}' --seed 7 --runs 300`,
  },
  stderr: {
    href: 'stderr.txt',
    lines: 40,
    bytesDropped: 512,
    tail: [
      '[impl 4242] starting',
      '[impl 4242] <script>window.injected = true</script>',
      `[impl 4243] ${'y'.repeat(400)}`,
    ],
  },
  links: [
    { href: 'coverage.html', label: 'the coverage page' },
    { href: 'failure.json', label: 'the story, for jobcheck replay' },
    { href: 'run.json', label: 'this run, as jobcheck report --list reads it' },
  ],
  sections: [FAKE],
};

/** Read back from the DOM, in the page. Kept as source text: the project's types describe Node, not the DOM. */
const READ = `(() => {
  const text = (selector) => document.querySelector(selector)?.textContent?.replace(/\\s+/g, ' ').trim() ?? null;
  const width = document.documentElement.clientWidth;
  const overflows = [];
  for (const el of document.querySelectorAll('nav.toc *, main *')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const name = el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ')[0] : '') + (el.id ? '#' + el.id : '');
    if (r.right > width + 0.5 || r.left < -0.5) overflows.push(name + ' reaches ' + Math.round(r.left) + '..' + Math.round(r.right) + ' of ' + width);
    const style = getComputedStyle(el);
    if (style.overflowX !== 'auto' && style.overflowX !== 'scroll' && el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0)
      overflows.push(name + ' clips its content: ' + el.scrollWidth + ' px in ' + el.clientWidth);
    const parent = el.parentElement?.getBoundingClientRect();
    if (parent !== undefined && r.right > parent.right + 0.5 && getComputedStyle(el.parentElement).overflowX === 'visible')
      overflows.push(name + ' sticks out of its container by ' + Math.round(r.right - parent.right) + ' px');
  }
  return {
    title: document.title,
    verdict: text('.verdict .word'),
    verdictAttr: document.querySelector('.verdict')?.getAttribute('data-verdict') ?? null,
    symbol: text('.verdict .symbol'),
    headline: text('.verdict .meaning'),
    facts: Object.fromEntries([...document.querySelectorAll('dl.facts dd')].map((dd) => [dd.getAttribute('data-fact'), dd.textContent.replace(/\\s+/g, ' ').trim()])),
    repeat: [...document.querySelectorAll('#summary dl.repeat dt')].map((dt) => [dt.textContent, dt.nextElementSibling.textContent]),
    links: [...document.querySelectorAll('dl.facts a')].map((a) => a.getAttribute('href')),
    toc: [...document.querySelectorAll('nav.toc a')].map((a) => ({ href: a.getAttribute('href'), title: a.textContent, target: document.querySelector(a.getAttribute('href')) !== null })),
    stderr: document.querySelector('pre.stderr')?.textContent ?? null,
    injected: window.injected === true,
    said: text('#fake-story .said'),
    saidWeight: getComputedStyle(document.querySelector('#fake-story .said')).fontWeight,
    scrollWidth: document.documentElement.scrollWidth,
    width,
    overflows,
  };
})()`;

interface Read {
  readonly title: string;
  readonly verdict: string | null;
  readonly verdictAttr: string | null;
  readonly symbol: string | null;
  readonly headline: string | null;
  readonly facts: Record<string, string>;
  /** The header's commands that repeat the failure: [label, command]. */
  readonly repeat: ReadonlyArray<readonly [string, string]>;
  readonly links: readonly string[];
  readonly toc: ReadonlyArray<{ href: string; title: string; target: boolean }>;
  readonly stderr: string | null;
  readonly injected: boolean;
  readonly said: string | null;
  readonly saidWeight: string;
  readonly scrollWidth: number;
  readonly width: number;
  readonly overflows: readonly string[];
}

/** Command and target written as one unbreakable word, as a page that does not wrap them would: what the overflow check must refuse. */
const BREAK_WRAPPING = `(() => {
  const style = document.createElement('style');
  style.textContent = 'dd code,pre.stderr{white-space:pre !important;overflow-wrap:normal !important;word-break:normal !important}';
  document.head.appendChild(style);
})()`;

let seen: Read;
let broken: Read;
let focusOrder: string[] = [];
let afterEnter = '';
let requests: readonly string[] = [];
let setupError: unknown;
const rendered = (): void => {
  if (setupError !== undefined) throw setupError;
};

/** Renders the page and plays it once; what it saw is read by every test (Chromium needed). */
async function setUp(): Promise<void> {
  try {
    const session = await withChromiumPage({ ...VIEWPORT, timeoutMs: 45_000 }, async (page: Page) => {
      await page.setContent(reportPage(INPUT), { waitUntil: 'load' });
      const read = (await page.evaluate(READ)) as Read;
      const order: string[] = [];
      for (let i = 0; i < 5; i++) {
        await page.keyboard.press('Tab');
        order.push(
          (await page.evaluate(
            'document.activeElement?.getAttribute("href") ?? document.activeElement?.tagName',
          )) as string,
        );
      }
      // Tab reached the table of contents' second entry (the skip link, then the contents): Enter follows it.
      await page.focus('nav.toc a[href="#fake-story"]');
      await page.keyboard.press('Enter');
      const hash = (await page.evaluate('location.hash')) as string;
      await page.evaluate(BREAK_WRAPPING);
      return { read, order, hash, broken: (await page.evaluate(READ)) as Read };
    });
    seen = session.result.read;
    broken = session.result.broken;
    focusOrder = session.result.order;
    afterEnter = session.result.hash;
    requests = session.requests;
  } catch (error) {
    setupError = error;
  }
}

describeWithChromium('the run page in Chromium at 1280×800', () => {
  beforeAll(setUp, 60_000);

  it('says the verdict in a word and a symbol, not in colour alone, with the sentence after it', () => {
    rendered();
    expect(seen.verdict).toBe('DIVERGE');
    expect(seen.symbol).toBe('✗');
    expect(seen.verdictAttr).toBe('diverge');
    expect(seen.headline).toBe(INPUT.headline);
    expect(seen.title).toMatch(/^✗ DIVERGE: python3 /);
  });

  it('shows when it ran, the command, the target, the seed, the version, and links the files and stderr', () => {
    rendered();
    expect(seen.facts['time']).toBe('2026-12-02 05:30:12 UTC, took 4.2 s');
    expect(seen.facts['command']).toBe(INPUT.command);
    expect(seen.facts['target']).toBe(LONG);
    expect(seen.facts['seed']).toBe('7');
    expect(seen.facts['version']).toBe('0.1.0');
    expect(seen.facts['stderr']).toContain('40 lines in stderr.txt, and 512 bytes dropped');
    expect(seen.links).toEqual(['coverage.html', 'failure.json', 'run.json', 'stderr.txt', '#stderr']);
  });

  it('shows the commands that repeat the failure in its header, the whole check again only without a reproduce line', () => {
    rendered();
    expect(seen.repeat).toEqual([
      ['Reproduce', INPUT.repeat?.reproduce],
      ['Replay', INPUT.repeat?.replay],
    ]);
  });

  it("quotes stderr's last lines as text: markup in them is shown, never run", () => {
    rendered();
    expect(seen.stderr).toContain('[impl 4242] <script>window.injected = true</script>');
    expect(seen.injected).toBe(false);
  });

  it('lists every part in its table of contents, each link leading to its part, the sections in order, stderr after them', () => {
    rendered();
    expect(seen.toc).toEqual([
      { href: '#summary', title: 'Verdict: DIVERGE', target: true },
      { href: '#fake-story', title: 'What went wrong', target: true },
      { href: '#stderr', title: "The implementation's stderr", target: true },
    ]);
  });

  it("inlines a section's style and runs its script, which finds its data in its own fragment", () => {
    rendered();
    expect(seen.said).toBe('story of 3 steps');
    expect(seen.saidWeight).toBe('700');
  });

  it('is reached by the keyboard: a skip link first, then the contents; Enter on an entry goes to its part', () => {
    rendered();
    expect(focusOrder.slice(0, 4)).toEqual(['#main', '#summary', '#fake-story', '#stderr']);
    expect(afterEnter).toBe('#fake-story');
  });

  it('clips nothing at 1280 px, even a command of one 300-character word, and asks the network for nothing', () => {
    rendered();
    expect(seen.overflows).toEqual([]);
    expect(seen.scrollWidth).toBeLessThanOrEqual(seen.width);
    expect(requests).toEqual([]);
    // The same page with its long words left unwrapped is refused.
    expect(broken.overflows.length).toBeGreaterThan(0);
  });
});
