/**
 * BUG: the one-statement claim (impl/postgres/FastPath.ts) takes no lock first. Its function reads
 * the meta row without `FOR UPDATE`, then writes the claimable head and the counters. Under READ
 * COMMITTED each statement sees the last commit, so two claims in two processes at once read the
 * same head and the same next token: the second one's UPDATE waits for the first's row lock, then
 * overwrites it (its head was chosen before), and the job and its token are handed out twice. One claim at a time
 * behaves exactly like the correct store: only competing workers tell it apart (the lanes campaign
 * with a process per lane, conformance/stores/postgresProcesses.ts).
 */
import { PostgresStore } from '../../../impl/postgres/index.ts';

/** PostgresStore whose schemas get a fast claim that does not lock the meta row. */
export class FastClaimWithoutLocks extends PostgresStore {
  static override fastPathSql(s: string): string {
    const sql = super.fastPathSql(s);
    const ack = sql.indexOf(`CREATE FUNCTION ${s}.fast_ack`);
    return sql.slice(0, ack).replaceAll(' FOR UPDATE;', ';') + sql.slice(ack); // the bug
  }
}
