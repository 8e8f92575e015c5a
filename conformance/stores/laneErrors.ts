/**
 * The errors of the durable stores' lane adapters (sqliteConcurrent.ts, postgresConcurrent.ts):
 * LaneAdapterError for misuse, and the store-error reply.
 *
 * The store-error reply is what a concurrent lane of a durable store answers when its database throws instead of
 * replying: SQLITE_BUSY for a transaction that read and then could not write, a unique violation
 * for two transactions that wrote on the same stale read. The transaction was rolled back, so
 * the outcome is definite (nothing happened); it is not an indefinite outcome, which the
 * linearizability checker may place anywhere or nowhere and would so let a store that fails
 * commands under contention pass. Nor is it retried: a retry would hide exactly the departure
 * the broken variants are there to show. It becomes this reply, whose code is none of the
 * contract's, so that it matches no reply of the model and the checker sees a departure at that
 * request.
 */
import { CodedError } from '../../contract/CodedError.ts';
import type { Reply } from '../../contract/index.ts';
import { codeOf } from '../../contract/index.ts';

/** The code of a store-error reply; deliberately not a contract RejectionCode. */
export const STORE_ERROR = 'store_error';

/** A store-error reply: `{ ok: false, code: 'store_error', message }`, carrying the database's own code. */
export interface StoreErrorReply {
  readonly ok: false;
  readonly code: typeof STORE_ERROR;
  /** The database's error code (`SQLITE_BUSY`, PostgreSQL's SQLSTATE `23505`), or null. */
  readonly cause: string | null;
  readonly message: string;
}

/** The store-error reply for an error a store threw. Pure. */
export function storeErrorReply(error: unknown): StoreErrorReply {
  const code = codeOf(error);
  return {
    ok: false,
    code: STORE_ERROR,
    cause: typeof code === 'string' ? code : null,
    message: error instanceof Error ? error.message : String(error),
  };
}

/** Whether a reply is a store-error reply. Pure. */
export const isStoreError = (reply: unknown): reply is StoreErrorReply => codeOf(reply) === STORE_ERROR;

/** A store-error reply as the adapter interface's Reply (its code is outside the contract on purpose, see the file comment). */
export const asReply = (reply: StoreErrorReply): Reply => reply as unknown as Reply;

/** Stable codes of a lane adapter's misuse errors. */
export type LaneAdapterErrorCode = 'store_not_loadable' | 'bad_lane' | 'bad_workers';

/** Misuse of a lane adapter (a store class its lanes cannot load, a lane out of range, a bad lane count); the message names the value. */
export class LaneAdapterError extends CodedError<LaneAdapterErrorCode> {
  override name = 'LaneAdapterError' as const;
}

/** Checks a factory's lane count: a positive integer; throws LaneAdapterError `bad_workers` naming it. */
export function checkWorkers(workers: number): void {
  if (!Number.isSafeInteger(workers) || workers < 1)
    throw new LaneAdapterError('bad_workers', `workers: ${String(workers)} is not a positive integer`);
}

/** Checks a lane number against `lanes`; throws LaneAdapterError `bad_lane` naming it. */
export function checkLane(lane: number, lanes: number): void {
  if (!Number.isInteger(lane) || lane < 0 || lane >= lanes)
    throw new LaneAdapterError(
      'bad_lane',
      `lane ${String(lane)} does not exist: the adapter has lanes 0 to ${lanes - 1}`,
    );
}
