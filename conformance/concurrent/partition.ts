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
  const invoked = (id: number): number => {
    const at = invokedOf.get(id);
    if (at === undefined) throw new RangeError(`mergeOrders: operation ${id} is in no part's history`);
    return at;
  };
  for (const order of orders) for (const id of order) invoked(id);
  // A binary heap of the parts that have operations left, by the invoke of their next one (ties by part).
  const heap: Cursor[] = [];
  orders.forEach((order, part) => {
    const next = order[0];
    if (next !== undefined) heap.push({ part, order, at: 0, next, invoked: invoked(next) });
  });
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(heap, i);
  const merged: number[] = [];
  for (let head = heap[0]; head !== undefined; head = heap[0]) {
    merged.push(head.next);
    head.at++;
    const next = head.order[head.at];
    if (next !== undefined) {
      head.next = next;
      head.invoked = invoked(next);
    } else {
      const last = heap.pop();
      if (last !== undefined && heap.length > 0) heap[0] = last;
    }
    down(heap, 0);
  }
  return merged;
}

/** One part's place in its order while orders are merged: its next operation's id and invoke. */
interface Cursor {
  readonly part: number;
  readonly order: readonly number[];
  at: number;
  next: number;
  invoked: number;
}

const before = (a: Cursor, b: Cursor): boolean => a.invoked < b.invoked || (a.invoked === b.invoked && a.part < b.part);

/** Moves the cursor at `start` down the heap until neither child comes before it. */
function down(heap: Cursor[], start: number): void {
  for (let i = start; ; ) {
    const at = heap[i];
    if (at === undefined) return;
    let top = i;
    let first = at;
    const left = heap[2 * i + 1];
    if (left !== undefined && before(left, first)) {
      top = 2 * i + 1;
      first = left;
    }
    const right = heap[2 * i + 2];
    if (right !== undefined && before(right, first)) {
      top = 2 * i + 2;
      first = right;
    }
    if (top === i) return;
    heap[top] = at;
    heap[i] = first;
    i = top;
  }
}
