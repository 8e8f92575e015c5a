/**
 * The one way anything in conformance/servers/ waits on something that may never answer (a client's
 * connect, write, count or close; a process that should end; a tool): with a time of its own, after
 * which the wait ends with ServerError `no_answer` naming what did not answer and the time it had.
 * Invariant: the promise `within` returns settles by `ms` (plus the event loop's delay), whatever
 * `work` does; `onExpiry` ends what was waited on (a socket), so nothing is left behind.
 * `settledWithin` only asks whether something settled in time (a write to a paused server).
 */
import { ServerError } from './ServerError.ts';

/**
 * Settles as `work` does if it settles within `ms`, else rejects with ServerError `no_answer`
 * ("`what` did not answer within `ms` ms") after calling `onExpiry`. A late rejection of `work` is
 * swallowed (it was reported as the time running out).
 */
export function within<T>(work: Promise<T>, ms: number, what: string, onExpiry?: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      try {
        onExpiry?.();
      } finally {
        reject(new ServerError('no_answer', `${what} did not answer within ${ms} ms`));
      }
    }, ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** Whether `promise` settles (either way) within `ms`; it is left to settle when it does not. */
export const settledWithin = async (promise: Promise<unknown>, ms: number): Promise<boolean> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const settled = promise.then(
    () => true,
    () => true,
  );
  return Promise.race([settled, late]).finally(() => clearTimeout(timer));
};
