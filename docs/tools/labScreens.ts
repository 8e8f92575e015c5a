/**
 * The lab's screenshots for the docs, and the helpers that drive the lab page in Chromium, which
 * its browser tests share: fill the prediction form and step. lab-step.png is a step after a
 * wrong guess, so the answer with its "why" shows: story lease-boundary-now4-now5, step 3, a claim
 * at now=4 while the first worker's lease runs until 5, guessed as if the lease had run out.
 * lab-experiment-<id>.png is each of the four experiments run after its predictions (the changed
 * payload predicted wrong, as a learner would), 1280 px wide.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { labDocument } from '../../cli/report/lab/labDocument.ts';
import { withChromiumPage } from './chromium.ts';

/** The viewport of the lab's screenshots and layout test. */
export const LAB_VIEWPORT = { width: 1280, height: 800 } as const;

/**
 * A prediction for one step: whether the store accepts or refuses the command (left unchosen
 * when absent), each job's status (null: not submitted) and token (null: none), the focus
 * account's balance.
 */
export interface LabGuess {
  readonly outcome?: 'accepted' | 'refused';
  readonly jobs: Readonly<Record<string, { readonly status: string | null; readonly token: number | null }>>;
  readonly balance: number;
}

/** Fills the lab's form with `guess` (jobs the form does not ask about are ignored) and presses Enter to step. */
export async function predictAndStep(page: Page, guess: LabGuess): Promise<void> {
  if (await page.locator('#lab-outcome').isVisible())
    await page.locator('#lab-outcome').selectOption(guess.outcome ?? '');
  for (const row of await page.locator('#lab-fields tr').all()) {
    const id = (await row.getAttribute('data-job')) ?? '';
    const g = guess.jobs[id];
    if (g === undefined) continue;
    await row.locator('select[name=status]').selectOption(g.status ?? 'none');
    await row.locator('input[name=token]').fill(g.token === null ? '' : String(g.token));
  }
  await page.locator('#lab-balance').fill(String(guess.balance));
  await page.locator('#lab-balance').press('Enter');
}

/** The story and the three steps of the screenshot: two right guesses, then the wrong one. */
export const LAB_SCREEN_STORY = 'lease-boundary-now4-now5';
const SCREEN_GUESSES: readonly LabGuess[] = [
  { outcome: 'accepted', jobs: { 'J-12': { status: 'ready', token: null } }, balance: 0 },
  { outcome: 'accepted', jobs: { 'J-12': { status: 'running', token: 1 } }, balance: 0 },
  { outcome: 'accepted', jobs: { 'J-12': { status: 'ready', token: null } }, balance: 0 },
];

/**
 * Renders the lab at 1280×800 in Chromium, plays the first three steps of LAB_SCREEN_STORY (the
 * third guessed wrong), and writes `lab-step.png` (1280 px wide, the whole page) into `outDir`.
 * Returns the paths written.
 */
export async function labScreens(outDir: string): Promise<string[]> {
  const { html } = await labDocument(LAB_SCREEN_STORY);
  const { result } = await withChromiumPage({ ...LAB_VIEWPORT, timeoutMs: 60_000 }, async (page) => {
    await page.setContent(html, { waitUntil: 'load' });
    for (const guess of SCREEN_GUESSES) await predictAndStep(page, guess);
    // Nothing is focused in the picture: a focus ring on a form field is noise there.
    await page.evaluate('document.activeElement && document.activeElement.blur()');
    return page.screenshot({ fullPage: true, animations: 'disabled' });
  });
  mkdirSync(outDir, { recursive: true });
  const path = join(outDir, 'lab-step.png');
  writeFileSync(path, result);
  return [path, ...(await experimentScreens(html, outDir))];
}

/** The predictions the experiments' screenshots are run with, by exercise id (labExercises.ts). */
export const EXPERIMENT_PREDICTIONS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'changed-key': { before: 'reused', after: 'applied' },
  'changed-payload': { after: 'applied' },
  'lease-boundary': { before: 'nothing', after: 'delivered' },
  interruption: { gap: 'after-3', after: 'reused' },
};

/** Runs each experiment of the lab in `html` with EXPERIMENT_PREDICTIONS and shoots its card, the page's width. */
async function experimentScreens(html: string, outDir: string): Promise<string[]> {
  const { result } = await withChromiumPage({ ...LAB_VIEWPORT, timeoutMs: 60_000 }, async (page) => {
    await page.setContent(html, { waitUntil: 'load' });
    const shots: [string, Buffer][] = [];
    for (const [id, answers] of Object.entries(EXPERIMENT_PREDICTIONS)) {
      const card = page.locator(`#lab-x-${id}`);
      for (const [q, v] of Object.entries(answers)) await card.locator(`select[name="${q}"]`).selectOption(v);
      await card.locator('[data-x-run]').click();
      await page.evaluate('document.activeElement && document.activeElement.blur()');
      const box = (await card.boundingBox()) ?? { y: 0, height: 800 };
      const top = await page.evaluate('window.scrollY');
      const y = Math.max(0, Math.floor(box.y + (top as number)) - 8);
      const clip = { x: 0, y, width: LAB_VIEWPORT.width, height: Math.ceil(box.height) + 16 };
      shots.push([`lab-experiment-${id}.png`, await page.screenshot({ fullPage: true, clip, animations: 'disabled' })]);
    }
    return shots;
  });
  return result.map(([name, png]) => {
    const path = join(outDir, name);
    writeFileSync(path, png);
    return path;
  });
}
