/**
 * The story a failed check shows, as a discriminated union: one variant per kind of failure, so
 * that whoever tells it (the terminal summary, the JSON result, JUnit, the coverage page) switches
 * over `kind` and the compiler says when a kind is left out.
 *
 * `source` says which phase found it and is what reports print; `kind` says what there is to tell:
 * a sequential run that can be replayed, a divergence the exploration saw once but not again, a
 * fixture story, competing workers no order of the model explains, or a snapshot no store could
 * have written that the implementation did not refuse as the model does.
 */
import type { ConcurrentCampaignResult, ConcurrentFailure } from '../concurrent/result.ts';
import type { LockstepResult } from '../lockstep/index.ts';
import type { RestoreCaseOutcome, RestorePhaseResult } from '../restore/index.ts';
import type { FixtureOutcome } from './fixturePhase.ts';

/** What every failure has: a name and a size. */
interface FailureBase {
  /** The path's name, the fixture's name, `random campaign`, `exploration <part>/<config>` or `concurrent campaign`. */
  readonly name: string;
  /** Steps of the story (requests, for a race). */
  readonly steps: number;
}

/**
 * A sequential run that diverged from the model (a reply, a snapshot, an alias, or an error of the
 * implementation, `impl_error`, which includes a store that could not be created: 0 steps). It
 * replays: it can be written as a failure artifact.
 */
export interface DivergenceFailure extends FailureBase {
  readonly kind: 'divergence';
  readonly source: 'campaign' | 'path' | 'explore';
  readonly run: LockstepResult;
}

/**
 * A divergence the exploration found once that a second run of its steps did not show again: it is
 * told, not replayed (an artifact of it would replay as a pass).
 */
export interface UnrepeatedFailure extends FailureBase {
  readonly kind: 'unrepeated';
  readonly source: 'explore';
  /** The story, as the exploration told it. */
  readonly story: string;
}

/** A fixture story of model/fixtures that the implementation does not follow (or could not start for). */
export interface FixtureFailure extends FailureBase {
  readonly kind: 'fixture';
  readonly source: 'fixture';
  readonly fixture: FixtureOutcome;
}

/** Competing workers: a history no order of the model explains, or an error of a lane (`race.kind`). */
export interface RaceFailure extends FailureBase {
  readonly kind: 'race';
  readonly source: 'concurrent';
  /** The concurrent campaign that failed: its story is told from it. */
  readonly concurrent: ConcurrentCampaignResult;
  /** Its shrunk failure (`concurrent.failure`, never null here). */
  readonly race: ConcurrentFailure;
}

/**
 * The restore phase: an invalid snapshot the implementation took, refused with another code, or
 * refused while changing its store (`outcome`); or, when `outcome` is null, the valid snapshot
 * the phase starts from, which it did not restore as it is (`restore.setup`).
 */
export interface RestoreFailure extends FailureBase {
  readonly kind: 'restore';
  readonly source: 'restore';
  /** The restore phase that found it: its story is told from it. */
  readonly restore: RestorePhaseResult;
  /** The first snapshot the implementation got wrong; null for a failure of the valid base's restore. */
  readonly outcome: RestoreCaseOutcome | null;
}

/** The story shown for a failed check: the shortest failure found, from whichever phase. */
export type CheckFailure = DivergenceFailure | UnrepeatedFailure | FixtureFailure | RaceFailure | RestoreFailure;

/** Where a failure came from (the phase that found it). */
export type CheckFailureSource = CheckFailure['source'];

/** For a switch that has handled every kind: a compile error when one is left out, a throw if one arrives anyway. */
export function unknownFailure(failure: never): never {
  throw new Error(`unknown kind of check failure: ${JSON.stringify((failure as { kind?: unknown }).kind)}`);
}
