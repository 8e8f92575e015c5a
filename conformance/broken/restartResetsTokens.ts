/**
 * BUG: a restart resets delivery tokens. Restoring a snapshot starts the token counter again at 1
 * instead of at the saved `nextToken`, so a token issued before the restart can be issued again
 * and a stale delivery looks current.
 */
import { JobStore } from '../../impl/index.ts';
import type { Snapshot } from '../../contract/index.ts';

/** JobStore whose restore forgets the saved token counter. */
export class RestartResetsTokens extends JobStore {
  protected override load(s: Snapshot): void {
    super.load({ ...s, nextToken: 1 }); // the bug: nextToken is not restored
  }
}
