/**
 * A real race to show and to test the section with: a racy store of the catalogue caught by a
 * check of its competing workers alone (`--workers 3 --concurrent only`, in-process, well under a
 * second), and the run page holding its section with the header the check writes: the verdict's
 * sentence and the command line that repeats the race (`--concurrent-path`). The screenshot of
 * docs/images/ and the browser test both use it, so that what is tested is what is shown.
 */
import { concurrentBrokenVariant } from '../../../conformance/broken/index.ts';
import { runCheck } from '../../../conformance/check/index.ts';
import type { RaceFailure } from '../../../conformance/check/failure.ts';
import { jobStoreFactory } from '../../../conformance/stores/jobStore.ts';
import type { CheckContext } from '../../output/context.ts';
import { checkAgainCommand, repeatCommands } from '../../output/reproduce.ts';
import { checkHeadline } from '../checkHeadline.ts';
import { reportPage } from '../page.ts';
import type { PageRepeat } from '../page.ts';
import { quotedCommand } from '../runRecord.ts';
import { raceSection } from './raceSection.ts';

/** The race shown: which racy store, how many lanes, which seed, how many scenarios at most. */
export const RACE_EXAMPLE = { variant: 'claim-reads-then-writes', workers: 3, runs: 100, seed: 1 } as const;

/** How `jobcheck check` names the check behind the page, as its outputs need it. */
export const RACE_CONTEXT: CheckContext = {
  target: `broken/${RACE_EXAMPLE.variant}`,
  flags: `--broken ${RACE_EXAMPLE.variant}`,
  seed: RACE_EXAMPLE.seed,
  runs: 300,
  workers: RACE_EXAMPLE.workers,
};

/**
 * The time the page says the check took: fixed, so that its picture changes only when the page
 * does (the check's own time varies from run to run).
 */
export const RACE_PICTURED_MS = 400;

/** A race to show, with the sentence and the commands the page's header gives it. */
export interface RaceExample {
  readonly failure: RaceFailure;
  readonly headline: string;
  readonly repeat: PageRepeat;
  /** How long the page says the check took: RACE_PICTURED_MS. */
  readonly durationMs: number;
}

/**
 * Checks the competing workers of RACE_EXAMPLE as `jobcheck check --broken <variant> --workers 3
 * --concurrent only` does and returns its race, as its run page shows it. Not pure: it runs a store.
 */
export async function exampleRace(): Promise<RaceExample> {
  const variant = concurrentBrokenVariant(RACE_EXAMPLE.variant);
  if (variant === undefined) throw new Error(`no racy variant named ${RACE_EXAMPLE.variant}`);
  const name = `broken/${variant.name}`;
  const report = await runCheck(
    { name, factory: jobStoreFactory(variant.Store, name), concurrentFactory: variant.factory },
    {
      seed: RACE_EXAMPLE.seed,
      runs: RACE_CONTEXT.runs,
      concurrent: { workers: RACE_EXAMPLE.workers, runs: RACE_EXAMPLE.runs, when: 'only' },
    },
  );
  const failure = report.failure;
  if (failure?.kind !== 'race')
    throw new Error(`${RACE_EXAMPLE.variant} was not caught with seed ${RACE_EXAMPLE.seed}`);
  return {
    failure,
    headline: checkHeadline({ ...report, durationMs: RACE_PICTURED_MS }),
    repeat: { ...repeatCommands(failure, null, RACE_CONTEXT), again: checkAgainCommand(RACE_CONTEXT) },
    durationMs: RACE_PICTURED_MS,
  };
}

/** The race of RACE_EXAMPLE as a check reports it. Not pure: it runs a store. */
export async function exampleRaceFailure(): Promise<RaceFailure> {
  return (await exampleRace()).failure;
}

/** The run page of a race with its race section alone, as the report writes it. Pure. */
export function racePageHtml(example: RaceExample): string {
  const argv = ['check', '--broken', RACE_EXAMPLE.variant, '--workers', String(RACE_EXAMPLE.workers)];
  return reportPage({
    verdict: 'diverge',
    headline: example.headline,
    version: 'example',
    time: '2026-01-01T00:00:00Z',
    durationMs: example.durationMs,
    command: quotedCommand([...argv, '--seed', String(RACE_EXAMPLE.seed), '--concurrent', 'only']),
    target: `broken/${RACE_EXAMPLE.variant}`,
    seed: RACE_EXAMPLE.seed,
    repeat: example.repeat,
    links: [
      { href: 'coverage.html', label: 'the coverage page' },
      { href: 'coverage.md', label: 'its summary' },
      { href: 'history.porcupine.json', label: 'the history for Porcupine' },
      { href: 'history.jepsen.edn', label: 'for Jepsen' },
      { href: 'run.json', label: 'this run, as jobcheck report --list reads it' },
    ],
    sections: [raceSection(example.failure)],
  });
}
