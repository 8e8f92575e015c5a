/**
 * BUG: a restart forgets the effect ledger. Restoring a snapshot keeps the balances but not the
 * ledger of applied (account, key) effects, so after a restart a redelivered job commits its
 * effect a second time.
 */
import { JobStore } from '../../impl/index.ts';
import type { Snapshot } from '../../contract/index.ts';

/** JobStore whose restore drops the effect ledger. */
export class RestartForgetsLedger extends JobStore {
  protected override load(s: Snapshot): void {
    super.load({ ...s, effects: {} }); // the bug: the ledger is not restored
  }
}
