/**
 * What the audit keeps of every job it has released and every effect it has seen applied, once
 * their operations are gone: a 64-bit fingerprint of a string in an open-addressing table of
 * typed arrays (8 bytes a slot, at most three quarters full; an effect also keeps the line and
 * the file of its first application, 6 more bytes). It is the one record that grows with the
 * history's length (a job at a time, never an operation), and it has a declared budget of
 * entries: `add` answers `full` instead of growing past it.
 *
 * A hit is a hint, not a proof: two strings can share a fingerprint (about n² / 2⁶⁵ for n
 * entries), so a caller may only draw from it a conclusion that is never a pass (a gap, an
 * INCONCLUSIVE finding).
 */

/** Two independent 32-bit FNV-1a hashes of a string (different offsets and a mixed second pass). Pure. */
export function fingerprint(text: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  // Never both zero: (0, 0) marks an empty slot.
  return [a >>> 0, (b | (a === 0 ? 1 : 0)) >>> 0];
}

/** Where an entry was first recorded, when the table keeps it. */
export interface FirstSeen {
  readonly file: number;
  readonly line: number;
}

/** A set of fingerprints, optionally with where each was first seen. */
export class FingerprintSet {
  private hi: Uint32Array;
  private lo: Uint32Array;
  private file: Uint16Array | undefined;
  private line: Uint32Array | undefined;
  private count = 0;

  /** `maxEntries`: the budget; `withPlace`: whether each entry keeps its file and line. */
  constructor(
    readonly maxEntries: number,
    private readonly withPlace = false,
    slots = 1024,
  ) {
    this.hi = new Uint32Array(slots);
    this.lo = new Uint32Array(slots);
    this.file = withPlace ? new Uint16Array(slots) : undefined;
    this.line = withPlace ? new Uint32Array(slots) : undefined;
  }

  /** Entries held. */
  get size(): number {
    return this.count;
  }

  /** Bytes its arrays take. */
  get bytes(): number {
    return this.hi.length * (this.withPlace ? 14 : 8);
  }

  private slot(a: number, b: number): number {
    const mask = this.hi.length - 1;
    let i = (a ^ Math.imul(b, 0x9e3779b1)) & mask;
    while (this.hi[i] !== 0 || this.lo[i] !== 0) {
      if (this.hi[i] === a && this.lo[i] === b) return i;
      i = (i + 1) & mask;
    }
    return i;
  }

  /** Where `text` was first recorded (`{file: 0, line: 0}` without places), or undefined if never. */
  has(text: string): FirstSeen | undefined {
    const [a, b] = fingerprint(text);
    const i = this.slot(a, b);
    if (this.hi[i] === 0 && this.lo[i] === 0) return undefined;
    return { file: this.file?.[i] ?? 0, line: this.line?.[i] ?? 0 };
  }

  /** Records `text`: `added`, `present` (with where it was first seen), or `full` (the budget reached). */
  add(text: string, place: FirstSeen = { file: 0, line: 0 }): 'added' | 'full' | FirstSeen {
    const [a, b] = fingerprint(text);
    let i = this.slot(a, b);
    if (this.hi[i] !== 0 || this.lo[i] !== 0) return { file: this.file?.[i] ?? 0, line: this.line?.[i] ?? 0 };
    if (this.count >= this.maxEntries) return 'full';
    if ((this.count + 1) * 4 > this.hi.length * 3) {
      this.grow();
      i = this.slot(a, b);
    }
    this.hi[i] = a;
    this.lo[i] = b;
    if (this.file !== undefined) this.file[i] = place.file;
    if (this.line !== undefined) this.line[i] = place.line;
    this.count++;
    return 'added';
  }

  private grow(): void {
    const { hi, lo, file, line } = this;
    const slots = hi.length * 2;
    this.hi = new Uint32Array(slots);
    this.lo = new Uint32Array(slots);
    this.file = file === undefined ? undefined : new Uint16Array(slots);
    this.line = line === undefined ? undefined : new Uint32Array(slots);
    for (let j = 0; j < hi.length; j++) {
      const a = hi[j] as number;
      const b = lo[j] as number;
      if (a === 0 && b === 0) continue;
      const i = this.slot(a, b);
      this.hi[i] = a;
      this.lo[i] = b;
      if (this.file !== undefined) this.file[i] = file?.[j] ?? 0;
      if (this.line !== undefined) this.line[i] = line?.[j] ?? 0;
    }
  }
}
