/**
 * The store invariants of contract section 11, as checks over a model state: what every state
 * reachable from an empty store keeps. Shared by the random invariant test
 * (model/invariants.test.ts) and the exhaustive explorer (conformance/explore/), which checks
 * every state it reaches. Pure.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Snapshot } from '../contract/index.ts';
import { fromSnapshot, toSnapshot } from './step.ts';
import type { ModelState } from './step.ts';

/** One invariant: a stable name and a check that returns what is wrong, or undefined. */
export interface StoreInvariant {
  readonly name: string;
  /** What the invariant says, in one sentence. */
  readonly says: string;
  /** Undefined when the invariant holds in the state (given as its snapshot); otherwise what is wrong. */
  readonly check: (snapshot: Snapshot) => string | undefined;
}

const isUnresolved = (status: string): boolean => status === 'ready' || status === 'waiting' || status === 'running';

/** The invariants, in the order they are checked. */
export const STORE_INVARIANTS: readonly StoreInvariant[] = [
  {
    name: 'capacity',
    says: 'at most capacity jobs are unresolved',
    check: (s) => {
      const unresolved = Object.values(s.jobs).filter((j) => isUnresolved(j.status)).length;
      return unresolved > s.config.capacity
        ? `${unresolved} unresolved jobs exceed capacity ${s.config.capacity}`
        : undefined;
    },
  },
  {
    name: 'one-running-per-account',
    says: 'at most one job per account is running, and only the head of an account is running or waiting',
    check: (s) => {
      const running = new Set<string>();
      const heads = new Map<string, number>();
      for (const j of Object.values(s.jobs)) {
        if (!isUnresolved(j.status)) continue;
        const head = heads.get(j.payload.account);
        if (head === undefined || j.seq < head) heads.set(j.payload.account, j.seq);
      }
      for (const [id, j] of Object.entries(s.jobs)) {
        if (j.status === 'running') {
          if (running.has(j.payload.account)) return `two running jobs for account ${j.payload.account}`;
          running.add(j.payload.account);
        }
        if ((j.status === 'running' || j.status === 'waiting') && heads.get(j.payload.account) !== j.seq) {
          return `job ${id} is ${j.status} but is not the head of account ${j.payload.account}`;
        }
      }
      return undefined;
    },
  },
  {
    name: 'tokens',
    says: 'every running token is unique among running jobs and below nextToken',
    check: (s) => {
      const tokens = new Set<number>();
      for (const j of Object.values(s.jobs)) {
        if (j.status !== 'running') continue;
        if (j.token === undefined || j.token >= s.nextToken)
          return `running token ${j.token} not below nextToken ${s.nextToken}`;
        if (tokens.has(j.token)) return `token ${j.token} held by two running jobs`;
        tokens.add(j.token);
      }
      return undefined;
    },
  },
  {
    name: 'balances',
    says: "every account's balance equals the sum of its ledger's amounts",
    check: (s) => {
      const sums: Record<string, number> = {};
      for (const [account, ledger] of Object.entries(s.effects))
        sums[account] = Object.values(ledger).reduce((sum, e) => sum + e.amount, 0);
      return isDeepStrictEqual(sums, { ...s.balances })
        ? undefined
        : `balances ${JSON.stringify(s.balances)} differ from ledger sums ${JSON.stringify(sums)}`;
    },
  },
  {
    name: 'pending-after-clock',
    says: 'every pending instant (deadline of an unresolved job, leaseUntil, notBefore) lies after the clock',
    check: (s) => {
      for (const [id, j] of Object.entries(s.jobs)) {
        if (!isUnresolved(j.status)) continue;
        for (const [field, t] of [
          ['deadline', j.payload.deadline],
          ['leaseUntil', j.leaseUntil],
          ['notBefore', j.notBefore],
        ] as const) {
          if (t !== undefined && t <= s.clock) return `job ${id}: ${field} ${t} is not after the clock ${s.clock}`;
        }
      }
      return undefined;
    },
  },
  {
    name: 'snapshot-round-trip',
    says: 'the snapshot survives a JSON round trip and a restore unchanged',
    check: (s) => {
      const text = JSON.stringify(s);
      const parsed: unknown = JSON.parse(text);
      if (!isDeepStrictEqual(parsed, s)) return 'snapshot does not survive JSON';
      const again = toSnapshot(fromSnapshot(parsed));
      // The model writes snapshots in one order, so equal text is equal snapshots; unequal text is
      // compared as values, where key order does not count.
      if (JSON.stringify(again) !== text && !isDeepStrictEqual(again, s))
        return 'snapshot does not survive fromSnapshot -> toSnapshot';
      return undefined;
    },
  },
];

/** The first invariant the state breaks, with what is wrong; undefined when all hold. Pure. */
export function violatedInvariant(
  state: ModelState,
  invariants: readonly StoreInvariant[] = STORE_INVARIANTS,
): { name: string; message: string } | undefined {
  const snapshot = toSnapshot(state);
  for (const inv of invariants) {
    const message = inv.check(snapshot);
    if (message !== undefined) return { name: inv.name, message };
  }
  return undefined;
}

/** What the first broken invariant says is wrong, or undefined when all hold. Pure. */
export function brokenInvariant(state: ModelState): string | undefined {
  return violatedInvariant(state)?.message;
}
