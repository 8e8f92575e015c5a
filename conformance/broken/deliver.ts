/**
 * Shared by the broken variants that choose the wrong job to claim: delivers a given ready job
 * exactly as JobStore's claim does (new token, one more attempt, a lease), so that the only bug
 * in those variants is the choice itself.
 */
import type { ClaimCommand, Reply } from '../../contract/index.ts';
import { JobStore, addTime } from '../../impl/index.ts';
import type { JobEntry } from '../../impl/index.ts';

/** A JobStore whose claim delivers whatever job `choose()` picks. */
export abstract class ChoosingJobStore extends JobStore {
  /** The ready job a claim should deliver, or undefined for an empty claim. */
  protected abstract choose(): JobEntry | undefined;

  protected override applyClaim(c: ClaimCommand): Reply {
    const job = this.choose();
    if (job === undefined) return { ok: true, type: 'claim', job: null };
    const token = this.nextToken++;
    job.attempts++;
    job.token = token;
    job.owner = c.worker;
    job.leaseUntil = addTime(c.now, this.cfg.leaseTicks);
    this.setStatus(job, 'running');
    this.byToken.set(token, job);
    this.schedule(job);
    const payload = { account: job.account, key: job.key, amount: job.amount, deadline: job.deadline };
    return { ok: true, type: 'claim', job: { id: job.id, token, attempt: job.attempts, leaseUntil: job.leaseUntil, payload } };
  }

  /** The unresolved jobs, in admission order. */
  protected *unresolvedJobs(): Generator<JobEntry> {
    for (const job of this.jobs.values()) if (job.status === 'ready' || job.status === 'waiting' || job.status === 'running') yield job;
  }
}
