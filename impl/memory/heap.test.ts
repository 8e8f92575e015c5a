import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MinHeap } from './heap.ts';

/** Drains a heap into its keys, in pop order. */
function drain(heap: MinHeap<number>): number[] {
  const out: number[] = [];
  while (heap.size > 0) {
    out.push(heap.peekKey());
    heap.pop();
  }
  return out;
}

describe('MinHeap', () => {
  it('pops keys in ascending order whatever the order of pushes', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -50, max: 50 })), (keys) => {
        const heap = new MinHeap<number>();
        keys.forEach((k, i) => {
          heap.push(k, i, 0);
        });
        expect(drain(heap)).toEqual([...keys].sort((a, b) => a - b));
      }),
    );
  });

  it('keeps each value and tag with its key', () => {
    const heap = new MinHeap<string>();
    heap.push(3, 'three', 30);
    heap.push(1, 'one', 10);
    heap.push(2, 'two', 20);
    expect([heap.peekKey(), heap.peekValue(), heap.peekTag()]).toEqual([1, 'one', 10]);
    heap.pop();
    expect([heap.peekKey(), heap.peekValue(), heap.peekTag()]).toEqual([2, 'two', 20]);
  });

  it('reports Infinity as the top key of an empty heap and ignores a pop', () => {
    const heap = new MinHeap<number>();
    heap.pop();
    expect(heap.peekKey()).toBe(Infinity);
    expect(heap.size).toBe(0);
  });

  it('retains only the entries kept and still pops them in order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 100 })), (keys) => {
        const heap = new MinHeap<number>();
        for (const k of keys) heap.push(k, k, k % 3);
        heap.retain((_, tag) => tag !== 0);
        expect(drain(heap)).toEqual(keys.filter((k) => k % 3 !== 0).sort((a, b) => a - b));
      }),
    );
  });

  it('orders a bulk load after heapify', () => {
    fc.assert(
      fc.property(fc.array(fc.integer()), (keys) => {
        const heap = new MinHeap<number>();
        for (const k of keys) heap.append(k, k, 0);
        heap.heapify();
        expect(drain(heap)).toEqual([...keys].sort((a, b) => a - b));
      }),
    );
  });
});
