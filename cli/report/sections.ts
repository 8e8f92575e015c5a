/**
 * Which sections a run page shows for a failure: the story (a sequential divergence or a fixture
 * story, cli/report/story/), the race (competing workers, cli/report/race/), the told story of
 * a divergence that did not repeat, or of a restore the implementation got wrong. A check that
 * agrees, or stopped, has none.
 *
 * The story and race sections are loaded when a failure of their kind is shown, not before: a
 * check that agrees writes its page without loading them.
 */
import type { CheckFailure } from '../../conformance/check/index.ts';
import { unknownFailure } from '../../conformance/check/index.ts';
import type { PageSection } from './section.ts';
import type { ShippedContract } from './shippedDocs.ts';
import { unrepeatedSection } from './unrepeatedSection.ts';

/**
 * The sections of the page for `failure`, in order, linking `contract` for the rules and a
 * sequential story into the lab at `labUrl`; none without one.
 */
export async function sectionsOf(
  failure: CheckFailure | null,
  contract?: ShippedContract,
  labUrl?: string,
): Promise<PageSection[]> {
  if (failure === null) return [];
  switch (failure.kind) {
    case 'divergence':
    case 'fixture': {
      const { storySection } = await import('./story/storySection.ts');
      return [await storySection(failure, contract, labUrl)];
    }
    case 'race': {
      const { raceSection } = await import('./race/raceSection.ts');
      return [await raceSection(failure)];
    }
    case 'unrepeated':
      return [unrepeatedSection(failure)];
    case 'restore': {
      const { restoreSection } = await import('./restoreSection.ts');
      return [restoreSection(failure)];
    }
    default:
      return unknownFailure(failure);
  }
}
