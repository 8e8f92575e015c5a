/**
 * BUG: a job waiting for its backoff does not block its account. While an account's earliest
 * job waits to be retried, the claim hands out the account's next job instead of nothing, so the
 * account's jobs run out of order.
 */
import type { JobEntry } from '../../impl/index.ts';
import { ChoosingJobStore } from './deliver.ts';

/** JobStore whose per-account order skips waiting jobs. */
export class WaitingDoesNotBlock extends ChoosingJobStore {
  protected override choose(): JobEntry | undefined {
    const blocked = new Set<string>();
    for (const job of this.unresolvedJobs()) {
      if (blocked.has(job.account)) continue;
      if (job.status === 'waiting') continue; // the bug: a waiting job should block its account
      if (job.status === 'ready') return job;
      blocked.add(job.account);
    }
    return undefined;
  }
}
