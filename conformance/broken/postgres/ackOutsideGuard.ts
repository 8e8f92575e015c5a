/**
 * BUG: the ack is applied outside the token guard. One transaction checks that the token is the
 * job's current delivery (and moves the clock); a second one marks the job done by its seq, with
 * no token in its WHERE clause. Between the two, anything may happen: the process may die (the
 * command is then half applied: the clock moved, the job is not done), or another worker may
 * claim the job after its lease expired, and the stale ack then settles the new delivery. (The
 * PostgreSQL twin of conformance/broken/sqlite/ackOutsideGuard.ts.)
 *
 * The pending ack is kept on the store object: the variant is meant for the crash worker, which
 * runs one command at a time.
 */
import type { Command, Reply } from '../../../contract/index.ts';
import type { CoreRun } from '../../../impl/core/index.ts';
import { FAULT_POINTS, faultPoint } from '../../../impl/faults.ts';
import { PostgresStore, quoteIdent } from '../../../impl/postgres/index.ts';
import type { Counters } from '../../../impl/postgres/index.ts';
import { ackChecksOnly } from '../ackChecksOnly.ts';

/** PostgresStore whose ack checks the token in one transaction and writes in another. */
export class AckOutsideGuard extends PostgresStore {
  private pendingAck: number | undefined;

  protected override run(m: Counters, c: Command): CoreRun<Reply> {
    if (c.type !== 'ack') return super.run(m, c);
    return ackChecksOnly({ cfg: this.cfg, decisions: this.decisions }, m, c, (seq) => (this.pendingAck = seq));
  }

  override async execute(command: unknown): Promise<Reply> {
    const reply = await super.execute(command);
    const seq = this.pendingAck;
    this.pendingAck = undefined;
    if (seq === undefined) return reply;
    faultPoint(FAULT_POINTS.afterCommit);
    const s = quoteIdent(this.schema);
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query(this.q.begin);
      const [row] = (
        await client.query(
          `UPDATE ${s}.jobs SET status = 'done', token = NULL, owner = NULL, lease_until = NULL, due = NULL, claimable = NULL WHERE seq = $1 RETURNING account`,
          [seq],
        )
      ).rows as { account: Buffer }[];
      const [head] = (await client.query(this.q.accountHead, [row?.account])).rows as { seq: number; status: string }[];
      if (head !== undefined && head.status === 'ready') await client.query(this.q.makeClaimable, [head.seq]);
      await client.query(`UPDATE ${s}.meta SET unresolved = unresolved - 1 WHERE id = 1`);
      await client.query('COMMIT');
    } catch (error) {
      broken = error as Error;
      throw error;
    } finally {
      client.release(broken);
    }
    return reply;
  }
}
