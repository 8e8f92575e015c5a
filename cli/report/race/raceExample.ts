/**
 * A real race to show and to test the section with: a racy store of the catalogue caught by a
 * short concurrent campaign with a fixed seed (in-process, well under a second), as the check
 * reports it, and the run page holding its section alone. The screenshot of docs/images/ and the
 * browser test both use it, so that what is tested is what is shown.
 */
import { concurrentBrokenVariant } from '../../../conformance/broken/concurrent/index.ts';
import type { RaceFailure } from '../../../conformance/check/failure.ts';
import { requestCount } from '../../../conformance/concurrent/generate.ts';
import { runConcurrentCampaign } from '../../../conformance/concurrent/campaign.ts';
import { reportPage } from '../page.ts';
import { raceSection } from './raceSection.ts';

/** The race shown: which racy store, how many lanes, which seed. */
export const RACE_EXAMPLE = { variant: 'claim-reads-then-writes', workers: 3, runs: 500, seed: 1 } as const;

/** Runs the campaign of RACE_EXAMPLE and returns its failure as a check reports it. Not pure: it runs a store. */
export async function exampleRaceFailure(): Promise<RaceFailure> {
  const variant = concurrentBrokenVariant(RACE_EXAMPLE.variant);
  if (variant === undefined) throw new Error(`no racy variant named ${RACE_EXAMPLE.variant}`);
  const concurrent = await runConcurrentCampaign({
    factory: variant.factory,
    workers: RACE_EXAMPLE.workers,
    numRuns: RACE_EXAMPLE.runs,
    seed: RACE_EXAMPLE.seed,
  });
  const race = concurrent.failure;
  if (race === null) throw new Error(`${RACE_EXAMPLE.variant} was not caught with seed ${RACE_EXAMPLE.seed}`);
  return {
    kind: 'race',
    source: 'concurrent',
    name: 'concurrent campaign',
    steps: race.run === null ? 0 : requestCount(race.run.rounds),
    concurrent,
    race,
  };
}

/** The run page of a race failure with its race section alone, as the report writes it. Pure. */
export function racePageHtml(failure: RaceFailure): string {
  return reportPage({
    verdict: 'diverge',
    headline: 'Competing workers got replies that no order of the model explains.',
    version: 'example',
    time: '2026-01-01T00:00:00Z',
    durationMs: failure.concurrent.durationMs,
    command: `jobcheck check --broken ${RACE_EXAMPLE.variant} --workers ${RACE_EXAMPLE.workers} --seed ${RACE_EXAMPLE.seed}`,
    target: `broken/${RACE_EXAMPLE.variant}`,
    seed: RACE_EXAMPLE.seed,
    links: [],
    sections: [raceSection(failure)],
  });
}
