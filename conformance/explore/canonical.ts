/**
 * Canonical state keys, with symmetry reduction, and their 64-bit fingerprints.
 *
 * Two states are the same to the exploration when one becomes the other by renaming job ids,
 * accounts, operation keys and workers (each kind by a one-to-one map of its own). That is sound
 * because the contract compares these names only for equality: jobs, claims and the clock advance
 * go by the admission number `seq`, the ledger is keyed by (account, key), a delivery is matched by
 * token and owner. Names are sorted only in the snapshot's layout, whose key order carries no
 * meaning (contract section 9). So a renamed state has the same futures and satisfies the same
 * invariants (none mentions a name). Tokens, seq and times are compared and ordered: kept as they are.
 *
 * The canonical form renames by first occurrence in a fixed traversal, not by trying every
 * permutation: jobs in `seq` order (a job's id becomes its position), and each job's account, key
 * and (when running) owner take the next free canonical index when first met. Effects and
 * balances, which never introduce names, are then sorted by their renamed names. Two states get
 * the same form exactly when a renaming maps one onto the other (the traversal does not depend on
 * names). Reads of the record use `data[i]!`: every index is within the record's layout.
 */
import { JOB_WORDS, J } from './codec.ts';

const MAX_POOL = 64;
const accountMap = new Int32Array(MAX_POOL);
const keyMap = new Int32Array(MAX_POOL);
const workerMap = new Int32Array(MAX_POOL);
const idPosition = new Int32Array(MAX_POOL);
/** Scratch rows of the effects (5 words each) while they are sorted; grown on demand. */
let effectRows = new Int32Array(5 * 16);

/** The largest pool a canonical key supports. */
export const MAX_NAMES = MAX_POOL;

/**
 * The canonical index of `name` in `map`, taking the next free index (`next`) the first time it is
 * met; -1 stays -1. The caller advances its counter when the result equals `next`.
 */
const renamed = (map: Int32Array, name: number, next: number): number => {
  if (name < 0) return name;
  const have = map[name]!;
  if (have >= 0) return have;
  map[name] = next;
  return next;
};

/**
 * Writes the canonical key of the record at `at` into `out` (from index 0) and returns its
 * length. With `symmetry` off, names are kept (the key is the state itself). Not reentrant: it
 * uses module scratch space. Written without closures or per-call arrays: it runs once per
 * transition of an exploration.
 */
export function canonicalKey(data: Int32Array, at: number, symmetry: boolean, out: Int32Array): number {
  if (symmetry) {
    accountMap.fill(-1);
    keyMap.fill(-1);
    workerMap.fill(-1);
  }
  let accounts = 0;
  let keys = 0;
  let workers = 0;
  let o = 0;
  out[o++] = data[at]!;
  out[o++] = data[at + 1]!;
  out[o++] = data[at + 2]!;
  const jobs = data[at + 3]!;
  out[o++] = jobs;
  let p = at + 4;
  for (let k = 0; k < jobs; k++, p += JOB_WORDS) {
    idPosition[data[p + J.id]!] = k;
    if (symmetry) {
      const a = renamed(accountMap, data[p + J.account]!, accounts);
      if (a === accounts) accounts++;
      out[o++] = a;
      const y = renamed(keyMap, data[p + J.key]!, keys);
      if (y === keys) keys++;
      out[o++] = y;
    } else {
      out[o++] = data[p + J.id]!;
      out[o++] = data[p + J.account]!;
      out[o++] = data[p + J.key]!;
    }
    out[o++] = data[p + J.amount]!;
    out[o++] = data[p + J.deadline]!;
    out[o++] = data[p + J.seq]!;
    out[o++] = data[p + J.status]!;
    out[o++] = data[p + J.attempts]!;
    out[o++] = data[p + J.token]!;
    if (symmetry) {
      const w = renamed(workerMap, data[p + J.owner]!, workers);
      if (w === workers) workers++;
      out[o++] = w;
    } else out[o++] = data[p + J.owner]!;
    out[o++] = data[p + J.leaseUntil]!;
    out[o++] = data[p + J.notBefore]!;
    out[o++] = data[p + J.reason]!;
    out[o++] = data[p + J.lastError]!;
    // J.history is not part of the state.
  }
  const effects = data[p++]!;
  out[o++] = effects;
  if (effectRows.length < 5 * effects) effectRows = new Int32Array(5 * effects * 2);
  const rows = effectRows;
  for (let k = 0; k < effects; k++, p += 5) {
    const r = 5 * k;
    if (symmetry) {
      const a = renamed(accountMap, data[p]!, accounts);
      if (a === accounts) accounts++;
      rows[r] = a;
      const y = renamed(keyMap, data[p + 1]!, keys);
      if (y === keys) keys++;
      rows[r + 1] = y;
      rows[r + 3] = idPosition[data[p + 3]!] ?? -1;
    } else {
      rows[r] = data[p]!;
      rows[r + 1] = data[p + 1]!;
      rows[r + 3] = data[p + 3]!;
    }
    rows[r + 2] = data[p + 2]!;
    rows[r + 4] = data[p + 4]!;
  }
  // With symmetry, the rows in (account, key) order: an insertion sort (a ledger holds a handful).
  if (symmetry) {
    for (let k = 1; k < effects; k++) {
      for (let m = k; m > 0; m--) {
        const a = 5 * (m - 1);
        const b = 5 * m;
        const before = rows[a]! - rows[b]! || rows[a + 1]! - rows[b + 1]!;
        if (before <= 0) break;
        for (let v = 0; v < 5; v++) {
          const t = rows[a + v]!;
          rows[a + v] = rows[b + v]!;
          rows[b + v] = t;
        }
      }
    }
  }
  for (let v = 0; v < 5 * effects; v++) out[o++] = rows[v]!;
  const balances = data[p++]!;
  out[o++] = balances;
  const start = o;
  for (let k = 0; k < balances; k++, p += 2) {
    if (symmetry) {
      const a = renamed(accountMap, data[p]!, accounts);
      if (a === accounts) accounts++;
      out[o++] = a;
    } else out[o++] = data[p]!;
    out[o++] = data[p + 1]!;
  }
  // With symmetry, the balances in account order (insertion sort of pairs).
  if (symmetry) {
    for (let k = 1; k < balances; k++) {
      for (let m = k; m > 0; m--) {
        const a = start + 2 * (m - 1);
        const b = start + 2 * m;
        if (out[a]! <= out[b]!) break;
        const t0 = out[a]!;
        const t1 = out[a + 1]!;
        out[a] = out[b]!;
        out[a + 1] = out[b + 1]!;
        out[b] = t0;
        out[b + 1] = t1;
      }
    }
  }
  return o;
}

/** The two 32-bit halves of the last fingerprint computed (avoids an allocation per state). */
export const fingerprintOut = new Uint32Array(2);

/**
 * The 64-bit fingerprint of `words[0..length)`, left in `fingerprintOut` as [hi, lo]: two
 * MurmurHash3-style 32-bit lanes with different seeds and constants, cross-mixed at the end.
 * Never (0, 0), which the visited set uses for an empty slot. Pure (but for its output array).
 */
export function fingerprint(words: Int32Array, length: number): void {
  let h1 = 0x9747b28c ^ length;
  let h2 = 0x1b873593 ^ Math.imul(length, 0x85ebca6b);
  for (let i = 0; i < length; i++) {
    const w = words[i] ?? 0;
    let k1 = Math.imul(w, 0xcc9e2d51);
    k1 = (k1 << 15) | (k1 >>> 17);
    k1 = Math.imul(k1, 0x1b873593);
    h1 ^= k1;
    h1 = (h1 << 13) | (h1 >>> 19);
    h1 = (Math.imul(h1, 5) + 0xe6546b64) | 0;
    let k2 = Math.imul(w ^ 0x5bd1e995, 0x85ebca6b);
    k2 = (k2 << 17) | (k2 >>> 15);
    k2 = Math.imul(k2, 0xc2b2ae35);
    h2 ^= k2;
    h2 = (h2 << 11) | (h2 >>> 21);
    h2 = (Math.imul(h2, 9) + 0x52dce729) | 0;
  }
  h1 = fmix(h1);
  h2 = fmix(h2);
  h1 = (h1 + h2) | 0;
  h2 = (h2 + h1) | 0;
  fingerprintOut[0] = h1 >>> 0;
  fingerprintOut[1] = h2 === 0 && h1 === 0 ? 1 : h2 >>> 0;
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

/**
 * The probability that some two of `n` distinct states share a fingerprint, for a fingerprint
 * that behaves as a uniformly random 64-bit value: about n(n-1)/2 / 2^64 (the birthday bound).
 * A collision would merge two states and leave the later one unexplored. Pure.
 */
export function collisionProbability(n: number): number {
  return Math.min(1, (n * (n - 1)) / 2 / 2 ** 64);
}
