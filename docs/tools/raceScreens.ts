/**
 * The screenshots of the race for docs/images/: the run page of a real race (a racy store of the
 * catalogue caught by its competing workers with a fixed seed, cli/report/race/raceExample.ts) in
 * headless Chromium 1280 px wide. `report-race.png` is the first screen as the page opens at
 * 1280×800: the verdict, the command line that repeats the race, the sentence that says what
 * happened, and the requests no order could place with the reply observed beside the model's.
 * `report-race-chart.png` runs from the legend and the chart to the end of the details panel, its first stuck
 * request selected: the lanes and the model's state before and after that request.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { exampleRace, racePageHtml } from '../../cli/report/race/raceExample.ts';
import { RACE_LAYOUT_PROBLEMS } from '../../cli/report/race/raceLayout.ts';
import { withChromiumPage } from './chromium.ts';

/** The window the pictures are taken in, in CSS pixels (one device pixel each). */
export const RACE_SCREEN_VIEWPORT = { width: 1280, height: 800 } as const;

/** The files the pictures are written to, in the folder given. */
export const RACE_SCREENS = { firstScreen: 'report-race.png', chart: 'report-race-chart.png' } as const;

/**
 * Renders the race page of a real race at 1280×800 and writes its first screen and its chart
 * into `outDir`; returns the paths written. Throws when the browser cannot start, when the page
 * asks the network for anything (it must be self-contained), or when its layout check finds text
 * cut or covered.
 */
export async function raceScreens(outDir: string): Promise<string[]> {
  const example = await exampleRace();
  const html = racePageHtml(example);
  const stuck = example.failure.race.witness?.stuck[0]?.id;
  const session = await withChromiumPage(RACE_SCREEN_VIEWPORT, async (page) => {
    await page.setContent(html, { waitUntil: 'load' });
    const firstScreen = await page.screenshot({ fullPage: false, animations: 'disabled' });
    if (stuck !== undefined) await page.click(`#race-req-${stuck}`);
    await page.mouse.move(1, 1);
    const problems = (await page.evaluate(RACE_LAYOUT_PROBLEMS)) as string[];
    if (problems.length > 0) throw new Error(`the race section is cut or covered at 1280 px: ${problems.join('; ')}`);
    const clip = (await page.evaluate(`(() => {
      const top = document.querySelector('#race .rlegend').getBoundingClientRect().top + window.scrollY;
      const bottom = document.querySelector('#race .rpanel').getBoundingClientRect().bottom + window.scrollY;
      return { x: 0, y: Math.max(0, top - 16), width: ${RACE_SCREEN_VIEWPORT.width}, height: bottom - top + 32 };
    })()`)) as { x: number; y: number; width: number; height: number };
    return { firstScreen, chart: await page.screenshot({ clip, fullPage: true }) };
  });
  if (session.requests.length > 0)
    throw new Error(`the race page asked the network for ${session.requests.join(', ')}: it must be self-contained`);
  await mkdir(outDir, { recursive: true });
  const written: string[] = [];
  for (const [key, file] of Object.entries(RACE_SCREENS) as [keyof typeof RACE_SCREENS, string][]) {
    await writeFile(join(outDir, file), session.result[key]);
    written.push(join(outDir, file));
  }
  return written;
}
