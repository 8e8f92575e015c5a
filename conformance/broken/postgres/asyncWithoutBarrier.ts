/**
 * BUG: the one-statement claim and ack (impl/postgres/FastPath.ts) still commit asynchronously, but
 * their procedures run no durability barrier after: the reply goes out while the commit record may sit in the
 * server's WAL buffers only. A crash of the server (its processes killed: the buffers are lost, the
 * files kept) then loses acknowledged claims and acks. Replies, snapshots and a killed client
 * all behave as the correct store's: only a kill of the server itself tells it apart
 * (conformance/crash/pgServerKill.ts).
 */
import { BARRIER, PostgresStore } from '../../../impl/postgres/index.ts';

/** PostgresStore whose fast path replies before any flush covers its commit. */
export class AsyncWithoutBarrier extends PostgresStore {
  static override fastPathSql(s: string): string {
    return super.fastPathSql(s).replaceAll(BARRIER, ''); // the bug
  }
}
