/**
 * The visited set of an exploration, kept compact as TLC keeps its own: a state is remembered by
 * a 64-bit fingerprint of its canonical key only (canonical.ts), in an open-addressing hash table
 * with linear probing, one Uint32Array holding each slot's two halves side by side (so that a
 * probe of a table far larger than the cache touches one line, not one in each of two arrays), plus, per state in discovery order, the state it was
 * first reached from and the index of the alphabet step that reached it (enough to rebuild the
 * shortest path to any state by replaying the model from the initial state).
 *
 * Memory: 8 bytes per slot at a load of at most 0.7 (11 to 23 bytes a state, depending on where
 * the table is in its doubling), plus 6 bytes a state for the path, against hundreds for a string
 * key in a Set. The price is the chance of a fingerprint collision, see collisionProbability.
 */

const MAX_LOAD = 0.7;

/** A set of 64-bit fingerprints with a dense index per member, and the tree of first discoveries. */
export class VisitedSet {
  /** Slot i holds a fingerprint's high half at 2i and its low half at 2i + 1; (0, 0) is an empty slot. */
  private table: Uint32Array;
  private mask: number;
  private count = 0;
  private parents = new Int32Array(1024);
  private steps = new Uint16Array(1024);

  constructor(initialSlots = 1 << 16) {
    let size = 1024;
    while (size < initialSlots) size *= 2;
    this.table = new Uint32Array(2 * size);
    this.mask = size - 1;
  }

  /** How many states are in the set. */
  get size(): number {
    return this.count;
  }

  /** Bytes held by the table and the path arrays. */
  get bytes(): number {
    return this.table.byteLength + this.parents.byteLength + this.steps.byteLength;
  }

  /**
   * Adds the fingerprint (hi, lo), first reached from state `parent` (-1 for the initial state) by
   * alphabet step `step`. Returns the new state's index, or -1 when it was there already.
   */
  add(hi: number, lo: number, parent: number, step: number): number {
    const table = this.table;
    let i = (lo ^ Math.imul(hi, 0x9e3779b1)) & this.mask;
    for (;;) {
      const h = table[2 * i] ?? 0;
      const l = table[2 * i + 1] ?? 0;
      if (h === 0 && l === 0) break;
      if (h === hi && l === lo) return -1;
      i = (i + 1) & this.mask;
    }
    const index = this.count++;
    table[2 * i] = hi;
    table[2 * i + 1] = lo;
    if (index >= this.parents.length) this.growPaths();
    this.parents[index] = parent;
    this.steps[index] = step;
    if (this.count > MAX_LOAD * (this.mask + 1)) this.rehash();
    return index;
  }

  /** Whether the fingerprint is in the set. */
  has(hi: number, lo: number): boolean {
    const table = this.table;
    let i = (lo ^ Math.imul(hi, 0x9e3779b1)) & this.mask;
    for (;;) {
      const h = table[2 * i] ?? 0;
      const l = table[2 * i + 1] ?? 0;
      if (h === 0 && l === 0) return false;
      if (h === hi && l === lo) return true;
      i = (i + 1) & this.mask;
    }
  }

  /** The alphabet-step indices from the initial state to state `index`, in order. */
  pathTo(index: number): number[] {
    const path: number[] = [];
    for (let i = index; i > 0; i = this.parents[i] ?? 0) path.push(this.steps[i] ?? 0);
    return path.reverse();
  }

  /** The depth of state `index` (0 for the initial state). */
  depthOf(index: number): number {
    let d = 0;
    for (let i = index; i > 0; i = this.parents[i] ?? 0) d++;
    return d;
  }

  private growPaths(): void {
    const parents = new Int32Array(this.parents.length * 2);
    parents.set(this.parents);
    this.parents = parents;
    const steps = new Uint16Array(this.steps.length * 2);
    steps.set(this.steps);
    this.steps = steps;
  }

  private rehash(): void {
    const old = this.table;
    const size = (this.mask + 1) * 2;
    const table = new Uint32Array(2 * size);
    const mask = size - 1;
    for (let j = 0; j < old.length; j += 2) {
      const h = old[j] ?? 0;
      const l = old[j + 1] ?? 0;
      if (h === 0 && l === 0) continue;
      let i = (l ^ Math.imul(h, 0x9e3779b1)) & mask;
      while ((table[2 * i] ?? 0) !== 0 || (table[2 * i + 1] ?? 0) !== 0) i = (i + 1) & mask;
      table[2 * i] = h;
      table[2 * i + 1] = l;
    }
    this.table = table;
    this.mask = mask;
  }
}
