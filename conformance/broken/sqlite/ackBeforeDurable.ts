/**
 * BUG: replies before the command is durable. Commands are batched into one outer transaction
 * that commits every third command (a "group commit" that does not wait for its group), so a
 * reply is handed back while its command is only in the connection's cache. A crash loses up to
 * two commands whose replies the caller already holds.
 */
import type { Command, Reply } from '../../../contract/index.ts';
import { SqliteStore } from '../../../impl/sqlite/index.ts';

/** Commands per outer transaction. */
const GROUP = 3;

/** SqliteStore that commits every third command only. */
export class AckBeforeDurable extends SqliteStore {
  private inGroup = 0;

  protected override transact(command: Command): Reply {
    if (!this.db.inTransaction) this.db.exec('BEGIN IMMEDIATE');
    const reply = super.transact(command); // a savepoint inside the open transaction
    if (++this.inGroup >= GROUP) {
      this.inGroup = 0;
      this.db.exec('COMMIT');
    }
    return reply;
  }

  override close(): void {
    if (this.db.open && this.db.inTransaction) this.db.exec('COMMIT');
    super.close();
  }
}
