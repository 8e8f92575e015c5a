/**
 * The failure story page as people see it: a deterministic check of a broken variant (a retry
 * that forgets the deadline: the model's job dies where the implementation's waits), its story
 * section on a run page with the header the check writes (the verdict's sentence, the commands
 * that repeat it), and the screenshot of docs/images/: the first screen at 1280×800, where the
 * reproduce line and the diverging step's diff must be. The browser test of the section
 * (cli/report/story/storyPage.test.ts) loads the same page.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCheck } from '../../conformance/check/index.ts';
import type { DivergenceFailure, FixtureFailure } from '../../conformance/check/index.ts';
import { checkAgainCommand, repeatCommands } from '../../cli/output/reproduce.ts';
import type { CheckContext } from '../../cli/output/context.ts';
import { checkHeadline } from '../../cli/report/checkHeadline.ts';
import type { PageRepeat } from '../../cli/report/page.ts';
import { quotedCommand } from '../../cli/report/runRecord.ts';
import { brokenVariant } from '../../conformance/broken/index.ts';
import { loadFixture, runFixture } from '../../model/fixtures.ts';
import { reportPage } from '../../cli/report/page.ts';
import { shippedContract } from '../../cli/report/shippedDocs.ts';
import { storySection } from '../../cli/report/story/storySection.ts';
import { withChromiumPage } from './chromium.ts';

/** The width the page must be readable at, and the height of the window it is shot in. */
export const STORY_VIEWPORT = { width: 1280, height: 800 } as const;

/** The check behind the page: in-process, well under a second. */
export const STORY_CHECK = { variant: 'retry-forgets-deadline', seed: 1, runs: 100 } as const;

/** How `jobcheck check` names the check behind the page, as its outputs need it. */
export const STORY_CONTEXT: CheckContext = {
  target: `broken/${STORY_CHECK.variant}`,
  flags: `--broken ${STORY_CHECK.variant}`,
  seed: STORY_CHECK.seed,
  runs: STORY_CHECK.runs,
};

/**
 * The time the pictured page says the check took: fixed, so that the picture changes only when
 * the page does (the check's own time varies from run to run).
 */
export const PICTURED_MS = 1200;

/** The failure artifact's path, as the check writes it into the default report directory. */
const ARTIFACT = '.jobcheck/report/failure.json';

/** A failure to show, with the sentence and the commands the page's header gives it. */
export interface StoryExample<F extends DivergenceFailure | FixtureFailure = DivergenceFailure | FixtureFailure> {
  readonly failure: F;
  /** The broken variant that failed. */
  readonly variant: string;
  readonly headline: string;
  readonly repeat: PageRepeat;
  /** How long the page says the check took: PICTURED_MS (0 for a fixture replayed alone). */
  readonly durationMs: number;
}

/** Runs the check behind the page and returns its failure, a sequential divergence, as its run page shows it. */
export async function storyFailure(): Promise<StoryExample<DivergenceFailure>> {
  const broken = brokenVariant(STORY_CHECK.variant);
  if (broken === undefined) throw new Error(`no broken variant named ${STORY_CHECK.variant}`);
  const report = await runCheck({ factory: broken.factory }, { runs: STORY_CHECK.runs, seed: STORY_CHECK.seed });
  const failure = report.failure;
  if (failure?.kind !== 'divergence')
    throw new Error(`broken/${broken.name} did not diverge sequentially (${failure?.kind ?? 'it agreed'})`);
  return {
    failure,
    variant: broken.name,
    headline: checkHeadline({ ...report, durationMs: PICTURED_MS }),
    durationMs: PICTURED_MS,
    repeat: {
      ...repeatCommands(failure, report.campaign.path, STORY_CONTEXT, ARTIFACT),
      again: checkAgainCommand(STORY_CONTEXT),
    },
  };
}

/** A fixture story that a broken variant does not follow: the fixture page's example. */
export const STORY_FIXTURE = { fixture: 'commit-restart-redeliver', variant: 'restart-resets-tokens' } as const;

/**
 * Replays the fixture of STORY_FIXTURE against its broken variant, as the check's fixture phase
 * does, and returns the failure (a few milliseconds).
 */
export async function storyFixtureFailure(): Promise<StoryExample<FixtureFailure>> {
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
    const steps = result.step === 'final' ? fixture.steps.length : result.step;
    const failure: FixtureFailure = { kind: 'fixture', source: 'fixture', name: fixture.name, steps, fixture: outcome };
    const ctx = { ...STORY_CONTEXT, target: `broken/${broken.name}`, flags: `--broken ${broken.name}` };
    return {
      failure,
      variant: broken.name,
      headline: `The implementation departs from the model: the shortest story, ${steps} steps, comes from the fixture story "${fixture.name}".`,
      repeat: { ...repeatCommands(failure, null, ctx), again: checkAgainCommand(ctx) },
      durationMs: 0,
    };
  } finally {
    await adapter.close();
  }
}

/** The files a run's folder holds beside its page, as the page links them (cli/checkCommand.ts, cli/report/runFolder.ts). */
const COVERAGE_LINKS = [
  { href: 'coverage.html', label: 'the coverage page' },
  { href: 'coverage.md', label: 'its summary' },
];
const FAILURE_LINK = { href: 'failure.json', label: 'the story, for jobcheck replay' };
const RUN_LINK = { href: 'run.json', label: 'this run, as jobcheck report --list reads it' };

/**
 * A run page holding the story of `example`, linking the files a run's folder holds beside it,
 * and the story into the lab at `labUrl` when given.
 */
export async function storyPageHtml(example: StoryExample, labUrl?: string): Promise<string> {
  const target = example.variant;
  return reportPage({
    verdict: 'diverge',
    headline: example.headline,
    version: '0.0.0',
    time: '2026-01-01T00:00:00.000Z',
    durationMs: example.durationMs,
    command: quotedCommand([
      'check',
      '--broken',
      target,
      '--seed',
      String(STORY_CHECK.seed),
      '--runs',
      String(STORY_CHECK.runs),
    ]),
    target: `broken/${target}`,
    seed: STORY_CHECK.seed,
    repeat: example.repeat,
    links:
      example.failure.kind === 'divergence'
        ? [...COVERAGE_LINKS, FAILURE_LINK, RUN_LINK]
        : [...COVERAGE_LINKS, RUN_LINK],
    sections: [await storySection(example.failure, shippedContract(), labUrl)],
  });
}

/**
 * Renders the failure story page at 1280×800 (the diverging step is selected when it opens) and
 * writes its first screen, `report-failure.png`, into `outDir`; returns the paths written.
 */
export async function storyScreens(outDir: string): Promise<string[]> {
  const html = await storyPageHtml(await storyFailure());
  const { result } = await withChromiumPage(STORY_VIEWPORT, async (page) => {
    await page.setContent(html, { waitUntil: 'load' });
    return page.screenshot({ fullPage: false, animations: 'disabled' });
  });
  const file = join(outDir, 'report-failure.png');
  await writeFile(file, result);
  return [file];
}
