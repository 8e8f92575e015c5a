/**
 * A binary min-heap over numeric keys, stored in three parallel arrays (key, value, tag) so that a
 * push allocates no entry object. The tag is a number the owner stores beside each entry (the
 * job's generation at push time) so that entries made stale by a later change can be recognised
 * and skipped lazily when they reach the top, instead of being searched for and removed.
 *
 * Entries with equal keys come out in unspecified order; the store never depends on it.
 */

/** A min-heap of `(key, value, tag)` entries, ordered by `key`. Mutable; not thread-safe. */
export class MinHeap<T> {
  protected readonly keys: number[] = [];
  protected readonly values: T[] = [];
  protected readonly tags: number[] = [];

  /** Number of entries, stale ones included. */
  get size(): number {
    return this.keys.length;
  }

  /** The smallest key, or `Infinity` when empty. */
  peekKey(): number {
    return this.keys.length === 0 ? Infinity : (this.keys[0] as number);
  }

  /** The value of the top entry. Only call when `size > 0`. */
  peekValue(): T {
    return this.values[0] as T;
  }

  /** The tag of the top entry. Only call when `size > 0`. */
  peekTag(): number {
    return this.tags[0] as number;
  }

  /** Adds an entry: O(log n). */
  push(key: number, value: T, tag: number): void {
    const keys = this.keys;
    keys.push(key);
    this.values.push(value);
    this.tags.push(tag);
    this.siftUp(keys.length - 1);
  }

  /** Removes the top entry: O(log n). Does nothing when empty. */
  pop(): void {
    const keys = this.keys;
    const last = keys.length - 1;
    if (last < 0) return;
    const key = keys.pop() as number;
    const value = this.values.pop() as T;
    const tag = this.tags.pop() as number;
    if (last === 0) return;
    keys[0] = key;
    this.values[0] = value;
    this.tags[0] = tag;
    this.siftDown(0);
  }

  /**
   * Drops every entry for which `keep(value, tag)` is false and restores heap order, in O(n).
   * Used to compact stale entries once they outnumber live ones, which keeps memory linear.
   */
  retain(keep: (value: T, tag: number) => boolean): void {
    const { keys, values, tags } = this;
    let w = 0;
    for (let r = 0; r < keys.length; r++) {
      const value = values[r] as T;
      const tag = tags[r] as number;
      if (!keep(value, tag)) continue;
      keys[w] = keys[r] as number;
      values[w] = value;
      tags[w] = tag;
      w++;
    }
    keys.length = w;
    values.length = w;
    tags.length = w;
    this.heapify();
  }

  /** Appends an entry without restoring heap order; call `heapify()` before the next read. For bulk loads. */
  append(key: number, value: T, tag: number): void {
    this.keys.push(key);
    this.values.push(value);
    this.tags.push(tag);
  }

  /** Restores heap order over all entries in O(n) (Floyd's construction). */
  heapify(): void {
    for (let i = (this.keys.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  /** Removes all entries. */
  clear(): void {
    this.keys.length = 0;
    this.values.length = 0;
    this.tags.length = 0;
  }

  protected siftUp(start: number): void {
    const { keys, values, tags } = this;
    const key = keys[start] as number;
    const value = values[start] as T;
    const tag = tags[start] as number;
    let i = start;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pk = keys[parent] as number;
      if (pk <= key) break;
      keys[i] = pk;
      values[i] = values[parent] as T;
      tags[i] = tags[parent] as number;
      i = parent;
    }
    keys[i] = key;
    values[i] = value;
    tags[i] = tag;
  }

  protected siftDown(start: number): void {
    const { keys, values, tags } = this;
    const n = keys.length;
    const key = keys[start] as number;
    const value = values[start] as T;
    const tag = tags[start] as number;
    let i = start;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      const right = child + 1;
      if (right < n && (keys[right] as number) < (keys[child] as number)) child = right;
      const ck = keys[child] as number;
      if (ck >= key) break;
      keys[i] = ck;
      values[i] = values[child] as T;
      tags[i] = tags[child] as number;
      i = child;
    }
    keys[i] = key;
    values[i] = value;
    tags[i] = tag;
  }
}
