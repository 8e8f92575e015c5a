/**
 * BUG: a dead job keeps its slot. A job that dies still counts against `capacity`, so a store
 * whose slots are held by dead jobs refuses new ones with `capacity_exceeded` (as a NATS
 * work-queue stream does with a message that ran out of deliveries: it stays in the stream and
 * counts against `max_msgs`). A restart recounts the unresolved jobs and so forgets the bug.
 */
import { JobStore } from '../../impl/index.ts';
import type { JobEntry } from '../../impl/index.ts';

/** JobStore whose dead jobs still count as unresolved for the capacity check. */
export class DeadJobHoldsSlot extends JobStore {
  protected override resolve(job: JobEntry, status: 'done' | 'dead'): void {
    super.resolve(job, status);
    if (status === 'dead') this.unresolved++; // the bug: the dead job keeps its place in the count
  }
}
