/**
 * BUG: commit is not idempotent. The effect ledger is not consulted, so a second commit of the
 * same (account, key), e.g. by a redelivery of the job, adds the amount again.
 */
import { JobStore } from '../../impl/index.ts';
import type { CommitCommand, Reply } from '../../contract/index.ts';

/** JobStore whose commits forget what the ledger already holds. */
export class CommitNotIdempotent extends JobStore {
  protected override applyCommit(c: CommitCommand): Reply {
    const job = this.byToken.get(c.token);
    if (job !== undefined && job.owner === c.worker) this.ledgers.get(job.account)?.effects.delete(job.key); // the bug
    return super.applyCommit(c);
  }
}
