/**
 * The screenshot of the race section for docs/images/: the run page of a real race (a racy store
 * of the catalogue caught by a short campaign with a fixed seed, cli/report/race/raceExample.ts)
 * in headless Chromium 1280 px wide, its first stuck request selected so that the details panel
 * shows the model's state before and after it. The picture runs from the section's heading to
 * the end of the details panel: the chart and the panel together, as a person sees them when
 * they scroll to the race.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { exampleRaceFailure, racePageHtml } from '../../cli/report/race/raceExample.ts';
import { RACE_LAYOUT_PROBLEMS } from '../../cli/report/race/raceLayout.ts';
import { withChromiumPage } from './chromium.ts';

/** The width the picture is taken at, in CSS pixels (one device pixel each). */
export const RACE_SCREEN_WIDTH = 1280;

/** The file the picture is written to, in the folder given. */
export const RACE_SCREEN = 'report-race.png';

/**
 * Renders the race section of a real race at 1280 px and writes `report-race.png` into `outDir`;
 * returns the paths written. Throws when the browser cannot start, when the page asks the network
 * for anything (it must be self-contained), or when its layout check finds text cut or covered.
 */
export async function raceScreens(outDir: string): Promise<string[]> {
  const failure = await exampleRaceFailure();
  const html = racePageHtml(failure);
  const stuck = failure.race.witness?.stuck[0]?.id;
  const session = await withChromiumPage({ width: RACE_SCREEN_WIDTH, height: 800 }, async (page) => {
    await page.setContent(html, { waitUntil: 'load' });
    if (stuck !== undefined) await page.click(`#race-req-${stuck}`);
    await page.mouse.move(1, 1);
    const problems = (await page.evaluate(RACE_LAYOUT_PROBLEMS)) as string[];
    if (problems.length > 0) throw new Error(`the race section is cut or covered at 1280 px: ${problems.join('; ')}`);
    const clip = (await page.evaluate(`(() => {
      const top = document.getElementById('race').getBoundingClientRect().top + window.scrollY;
      const bottom = document.querySelector('#race .rpanel').getBoundingClientRect().bottom + window.scrollY;
      return { x: 0, y: Math.max(0, top - 16), width: ${RACE_SCREEN_WIDTH}, height: bottom - top + 32 };
    })()`)) as { x: number; y: number; width: number; height: number };
    return page.screenshot({ clip, fullPage: true });
  });
  if (session.requests.length > 0)
    throw new Error(`the race page asked the network for ${session.requests.join(', ')}: it must be self-contained`);
  await mkdir(outDir, { recursive: true });
  const path = join(outDir, RACE_SCREEN);
  await writeFile(path, session.result);
  return [path];
}
