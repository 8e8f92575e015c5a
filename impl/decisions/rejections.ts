/**
 * Every rejection a store builds after validation, with its code and its message, in one place:
 * the texts are part of what conformance compares byte for byte with the reference model, so a
 * store that wrote its own copy could drift. Each function is pure and returns a fresh object.
 */
import type { Rejection, RejectionCode } from '../../contract/index.ts';

const reject = (code: RejectionCode, message: string): Rejection => ({ ok: false, code, message });

/** `clock_regressed`: a command's `now` is before the store's clock. Pure. */
export const clockRegressed = (now: number, clock: number): Rejection =>
  reject('clock_regressed', `now: ${now} is before the clock (${clock})`);

/** What a payload conflict names of the job already admitted. */
export interface AdmittedPayload {
  readonly account: string;
  readonly key: string;
  readonly amount: number;
  readonly deadline: number;
}

/** `conflict`: a submit reuses an id with another payload. Pure. */
export const payloadConflict = (id: string, existing: AdmittedPayload): Rejection =>
  reject(
    'conflict',
    `job ${JSON.stringify(id)} already exists with another payload (${JSON.stringify({
      account: existing.account,
      key: existing.key,
      amount: existing.amount,
      deadline: existing.deadline,
    })})`,
  );

/** `capacity_exceeded`: every slot is taken by an unresolved job. Pure. */
export const capacityFull = (capacity: number, unresolved: number): Rejection =>
  reject('capacity_exceeded', `capacity ${capacity} is full: ${unresolved} unresolved jobs`);

/** `out_of_range`: no admission number is left. Pure. */
export const seqExhausted = (nextSeq: number): Rejection =>
  reject('out_of_range', `nextSeq is ${nextSeq}: a new admission number would leave the safe-integer range`);

/** `out_of_range`: no token is left. Pure. */
export const tokensExhausted = (nextToken: number): Rejection =>
  reject('out_of_range', `nextToken is ${nextToken}: a new token would leave the safe-integer range`);

/** `stale_token`: the token is no running job's current delivery. Pure. */
export const staleToken = (token: number): Rejection =>
  reject('stale_token', `token ${token} is not the current delivery of any running job`);

/** `not_owner`: the token is current, but another worker holds it. Pure. */
export const notOwner = (token: number, owner: string | null | undefined, worker: string): Rejection =>
  reject('not_owner', `token ${token} is held by worker ${JSON.stringify(owner)}, not ${JSON.stringify(worker)}`);

/** `conflict`: the ledger holds (account, key) with another amount. Pure. */
export const effectConflict = (account: string, key: string, recorded: number, amount: number): Rejection =>
  reject(
    'conflict',
    `effect (${JSON.stringify(account)}, ${JSON.stringify(key)}) was recorded with amount ${recorded}, not ${amount}`,
  );

/** `out_of_range`: the new balance would leave the safe-integer range. Pure. */
export const balanceOutOfRange = (account: string, before: number, amount: number): Rejection =>
  reject(
    'out_of_range',
    `balance of ${JSON.stringify(account)} (${before}) + amount ${amount} would leave the safe-integer range`,
  );
