/**
 * The claim's decisions (contract section 7, claim): the gate (a token must be left before a job
 * is delivered), the lease a delivery gets, and the reply that hands it out. Which job a claim
 * takes (the lowest-seq ready account head) is each store's index, not a decision over values.
 */
import type { ClaimResult, Config, Delivery, Rejection } from '../../contract/index.ts';
import { tokensExhausted } from './rejections.ts';
import { addTime } from './time.ts';

/** The refusal of a claim that would hand out a token past the safe-integer range, or undefined while tokens are left. Pure. */
export function claimGate(nextToken: number): Rejection | undefined {
  return nextToken >= Number.MAX_SAFE_INTEGER ? tokensExhausted(nextToken) : undefined;
}

/** The first tick at which a delivery made at `now` has lost its lease. Pure. */
export function leaseUntil(cfg: Config, now: number): number {
  return addTime(now, cfg.leaseTicks);
}

/**
 * The claim's reply: `job: null` when nothing was claimable, else the delivery with a fresh copy of
 * the payload's four fields (a store's or a queue's record may carry more). Pure.
 */
export function claimReply(delivery: Delivery | null): ClaimResult {
  if (delivery === null) return { ok: true, type: 'claim', job: null };
  const { id, token, attempt, leaseUntil, payload: p } = delivery;
  const payload = { account: p.account, key: p.key, amount: p.amount, deadline: p.deadline };
  return { ok: true, type: 'claim', job: { id, token, attempt, leaseUntil, payload } };
}
