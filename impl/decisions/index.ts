/**
 * The decisions of the contract, written once as pure functions over plain values, and the time
 * arithmetic they share. Every store in impl/ runs them; none reads the contract on its own.
 */
export type { Admission, AdmittedJob, Load } from './admission.ts';
export { admission } from './admission.ts';
export { claimGate, claimReply, leaseUntil } from './claim.ts';
export type { CommitPlan, PlannedEffect } from './commitPlan.ts';
export { commitPlan, commitReply } from './commitPlan.ts';
export type { Decisions } from './Decisions.ts';
export { DECISIONS, withDecisions } from './Decisions.ts';
export type { TokenHolder, TokenHolderClaim } from './delivery.ts';
export { deliveryCheck } from './delivery.ts';
export type { Expiry, ExpiringJob } from './expiry.ts';
export { expiry } from './expiry.ts';
export type { FailOutcome, FailedJob } from './failOutcome.ts';
export { failOutcome } from './failOutcome.ts';
export type { AdmittedPayload } from './rejections.ts';
export {
  balanceOutOfRange,
  capacityFull,
  clockRegressed,
  effectConflict,
  notOwner,
  payloadConflict,
  seqExhausted,
  staleToken,
  tokensExhausted,
} from './rejections.ts';
export type { TimedJob } from './time.ts';
export { TIME_MAX, addTime, dueOf, isUnresolvedStatus, retryDelay } from './time.ts';
