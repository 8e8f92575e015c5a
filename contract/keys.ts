/**
 * Reading (and setting) the keys of plain objects on the hot paths: the model's invariants and snapshot reader,
 * the fast command reader, the lockstep comparison. Each runs once or more for every state an
 * exploration reaches.
 *
 * `hasOwnKey` is `Object.prototype.hasOwnProperty.call`, not `Object.hasOwn`. Inside a `for...in`
 * over the same object, V8 as Node 20 ships it answers the hasOwnProperty call from the loop's own
 * key cache, with no lookup. It does not do this for `Object.hasOwn`, which costs about five times
 * as much there (a loop over 10-key objects, 3 million of them: 231 ms against 45 ms).
 *
 * `countFields` finds each key among a record's field names in the order the project writes them
 * before it asks a Set. Keys that come in that order are found by comparing a few interned
 * strings, about three times faster than a Set lookup for each key. Keys in another order are
 * still found, in the Set.
 */

const ownProperty = Object.prototype.hasOwnProperty;

/** Whether `key` is an own property of `o` (what `Object.hasOwn` says). Pure. */
export const hasOwnKey = (o: object, key: PropertyKey): boolean => ownProperty.call(o, key);

/**
 * Sets `key` as an own, enumerable property of `target`, even for `__proto__`, which an assignment
 * would take as the prototype (ids, accounts and operation keys are arbitrary strings). Only that
 * key goes through defineProperty: it is slow, and leaves the object in a slower shape.
 */
export function putOwn<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** A record's field names in the order the project writes them, and the same names as a set. */
export interface FieldNames {
  readonly order: readonly string[];
  readonly set: ReadonlySet<string>;
}

/** The field names `names`, in this order. Pure. */
export const fieldNames = (...names: readonly string[]): FieldNames => ({ order: names, set: new Set(names) });

/**
 * The number of enumerable keys of `o` (own and inherited, as `for...in` lists them) when every
 * one is one of `fields`, and with `own` also an own property; -1 otherwise. Pure.
 */
export function countFields(o: object, fields: FieldNames, own: boolean): number {
  const { order, set } = fields;
  let n = 0;
  let next = 0;
  for (const key in o) {
    if (own && !ownProperty.call(o, key)) return -1;
    let at = next;
    while (at < order.length && order[at] !== key) at++;
    if (at < order.length) next = at + 1;
    else if (!set.has(key)) return -1;
    n++;
  }
  return n;
}
