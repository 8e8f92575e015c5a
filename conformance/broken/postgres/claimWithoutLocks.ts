/**
 * BUG: a claim takes no row locks. Its transaction reads the counters without `FOR UPDATE` on the
 * meta row, and the claimable head without `FOR UPDATE` on the job it chooses, then writes both
 * in later statements. Under READ COMMITTED each statement sees the last commit, so two claims
 * at once read the same head and the same next token; the second one's UPDATE waits for the
 * first's row lock, then overwrites it: the job and its token are handed out twice. One claim at
 * a time behaves exactly like the correct store, so neither the model's checks nor a crash tell
 * it apart: only competing workers do (the contention check of the crash campaign, and the
 * concurrent lanes of conformance/stores/postgresConcurrent.ts). PostgreSQL's analogue of
 * conformance/broken/sqlite/deferredClaim.ts.
 */
import type { Command } from '../../../contract/index.ts';
import { PostgresStore } from '../../../impl/postgres/index.ts';

/** PostgresStore whose claims lock neither the meta row nor the job they choose. */
export class ClaimWithoutLocks extends PostgresStore {
  protected override beginSql(command: Command): string {
    return command.type === 'claim' ? this.q.begin.replace(/ FOR UPDATE$/, '') : super.beginSql(command); // the bug
  }

  protected override claimHeadSql(): string {
    return this.q.claimHead.replace(/ FOR UPDATE$/, ''); // the bug
  }
}
