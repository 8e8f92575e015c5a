/**
 * The wire format of the job-store contract: commands, replies, rejections and the canonical
 * snapshot. This module is neutral ground: `model/` (the specification) and `impl/` (the optimised
 * store) both speak it, neither imports the other. It holds types and schemas only, no behaviour.
 * The rules themselves are stated in docs/contract.md.
 */

/** Store-wide policy fixed when a store is created. */
export interface Config {
  /** Most unresolved (ready + waiting + running) jobs at once. */
  readonly capacity: number;
  /** Most deliveries (claims) of one job. */
  readonly maxAttempts: number;
  /** Lease length: a claim at `now` holds the job until `now + leaseTicks` (exclusive). */
  readonly leaseTicks: number;
  /** First retry delay; doubles each attempt. */
  readonly backoffBase: number;
  /** Largest retry delay. */
  readonly backoffCap: number;
}

/** The effect a job has when committed: add `amount` to `account`'s balance, once per (account, key). */
export interface Payload {
  readonly account: string;
  /** Operation key: the identity of the effect in the ledger, scoped to the account. */
  readonly key: string;
  readonly amount: number;
  /** Absolute tick at which the job dies if still unresolved. */
  readonly deadline: number;
}

export type JobStatus = 'ready' | 'waiting' | 'running' | 'done' | 'dead';
export type DeadReason = 'deadline' | 'lease_expired' | 'permanent' | 'attempts_exhausted' | 'no_time_for_retry';
export type FailureKind = 'transient' | 'permanent';

/** The fields every job record has, whatever its status. */
interface JobRecordBase {
  readonly payload: Payload;
  readonly seq: number;
  readonly attempts: number;
  /** Text of the last `fail`, once there has been one. */
  readonly lastError?: string;
}

/**
 * The status-dependent fields a record of another status must not have (absent; `never`, so that
 * reading one of them on the union gives `undefined` and writing one is refused).
 */
interface NoDelivery {
  readonly token?: never;
  readonly owner?: never;
  readonly leaseUntil?: never;
}

/** A ready job: waiting for a claim. */
export interface ReadyJobRecord extends JobRecordBase, NoDelivery {
  readonly status: 'ready';
  readonly notBefore?: never;
  readonly reason?: never;
}

/** A waiting job: failed transiently, ready again at `notBefore`. */
export interface WaitingJobRecord extends JobRecordBase, NoDelivery {
  readonly status: 'waiting';
  /** The first tick at which the job is ready again. */
  readonly notBefore: number;
  readonly reason?: never;
}

/** A running job: delivered to a worker. */
export interface RunningJobRecord extends JobRecordBase {
  readonly status: 'running';
  /** The current delivery token. */
  readonly token: number;
  /** The worker holding the current delivery. */
  readonly owner: string;
  /** The first tick at which the lease has expired. */
  readonly leaseUntil: number;
  readonly notBefore?: never;
  readonly reason?: never;
}

/** A done job: acknowledged. */
export interface DoneJobRecord extends JobRecordBase, NoDelivery {
  readonly status: 'done';
  readonly notBefore?: never;
  readonly reason?: never;
}

/** A dead job, with the reason it died. */
export interface DeadJobRecord extends JobRecordBase, NoDelivery {
  readonly status: 'dead';
  readonly notBefore?: never;
  readonly reason: DeadReason;
}

/**
 * One job as it appears in a snapshot (the id is the key it is stored under): a union by
 * `status`, each member with exactly the fields that status has.
 */
export type JobRecord = ReadyJobRecord | WaitingJobRecord | RunningJobRecord | DoneJobRecord | DeadJobRecord;

/** One entry of the effect ledger: the evidence that (account, key) was applied. */
export interface EffectRecord {
  readonly amount: number;
  /** The job whose delivery applied the effect first. */
  readonly job: string;
  /** The delivery token that applied it. */
  readonly token: number;
}

/** Version tag of the canonical snapshot format. */
export const SNAPSHOT_FORMAT = 'jobcheck.snapshot/1' as const;

/**
 * The canonical snapshot: a plain JSON value. Two stores in the same state produce snapshots
 * that are equal as JSON values (object key order carries no meaning).
 */
export interface Snapshot {
  readonly format: typeof SNAPSHOT_FORMAT;
  readonly config: Config;
  readonly clock: number;
  readonly nextToken: number;
  readonly nextSeq: number;
  readonly jobs: { readonly [id: string]: JobRecord };
  readonly balances: { readonly [account: string]: number };
  readonly effects: { readonly [account: string]: { readonly [key: string]: EffectRecord } };
}

export interface SubmitCommand {
  readonly type: 'submit';
  readonly id: string;
  readonly account: string;
  readonly key: string;
  readonly amount: number;
  readonly deadline: number;
  readonly now: number;
}
export interface ClaimCommand {
  readonly type: 'claim';
  readonly worker: string;
  readonly now: number;
}
export interface CommitCommand {
  readonly type: 'commit';
  readonly worker: string;
  readonly token: number;
  readonly now: number;
}
export interface AckCommand {
  readonly type: 'ack';
  readonly worker: string;
  readonly token: number;
  readonly now: number;
}
export interface FailCommand {
  readonly type: 'fail';
  readonly worker: string;
  readonly token: number;
  readonly kind: FailureKind;
  readonly error: string;
  readonly now: number;
}
export interface TickCommand {
  readonly type: 'tick';
  readonly now: number;
}

/** Every command of the contract, discriminated by `type`. */
export type Command = SubmitCommand | ClaimCommand | CommitCommand | AckCommand | FailCommand | TickCommand;
export type CommandType = Command['type'];

/** Stable rejection codes. The first two come from validation (step 1), the rest from the domain (step 3). */
export type RejectionCode =
  | 'invalid_argument'
  | 'clock_regressed'
  | 'stale_token'
  | 'not_owner'
  | 'conflict'
  | 'capacity_exceeded'
  | 'out_of_range';

export const REJECTION_CODES: readonly RejectionCode[] = [
  'invalid_argument',
  'clock_regressed',
  'stale_token',
  'not_owner',
  'conflict',
  'capacity_exceeded',
  'out_of_range',
];

/** A refused command. `message` is for people and names the bad value; only `code` is compared. */
export interface Rejection {
  readonly ok: false;
  readonly code: RejectionCode;
  readonly message: string;
}

/** What a claim hands the worker. */
export interface Delivery {
  readonly id: string;
  readonly token: number;
  /** The attempt number of this delivery (1 for the first claim). */
  readonly attempt: number;
  readonly leaseUntil: number;
  readonly payload: Payload;
}

export interface SubmitResult {
  readonly ok: true;
  readonly type: 'submit';
  readonly id: string;
  readonly seq: number;
  /** True when the id already existed with the same payload: nothing changed. */
  readonly duplicate: boolean;
}
export interface ClaimResult {
  readonly ok: true;
  readonly type: 'claim';
  /** Null when no job is due: an ordinary empty reply, not an error. */
  readonly job: Delivery | null;
}
export interface CommitResult {
  readonly ok: true;
  readonly type: 'commit';
  readonly id: string;
  /** False when the ledger already held the effect: it was reused, the balance is unchanged. */
  readonly applied: boolean;
  /** The account's balance after the commit. */
  readonly balance: number;
}
export interface AckResult {
  readonly ok: true;
  readonly type: 'ack';
  readonly id: string;
}
export type FailResult =
  | {
      readonly ok: true;
      readonly type: 'fail';
      readonly id: string;
      readonly status: 'waiting';
      readonly notBefore: number;
    }
  | {
      readonly ok: true;
      readonly type: 'fail';
      readonly id: string;
      readonly status: 'dead';
      readonly reason: DeadReason;
    };
export interface TickResult {
  readonly ok: true;
  readonly type: 'tick';
  readonly clock: number;
}

export type Success = SubmitResult | ClaimResult | CommitResult | AckResult | FailResult | TickResult;
/** The reply to any command. */
export type Reply = Success | Rejection;
