/**
 * A one-at-a-time lock inside one process, for an adapter's own bookkeeping (its counters, its
 * ledger) when several lanes drive one queue: what it runs is taken in the order it was asked for,
 * whatever the outcome of the one before.
 */

/** A one-at-a-time lock (see the top of the file). */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `f` once everything asked for before it has settled; its result is `f`'s. */
  run<T>(f: () => Promise<T>): Promise<T> {
    const result = this.tail.then(f, f);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
