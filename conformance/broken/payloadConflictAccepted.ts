/**
 * BUG: a payload conflict is silently accepted. Submitting an existing id with another payload
 * answers as a harmless duplicate instead of refusing it with `conflict`, so the caller believes
 * its (different) job was admitted.
 */
import { JobStore } from '../../impl/index.ts';
import type { Reply, SubmitCommand } from '../../contract/index.ts';

/** JobStore that treats any resubmission of an id as a duplicate. */
export class PayloadConflictAccepted extends JobStore {
  protected override applySubmit(c: SubmitCommand): Reply {
    const existing = this.jobs.get(c.id);
    if (existing !== undefined) return { ok: true, type: 'submit', id: c.id, seq: existing.seq, duplicate: true }; // the bug: payload not compared
    return super.applySubmit(c);
  }
}
