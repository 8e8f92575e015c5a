/**
 * BUG: per-account order is replaced by a global FIFO. A claim delivers the earliest-admitted
 * ready job of the whole store, even when an earlier job of the same account is still running or
 * waiting, so two jobs of one account can run at once and out of order.
 */
import type { JobEntry } from '../../impl/index.ts';
import { ChoosingJobStore } from './deliver.ts';

/** JobStore whose claims ignore the per-account order. */
export class GlobalFifo extends ChoosingJobStore {
  protected override choose(): JobEntry | undefined {
    for (const job of this.unresolvedJobs()) if (job.status === 'ready') return job; // the bug: no per-account head
    return undefined;
  }
}
