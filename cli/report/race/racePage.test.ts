/**
 * The race section as a person uses it: a real race (a racy store caught by a short campaign) on
 * its run page, rendered in headless Chromium at 1280×800, read as it opens (the first screen: the
 * command line that repeats it, what happened in a sentence, the count of requests the headline
 * gives too, the requests no order could place beside the model's replies), then hovered, clicked
 * and moved through with the keyboard. What it shows is read from the DOM and held against the
 * checker's witness and the closest order replayed on the model, and its reproduce line is run to
 * see it fail again. In the slow part of the suite (it starts a browser).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { RaceFailure } from '../../../conformance/check/failure.ts';
import { closestOrder } from '../../../conformance/concurrent/closestOrder.ts';
import type { ClosestOrder, ModelStateView } from '../../../conformance/concurrent/closestOrder.ts';
import { withChromiumPage } from '../../../docs/tools/chromium.ts';
import { describeWithChromium } from '../../../docs/tools/needsChromium.ts';
import { runCliCaptured } from '../../runCliCaptured.ts';
import { exampleRace, racePageHtml } from './raceExample.ts';
import type { RaceExample } from './raceExample.ts';
import { RACE_LAYOUT_PROBLEMS } from './raceLayout.ts';

const VIEWPORT = { width: 1280, height: 800 } as const;

/** Labels and ticks pushed past their lane's end, on top of each other: what the layout check must refuse. */
const BREAK_LAYOUT = `(() => {
  for (const l of document.querySelectorAll('#race .rlabel')) { l.classList.remove('rinside'); l.style.left = '900px'; l.style.top = '30px'; }
})()`;

/** What the visible details panel says. */
const PANEL = `(() => {
  const panel = document.querySelector('#race .rpanel');
  const shown = [...panel.querySelectorAll('.rdetail')].filter((d) => !d.hidden);
  const rows = (label) => [...(shown[0]?.querySelectorAll('section[aria-label="' + label + '"] table.rjobs tbody tr') ?? [])].map((tr) => {
    const heads = [...tr.closest('table').querySelectorAll('thead th')].map((th) => th.textContent);
    return Object.fromEntries([...tr.children].map((c, i) => [heads[i], c.textContent]));
  });
  const id = shown[0]?.dataset.id ?? null;
  return {
    shown: shown.map((d) => Number(d.dataset.id)),
    place: panel.dataset.place,
    text: shown[0]?.innerText ?? '',
    before: rows("the model's state before #" + id),
    after: rows("the model's state after #" + id),
    pressed: [...document.querySelectorAll('#race button.rreq[aria-pressed="true"]')].map((b) => Number(b.dataset.id)),
    focused: document.activeElement?.matches('#race button.rreq') ? Number(document.activeElement.dataset.id) : null,
  };
})()`;

/** What the page shows as it opens, each box's place in the window (px from its top) and text. */
interface FirstScreen {
  readonly height: number;
  readonly scrollY: number;
  readonly headline: string;
  readonly reproduce: { readonly bottom: number; readonly text: string } | null;
  readonly what: { readonly bottom: number; readonly text: string } | null;
  readonly summary: { readonly bottom: number; readonly text: string } | null;
  readonly stuck: { readonly bottom: number; readonly text: string } | null;
}

const FIRST_SCREEN = `(() => {
  const box = (selector) => {
    const el = document.querySelector(selector);
    if (el === null) return null;
    return { bottom: el.getBoundingClientRect().bottom, text: el.textContent.replace(/\\s+/g, ' ').trim() };
  };
  return {
    height: window.innerHeight,
    scrollY: window.scrollY,
    headline: document.querySelector('.verdict .meaning').textContent,
    reproduce: box('#summary [data-repeat="reproduce"] code'),
    what: box('#race .rwhat'),
    summary: box('#race .rsummary'),
    stuck: box('#race table.rstuck'),
  };
})()`;

/** Whether a box ends within the first screen of a page that has not scrolled. */
const onFirstScreen = (box: { readonly bottom: number } | null, screen: FirstScreen): boolean =>
  box !== null && screen.scrollY === 0 && box.bottom <= screen.height;

interface Panel {
  readonly shown: number[];
  readonly place: string;
  readonly text: string;
  readonly before: Record<string, string>[];
  readonly after: Record<string, string>[];
  readonly pressed: number[];
  readonly focused: number | null;
}

interface Seen {
  readonly firstScreen: FirstScreen;
  /** The first screen of the page with the chart put back above the race's sentence and diff. */
  readonly chartFirst: FirstScreen;
  readonly atOpen: Panel;
  readonly hovered: Panel;
  readonly afterHover: Panel;
  readonly clicked: Panel;
  readonly tabbed: Panel;
  readonly arrowed: Panel[];
  readonly end: Panel;
  readonly home: Panel;
  readonly listed: Panel;
  readonly marks: { prefix: number[]; stuck: number[]; stuckLabels: string[]; order: number[] };
  /** Layout problems with each request's details shown in turn. */
  readonly problems: string[];
  readonly broken: string[];
}

let example: RaceExample;
const reportDir = mkdtempSync(join(tmpdir(), 'jobcheck-race-page-'));
afterAll(() => rmSync(reportDir, { recursive: true, force: true }));
let failure: RaceFailure;
let replay: ClosestOrder;
let hoverId: number;
let seen: Seen;
let requests: readonly string[] = [];
/** Why the page could not be rendered (a browser that is there but will not start, say): every test then fails with it. */
let setupError: unknown;
const rendered = (): void => {
  if (setupError !== undefined) throw setupError;
};

/** Renders the page and plays it once; what it saw is read by every test (Chromium needed). */
async function setUp(): Promise<void> {
  try {
    example = await exampleRace();
    failure = example.failure;
    const run = failure.race.run;
    if (run === null || failure.race.witness === null) throw new Error('the example race has no witness');
    replay = closestOrder(run.history, failure.race.scenario.config, failure.race.witness);
    // Hover a request of the prefix that changes a job, so that before and after differ.
    const changing = replay.requests.find(
      (r) => r.place === 'prefix' && JSON.stringify(r.before?.jobs) !== JSON.stringify(r.after?.jobs),
    );
    if (changing === undefined) throw new Error('no request of the prefix changes a job');
    hoverId = changing.id;
    const html = racePageHtml(example);
    const session = await withChromiumPage({ ...VIEWPORT, timeoutMs: 60_000 }, (page) => interact(page, html));
    seen = session.result;
    requests = session.requests;
  } catch (error) {
    setupError = error;
  }
}

async function interact(page: Page, html: string): Promise<Seen> {
  const panel = async (): Promise<Panel> => (await page.evaluate(PANEL)) as Panel;
  await page.setContent(html, { waitUntil: 'load' });
  const firstScreen = (await page.evaluate(FIRST_SCREEN)) as FirstScreen;
  const atOpen = await panel();
  await page.hover(`#race-req-${hoverId}`);
  const hovered = await panel();
  await page.mouse.move(1, 1);
  const afterHover = await panel();
  const order = (await page.evaluate(
    `JSON.parse(document.querySelector('#race script.rdata').textContent).ids`,
  )) as number[];
  await page.click(`#race-req-${order[order.length - 1]}`);
  const clicked = await panel();
  // Tab from the top of a fresh page, the pointer out of the way, to the first request.
  await page.mouse.move(1, 1);
  await page.setContent(html, { waitUntil: 'load' });
  let tabbed = await panel();
  for (let i = 0; i < 60 && tabbed.focused === null; i++) {
    await page.keyboard.press('Tab');
    tabbed = await panel();
  }
  const arrowed: Panel[] = [];
  for (let i = 0; i < 3; i++) {
    await page.keyboard.press('ArrowRight');
    arrowed.push(await panel());
  }
  await page.keyboard.press('End');
  const end = await panel();
  await page.keyboard.press('Home');
  const home = await panel();
  // The list under the chart: a request's id selects it and moves the focus to its bar.
  await page.click(`#race a[data-select="${hoverId}"]`);
  await page.mouse.move(1, 1);
  const listed = await panel();
  const marks = (await page.evaluate(`(() => {
    const ids = (sel) => [...document.querySelectorAll(sel)].map((b) => Number(b.dataset.id)).sort((a, b) => a - b);
    return {
      prefix: ids('#race button.rreq.prefix'),
      stuck: ids('#race button.rreq.stuck'),
      stuckLabels: [...document.querySelectorAll('#race button.rreq.stuck .rlabel')].map((l) => l.textContent),
      order: [...document.querySelectorAll('#race button.rreq')].map((b) => Number(b.dataset.id)),
    };
  })()`)) as Seen['marks'];
  const problems: string[] = [];
  for (const id of order) {
    await page.click(`#race-req-${id}`);
    for (const p of (await page.evaluate(RACE_LAYOUT_PROBLEMS)) as string[])
      problems.push(`with #${id} selected: ${p}`);
  }
  await page.evaluate(BREAK_LAYOUT);
  const broken = (await page.evaluate(RACE_LAYOUT_PROBLEMS)) as string[];
  await page.goto('about:blank');
  await page.setContent(html, { waitUntil: 'load' });
  await page.evaluate(`(() => {
    const top = document.querySelector('#race .rwhat') ?? document.querySelector('#race .rsummary');
    top.before(document.querySelector('#race .rlegend'), document.querySelector('#race .rchart'));
  })()`);
  const chartFirst = (await page.evaluate(FIRST_SCREEN)) as FirstScreen;
  return {
    firstScreen,
    chartFirst,
    atOpen,
    hovered,
    afterHover,
    clicked,
    tabbed,
    arrowed,
    end,
    home,
    listed,
    marks,
    problems,
    broken,
  };
}

const stuckIds = (): number[] => (failure.race.witness?.stuck ?? []).map((s) => s.id).sort((a, b) => a - b);

describeWithChromium('the race section in Chromium at 1280×800', () => {
  beforeAll(setUp, 90_000);

  it('shows on its first screen the command line that repeats the race, from the concurrent path the check gives', () => {
    rendered();
    const path = failure.concurrent.path;
    expect(path).toMatch(/^\d+(:\d+)*$/);
    const line = `npx jobcheck check --broken claim-reads-then-writes --workers 3 --seed 1 --concurrent-path ${path}`;
    expect(example.repeat.reproduce).toBe(line);
    expect(seen.firstScreen.reproduce?.text).toBe(line);
    expect(onFirstScreen(seen.firstScreen.reproduce, seen.firstScreen)).toBe(true);
  });

  it('says what happened in a sentence, and the requests no order could place beside the model, on its first screen', () => {
    rendered();
    const s = seen.firstScreen;
    expect(s.what?.text).toMatch(
      /^Two overlapping claims both got job \w+: #\d+ by w\d \(token \d+, lease until \d+\) and #\d+ by w\d \(token \d+\) at now \d+, before that lease ran out\.$/,
    );
    const witness = failure.race.witness;
    for (const stuck of witness?.stuck ?? []) expect(s.stuck?.text).toContain(`#${stuck.id} `);
    expect(onFirstScreen(s.what, s)).toBe(true);
    expect(onFirstScreen(s.stuck, s)).toBe(true);
  });

  it('is seen to find the diff pushed off the first screen when the chart comes first', () => {
    rendered();
    expect(onFirstScreen(seen.chartFirst.stuck, seen.chartFirst)).toBe(false);
  });

  it('counts the requests once: the headline and the section say the same number, and what it was shrunk from', () => {
    rendered();
    const requests = failure.steps;
    expect(requests).toBe(failure.race.run?.rounds.reduce((n, r) => n + r.requests.length, 0));
    expect(seen.firstScreen.headline).toContain(`the shortest story, ${requests} requests,`);
    const lanes = failure.race.scenario.workers;
    const first = failure.concurrent.firstFailureRequests ?? 0;
    expect(first).toBeGreaterThan(requests);
    expect(seen.firstScreen.summary?.text).toMatch(
      new RegExp(`^${lanes} worker lanes sent ${requests} requests \\(shrunk from ${first} requests\\) in \\d+ rounds`),
    );
    // The final snapshot is named apart, never counted in with the lanes' requests.
    expect(seen.firstScreen.summary?.text).toContain(
      `then jobcheck read the store's snapshot (#${failure.race.run?.snapshotId})`,
    );
  });

  it('fails again when its reproduce line is run', async () => {
    rendered();
    const line = example.repeat.reproduce ?? '';
    const argv = line.replace(/^npx jobcheck /, '').split(' ');
    const again = await runCliCaptured([...argv, '--report', reportDir, '--json']);
    expect(again.code).toBe(1);
    const result = JSON.parse(again.stdout) as { failure: { source: string; steps: number } };
    expect(result.failure).toMatchObject({ source: 'concurrent', steps: failure.steps });
  }, 60_000);

  it('opens on the first stuck request, its details shown and the network never asked', () => {
    rendered();
    expect(seen.atOpen.shown).toEqual([failure.race.witness?.stuck[0]?.id]);
    expect(seen.atOpen.place).toBe('stuck');
    expect(seen.atOpen.text).toContain('stuck: no order could place it next');
    expect(requests).toEqual([]);
  });

  it("shows, for a hovered request, the model's state before and after it in the closest order", () => {
    rendered();
    const step = replay.requests.find((r) => r.id === hoverId);
    expect(seen.hovered.shown).toEqual([hoverId]);
    expect(seen.hovered.text).toContain(`Model state before #${hoverId}`);
    const jobs = (rows: Record<string, string>[]) =>
      // A table shows only the columns some job has: a column left out reads as empty.
      Object.fromEntries(
        rows.map((r) => [r['job'], { status: r['status'], token: r['token'] ?? '', owner: r['owner'] ?? '' }]),
      );
    const expected = (state: ModelStateView | null | undefined) =>
      Object.fromEntries(
        Object.entries(state?.jobs ?? {}).map(([id, j]) => [
          id,
          {
            status: j.status,
            token: 'token' in j && j.token !== undefined ? String(j.token) : '',
            owner: 'owner' in j && j.owner !== undefined ? String(j.owner) : '',
          },
        ]),
      );
    expect(jobs(seen.hovered.after)).toEqual(expected(step?.after));
    expect(jobs(seen.hovered.before)).toEqual(expected(step?.before));
    expect(seen.hovered.after).not.toEqual(seen.hovered.before);
  });

  it('goes back to the selected request when the pointer leaves, and a click selects another', () => {
    rendered();
    expect(seen.afterHover.shown).toEqual(seen.atOpen.shown);
    const sent = [...(failure.race.run?.history.operations ?? [])].sort((a, b) => a.invoked - b.invoked || a.id - b.id);
    const last = sent[sent.length - 1]?.id;
    expect(seen.clicked.pressed).toEqual([last]);
    expect(seen.clicked.shown).toEqual(seen.clicked.pressed);
  });

  it('selects requests from the keyboard (Tab to the first, the arrows in the order sent, End, Home) and from the list', () => {
    rendered();
    const order = seen.marks.order;
    const sent = [...(failure.race.run?.history.operations ?? [])]
      .sort((a, b) => a.invoked - b.invoked || a.id - b.id)
      .map((o) => o.id);
    expect([...order].sort((a, b) => a - b)).toEqual([...sent].sort((a, b) => a - b));
    const first = seen.tabbed.focused as number;
    expect(first).toBe(order[0]);
    expect(seen.tabbed.pressed).toEqual([first]);
    expect(seen.tabbed.shown).toEqual([first]);
    const from = sent.indexOf(first);
    expect(seen.arrowed.map((p) => p.focused)).toEqual(sent.slice(from + 1, from + 4));
    expect(seen.arrowed.map((p) => p.shown[0])).toEqual(sent.slice(from + 1, from + 4));
    expect(seen.end.shown).toEqual([sent[sent.length - 1]]);
    expect(seen.home.shown).toEqual([sent[0]]);
    expect(seen.listed).toMatchObject({ shown: [hoverId], pressed: [hoverId], focused: hoverId });
  });

  it("marks the checker's longest prefix and its stuck requests as the witness says", () => {
    rendered();
    expect(seen.marks.prefix).toEqual([...(failure.race.witness?.longestOrder ?? [])].sort((a, b) => a - b));
    expect(seen.marks.stuck).toEqual(stuckIds());
    for (const label of seen.marks.stuckLabels) expect(label.startsWith('✕ ')).toBe(true);
  });

  it('cuts, covers or pushes out nothing at 1280 px, whichever request is shown, and sees a broken layout', () => {
    rendered();
    expect(seen.problems).toEqual([]);
    expect(seen.broken.length).toBeGreaterThan(0);
  });
});
