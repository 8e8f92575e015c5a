/**
 * Memory of the codec (codec.ts) for one exploration: the model values of the record words it has
 * decoded, and the words of those values, so that a job, a ledger or a set of balances seen before
 * is neither rebuilt nor re-encoded. (Values the step made anew are not kept: each belongs to one
 * successor, and a state reached again is decoded into the values of these tables.)
 *
 * Why it is sound: model states are immutable values (model/step.ts: `step` never mutates the
 * state it is given), so a job snapshot, a ledger map or a balances map may be shared by every
 * state that holds the same value, and the words of a value never change once computed. A
 * scope has few distinct jobs and ledgers (a few thousand at most) against millions of states,
 * and successors share most of their parts with the state they came from: the step keeps the
 * same objects for the jobs and maps it does not touch, which the encode side recognises by
 * identity (WeakMap, so nothing is kept alive that the exploration dropped).
 */
import type { EffectRecord } from '../../contract/index.ts';
import type { JobSnapshot } from '../../model/index.ts';

/** A decoded value and the words it was decoded from. */
interface Entry<T> {
  readonly words: Int32Array;
  readonly value: T;
}

/** A hash of `length` words of `data` from `at` (for the decode tables). Pure. */
export function hashWords(data: Int32Array, at: number, length: number): number {
  let h = 0x811c9dc5 ^ length;
  for (let i = 0; i < length; i++) {
    h = Math.imul(h ^ (data[at + i] as number), 0x01000193);
    h ^= h >>> 15;
  }
  return h;
}

/** A table from words to the value they decode to. */
export class DecodeTable<T> {
  private readonly buckets = new Map<number, Entry<T>[]>();

  /** The value cached for `length` words of `data` from `at`, or undefined. */
  get(data: Int32Array, at: number, length: number, hash: number): T | undefined {
    const bucket = this.buckets.get(hash);
    if (bucket === undefined) return undefined;
    for (const e of bucket) {
      if (e.words.length !== length) continue;
      let same = true;
      for (let i = 0; i < length; i++) {
        if (e.words[i] !== data[at + i]) {
          same = false;
          break;
        }
      }
      if (same) return e.value;
    }
    return undefined;
  }

  /** Remembers `value` for `length` words of `data` from `at`; returns the copy of the words kept. */
  set(data: Int32Array, at: number, length: number, hash: number, value: T): Int32Array {
    const words = data.slice(at, at + length);
    const bucket = this.buckets.get(hash);
    if (bucket === undefined) this.buckets.set(hash, [{ words, value }]);
    else bucket.push({ words, value });
    return words;
  }
}

/** What the codec remembers within one exploration (one config and scope: the policy and names are fixed). */
export class CodecCache {
  /** A decoded job's words (all but its history) by its snapshot. */
  readonly jobWords = new WeakMap<JobSnapshot, Int32Array>();
  /** The ledger section's words (count first) by the effects map. */
  readonly effectWords = new WeakMap<object, Int32Array>();
  /** The balances section's words (count first) by the balances map. */
  readonly balanceWords = new WeakMap<object, Int32Array>();
  /** Job snapshots by their words (all but the history). */
  readonly jobs = new DecodeTable<JobSnapshot>();
  /** Effects maps by their section's words. */
  readonly effects = new DecodeTable<ReadonlyMap<string, ReadonlyMap<string, EffectRecord>>>();
  /** Balances maps by their section's words. */
  readonly balances = new DecodeTable<ReadonlyMap<string, number>>();
}
