/**
 * A profile with no rules and nothing attributed, for tests that put a section of their own on it
 * (competing workers, the stale acknowledgement) and read what the whole profile then says. Pure.
 */
import type { Profile } from './result.ts';

/** A conforming `jobcheck.profile/2` of one run, with `fields` laid over it. */
export function emptyProfile(fields: Partial<Profile> = {}): Profile {
  return {
    format: 'jobcheck.profile/2',
    queue: 'q',
    version: '1',
    adapter: 'a',
    clock: { kind: 'logical' },
    seed: 1,
    runs: 1,
    maxCommands: 1,
    verdict: 'conforms',
    rules: [],
    unattributed: [],
    ...fields,
  };
}
