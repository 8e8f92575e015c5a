/**
 * Shared by the broken variants that choose the wrong job to claim: the chosen job is delivered
 * by JobStore's own `deliver` (new token, one more attempt, a lease), so that the only bug in
 * those variants is the choice itself.
 */
import type { ClaimCommand, Reply } from '../../contract/index.ts';
import { JobStore } from '../../impl/index.ts';
import type { JobEntry } from '../../impl/index.ts';

/** A JobStore whose claim delivers whatever job `choose()` picks. */
export abstract class ChoosingJobStore extends JobStore {
  /** The ready job a claim should deliver, or undefined for an empty claim. */
  protected abstract choose(): JobEntry | undefined;

  protected override applyClaim(c: ClaimCommand): Reply {
    const job = this.choose();
    if (job === undefined) return { ok: true, type: 'claim', job: null };
    // The token counter's edge is kept as JobStore keeps it: only the choice is wrong.
    return this.tokensExhausted() ?? this.deliver(job, c);
  }

  /** The unresolved jobs, in admission order. */
  protected *unresolvedJobs(): Generator<JobEntry> {
    for (const job of this.jobs.values())
      if (job.status === 'ready' || job.status === 'waiting' || job.status === 'running') yield job;
  }
}
