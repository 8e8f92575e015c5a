/**
 * Typed errors of the conformance engine. A divergence is normally data (a result value); these
 * are thrown only by `assertConforms` (for test runners) and for unusable input (an artifact
 * file that does not parse).
 */

import { CodedError } from '../contract/CodedError.ts';

/** Stable codes of conformance errors. */
export type ConformanceErrorCode =
  /** A check diverged (thrown by the assert wrappers only); the message is the story. */
  | 'divergence'
  /** An artifact or coverage file that is not one (unreadable, not JSON, wrong shape, unknown items). */
  | 'invalid_artifact'
  /** An artifact whose recorded answers the reference model does not give: edited, corrupted or from another contract. */
  | 'changed_artifact'
  /** A fast-check path (`--path`, `--concurrent-path`) that names no run the seed generates, or an index out of bounds. */
  | 'invalid_path'
  /** A campaign that would check nothing (a shard without runs) or whose size is out of bounds. */
  | 'invalid_campaign';

/** An error with a stable `code`; for `divergence` the message is the full story. */
export class ConformanceError extends CodedError<ConformanceErrorCode> {
  override name = 'ConformanceError' as const;
}
