/**
 * The failure story page as people see it: a deterministic check of a broken variant (a retry
 * that forgets the deadline: the model's job dies where the implementation's waits), its story
 * section on a run page, and the screenshot of docs/images/ with the diverging step selected.
 * The browser test of the section (cli/report/story/storyPage.test.ts) loads the same page.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCheck } from '../../conformance/check/index.ts';
import type { DivergenceFailure, FixtureFailure } from '../../conformance/check/index.ts';
import { brokenVariant } from '../../conformance/broken/index.ts';
import { loadFixture, runFixture } from '../../model/fixtures.ts';
import { reportPage } from '../../cli/report/page.ts';
import { storySection } from '../../cli/report/story/storySection.ts';
import { withChromiumPage } from './chromium.ts';

/** The width the page must be readable at, and the height of the window it is shot in. */
export const STORY_VIEWPORT = { width: 1280, height: 800 } as const;

/** The check behind the page: in-process, well under a second. */
export const STORY_CHECK = { variant: 'retry-forgets-deadline', seed: 1, runs: 100 } as const;

/** Runs the check behind the page and returns its failure, a sequential divergence. */
export async function storyFailure(): Promise<DivergenceFailure> {
  const broken = brokenVariant(STORY_CHECK.variant);
  if (broken === undefined) throw new Error(`no broken variant named ${STORY_CHECK.variant}`);
  const report = await runCheck({ factory: broken.factory }, { runs: STORY_CHECK.runs, seed: STORY_CHECK.seed });
  if (report.failure?.kind !== 'divergence')
    throw new Error(`broken/${broken.name} did not diverge sequentially (${report.failure?.kind ?? 'it agreed'})`);
  return report.failure;
}

/** A fixture story that a broken variant does not follow: the fixture page's example. */
export const STORY_FIXTURE = { fixture: 'commit-restart-redeliver', variant: 'restart-resets-tokens' } as const;

/**
 * Replays the fixture of STORY_FIXTURE against its broken variant, as the check's fixture phase
 * does, and returns the failure (a few milliseconds).
 */
export async function storyFixtureFailure(): Promise<FixtureFailure> {
  const fixture = loadFixture(STORY_FIXTURE.fixture);
  const broken = brokenVariant(STORY_FIXTURE.variant);
  if (broken === undefined) throw new Error(`no broken variant named ${STORY_FIXTURE.variant}`);
  const adapter = await broken.factory(fixture.config);
  try {
    const result = await runFixture(fixture, {
      execute: (command) => adapter.execute(command),
      snapshot: () => adapter.snapshot(),
      restart: () => adapter.restart(),
      restoreFrom: () => adapter.restart(),
    });
    if (result.ok) throw new Error(`broken/${broken.name} follows fixture ${fixture.name}`);
    const outcome = { fixture, result, durationMs: 0 };
    return { kind: 'fixture', source: 'fixture', name: fixture.name, steps: fixture.steps.length, fixture: outcome };
  } finally {
    await adapter.close();
  }
}

/** A run page holding the story of `failure` and nothing else of a run's files. */
export async function storyPageHtml(failure: DivergenceFailure | FixtureFailure): Promise<string> {
  const step =
    failure.kind === 'divergence'
      ? failure.run.divergence?.step
      : failure.fixture.result.ok
        ? 0
        : failure.fixture.result.step;
  return reportPage({
    verdict: 'diverge',
    headline: `broken/${failure.kind === 'divergence' ? STORY_CHECK.variant : STORY_FIXTURE.variant} disagrees at step ${step ?? 0}.`,
    version: '0.0.0',
    time: '2026-01-01T00:00:00.000Z',
    durationMs: 0,
    command: `npx jobcheck check --broken ${STORY_CHECK.variant} --seed ${STORY_CHECK.seed} --runs ${STORY_CHECK.runs}`,
    target: `broken/${STORY_CHECK.variant}`,
    seed: STORY_CHECK.seed,
    links: [],
    sections: [await storySection(failure)],
  });
}

/**
 * Renders the failure story page at 1280 px (the diverging step is selected when it opens) and
 * writes `report-failure.png` into `outDir`; returns the paths written.
 */
export async function storyScreens(outDir: string): Promise<string[]> {
  const html = await storyPageHtml(await storyFailure());
  const { result } = await withChromiumPage(STORY_VIEWPORT, async (page) => {
    await page.setContent(html, { waitUntil: 'load' });
    return page.screenshot({ fullPage: true, animations: 'disabled' });
  });
  const file = join(outDir, 'report-failure.png');
  await writeFile(file, result);
  return [file];
}
