/**
 * Canonical state keys, with symmetry reduction, and their 64-bit fingerprints.
 *
 * Two states are the same to the exploration when one becomes the other by renaming job ids,
 * accounts, operation keys and workers (each kind by a one-to-one map of its own). That is sound
 * because the contract never orders or compares these names other than for equality: jobs are
 * ordered by their admission number `seq`, claims choose among heads by `seq`, the clock advance
 * visits jobs by `seq`, the ledger is keyed by (account, key) equality, a delivery is matched by
 * token and owner equality. The only place names are sorted is the snapshot's layout, whose key
 * order carries no meaning (contract section 9). So renaming maps every run of the model onto a
 * run of the model with renamed commands and renamed replies: the renamed state has the same
 * futures, and satisfies the same invariants (none of which mentions a name).
 *
 * Tokens, seq and times are numbers that are compared and ordered: they are kept as they are.
 *
 * The canonical form renames by first occurrence in a fixed traversal, not by trying every
 * permutation: jobs in `seq` order (so a job's id is replaced by its position), and each job's
 * account, key and (when running) owner take the next free canonical index the first time they
 * are met. Effects and balances, which name accounts and keys but never introduce new ones, are
 * then sorted by their renamed names. Two states get the same form exactly when a renaming maps
 * one onto the other (the renaming is read off the traversal, and the traversal itself does not
 * depend on names).
 */
import { JOB_WORDS, J } from './codec.ts';

const MAX_POOL = 64;
const accountMap = new Int32Array(MAX_POOL);
const keyMap = new Int32Array(MAX_POOL);
const workerMap = new Int32Array(MAX_POOL);
const idPosition = new Int32Array(MAX_POOL);
const effectRows: number[][] = [];

/** The largest pool a canonical key supports. */
export const MAX_NAMES = MAX_POOL;

/**
 * Writes the canonical key of the record at `at` into `out` (from index 0) and returns its
 * length. With `symmetry` off, names are kept (the key is the state itself). Not reentrant: it
 * uses module scratch space.
 */
export function canonicalKey(data: Int32Array, at: number, symmetry: boolean, out: Int32Array): number {
  const g = (i: number): number => data[i] ?? 0;
  accountMap.fill(-1);
  keyMap.fill(-1);
  workerMap.fill(-1);
  let accounts = 0;
  let keys = 0;
  let workers = 0;
  const rename = (map: Int32Array, name: number, next: () => number): number => {
    if (!symmetry || name < 0) return name;
    const have = map[name] ?? -1;
    if (have >= 0) return have;
    const n = next();
    map[name] = n;
    return n;
  };
  const account = (name: number): number => rename(accountMap, name, () => accounts++);
  const key = (name: number): number => rename(keyMap, name, () => keys++);
  const worker = (name: number): number => rename(workerMap, name, () => workers++);
  let o = 0;
  out[o++] = g(at);
  out[o++] = g(at + 1);
  out[o++] = g(at + 2);
  const jobs = g(at + 3);
  out[o++] = jobs;
  let p = at + 4;
  for (let k = 0; k < jobs; k++, p += JOB_WORDS) {
    idPosition[g(p + J.id)] = k;
    if (!symmetry) out[o++] = g(p + J.id);
    out[o++] = account(g(p + J.account));
    out[o++] = key(g(p + J.key));
    out[o++] = g(p + J.amount);
    out[o++] = g(p + J.deadline);
    out[o++] = g(p + J.seq);
    out[o++] = g(p + J.status);
    out[o++] = g(p + J.attempts);
    out[o++] = g(p + J.token);
    out[o++] = worker(g(p + J.owner));
    out[o++] = g(p + J.leaseUntil);
    out[o++] = g(p + J.notBefore);
    out[o++] = g(p + J.reason);
    out[o++] = g(p + J.lastError);
    // J.history is not part of the state.
  }
  const effects = g(p++);
  out[o++] = effects;
  effectRows.length = 0;
  for (let k = 0; k < effects; k++, p += 5) {
    effectRows.push([
      account(g(p)),
      key(g(p + 1)),
      g(p + 2),
      symmetry ? (idPosition[g(p + 3)] ?? -1) : g(p + 3),
      g(p + 4),
    ]);
  }
  if (symmetry) effectRows.sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0) || (a[1] ?? 0) - (b[1] ?? 0));
  for (const row of effectRows) for (const v of row) out[o++] = v;
  const balances = g(p++);
  out[o++] = balances;
  const start = o;
  for (let k = 0; k < balances; k++, p += 2) {
    out[o++] = account(g(p));
    out[o++] = g(p + 1);
  }
  if (symmetry && balances > 1) {
    const pairs: [number, number][] = [];
    for (let k = start; k < o; k += 2) pairs.push([out[k] ?? 0, out[k + 1] ?? 0]);
    pairs.sort((a, b) => a[0] - b[0]);
    pairs.forEach(([a, v], i) => {
      out[start + 2 * i] = a;
      out[start + 2 * i + 1] = v;
    });
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
