/**
 * Finding the story `jobcheck demo` tells: a fixture by name (model/fixtures/), or a reader's own
 * edited copy of a fixture given as a `.json` path. Validation is the fixture schema's, once, at
 * this boundary.
 */
import { InputFileError, MAX_STORY_BYTES, readInputFileSync } from '../../conformance/outside/inputFile.ts';
import { basename } from 'node:path';
import { CodedError } from '../../contract/CodedError.ts';
import { FixtureError, loadFixture, loadFixtures, parseFixture } from '../../model/fixtures.ts';
import type { Fixture } from '../../model/fixtures.ts';

/** A failure story: a fixture, as the demo tells it. */
export type Story = Fixture;
/** One step of a story. */
export type StoryStep = Fixture['steps'][number];

/** Codes of errors raised when a story cannot be found or read. */
export type StoryErrorCode = 'unknown_story' | 'invalid_story';

/** A story that cannot be used: `code` is stable, the message names the story and the bad field. */
export class StoryError extends CodedError<StoryErrorCode> {
  override name = 'StoryError' as const;
}

/** Reads and validates a story file of the fixture format. Throws StoryError naming the file and field. */
export function readStoryFile(path: string): Story {
  let text: string;
  try {
    text = readInputFileSync(path, MAX_STORY_BYTES);
  } catch (cause) {
    if (cause instanceof InputFileError && cause.code !== 'not_found')
      throw new StoryError('invalid_story', `story file ${JSON.stringify(path)}: ${cause.message}`, { cause });
    throw new StoryError('unknown_story', `no story file at ${JSON.stringify(path)}`, { cause });
  }
  try {
    return parseFixture(JSON.parse(text), basename(path));
  } catch (cause) {
    const why = cause instanceof FixtureError ? cause.message : `${basename(path)} is not JSON`;
    throw new StoryError('invalid_story', why, { cause });
  }
}

/** Every fixture story, in name order. */
export function listStories(): Story[] {
  return loadFixtures();
}

/**
 * A story by fixture name, or by path when the argument ends in `.json`. Throws StoryError
 * `unknown_story` (the message lists the known names) or `invalid_story`.
 */
export function findStory(nameOrPath: string): Story {
  if (nameOrPath.endsWith('.json')) return readStoryFile(nameOrPath);
  try {
    return loadFixture(nameOrPath);
  } catch (cause) {
    if (cause instanceof FixtureError) {
      throw new StoryError(cause.code === 'unknown_fixture' ? 'unknown_story' : 'invalid_story', cause.message, {
        cause,
      });
    }
    throw cause;
  }
}
