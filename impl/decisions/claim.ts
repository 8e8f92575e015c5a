/**
 * The claim's decisions (contract section 7, claim): the gate (a token must be left before a job
 * is delivered) and the lease a delivery gets. Which job a claim takes (the lowest-seq ready
 * account head) is each store's index, not a decision over values.
 */
import type { Config, Rejection } from '../../contract/index.ts';
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
