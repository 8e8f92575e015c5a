/**
 * The decisions as one record of functions, which every store takes (the correct ones by
 * default). A broken variant is this record with one function replaced, and the same broken
 * record runs on the memory, SQLite and PostgreSQL stores alike (conformance/broken/).
 */
import { admission } from './admission.ts';
import { claimGate, leaseUntil } from './claim.ts';
import { commitPlan } from './commitPlan.ts';
import { deliveryCheck } from './delivery.ts';
import { expiry } from './expiry.ts';
import { failOutcome } from './failOutcome.ts';

/** Every decision a store delegates, by name. */
export interface Decisions {
  readonly admission: typeof admission;
  readonly claimGate: typeof claimGate;
  readonly leaseUntil: typeof leaseUntil;
  readonly deliveryCheck: typeof deliveryCheck;
  readonly commitPlan: typeof commitPlan;
  readonly failOutcome: typeof failOutcome;
  readonly expiry: typeof expiry;
}

/** The contract's decisions. Frozen. */
export const DECISIONS: Decisions = Object.freeze({
  admission,
  claimGate,
  leaseUntil,
  deliveryCheck,
  commitPlan,
  failOutcome,
  expiry,
});

/** A class whose instances run a `decisions` record (the three stores). */
type Deciding = abstract new (...args: never[]) => { readonly decisions: Decisions };

/**
 * A subclass of `Store` that runs `decisions` instead of the contract's, with the same
 * constructors (static `create`, `restore`, `open`, ... return instances of it). Pure: returns a new class.
 */
export function withDecisions<C extends Deciding>(Store: C, decisions: Decisions): C {
  // @ts-expect-error TS2545: a mixin over an abstract constructor type; the statics are inherited at run time.
  return class extends Store {
    override readonly decisions: Decisions = decisions;
  };
}
