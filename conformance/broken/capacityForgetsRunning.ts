/**
 * BUG: the capacity check forgets running jobs. Only ready and waiting jobs are counted against
 * `capacity`, so a store whose slots are all held by running jobs still admits new ones.
 */
import { JobStore } from '../../impl/index.ts';
import type { Reply, SubmitCommand } from '../../contract/index.ts';

/** JobStore whose admission ignores running jobs. */
export class CapacityForgetsRunning extends JobStore {
  protected override applySubmit(c: SubmitCommand): Reply {
    const running = this.statusCounts.running;
    this.unresolved -= running; // the bug: running jobs do not count
    try {
      return super.applySubmit(c);
    } finally {
      this.unresolved += running;
    }
  }
}
