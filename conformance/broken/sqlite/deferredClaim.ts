/**
 * BUG: a claim runs in a deferred transaction (plain BEGIN) instead of BEGIN IMMEDIATE. It reads
 * the claimable head and the counters under a read lock and only asks for the write lock at its
 * first write. When another connection wrote in between, SQLite cannot let it write on a stale
 * read and fails the claim with SQLITE_BUSY at once, whatever the busy timeout.
 */
import type { Command, Reply } from '../../../contract/index.ts';
import { SqliteStore } from '../../../impl/sqlite/index.ts';

/** SqliteStore whose claims begin deferred. */
export class DeferredClaim extends SqliteStore {
  protected override transact(command: Command): Reply {
    return command.type === 'claim' ? this.inTransaction.deferred(command) : super.transact(command); // the bug
  }
}
