/**
 * BUG: the effect and its ledger row are written in two transactions. The commit adds the amount
 * to the balance in the command's transaction and records the ledger row (the receipt) in a
 * second one afterwards. A crash between the two leaves an effect with no receipt: the balance
 * has the amount, the ledger does not know, and the redelivery applies the effect again. (The
 * seed's lab writes "the effect and its receipt in one SQLite transaction" for exactly this reason.)
 */
import type { Command, Reply } from '../../../contract/index.ts';
import { FAULT_POINTS, faultPoint } from '../../../impl/faults.ts';
import { SqliteStore, toStored } from '../../../impl/sqlite/index.ts';
import type { Job } from '../../../impl/sqlite/index.ts';

/** SqliteStore whose commit records the ledger row in a transaction of its own. */
export class EffectApartFromLedger extends SqliteStore {
  private pending: (() => void) | undefined;

  protected override recordEffect(job: Job, token: number, balance: number): void {
    this.write(this.st.setBalance, toStored(job.account), balance);
    // the bug: the receipt waits for a second transaction
    this.pending = () =>
      this.st.insertEffect.run(toStored(job.account), toStored(job.key), job.amount, toStored(job.id), token);
  }

  protected override transact(command: Command): Reply {
    const reply = super.transact(command);
    const pending = this.pending;
    this.pending = undefined;
    if (pending !== undefined) {
      faultPoint(FAULT_POINTS.afterCommit);
      this.db.transaction(pending).immediate();
    }
    return reply;
  }
}
