import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { History, Operation } from './history.ts';
import { mergeOrders, partitionHistory } from './partition.ts';

type Op = Operation<{ readonly key: string }, string>;
const op = (id: number, key: string, invoked: number, returned?: number): Op =>
  returned === undefined
    ? { id, lane: 0, input: { key }, invoked }
    : { id, lane: 0, input: { key }, invoked, returned, output: 'ok' };
const byKey = (input: { readonly key: string }): string => input.key;

/** Whether `order` lists each operation at most once and puts none before one that returned before it was invoked. */
function keepsRealTime(ops: readonly Op[], order: readonly number[]): boolean {
  const at = new Map(order.map((id, k) => [id, k]));
  if (at.size !== order.length) return false;
  const after = (b: Op, a: Op): boolean => (at.get(b.id) ?? Infinity) > (at.get(a.id) ?? -Infinity);
  return ops.every((a) => ops.every((b) => a.returned === undefined || a.returned >= b.invoked || after(b, a)));
}

describe('splitting a history by key', () => {
  it('gives one history per key, in the order the keys first appear, with the operations unchanged', () => {
    const ops = [op(5, 'b', 0, 1), op(3, 'a', 0, 2), op(9, 'b', 3), op(1, 'a', 4, 5)];
    const parts = partitionHistory({ operations: ops }, byKey);
    expect(parts.map((p) => p.operations.map((o) => o.id))).toEqual([
      [5, 9],
      [3, 1],
    ]);
    expect(parts[0]?.operations[1]).toBe(ops[2]);
    expect(partitionHistory({ operations: [] }, byKey)).toEqual([]);
  });
});

describe("merging the keys' orders", () => {
  it('interleaves the orders as real time requires, where joining them one after another would not', () => {
    const a = [op(1, 'a', 0, 1), op(3, 'a', 4, 5)];
    const b = [op(2, 'b', 2, 3)];
    const merged = mergeOrders([{ operations: a }, { operations: b }], [[1, 3], [2]]);
    expect(merged).toEqual([1, 2, 3]);
    expect(keepsRealTime([...a, ...b], [1, 3, 2])).toBe(false);
  });

  it("keeps each key's own order, even where it puts a later invoke first", () => {
    const a = [op(1, 'a', 0, 10), op(2, 'a', 1, 2)];
    const b = [op(3, 'b', 3, 4)];
    expect(mergeOrders([{ operations: a }, { operations: b }], [[2, 1], [3]])).toEqual([2, 1, 3]);
  });

  it('refuses an id that no part holds, naming it', () => {
    expect(() => mergeOrders([{ operations: [op(1, 'a', 0, 1)] }], [[7]])).toThrow(/operation 7/);
  });

  it("keeps real time and each key's order when every key's operations run one after another", () => {
    // Each key's operations follow one another (one lane per key), so its only order is invoke order.
    const stepArb = fc.record({
      key: fc.constantFrom('a', 'b', 'c'),
      gap: fc.nat({ max: 3 }),
      length: fc.nat({ max: 3 }),
      lost: fc.boolean(),
    });
    const planArb = fc.array(stepArb, { maxLength: 30 });
    fc.assert(
      fc.property(planArb, (plan) => {
        const free = new Map<string, number>();
        const ops = plan.map((p, id) => {
          const invoked = (free.get(p.key) ?? 0) + p.gap;
          const returned = invoked + p.length;
          free.set(p.key, returned + 1);
          return op(id, p.key, invoked, p.lost && id === plan.length - 1 ? undefined : returned);
        });
        const parts: History<{ readonly key: string }, string>[] = partitionHistory({ operations: ops }, byKey);
        const orders = parts.map((part) => part.operations.map((o) => o.id));
        const merged = mergeOrders(parts, orders);
        const position = new Map(merged.map((id, k) => [id, k]));
        const placed = (id: number | undefined): number => position.get(id as number) as number;
        const ownOrderKept = orders.every((order) =>
          order.every((id, k) => k === 0 || placed(id) > placed(order[k - 1])),
        );
        return merged.length === ops.length && ownOrderKept && keepsRealTime(ops, merged);
      }),
      { numRuns: 300 },
    );
  });
});
