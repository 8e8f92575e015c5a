/**
 * Typed errors of the nemesis layer: a schedule or a fault that is not one, a proxy used after
 * `close()`, a network namespace that could not be made or unmade. Each message names the bad value.
 */
import { CodedError } from '../../contract/CodedError.ts';

/** Stable codes of nemesis errors. */
export type NemesisErrorCode =
  /** A nemesis schedule that does not parse: wrong shape, a bad value, two faults on one target at once. */
  | 'invalid_schedule'
  /** A fault or proxy setting out of bounds (a negative latency, a byte cap of 0). */
  | 'invalid_fault'
  /** A proxy or a namespace used after it was closed. */
  | 'closed'
  /** The namespace mode cannot run here (not Linux, not root, no `ip` or `nft`); the message says which. */
  | 'namespace_unavailable'
  /** A command of the namespace mode (`ip`, `nft`) failed; the message holds its words, escaped. */
  | 'namespace_failed';

/** An error of the nemesis layer, with a stable `code`. */
export class NemesisError extends CodedError<NemesisErrorCode> {
  override name = 'NemesisError' as const;
}
