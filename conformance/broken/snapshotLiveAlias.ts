/**
 * BUG: the snapshot is a live alias. The store memoises its snapshot and hands out the same
 * object until the next command, so a caller that changes the snapshot it was given changes what
 * the store reports (and restores after a restart).
 */
import { JobStore } from '../../impl/index.ts';
import type { Reply, Snapshot } from '../../contract/index.ts';

/** JobStore whose snapshot() returns its own cached object. */
export class SnapshotLiveAlias extends JobStore {
  private cached: Snapshot | undefined;

  override execute(command: unknown): Reply {
    this.cached = undefined;
    return super.execute(command);
  }

  override snapshot(): Snapshot {
    this.cached ??= super.snapshot(); // the bug: the cached object itself is handed out, not a copy
    return this.cached;
  }
}
