/**
 * BUG: the effect and its ledger row are written in two transactions. The commit adds the amount
 * to the balance in the command's transaction and records the ledger row (the receipt) in a
 * second one, an autocommitted INSERT, afterwards. A crash between the two leaves an effect with
 * no receipt: the balance has the amount, the ledger does not know, and the redelivery applies
 * the effect again. (The PostgreSQL twin of conformance/broken/sqlite/effectApartFromLedger.ts.)
 *
 * The pending receipt is kept on the store object: the variant is meant for the crash worker,
 * which runs one command at a time.
 */
import type { Reply } from '../../../contract/index.ts';
import type { Guard } from '../../../impl/core/index.ts';
import { FAULT_POINTS, faultPoint } from '../../../impl/faults.ts';
import { PostgresStore, quoteIdent, toBytes } from '../../../impl/postgres/index.ts';
import type { Job, Tx } from '../../../impl/postgres/index.ts';

/** PostgresStore whose commit records the ledger row in a transaction of its own. */
export class EffectApartFromLedger extends PostgresStore {
  private pending: unknown[] | undefined;

  protected override async recordEffect(tx: Tx, job: Job, guard: Guard, balance: number): Promise<void> {
    const account = toBytes(job.account);
    await this.write(tx, this.q.setBalance, [account, balance]);
    this.pending = [account, toBytes(job.key), job.amount, toBytes(job.id), guard.token]; // the bug: the receipt waits for a second transaction
  }

  override async execute(command: unknown): Promise<Reply> {
    const reply = await super.execute(command);
    const pending = this.pending;
    this.pending = undefined;
    if (pending !== undefined) {
      faultPoint(FAULT_POINTS.afterCommit);
      await this.pool.query(
        `INSERT INTO ${quoteIdent(this.schema)}.effects (account, key, amount, job, token) VALUES ($1, $2, $3, $4, $5)`,
        pending,
      );
    }
    return reply;
  }
}
