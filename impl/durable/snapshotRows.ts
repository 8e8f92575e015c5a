/**
 * The two conversions between a snapshot and a durable store's rows, which the SQLite and
 * PostgreSQL stores share: a restore's rows (with the derived `due`, `claimable` and
 * `unresolved`), and the canonical snapshot assembled from the rows read back (accounts and keys
 * sorted, every key an own property; its ledger part, `ledgerOf`, also serves the queues' adapters,
 * whose workers keep the ledger). Each store only encodes strings and runs its statements.
 */
import type { Config, EffectRecord, JobRecord, Snapshot } from '../../contract/index.ts';
import { SNAPSHOT_FORMAT } from '../../contract/index.ts';
import { dueOf, isUnresolvedStatus } from '../decisions/index.ts';
import type { Counters, Job } from './rows.ts';

/** The counters of a new, empty store. */
export const EMPTY_COUNTERS: Readonly<Counters> = { clock: 0, nextToken: 1, nextSeq: 1, unresolved: 0 };

/**
 * The values of a store's meta row after its layout tag, in the column order both stores declare:
 * the config, then the counters. Pure.
 */
export function metaValues(c: Config, m: Readonly<Counters>): number[] {
  return [
    c.capacity,
    c.maxAttempts,
    c.leaseTicks,
    c.backoffBase,
    c.backoffCap,
    m.clock,
    m.nextToken,
    m.nextSeq,
    m.unresolved,
  ];
}

/** One job row of a restore, strings not yet encoded, with its derived `due`. */
export type RestoredRow = Job & { readonly due: number | null };

/** The job rows of a validated snapshot in seq order, and how many jobs are unresolved. Pure. */
export function restoreRows(s: Snapshot): { rows: RestoredRow[]; unresolved: number } {
  const jobs = Object.entries(s.jobs).sort(([, a], [, b]) => a.seq - b.seq);
  const accountsWithHead = new Set<string>();
  const rows: RestoredRow[] = [];
  let unresolved = 0;
  for (const [id, r] of jobs) {
    const p = r.payload;
    let claimable = false;
    if (isUnresolvedStatus(r.status)) {
      unresolved += 1;
      if (!accountsWithHead.has(p.account)) {
        accountsWithHead.add(p.account);
        claimable = r.status === 'ready';
      }
    }
    const leaseUntil = r.leaseUntil ?? null;
    const notBefore = r.notBefore ?? null;
    rows.push({
      seq: r.seq,
      id,
      account: p.account,
      key: p.key,
      amount: p.amount,
      deadline: p.deadline,
      status: r.status,
      attempts: r.attempts,
      token: r.token ?? null,
      owner: r.owner ?? null,
      leaseUntil,
      notBefore,
      reason: r.reason ?? null,
      lastError: r.lastError ?? null,
      due: dueOf({ status: r.status, deadline: p.deadline, leaseUntil, notBefore }),
      claimable,
    });
  }
  return { rows, unresolved };
}

/** Sets `obj[key] = value` as an own data property, even for the key `__proto__`. */
function put<V>(obj: Record<string, V>, key: string, value: V): void {
  if (key === '__proto__')
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The canonical snapshot of a store's rows, read back with strings decoded: jobs in the order
 * given (seq order), balances and effects sorted by account and key. Pure.
 */
export function snapshotOf(
  cfg: Config,
  meta: Pick<Counters, 'clock' | 'nextToken' | 'nextSeq'>,
  jobRows: readonly { readonly id: string; readonly record: JobRecord }[],
  balanceRows: readonly { readonly account: string; readonly balance: number }[],
  effectRows: readonly { readonly account: string; readonly key: string; readonly effect: EffectRecord }[],
): Snapshot {
  const jobs: Record<string, JobRecord> = {};
  for (const { id, record } of jobRows) put(jobs, id, record);
  return {
    format: SNAPSHOT_FORMAT,
    config: { ...cfg },
    clock: meta.clock,
    nextToken: meta.nextToken,
    nextSeq: meta.nextSeq,
    jobs,
    ...ledgerOf(balanceRows, effectRows),
  };
}

/**
 * The effect ledger's part of the canonical snapshot, from its rows read back: balances and effects
 * sorted by account and key, every key an own property. Pure.
 */
export function ledgerOf(
  balanceRows: readonly { readonly account: string; readonly balance: number }[],
  effectRows: readonly { readonly account: string; readonly key: string; readonly effect: EffectRecord }[],
): Pick<Snapshot, 'balances' | 'effects'> {
  const balances: Record<string, number> = {};
  for (const { account, balance } of [...balanceRows].sort((a, b) => compare(a.account, b.account)))
    put(balances, account, balance);
  const effects: Record<string, Record<string, EffectRecord>> = {};
  for (const { account, key, effect } of [...effectRows].sort(
    (a, b) => compare(a.account, b.account) || compare(a.key, b.key),
  )) {
    let ledger = Object.hasOwn(effects, account) ? effects[account] : undefined;
    if (ledger === undefined) {
      ledger = {};
      put(effects, account, ledger);
    }
    put(ledger, key, effect);
  }
  return { balances, effects };
}
