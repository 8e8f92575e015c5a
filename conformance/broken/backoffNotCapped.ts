/**
 * BUG: the retry backoff is not capped. The delay doubles with every attempt past `backoffCap`,
 * so a job that failed a few times waits longer than the contract allows (or dies for lack of
 * time before its deadline).
 */
import { JobStore } from '../../impl/index.ts';
import type { Config, FailCommand, Reply } from '../../contract/index.ts';

/** JobStore whose retry delay ignores backoffCap. */
export class BackoffNotCapped extends JobStore {
  protected override applyFail(c: FailCommand): Reply {
    const cfg = this.cfg as { -readonly [K in keyof Config]: Config[K] };
    const cap = cfg.backoffCap;
    cfg.backoffCap = Number.MAX_SAFE_INTEGER; // the bug: no cap on the delay
    try {
      return super.applyFail(c);
    } finally {
      cfg.backoffCap = cap;
    }
  }
}
