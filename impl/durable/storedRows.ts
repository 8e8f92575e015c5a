/**
 * Checking a durable store's rows before it is served again (a resume after a crash). The rows are
 * read back as the store's canonical snapshot and held to the contract's snapshot schema, the same
 * check `restore` makes, so that a row no store could have written (`status: "flying"`,
 * `attempts: -3`, a balance the ledger does not explain) is refused rather than served. The
 * schema cannot see the columns a store derives from a job for its indexes (when the job next
 * moves by itself, whether it is its account's claimable head, how many jobs are unresolved):
 * those are recomputed here from the snapshot and compared, since a claim or a tick trusts them.
 *
 * Pure, and shared by the SQLite and PostgreSQL stores (impl/ takes its validation from contract/).
 */
import type { JobRecord, JobStatus, Snapshot } from '../../contract/index.ts';
import { JobcheckError, parseSnapshot } from '../../contract/index.ts';

/** The derived columns of one job row, as read from the database. */
export interface DerivedRow {
  readonly seq: number;
  /** The next instant the job moves by itself, or null once it is terminal. */
  readonly due: number | null;
  /** Ready and the head of its account. */
  readonly claimable: boolean;
}

const isUnresolved = (status: JobStatus): boolean => status === 'ready' || status === 'waiting' || status === 'running';

/** When an unresolved job next moves by itself (its deadline, lease or retry time), null once terminal. Pure. */
function dueOfRecord(r: JobRecord): number | null {
  if (r.status === 'running') return Math.min(r.leaseUntil as number, r.payload.deadline);
  if (r.status === 'waiting') return Math.min(r.notBefore as number, r.payload.deadline);
  return r.status === 'ready' ? r.payload.deadline : null;
}

/**
 * Checks rows read back from a store: `snapshot` (as the store reads it) against the contract's
 * snapshot schema, then each job's derived columns and the meta row's count of unresolved jobs
 * against what the snapshot implies. Returns the checked snapshot, or a sentence naming the first
 * bad field or row. Pure.
 */
export function checkStoredRows(
  snapshot: unknown,
  rows: readonly DerivedRow[],
  unresolved: number,
): { readonly ok: true; readonly snapshot: Snapshot } | { readonly ok: false; readonly problem: string } {
  let s: Snapshot;
  try {
    s = parseSnapshot(snapshot);
  } catch (error) {
    if (error instanceof JobcheckError) return { ok: false, problem: error.message };
    throw error;
  }
  const bySeq = new Map<number, readonly [string, JobRecord]>();
  for (const [id, r] of Object.entries(s.jobs)) bySeq.set(r.seq, [id, r]);
  if (rows.length !== bySeq.size)
    return { ok: false, problem: `${rows.length} job rows hold ${bySeq.size} distinct admission numbers` };
  const heads = new Set<string>();
  let count = 0;
  for (const row of [...rows].sort((a, b) => a.seq - b.seq)) {
    const found = bySeq.get(row.seq);
    if (found === undefined) return { ok: false, problem: `job row ${row.seq}: no job has this admission number` };
    const [id, r] = found;
    let head = false;
    if (isUnresolved(r.status)) {
      count += 1;
      head = !heads.has(r.payload.account);
      heads.add(r.payload.account);
    }
    const due = dueOfRecord(r);
    if (row.due !== due)
      return {
        ok: false,
        problem: `job ${JSON.stringify(id)}: its due column is ${String(row.due)}, its fields give ${String(due)}`,
      };
    const claimable = head && r.status === 'ready';
    if (row.claimable !== claimable)
      return {
        ok: false,
        problem: `job ${JSON.stringify(id)}: its claimable column is ${String(row.claimable)}, its fields give ${String(claimable)}`,
      };
  }
  if (unresolved !== count)
    return { ok: false, problem: `meta: its count of unresolved jobs is ${unresolved}, the jobs hold ${count}` };
  return { ok: true, snapshot: s };
}
