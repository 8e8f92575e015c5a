/**
 * For the adapters' tests: a concurrent factory that records every instance it makes and whether
 * it was closed, so that a test can hold a campaign to closing everything it opened (and then look
 * on the broker for anything an instance left behind).
 */
import type { ConcurrentAdapter, ConcurrentFactory } from '../conformance/concurrent/adapter.ts';

/** One instance the factory made, and whether its `close` has finished. */
export interface MadeInstance<A extends ConcurrentAdapter> {
  readonly adapter: A;
  closed: boolean;
}

/**
 * Wraps `inner`: each instance it makes is pushed to `made` (the adapter as `inner` made it) and
 * marked closed once its `close` has finished. Pure until called.
 */
export function closingFactory<A extends ConcurrentAdapter>(
  inner: ConcurrentFactory,
): { readonly factory: ConcurrentFactory; readonly made: MadeInstance<A>[] } {
  const made: MadeInstance<A>[] = [];
  const factory: ConcurrentFactory = async (config, options) => {
    const adapter = (await inner(config, options)) as A;
    const entry: MadeInstance<A> = { adapter, closed: false };
    made.push(entry);
    return {
      name: adapter.name,
      concurrent: adapter.concurrent,
      execute: (lane, command) => adapter.execute(lane, command),
      snapshot: () => adapter.snapshot(),
      close: async () => {
        await adapter.close();
        entry.closed = true;
      },
    };
  };
  return { factory, made };
}
