/**
 * The commit plan (contract section 7, commit): an effect already in the ledger with the same
 * amount is a repeat (nothing applied, the balance as it is); with another amount a conflict; a
 * new effect is applied unless the balance would leave the safe-integer range. The ledger is
 * consulted before the range: a repeat of an effect is answered even when adding it again could
 * not be. The reply follows from the plan alone (`commitReply`), once an `apply` is written.
 */
import type { CommitResult, Rejection } from '../../contract/index.ts';
import { balanceOutOfRange, effectConflict } from './rejections.ts';

/** The effect a commit would apply. */
export interface PlannedEffect {
  readonly account: string;
  readonly key: string;
  readonly amount: number;
}

/**
 * What a commit does. `apply` carries the new balance; `replaces` says the ledger row for
 * (account, key) is overwritten rather than new, which the contract never does (a broken plan may).
 */
export type CommitPlan =
  | { readonly type: 'repeat'; readonly balance: number }
  | { readonly type: 'refused'; readonly rejection: Rejection }
  | { readonly type: 'apply'; readonly balance: number; readonly replaces: boolean };

/** The contract's plan for committing `effect`, given the ledger's amount for it (if any) and the balance before. Pure. */
export function commitPlan(effect: PlannedEffect, recorded: number | undefined, before: number): CommitPlan {
  if (recorded !== undefined) {
    if (recorded === effect.amount) return { type: 'repeat', balance: before };
    return { type: 'refused', rejection: effectConflict(effect.account, effect.key, recorded, effect.amount) };
  }
  const balance = before + effect.amount;
  if (!Number.isSafeInteger(balance))
    return { type: 'refused', rejection: balanceOutOfRange(effect.account, before, effect.amount) };
  return { type: 'apply', balance, replaces: false };
}

/** The commit's reply for job `id` under `plan`: a repeat is not applied, a refusal is its rejection. Pure. */
export function commitReply(id: string, plan: CommitPlan): CommitResult | Rejection {
  if (plan.type === 'refused') return plan.rejection;
  return { ok: true, type: 'commit', id, applied: plan.type === 'apply', balance: plan.balance };
}
