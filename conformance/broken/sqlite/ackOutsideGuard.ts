/**
 * BUG: the ack is applied outside the token guard. One transaction checks that the token is the
 * job's current delivery (and moves the clock); a second one marks the job done by its id, with
 * no token in its WHERE clause. Between the two, anything may happen: the process may die (the
 * command is then half applied: the clock moved, the job is not done), or another worker may
 * claim the job after its lease expired, and the stale ack then settles the new delivery.
 */
import type { Command, Reply } from '../../../contract/index.ts';
import type { CoreRun } from '../../../impl/core/index.ts';
import { FAULT_POINTS, faultPoint } from '../../../impl/faults.ts';
import { SqliteStore } from '../../../impl/sqlite/index.ts';
import type { Counters } from '../../../impl/sqlite/index.ts';
import { ackChecksOnly } from '../ackChecksOnly.ts';

/** SqliteStore whose ack checks the token in one transaction and writes in another. */
export class AckOutsideGuard extends SqliteStore {
  private pendingAck: number | undefined;

  protected override run(m: Counters, c: Command): CoreRun<Reply> {
    if (c.type !== 'ack') return super.run(m, c);
    return ackChecksOnly({ cfg: this.cfg, decisions: this.decisions }, m, c, (seq) => (this.pendingAck = seq));
  }

  protected override transact(command: Command): Reply {
    const reply = super.transact(command);
    const seq = this.pendingAck;
    this.pendingAck = undefined;
    if (seq !== undefined) {
      faultPoint(FAULT_POINTS.afterCommit);
      this.db
        .transaction(() => {
          const m = this.st.counters.get() as Counters;
          const row = this.db.prepare('SELECT seq, account FROM jobs WHERE seq = ?').get(seq) as {
            seq: number;
            account: string;
          };
          this.db
            .prepare(
              "UPDATE jobs SET status = 'done', token = NULL, owner = NULL, lease_until = NULL, due = NULL, claimable = NULL WHERE seq = ?",
            )
            .run(seq);
          const head = this.st.accountHead.get(row.account) as { seq: number; status: string } | undefined;
          if (head !== undefined && head.status === 'ready') this.st.makeClaimable.run(head.seq);
          this.st.setCounters.run(m.clock, m.nextToken, m.nextSeq, m.unresolved - 1);
        })
        .immediate();
    }
    return reply;
  }
}
