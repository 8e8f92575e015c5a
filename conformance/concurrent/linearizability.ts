/**
 * A linearizability checker for concurrent histories against any pure sequential model, in the
 * manner of Wing & Gong with Lowe's memoisation (the search Porcupine uses).
 *
 * The history becomes one list of events ordered by instant: each operation's call and, if it
 * returned, its return. The walk tries a call by applying it to the model state; when the reply is
 * the observed one (or the operation is indefinite), its events are unlinked and the walk restarts
 * at the front. At a return the walk is stuck and backtracks to the last choice: only calls before
 * the first pending return are candidates, which is real-time order. Indefinite operations have no
 * return: each may be linearized anywhere after its invoke, or never. The search keeps its own stack.
 *
 * Invariants: a pair (linearized set, model state) is explored once, and a memo hit is confirmed on
 * the model key and the whole bitset, so no collision prunes a branch; each reduction (returned
 * operations first, no-op indefinite ones skipped, the `stableWhenUnchanged` hint) is sound on its
 * own; memory is part of the budget as steps and time are, so a hard history ends `unknown` with
 * reason `memory` and never takes the process down (see Memo and `search`).
 *
 * P-compositionality: a model with a `partitionKey` has its history split by that key and each
 * part checked apart (partition.ts). The job model has none: its jobs share capacity and the clock.
 */
import { CodedError } from '../../contract/CodedError.ts';
import { getHeapStatistics } from 'node:v8';
import type {
  CheckBudget,
  CheckOutcome,
  History,
  Operation,
  ReturnedOperation,
  SequentialModel,
  UnknownReason,
  Witness,
} from './history.ts';
import { mergeOrders, partitionHistory } from './partition.ts';

/** Stable codes of the errors thrown for a history that cannot be checked. */
export type HistoryErrorCode = 'invalid_history' | 'invalid_budget';

/** A history or budget that is not one (a duplicate id, a return before its invoke, ...). */
export class HistoryError extends CodedError<HistoryErrorCode> {
  override name = 'HistoryError' as const;
}

/**
 * Optional hints a model may give the checker, for speed (fields beside SequentialModel's). Leave
 * one out when unsure: a wrong `true` can hide a linearization.
 */
export interface SearchHints<S, I, O> {
  /**
   * Whether an operation with this input and observed reply, once it fits a state and leaves it
   * unchanged, also leaves unchanged every state reachable from there in which it fits (reads,
   * refusals and empty replies usually do). The checker then linearizes such an operation where
   * it first fits and tries it nowhere else: any order that places it later can place it there
   * instead, since moving an operation earlier among candidates never breaks real-time order.
   */
  stableWhenUnchanged?(input: I, output: O): boolean;
  /**
   * Whether `input` can change no state from `state` on (this one and every one reachable from
   * it), whatever it replies: a request whose time has passed. The checker then stops trying an
   * indefinite operation there, which would otherwise be tried, to no effect, at every point.
   */
  inertFrom?(state: S, input: I): boolean;
  /**
   * The independent object `input` touches (a register's key), when the model is a product of
   * objects that never affect one another and every input touches exactly one of them. The
   * checker then checks each object's sub-history apart and merges their orders (partition.ts).
   * Not a speed hint only: a key that splits objects which do share state can pass a history that
   * is not linearizable. The job model has none (capacity, tokens and the clock are shared).
   */
  partitionKey?(input: I): string;
}

/** A model with the hints it gives, if any. */
type HintedModel<S, I, O> = SequentialModel<S, I, O> & SearchHints<S, I, O>;

/** Model steps a check may take when the budget does not say. */
export const DEFAULT_MAX_STEPS = 2_000_000;
/** Bytes a check's search may hold when the budget does not say (unless a quarter of the heap's limit is less). */
export const DEFAULT_MAX_MEMORY_BYTES = 512 * 2 ** 20;

/**
 * The memory budget a check has in this process when its budget does not say: DEFAULT_MAX_MEMORY_BYTES,
 * or a quarter of the JavaScript heap's limit when that is less (a process started with a small
 * `--max-old-space-size`). The same for every check in one process.
 */
export function defaultMaxMemoryBytes(): number {
  return Math.min(DEFAULT_MAX_MEMORY_BYTES, Math.floor(getHeapStatistics().heap_size_limit / 4));
}

/** How many steps pass between two looks at the clock (reading it costs more than a step). */
const CLOCK_EVERY = 256;
/** How many steps, or counted bytes, pass between two looks at the heap (a look costs about 2 µs). */
const HEAP_EVERY_STEPS = 4096;
const HEAP_EVERY_BYTES = 16 * 2 ** 20;
/** The share of the heap's limit past which a search stops, whatever its own count says. */
const HEAP_NEARLY_FULL = 0.85;

function heapNearlyFull(): boolean {
  const heap = getHeapStatistics();
  return heap.used_heap_size > HEAP_NEARLY_FULL * heap.heap_size_limit;
}

const isInstant = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function validate<I, O>(history: History<I, O>): void {
  if (history === null || typeof history !== 'object' || !Array.isArray(history.operations)) {
    throw new HistoryError(
      'invalid_history',
      `history: must be an object with an operations array (got ${typeof history})`,
    );
  }
  const ids = new Set<number>();
  history.operations.forEach((op, i) => {
    if (op === null || typeof op !== 'object')
      throw new HistoryError('invalid_history', `operations[${i}]: must be an object (got ${String(op)})`);
    if (!Number.isSafeInteger(op.id))
      throw new HistoryError('invalid_history', `operations[${i}].id: must be an integer (got ${String(op.id)})`);
    if (ids.has(op.id))
      throw new HistoryError('invalid_history', `operations[${i}].id: ${op.id} is used by another operation`);
    ids.add(op.id);
    if (!isInstant(op.invoked))
      throw new HistoryError(
        'invalid_history',
        `operations[${i}].invoked: must be a finite number (got ${String(op.invoked)})`,
      );
    if (op.returned === undefined) {
      if (op.output !== undefined)
        throw new HistoryError(
          'invalid_history',
          `operations[${i}] (id ${op.id}): has an output but no returned instant`,
        );
      return;
    }
    if (!isInstant(op.returned))
      throw new HistoryError(
        'invalid_history',
        `operations[${i}].returned: must be a finite number (got ${String(op.returned)})`,
      );
    if (op.returned < op.invoked) {
      throw new HistoryError(
        'invalid_history',
        `operations[${i}] (id ${op.id}): returned ${op.returned} is before invoked ${op.invoked}`,
      );
    }
  });
}

/** What a search may spend: steps, until when (performance.now()), and bytes. */
interface Limits {
  readonly maxSteps: number;
  readonly deadline: number;
  readonly maxBytes: number;
}

function validateBudget(budget: CheckBudget): Limits {
  const maxSteps = budget.maxSteps ?? DEFAULT_MAX_STEPS;
  if (!Number.isSafeInteger(maxSteps) || maxSteps < 0)
    throw new HistoryError('invalid_budget', `maxSteps: must be an integer >= 0 (got ${String(maxSteps)})`);
  const timeoutMs = budget.timeoutMs;
  if (timeoutMs !== undefined && !(typeof timeoutMs === 'number' && timeoutMs >= 0)) {
    throw new HistoryError('invalid_budget', `timeoutMs: must be a number >= 0 (got ${String(timeoutMs)})`);
  }
  const maxBytes = budget.maxMemoryBytes ?? defaultMaxMemoryBytes();
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
    throw new HistoryError('invalid_budget', `maxMemoryBytes: must be an integer >= 0 (got ${String(maxBytes)})`);
  }
  return { maxSteps, deadline: timeoutMs === undefined ? Infinity : performance.now() + timeoutMs, maxBytes };
}

/** One random-looking 32-bit word per operation index (splitmix32), fixed so runs are repeatable. */
function zobrist(n: number): Int32Array {
  const out = new Int32Array(n);
  let x = 0x2545f491;
  for (let i = 0; i < n; i++) {
    x = (x + 0x9e3779b9) | 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    out[i] = z ^ (z >>> 16);
  }
  return out;
}

/** Bytes counted for a model key the memo holds: two a character, and its entry in the key map. */
const keyBytes = (key: string): number => 2 * key.length + 64;
/** Bytes counted for a frame of the search's stack: the state, estimated by its key's length, and the frame's slots. */
const frameBytes = (key: string): number => key.length + 64;
/** Bytes counted for each operation of a history searched: its two events (an object each) and its slots in the search's arrays. */
const OPERATION_BYTES = 160;
/** Distinct model keys a memo may hold (a JavaScript Map holds at most 2^24 entries). */
const MAX_KEYS = 16_000_000;
/** Words of a memo entry before its bitset: the model key's id, the bitset's hash, the next entry of the chain + 1. */
const HEAD = 3;
/** Entries (and table slots) a memo starts with, doubled as it fills. */
const FIRST_ENTRIES = 64;

/** What Memo.add found: the pair was explored before, it is new (and now recorded), or recording it would pass the budget. */
const SEEN = 0;
const ADDED = 1;
const FULL = 2;

/** A bucket of the hash table for a bitset hash and a key id. */
function mix(hash: number, id: number): number {
  let h = (hash ^ Math.imul(id + 1, 0x9e3779b1)) | 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * The memo: the pairs (bitset, model key) already explored, in one flat array of entries chained
 * from an open hash table, with a count of the bytes it holds. A hit is confirmed on the key id
 * and the whole bitset, so no collision can prune a branch. The linearized set is a bitset hashed
 * incrementally (one random word per operation, XORed in and out); each distinct model key is
 * numbered. An entry (key id, bitset hash, chain link, bitset) costs 4 bytes a word of its bitset
 * plus 16; both arrays double when full.
 */
class Memo {
  /** Bytes held, as counted: both arrays, and every distinct key. */
  bytes: number;
  private readonly ids = new Map<string, number>();
  private readonly stride: number;
  private entries: Uint32Array;
  private table: Uint32Array;
  private count = 0;

  constructor(private readonly words: number) {
    this.stride = words + HEAD;
    this.entries = new Uint32Array(FIRST_ENTRIES * this.stride);
    this.table = new Uint32Array(FIRST_ENTRIES);
    this.bytes = this.entries.byteLength + this.table.byteLength;
  }

  /**
   * Records (bits, key) unless it was explored before. `room` is the most bytes the memo may hold
   * once it is recorded, counting, while an array grows, both the old array and its double.
   */
  add(key: string, hash: number, bits: Uint32Array, room: number): typeof SEEN | typeof ADDED | typeof FULL {
    const known = this.ids.get(key);
    const id = known ?? this.ids.size;
    const h = hash >>> 0;
    const { stride, words } = this;
    if (known !== undefined) {
      const entries = this.entries;
      for (let e = this.table[mix(h, id) & (this.table.length - 1)]!; e !== 0; e = entries[(e - 1) * stride + 2]!) {
        const base = (e - 1) * stride;
        if (entries[base] !== id || entries[base + 1] !== h) continue;
        let w = 0;
        while (w < words && entries[base + HEAD + w] === bits[w]) w++;
        if (w === words) return SEEN;
      }
    } else if (this.ids.size >= MAX_KEYS) return FULL;
    const growEntries = (this.count + 1) * stride > this.entries.length;
    const growTable = this.count + 1 > this.table.length;
    const newKey = known === undefined ? keyBytes(key) : 0;
    const peak =
      this.bytes +
      newKey +
      (growEntries ? 2 * this.entries.byteLength : 0) +
      (growTable ? 2 * this.table.byteLength : 0);
    if (peak > room) return FULL;
    try {
      if (growEntries) this.growEntries();
      if (growTable) this.growTable();
    } catch (e) {
      if (e instanceof RangeError) return FULL; // an array longer than the engine allows
      throw e;
    }
    if (known === undefined) {
      this.ids.set(key, id);
      this.bytes += newKey;
    }
    const e = this.count++;
    const base = e * stride;
    const slot = mix(h, id) & (this.table.length - 1);
    this.entries[base] = id;
    this.entries[base + 1] = h;
    this.entries[base + 2] = this.table[slot]!;
    this.entries.set(bits, base + HEAD);
    this.table[slot] = e + 1;
    return ADDED;
  }

  private growEntries(): void {
    const bigger = new Uint32Array(this.entries.length * 2);
    bigger.set(this.entries);
    this.bytes += bigger.byteLength - this.entries.byteLength;
    this.entries = bigger;
  }

  private growTable(): void {
    const table = new Uint32Array(this.table.length * 2);
    const mask = table.length - 1;
    const { entries, stride } = this;
    for (let e = 0; e < this.count; e++) {
      const base = e * stride;
      const slot = mix(entries[base + 1]!, entries[base]!) & mask;
      entries[base + 2] = table[slot]!;
      table[slot] = e + 1;
    }
    this.bytes += table.byteLength - this.table.byteLength;
    this.table = table;
  }
}

/**
 * Checks whether some order of the history's operations, consistent with real time, is a run of
 * the sequential model giving every observed reply. Indefinite operations may be placed anywhere
 * after their invoke, or left out. Returns `linearizable` with the order found (operation ids, the
 * indefinite ones left out omitted), `not_linearizable` with a witness, or `unknown` when the
 * budget (steps, time or memory) ran out first. A model with a `partitionKey` has each part of
 * the history checked apart: a failing part's witness is the answer; otherwise any part left
 * undecided makes the whole `unknown` (with the first such part's reason), and when every part
 * passes their orders are merged into one. Throws HistoryError `invalid_history` for a malformed
 * history, `invalid_budget` for a malformed budget. Pure (the model's `step` must be too), but
 * for the looks at the clock and the heap that end a search `unknown`.
 */
export function checkLinearizability<S, I, O>(
  model: SequentialModel<S, I, O> & SearchHints<S, I, O>,
  history: History<I, O>,
  budget: CheckBudget = {},
): CheckOutcome<O> {
  validate(history);
  const limits = validateBudget(budget);
  const keyOf = model.partitionKey?.bind(model);
  const parts = keyOf === undefined ? [] : partitionHistory(history, keyOf);
  if (parts.length <= 1) return search(model, history.operations, limits);
  // Smallest parts first: a failure there is found for little, before a hard part spends the budget.
  const byLength = parts
    .map((part, p) => ({ operations: part.operations, p }))
    .sort((a, b) => a.operations.length - b.operations.length || a.p - b.p);
  const orders: (readonly number[])[] = parts.map(() => []);
  let steps = 0;
  let undecided: UnknownReason | undefined;
  for (const { operations, p } of byLength) {
    const outcome = search(model, operations, {
      ...limits,
      maxSteps: limits.maxSteps - steps,
    });
    steps += outcome.steps;
    switch (outcome.verdict) {
      case 'not_linearizable':
        return { verdict: 'not_linearizable', witness: outcome.witness, steps };
      case 'unknown':
        undecided ??= outcome.reason;
        break;
      case 'linearizable':
        orders[p] = outcome.order;
        break;
    }
  }
  if (undecided !== undefined) return { verdict: 'unknown', reason: undecided, steps };
  return { verdict: 'linearizable', order: mergeOrders(parts, orders), steps };
}

/**
 * The search of one history (validated) within its limits. Three reductions, each sound on its
 * own: returned operations are tried before indefinite ones at each point; an indefinite operation
 * that would leave the state as it is, is not applied (leaving it out can do all that applying it
 * can); and with the `stableWhenUnchanged` hint a returned operation that fits and leaves the state
 * unchanged is placed where it first fits and nowhere else. Memory: the search counts the memo's
 * arrays (both while one is copied into its double), each distinct key at two bytes a character,
 * each stack frame at its state's key length, and a fixed share an operation, and stops with
 * reason `memory` before the count passes `maxBytes`; as the count is an estimate, it also looks
 * at the heap every few thousand steps and stops when the heap is nearly full.
 */
function search<S, I, O>(
  model: HintedModel<S, I, O>,
  ops: readonly Operation<I, O>[],
  limits: Limits,
): CheckOutcome<O> {
  const { maxSteps, deadline, maxBytes } = limits;
  const n = ops.length;

  // Events 1..2n (0 is the list's head); a call sorts before a return at the same instant, since
  // equal instants do not order two operations in real time.
  const events: { op: number; ret: boolean; at: number }[] = [];
  ops.forEach((op, i) => {
    events.push({ op: i, ret: false, at: op.invoked });
    if (op.returned !== undefined) events.push({ op: i, ret: true, at: op.returned });
  });
  events.sort((a, b) => a.at - b.at || Number(a.ret) - Number(b.ret) || a.op - b.op);
  const size = events.length + 2;
  const END = size - 1;
  const next = new Int32Array(size);
  const prev = new Int32Array(size);
  const eventOp = new Int32Array(size);
  const isReturn = new Uint8Array(size);
  const callOf = new Int32Array(n);
  const returnOf = new Int32Array(n).fill(-1);
  for (let e = 0; e < size; e++) {
    next[e] = e + 1;
    prev[e] = e - 1;
  }
  events.forEach((ev, k) => {
    const e = k + 1;
    eventOp[e] = ev.op;
    isReturn[e] = ev.ret ? 1 : 0;
    if (ev.ret) returnOf[ev.op] = e;
    else callOf[ev.op] = e;
  });
  const unlink = (e: number): void => {
    next[prev[e]!] = next[e]!;
    prev[next[e]!] = prev[e]!;
  };
  const relink = (e: number): void => {
    next[prev[e]!] = e;
    prev[next[e]!] = e;
  };

  const words = Math.max(1, Math.ceil(n / 32));
  const bits = new Uint32Array(words);
  const random = zobrist(n);
  let hash = 0;
  const flip = (i: number): void => {
    bits[i >>> 5] = (bits[i >>> 5]! ^ (1 << (i & 31))) >>> 0;
    hash ^= random[i]!;
  };

  const memo = new Memo(words);
  // Bytes held beside the memo, as counted: the event list and the per-operation arrays, then
  // the stack's frames (frameBytes); the memo counts its own.
  let heldBytes = OPERATION_BYTES * n;
  let nextHeapLook = HEAP_EVERY_BYTES;
  const stackOp = new Int32Array(n);
  const stackState: S[] = [];
  let depth = 0;
  const longest = new Int32Array(n);
  let longestDepth = 0;
  let state = model.init();
  let steps = 0;
  const outOfMemory = (): CheckOutcome<O> => ({ verdict: 'unknown', reason: 'memory', steps });
  let entry = next[0]!;
  // Returned operations not yet linearized; at zero the check is complete (indefinite ones left
  // over never took effect, which is the same as taking effect after everything else).
  let pending = 0;
  for (const op of ops) if (op.returned !== undefined) pending++;

  // Each window of candidates (the calls before the first pending return) is swept twice: first
  // for returned operations, then for indefinite ones. Trying the ones that must be placed first
  // keeps an indefinite request that never took effect from being tried, and refuted far
  // downstream, at every position; one that did take effect is found when its effect is first
  // seen, which is usually soon.
  let sweep: 0 | 1 = 0;
  let stateKey = model.key(state);
  const stackKey: string[] = [];
  // A frame pushed for a stable no-op has no alternatives: when it is undone, its level is done.
  const forced = new Uint8Array(n);
  const stable = model.stableWhenUnchanged?.bind(model);
  const inert = model.inertFrom?.bind(model);

  for (;;) {
    if (pending === 0) {
      const order: number[] = [];
      for (const i of stackOp.subarray(0, depth)) order.push(ops[i]!.id);
      return { verdict: 'linearizable', order, steps };
    }
    if (entry === END || isReturn[entry] === 1) {
      if (sweep === 0) {
        sweep = 1;
        entry = next[0]!;
        continue;
      }
      // Stuck: no candidate fits here. Undo the last choice and try the one after it.
      if (depth === 0) break;
      depth--;
      const i = stackOp[depth]!;
      state = stackState[depth]!;
      stateKey = stackKey[depth]!;
      heldBytes -= frameBytes(stateKey);
      stackState.length = depth;
      stackKey.length = depth;
      const r = returnOf[i]!;
      if (r >= 0) {
        relink(r);
        pending++;
      }
      relink(callOf[i]!);
      flip(i);
      if (forced[depth] === 1) {
        sweep = 1;
        entry = END;
        continue;
      }
      sweep = r >= 0 ? 0 : 1;
      entry = next[callOf[i]!]!;
      continue;
    }
    const i = eventOp[entry]!;
    const op = ops[i]!;
    const definite = op.returned !== undefined;
    if (definite !== (sweep === 0) || (!definite && inert !== undefined && inert(state, op.input))) {
      entry = next[entry]!;
      continue;
    }
    if (steps >= maxSteps) return { verdict: 'unknown', reason: 'max_steps', steps };
    if (steps % CLOCK_EVERY === 0) {
      if (performance.now() > deadline) return { verdict: 'unknown', reason: 'timeout', steps };
      if (steps % HEAP_EVERY_STEPS === 0 && steps > 0 && heapNearlyFull()) return outOfMemory();
    }
    steps++;
    const result = model.step(state, op.input);
    if (!definite || model.equal(result.output, op.output)) {
      const key = model.key(result.state);
      // An indefinite request that leaves the state as it was need not be applied: leaving it
      // out can do everything applying it can (nothing waits for its return).
      if (definite || key !== stateKey) {
        const only = definite && key === stateKey && stable?.(op.input, op.output) === true;
        flip(i);
        const frame = frameBytes(stateKey);
        const added = memo.add(key, hash, bits, maxBytes - heldBytes - frame);
        if (added === FULL) return outOfMemory();
        if (added === ADDED) {
          heldBytes += frame;
          if (memo.bytes + heldBytes >= nextHeapLook) {
            if (heapNearlyFull()) return outOfMemory();
            nextHeapLook = memo.bytes + heldBytes + HEAP_EVERY_BYTES;
          }
          forced[depth] = only ? 1 : 0;
          stackOp[depth] = i;
          stackState[depth] = state;
          stackKey[depth] = stateKey;
          depth++;
          if (depth > longestDepth) {
            longest.set(stackOp.subarray(0, depth));
            longestDepth = depth;
          }
          state = result.state;
          stateKey = key;
          unlink(callOf[i]!);
          const r = returnOf[i]!;
          if (r >= 0) {
            unlink(r);
            pending--;
          }
          sweep = 0;
          entry = next[0]!;
          continue;
        }
        flip(i);
        if (only) {
          // Explored before from here with it placed, and failed: so does every order from here.
          sweep = 1;
          entry = END;
          continue;
        }
      }
    }
    entry = next[entry]!;
  }
  return { verdict: 'not_linearizable', witness: witnessAt(model, ops, longest.subarray(0, longestDepth)), steps };
}

/**
 * The witness at the longest prefix: the model state after it, and every operation that could
 * come next in real time with the reply the model gives there. At the longest prefix none of them
 * fits (one that did would have made a longer prefix, or met a memo entry left by one).
 */
function witnessAt<S, I, O>(
  model: SequentialModel<S, I, O>,
  ops: readonly Operation<I, O>[],
  prefix: Int32Array,
): Witness<O> {
  let state = model.init();
  const done = new Uint8Array(ops.length);
  for (const i of prefix) {
    state = model.step(state, ops[i]!.input).state;
    done[i] = 1;
  }
  let firstReturn = Infinity;
  ops.forEach((op, i) => {
    if (done[i] === 0 && op.returned !== undefined && op.returned < firstReturn) firstReturn = op.returned;
  });
  const stuck: { id: number; expected: O; observed: O | undefined }[] = [];
  const candidates: ReturnedOperation<I, O>[] = [];
  ops.forEach((op, i) => {
    if (done[i] === 0 && op.returned !== undefined && op.invoked <= firstReturn) candidates.push(op);
  });
  candidates.sort((a, b) => a.invoked - b.invoked || a.id - b.id);
  for (const op of candidates) {
    const expected = model.step(state, op.input).output;
    if (!model.equal(expected, op.output)) stuck.push({ id: op.id, expected, observed: op.output });
  }
  return { longestOrder: [...prefix].map((i) => ops[i]!.id), stuck };
}
