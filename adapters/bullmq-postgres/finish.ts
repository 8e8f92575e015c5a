/**
 * BullMQ's own stale-token check, the same on both backends (this one and ../bullmq-redis): a
 * finish call (`moveToCompleted`, `moveToFailed`) compares the job's lock token with the one the
 * worker passes, and refuses with one of four codes. Those refusals, and only those, are the
 * contract's `stale_token`; any other error is the queue's, never turned into a reply.
 */
import type { Rejection } from '../../contract/index.ts';
import { codeOf, messageOf } from '../../contract/index.ts';
import { staleToken } from '../ledger.ts';

/** BullMQ's finish errors that mean "this lock token does not hold the job" (ErrorCode: -1 missing, -2 no lock, -3 not active, -6 lock mismatch). */
export const LOST_LOCK_CODES: ReadonlySet<number> = new Set([-1, -2, -3, -6]);

/**
 * Runs a finish call, the `what` (ack, fail) of `token`'s delivery, under that delivery's `lockToken`:
 * undefined when BullMQ took it, `stale_token` with BullMQ's answer when it refused the lock.
 */
export type Finish = (
  what: string,
  token: number,
  lockToken: string,
  call: (lockToken: string) => Promise<unknown>,
) => Promise<Rejection | undefined>;

/** The finish of an adapter whose other errors are thrown as `queueError` makes them (from a message naming the command). Pure. */
export function finisher(queueError: (message: string, cause: unknown) => Error): Finish {
  return async (what, token, lockToken, call) => {
    try {
      await call(lockToken);
      return undefined;
    } catch (error) {
      const code = codeOf(error);
      if (typeof code === 'number' && LOST_LOCK_CODES.has(code))
        return staleToken(token, `${what}: BullMQ refused lock ${lockToken}: ${messageOf(error)}`);
      throw queueError(`${what}: ${messageOf(error)}`, error);
    }
  };
}
