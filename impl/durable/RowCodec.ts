/**
 * A durable store's rows as its driver reads and writes them, said once for the SQLite and the
 * PostgreSQL store: a job row with its strings in the store's stored form `S` (SQLite: TEXT or
 * BLOB, impl/sqlite/strings.ts; PostgreSQL: bytea, impl/postgres/strings.ts) and `claimable` as
 * the store's truth value or NULL; the values of its insert and save statements; the statements
 * of a restore; the canonical snapshot of the rows read back; the checks of a reopen and a resume.
 * Each store keeps its SQL and runs its statements. Pure.
 */
import type { Config, DeadReason, JobStatus, Snapshot } from '../../contract/index.ts';
import { JobcheckError, parseConfig } from '../../contract/index.ts';
import { dueOf } from '../decisions/index.ts';
import { jobRecord } from './jobRecord.ts';
import type { Counters, Job } from './rows.ts';
import { metaValues, restoreRows, snapshotOf } from './snapshotRows.ts';
import { checkStoredRows } from './storedRows.ts';

/** A job row as the driver returns it: strings stored as `S`, `claimable` the store's truth value or NULL. */
export interface JobRow<S> {
  readonly seq: number;
  readonly id: S;
  readonly account: S;
  readonly key: S;
  readonly amount: number;
  readonly deadline: number;
  readonly status: JobStatus;
  readonly attempts: number;
  readonly token: number | null;
  readonly owner: S | null;
  readonly leaseUntil: number | null;
  readonly notBefore: number | null;
  readonly reason: DeadReason | null;
  readonly lastError: S | null;
  readonly claimable: unknown;
}

/** The meta row: its layout tag, the config and the counters. */
export interface MetaRow extends Counters {
  readonly layout: string;
  readonly capacity: number;
  readonly maxAttempts: number;
  readonly leaseTicks: number;
  readonly backoffBase: number;
  readonly backoffCap: number;
}

/** A balance row. */
export interface BalanceRow<S> {
  readonly account: S;
  readonly balance: number;
}

/** A ledger row. */
export interface EffectRow<S> {
  readonly account: S;
  readonly key: S;
  readonly amount: number;
  readonly job: S;
  readonly token: number;
}

/** The derived columns of a job row and the meta row's count, as a resume reads them (types unchecked). */
export interface DerivedColumns {
  readonly seq: unknown;
  readonly due: unknown;
  readonly claimable: unknown;
}

/** The values of every statement of a restore, in each statement's column order. */
export interface RestoreValues {
  /** The values of the insert of each job row, in seq order (as `insertValues`). */
  readonly jobs: readonly unknown[][];
  /** The meta row: layout, config, counters. */
  readonly meta: readonly unknown[];
  /** Account, balance. */
  readonly balances: readonly unknown[][];
  /** Account, key, amount, job, token. */
  readonly effects: readonly unknown[][];
}

/** The codes a store's error gives a stored store it cannot serve. */
export type StoredStoreProblem = 'no_store' | 'schema_mismatch' | 'invalid_store';

/** How one durable store encodes its rows: its string codec and its truth value. */
export class RowCodec<S> {
  constructor(
    /** The string a stored value holds. */
    readonly decode: (stored: S) => string,
    /** The stored form of a string. */
    readonly encode: (s: string) => S,
    /** What the `claimable` column holds for a claimable job (NULL otherwise). */
    readonly yes: true | 1,
  ) {}

  /** The job a row holds, strings decoded. Pure. */
  toJob(row: JobRow<S>): Job {
    return {
      seq: row.seq,
      id: this.decode(row.id),
      account: this.decode(row.account),
      key: this.decode(row.key),
      amount: row.amount,
      deadline: row.deadline,
      status: row.status,
      attempts: row.attempts,
      token: row.token,
      owner: row.owner === null ? null : this.decode(row.owner),
      leaseUntil: row.leaseUntil,
      notBefore: row.notBefore,
      reason: row.reason,
      lastError: row.lastError === null ? null : this.decode(row.lastError),
      claimable: row.claimable === this.yes,
    };
  }

  /** The job of a row, or undefined for none. Pure. */
  jobOf(row: JobRow<S> | undefined): Job | undefined {
    return row === undefined ? undefined : this.toJob(row);
  }

  /** The stored form of an optional string (NULL when absent). Pure. */
  encodeOrNull(s: string | null): S | null {
    return s === null ? null : this.encode(s);
  }

  /**
   * The values of a job row's insert: seq, id, account, key, amount, deadline, then its changing
   * columns (`changingValues`). Pure.
   */
  insertValues(job: Job): unknown[] {
    const values: unknown[] = [
      job.seq,
      this.encode(job.id),
      this.encode(job.account),
      this.encode(job.key),
      job.amount,
      job.deadline,
    ];
    values.push(...this.changingValues(job));
    return values;
  }

  /** The values of a job row's save: its changing columns (`changingValues`), then the row's seq. Pure. */
  saveValues(job: Job): unknown[] {
    const values = this.changingValues(job);
    values.push(job.seq);
    return values;
  }

  /**
   * The values of the columns a command changes, with those derived from them: status, attempts,
   * token, owner, lease_until, not_before, reason, last_error, due, claimable. Pure.
   */
  private changingValues(job: Job): unknown[] {
    return [
      job.status,
      job.attempts,
      job.token,
      this.encodeOrNull(job.owner),
      job.leaseUntil,
      job.notBefore,
      job.reason,
      this.encodeOrNull(job.lastError),
      dueOf(job),
      job.claimable ? this.yes : null,
    ];
  }

  /** The values of the statements that write validated snapshot `s` into an empty store of layout `layout`. Pure. */
  restoreValues(s: Snapshot, layout: string): RestoreValues {
    const { rows, unresolved } = restoreRows(s);
    const counters = { clock: s.clock, nextToken: s.nextToken, nextSeq: s.nextSeq, unresolved };
    const effects: unknown[][] = [];
    for (const [account, ledger] of Object.entries(s.effects))
      for (const [key, e] of Object.entries(ledger))
        effects.push([this.encode(account), this.encode(key), e.amount, this.encode(e.job), e.token]);
    return {
      jobs: rows.map((r) => this.insertValues(r)),
      meta: [layout, ...metaValues(s.config, counters)],
      balances: Object.entries(s.balances).map(([account, balance]) => [this.encode(account), balance]),
      effects,
    };
  }

  /** The canonical snapshot of a store's rows (jobs in seq order), strings decoded. Pure. */
  snapshot(
    cfg: Config,
    meta: Counters,
    jobRows: readonly JobRow<S>[],
    balanceRows: readonly BalanceRow<S>[],
    effectRows: readonly EffectRow<S>[],
  ): Snapshot {
    return snapshotOf(
      cfg,
      meta,
      jobRows.map((row) => ({ id: this.decode(row.id), record: jobRecord(this.toJob(row)) })),
      balanceRows.map((r) => ({ account: this.decode(r.account), balance: r.balance })),
      effectRows.map((r) => ({
        account: this.decode(r.account),
        key: this.decode(r.key),
        effect: { amount: r.amount, job: this.decode(r.job), token: r.token },
      })),
    );
  }

  /**
   * A resume's check (impl/durable/storedRows.ts): `snapshot`, as the store reads its rows, with
   * each job row's derived columns and the meta row's count of unresolved jobs. Pure.
   */
  checkRows(
    snapshot: Snapshot,
    derived: readonly DerivedColumns[],
    unresolved: unknown,
  ): ReturnType<typeof checkStoredRows> {
    const rows = derived.map((r) => ({
      seq: Number(r.seq),
      due: r.due === null ? null : Number(r.due),
      claimable: r.claimable === this.yes,
    }));
    return checkStoredRows(snapshot, rows, Number(unresolved));
  }
}

/**
 * The config of a stored store's meta row, `where` naming the storage in messages: `fail` makes
 * the store's error for a missing row (`no_store`), another layout than `layout`
 * (`schema_mismatch`), or a config no store could have written (`invalid_store`, which is the
 * storage's fault, not the caller's `invalid_config`).
 */
export function configOfMeta(
  meta: MetaRow | undefined,
  layout: string,
  where: string,
  fail: (code: StoredStoreProblem, message: string, options?: { readonly cause: unknown }) => Error,
): Config {
  if (meta === undefined) throw fail('no_store', `${where} holds no job store (its meta row is missing)`);
  if (meta.layout !== layout)
    throw fail('schema_mismatch', `${where} holds a store of layout ${JSON.stringify(meta.layout)}, not ${layout}`);
  try {
    return parseConfig({
      capacity: meta.capacity,
      maxAttempts: meta.maxAttempts,
      leaseTicks: meta.leaseTicks,
      backoffBase: meta.backoffBase,
      backoffCap: meta.backoffCap,
    });
  } catch (error) {
    if (error instanceof JobcheckError)
      throw fail('invalid_store', `${where} holds a meta row no store could have written: ${error.message}`, {
        cause: error,
      });
    throw error;
  }
}
