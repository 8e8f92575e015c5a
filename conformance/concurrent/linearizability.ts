/**
 * A linearizability checker for concurrent histories against any pure sequential model, in the
 * manner of Wing & Gong with Lowe's memoisation (the search Porcupine uses).
 *
 * The history becomes one list of events ordered by instant: each operation's call and, when it
 * returned, its return. The search walks that list from its start. At a call it tries to apply the
 * operation to the model state ("linearize" it here); when the model's reply is the observed one
 * (or the operation is indefinite, whose reply nobody saw), the operation's events are unlinked
 * from the list and the walk restarts at the front. At a return the walk is stuck: that operation
 * had to be linearized before anything invoked after its return, so the search backtracks to the
 * last choice and tries the next call after it. Calls are therefore tried in invoke order, and
 * only calls before the first pending return are candidates, which is real-time order.
 *
 * Memoisation: a pair (set of linearized operations, model state) reached twice has the same
 * futures, so it is explored once. The set is a bitset hashed incrementally (one random word per
 * operation, XORed in and out); the cache is keyed by the model's canonical key and that hash, and
 * a hit is confirmed by comparing the whole bitset, so no collision can prune a branch.
 *
 * Indefinite operations (no `returned`) have no return event, so they never block the walk: each
 * may be linearized at any point after its invoke, or never. The check is complete once every
 * returned operation is linearized.
 *
 * Three reductions keep wide rounds cheap, each sound on its own: returned operations are tried
 * before indefinite ones at each point; an indefinite operation that would leave the state as it
 * is, is not applied (leaving it out can do all that applying it can, as nothing waits for its
 * return); and, when the model gives the `stableWhenUnchanged` hint (SearchHints), a returned operation that fits and
 * leaves the state unchanged is placed where it first fits and nowhere else.
 *
 * The search keeps its own stack (no recursion), so its depth is bounded by memory, not by the
 * JavaScript call stack. Porcupine's partitioning into independent sub-histories is not used: the
 * objects checked here (a job store) are one indivisible object.
 */
import type { CheckBudget, CheckOutcome, History, Operation, SequentialModel, Witness } from './history.ts';

/** Stable codes of the errors thrown for a history that cannot be checked. */
export type HistoryErrorCode = 'invalid_history' | 'invalid_budget';

/** A history or budget that is not one (a duplicate id, a return before its invoke, ...). */
export class HistoryError extends Error {
  override name = 'HistoryError' as const;
  readonly code: HistoryErrorCode;
  constructor(code: HistoryErrorCode, message: string) {
    super(message);
    this.code = code;
  }
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
}

/** Model steps a check may take when the budget does not say. */
export const DEFAULT_MAX_STEPS = 2_000_000;
/** How many steps pass between two looks at the clock (reading it costs more than a step). */
const CLOCK_EVERY = 256;

const isInstant = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function validate<I, O>(history: History<I, O>): void {
  if (history === null || typeof history !== 'object' || !Array.isArray(history.operations)) {
    throw new HistoryError('invalid_history', `history: must be an object with an operations array (got ${typeof history})`);
  }
  const ids = new Set<number>();
  history.operations.forEach((op, i) => {
    if (op === null || typeof op !== 'object') throw new HistoryError('invalid_history', `operations[${i}]: must be an object (got ${String(op)})`);
    if (!Number.isSafeInteger(op.id)) throw new HistoryError('invalid_history', `operations[${i}].id: must be an integer (got ${String(op.id)})`);
    if (ids.has(op.id)) throw new HistoryError('invalid_history', `operations[${i}].id: ${op.id} is used by another operation`);
    ids.add(op.id);
    if (!isInstant(op.invoked)) throw new HistoryError('invalid_history', `operations[${i}].invoked: must be a finite number (got ${String(op.invoked)})`);
    if (op.returned === undefined) {
      if (op.output !== undefined) throw new HistoryError('invalid_history', `operations[${i}] (id ${op.id}): has an output but no returned instant`);
      return;
    }
    if (!isInstant(op.returned)) throw new HistoryError('invalid_history', `operations[${i}].returned: must be a finite number (got ${String(op.returned)})`);
    if (op.returned < op.invoked) {
      throw new HistoryError('invalid_history', `operations[${i}] (id ${op.id}): returned ${op.returned} is before invoked ${op.invoked}`);
    }
  });
}

function validateBudget(budget: CheckBudget): { maxSteps: number; timeoutMs: number | undefined } {
  const maxSteps = budget.maxSteps ?? DEFAULT_MAX_STEPS;
  if (!Number.isSafeInteger(maxSteps) || maxSteps < 0) throw new HistoryError('invalid_budget', `maxSteps: must be an integer >= 0 (got ${String(maxSteps)})`);
  const timeoutMs = budget.timeoutMs;
  if (timeoutMs !== undefined && !(typeof timeoutMs === 'number' && timeoutMs >= 0)) {
    throw new HistoryError('invalid_budget', `timeoutMs: must be a number >= 0 (got ${String(timeoutMs)})`);
  }
  return { maxSteps, timeoutMs };
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

/** The memo: per model key, per bitset hash, the bitsets already explored with that state. */
class Memo {
  private readonly seen = new Map<string, Map<number, Uint32Array[]>>();

  /** Records (bits, key) and returns true when it is new; false when it was explored before. */
  add(key: string, hash: number, bits: Uint32Array): boolean {
    let byHash = this.seen.get(key);
    if (byHash === undefined) {
      byHash = new Map();
      this.seen.set(key, byHash);
    }
    const list = byHash.get(hash);
    if (list === undefined) {
      byHash.set(hash, [bits.slice()]);
      return true;
    }
    outer: for (const other of list) {
      for (let w = 0; w < bits.length; w++) if (other[w] !== bits[w]) continue outer;
      return false;
    }
    list.push(bits.slice());
    return true;
  }
}

/**
 * Checks whether some order of the history's operations, consistent with real time, is a run of
 * the sequential model giving every observed reply. Indefinite operations may be placed anywhere
 * after their invoke, or left out. Returns `linearizable` with the order found (operation ids, the
 * indefinite ones left out omitted), `not_linearizable` with a witness, or `unknown` when the
 * budget ran out first. Throws HistoryError `invalid_history` for a malformed history. Pure (the
 * model's `step` must be too).
 */
export function checkLinearizability<S, I, O>(model: SequentialModel<S, I, O> & SearchHints<S, I, O>, history: History<I, O>, budget: CheckBudget = {}): CheckOutcome<O> {
  validate(history);
  const { maxSteps, timeoutMs } = validateBudget(budget);
  const deadline = timeoutMs === undefined ? Infinity : performance.now() + timeoutMs;
  const ops: readonly Operation<I, O>[] = history.operations;
  const n = ops.length;

  // Events 1..2n (0 is the list's head); a call sorts before a return at the same instant, since
  // equal instants do not order two operations in real time.
  const events: { op: number; ret: boolean; at: number }[] = [];
  for (let i = 0; i < n; i++) {
    const op = ops[i] as Operation<I, O>;
    events.push({ op: i, ret: false, at: op.invoked });
    if (op.returned !== undefined) events.push({ op: i, ret: true, at: op.returned });
  }
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
    next[prev[e] as number] = next[e] as number;
    prev[next[e] as number] = prev[e] as number;
  };
  const relink = (e: number): void => {
    next[prev[e] as number] = e;
    prev[next[e] as number] = e;
  };

  const words = Math.max(1, Math.ceil(n / 32));
  const bits = new Uint32Array(words);
  const random = zobrist(n);
  let hash = 0;
  const flip = (i: number): void => {
    bits[i >>> 5] = ((bits[i >>> 5] as number) ^ (1 << (i & 31))) >>> 0;
    hash ^= random[i] as number;
  };

  const memo = new Memo();
  const stackOp = new Int32Array(n);
  const stackState: S[] = [];
  let depth = 0;
  const longest = new Int32Array(n);
  let longestDepth = 0;
  let state = model.init();
  let steps = 0;
  let entry = next[0] as number;
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
      for (let d = 0; d < depth; d++) order.push((ops[stackOp[d] as number] as Operation<I, O>).id);
      return { verdict: 'linearizable', order, steps };
    }
    if (entry === END || isReturn[entry] === 1) {
      if (sweep === 0) {
        sweep = 1;
        entry = next[0] as number;
        continue;
      }
      // Stuck: no candidate fits here. Undo the last choice and try the one after it.
      if (depth === 0) break;
      depth--;
      const i = stackOp[depth] as number;
      state = stackState[depth] as S;
      stateKey = stackKey[depth] as string;
      stackState.length = depth;
      stackKey.length = depth;
      const r = returnOf[i] as number;
      if (r >= 0) {
        relink(r);
        pending++;
      }
      relink(callOf[i] as number);
      flip(i);
      if (forced[depth] === 1) {
        sweep = 1;
        entry = END;
        continue;
      }
      sweep = r >= 0 ? 0 : 1;
      entry = next[callOf[i] as number] as number;
      continue;
    }
    const i = eventOp[entry] as number;
    const op = ops[i] as Operation<I, O>;
    const definite = op.returned !== undefined;
    if (definite !== (sweep === 0) || (!definite && inert !== undefined && inert(state, op.input))) {
      entry = next[entry] as number;
      continue;
    }
    if (steps >= maxSteps) return { verdict: 'unknown', reason: 'max_steps', steps };
    if (steps % CLOCK_EVERY === 0 && performance.now() > deadline) return { verdict: 'unknown', reason: 'timeout', steps };
    steps++;
    const result = model.step(state, op.input);
    if (!definite || model.equal(result.output, op.output as O)) {
      const key = model.key(result.state);
      // An indefinite request that leaves the state as it was need not be applied: leaving it
      // out can do everything applying it can (nothing waits for its return).
      if (definite || key !== stateKey) {
        const only = definite && key === stateKey && stable !== undefined && stable(op.input, op.output as O);
        flip(i);
        if (memo.add(key, hash, bits)) {
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
          unlink(callOf[i] as number);
          const r = returnOf[i] as number;
          if (r >= 0) {
            unlink(r);
            pending--;
          }
          sweep = 0;
          entry = next[0] as number;
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
    entry = next[entry] as number;
  }
  return { verdict: 'not_linearizable', witness: witnessAt(model, ops, longest.subarray(0, longestDepth)), steps };
}

/**
 * The witness at the longest prefix: the model state after it, and every operation that could
 * come next in real time with the reply the model gives there. At the longest prefix none of them
 * fits (one that did would have made a longer prefix, or met a memo entry left by one).
 */
function witnessAt<S, I, O>(model: SequentialModel<S, I, O>, ops: readonly Operation<I, O>[], prefix: Int32Array): Witness<O> {
  let state = model.init();
  const done = new Uint8Array(ops.length);
  for (const i of prefix) {
    state = model.step(state, (ops[i] as Operation<I, O>).input).state;
    done[i] = 1;
  }
  let firstReturn = Infinity;
  ops.forEach((op, i) => {
    if (done[i] === 0 && op.returned !== undefined && op.returned < firstReturn) firstReturn = op.returned;
  });
  const stuck: { id: number; expected: O; observed: O | undefined }[] = [];
  const candidates = ops.map((op, i) => ({ op, i })).filter(({ op, i }) => done[i] === 0 && op.returned !== undefined && op.invoked <= firstReturn);
  candidates.sort((a, b) => a.op.invoked - b.op.invoked || a.op.id - b.op.id);
  for (const { op } of candidates) {
    const expected = model.step(state, op.input).output;
    if (!model.equal(expected, op.output as O)) stuck.push({ id: op.id, expected, observed: op.output });
  }
  return { longestOrder: [...prefix].map((i) => (ops[i] as Operation<I, O>).id), stuck };
}
