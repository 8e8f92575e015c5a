/**
 * A check's failure told as a story, whatever found it: a fixture's own words, a lockstep run step
 * by step, an exploration's story, competing workers side by side, or a restore the
 * implementation got wrong. A command line adds its own
 * hints (the command that repeats the run, the artifact it wrote); without them, the stories name
 * the library calls.
 */
import { describePath, firstDifference, showValue } from '../lockstep/compare.ts';
import { outsideText } from '../outside/outsideText.ts';
import { renderConcurrentStory } from '../concurrent/story.ts';
import { describeCommand, describeConfig, renderStory } from '../lockstep/story.ts';
import { renderRestoreSetupStory, renderRestoreStory } from '../restore/index.ts';
import type { StoryContext } from '../lockstep/story.ts';
import type { CheckFailure, RestoreFailure } from './failure.ts';
import { unknownFailure } from './failure.ts';
import type { FixtureOutcome } from './fixturePhase.ts';

/** What a story may add to what the failure holds. */
export interface FailureStoryHints {
  /** For a sequential run (`divergence`): seed, path, reproduce and replay commands, artifact. */
  readonly sequential?: StoryContext;
  /** For a race: the command line that repeats it. */
  readonly concurrentReproduceCommand?: string;
}

/** The story of a fixture that failed: its own words, the steps up to the failing one, and what differed. Pure. */
export function renderFixtureStory(outcome: FixtureOutcome): string {
  const { fixture, result } = outcome;
  if (result.ok) return `fixture ${fixture.name} agrees (${result.steps} steps).`;
  const lines = [
    `fixture ${fixture.name} ("${fixture.title}") fails at step ${result.step} (${result.check} check).`,
    fixture.story,
    `config: ${describeConfig(fixture.config)}`,
    '',
  ];
  const upTo = result.step === 'final' ? fixture.steps.length : result.step;
  fixture.steps.slice(0, upTo).forEach((s, i) => {
    const what =
      'do' in s
        ? `${describeCommand(s.do)}\n       expect: ${showValue(s.expect)}`
        : 'restart' in s
          ? 'restart (snapshot -> JSON -> restore)'
          : 'aliasSnapshot' in s
            ? 'take a snapshot, change the object received, take another: it must not have changed'
            : 'restore from a snapshot object, change that object: the store must not change';
    lines.push(`${String(i + 1).padStart(3)}. ${what}`);
  });
  const d = result.check === 'error' ? undefined : firstDifference(result.expected, result.actual);
  lines.push(
    result.check === 'error'
      ? `       >> the implementation failed: ${outsideText(String(result.actual))}`
      : d === undefined
        ? `       >> ${outsideText(result.message)}`
        : `       >> ${result.check} differs at ${describePath(d.path)}: expected ${showValue(d.model)}, got ${showValue(d.impl)}`,
  );
  return lines.join('\n');
}

/** The story of the restore phase's failure: the snapshot it got wrong, or the valid one it did not restore. Pure. */
function renderRestoreFailure(failure: RestoreFailure): string {
  const { restore, outcome } = failure;
  if (outcome !== null) return renderRestoreStory(outcome, restore.adapter);
  return restore.setup === null
    ? `${restore.adapter}: the restore phase diverged`
    : renderRestoreSetupStory(restore.setup, restore.adapter);
}

/** The story of a check's failure. Pure. */
export function renderCheckFailure(failure: CheckFailure, hints: FailureStoryHints = {}): string {
  switch (failure.kind) {
    case 'fixture':
      return renderFixtureStory(failure.fixture);
    case 'race': {
      const r = failure.concurrent;
      const again = hints.concurrentReproduceCommand;
      return renderConcurrentStory(failure.race, {
        adapter: r.adapter,
        workers: r.workers,
        seed: r.seed,
        path: r.path,
        ...(again === undefined ? {} : { reproduceCommand: again }),
      });
    }
    case 'unrepeated':
      return failure.story;
    case 'divergence':
      return renderStory(failure.run, hints.sequential ?? {});
    case 'restore':
      return renderRestoreFailure(failure);
    default:
      return unknownFailure(failure);
  }
}
