/**
 * An object whose methods all go through one function: the one way the profile engine watches an
 * adapter's calls (brokerWatch.ts) and an adapter types its client's failures (lossAware.ts),
 * whatever methods the adapter has (optional ones included). `around` decides whether and when a
 * method runs; the method runs on the object itself, so private fields keep working. Properties
 * that are not methods pass through untouched.
 */

/** What runs each call: the method's name and the call, not yet made; returns what the caller gets. */
export type AroundCall = (method: string, invoke: () => unknown) => unknown;

/** Whether a value is a promise (or any thenable). Pure. */
export const isThenable = (v: unknown): v is Promise<unknown> =>
  typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';

/** `target`, with every method sent through `around`. Pure: wraps, copies nothing. */
export function wrapCalls<T extends object>(target: T, around: AroundCall): T {
  return new Proxy(target, {
    get(t, property) {
      const value: unknown = Reflect.get(t, property, t);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => around(String(property), () => value.apply(t, args));
    },
  });
}
