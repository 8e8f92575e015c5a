/**
 * BUG: a dead job keeps blocking its account. A job that dies stays at the head of its
 * account's queue, so the account's later jobs are never delivered.
 */
import { JobStore } from '../../impl/index.ts';
import type { JobEntry } from '../../impl/index.ts';

/** JobStore whose dead jobs are not removed from their account's queue. */
export class DeadJobBlocks extends JobStore {
  protected override resolve(job: JobEntry, status: 'done' | 'dead'): void {
    if (status === 'done') {
      super.resolve(job, status);
      return;
    }
    this.setStatus(job, status);
    this.unresolved--; // the bug: no this.unlink(job), the dead job stays its account's head
  }
}
