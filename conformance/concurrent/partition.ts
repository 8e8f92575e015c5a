/**
 * P-compositionality (Horn & Kroening, the partitioning Porcupine does for key-value histories):
 * when a model is a product of independent objects and each request touches exactly one of them
 * (one key of a register), a history is linearizable exactly when each object's sub-history is.
 * This is Herlihy & Wing's locality: the union of the real-time order and one linearization per
 * object has no cycle, so the objects' orders can be merged into one order of the whole history.
 * Checking the parts apart turns a search over interleavings of all the objects into one search
 * per object, which is what makes wide multi-key histories checkable at all.
 *
 * Only a model that says so is partitioned (SearchHints `partitionKey`). The job model
 * (jobModel.ts) is one indivisible object and must never be given a partition: capacity, the
 * token and seq counters, the clock and the account balances are shared by every job, so a
 * request on one job changes what a request on another is answered.
 */
import type { History, Operation } from './history.ts';

/**
 * Splits a history by the key of each operation's input: one sub-history per key, in the order
 * each key first appears, each keeping its operations (ids, instants, replies) as they are. Pure.
 */
export function partitionHistory<I, O>(history: History<I, O>, keyOf: (input: I) => string): History<I, O>[] {
  const parts = new Map<string, Operation<I, O>[]>();
  for (const op of history.operations) {
    const key = keyOf(op.input);
    const part = parts.get(key);
    if (part === undefined) parts.set(key, [op]);
    else part.push(op);
  }
  return [...parts.values()].map((operations) => ({ operations }));
}

/**
 * Merges one linearization per part (operation ids, each order valid for its part) into one order
 * of the whole history that keeps each part's order and real-time order. Repeatedly takes, of the
 * parts' next operations, the one invoked first: locality guarantees it is preceded in real time
 * by nothing still left (whatever is left returned no earlier than it was invoked), so the result
 * is a linearization of the whole. Throws RangeError for an id no part's history holds. Pure.
 */
export function mergeOrders<I, O>(parts: readonly History<I, O>[], orders: readonly (readonly number[])[]): number[] {
  const invokedOf = new Map<number, number>();
  for (const part of parts) for (const op of part.operations) invokedOf.set(op.id, op.invoked);
  for (const order of orders) {
    for (const id of order)
      if (!invokedOf.has(id)) throw new RangeError(`mergeOrders: operation ${id} is in no part's history`);
  }
  const invoked = (id: number): number => invokedOf.get(id) as number;
  // A binary heap of the parts that have operations left, by the invoke of their next one (ties by part).
  const position = orders.map(() => 0);
  const heap: number[] = [];
  const before = (a: number, b: number): boolean => {
    const ia = invoked((orders[a] as readonly number[])[position[a] as number] as number);
    const ib = invoked((orders[b] as readonly number[])[position[b] as number] as number);
    return ia < ib || (ia === ib && a < b);
  };
  const swap = (i: number, j: number): void => {
    [heap[i], heap[j]] = [heap[j] as number, heap[i] as number];
  };
  const down = (start: number): void => {
    for (let i = start; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let top = i;
      if (l < heap.length && before(heap[l] as number, heap[top] as number)) top = l;
      if (r < heap.length && before(heap[r] as number, heap[top] as number)) top = r;
      if (top === i) return;
      swap(i, top);
      i = top;
    }
  };
  orders.forEach((order, p) => {
    if (order.length > 0) heap.push(p);
  });
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i);
  const merged: number[] = [];
  while (heap.length > 0) {
    const p = heap[0] as number;
    const order = orders[p] as readonly number[];
    merged.push(order[position[p] as number] as number);
    position[p] = (position[p] as number) + 1;
    if ((position[p] as number) >= order.length) {
      heap[0] = heap[heap.length - 1] as number;
      heap.pop();
    }
    down(0);
  }
  return merged;
}
