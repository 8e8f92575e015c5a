/**
 * Coverage of an exploration, counted into typed arrays on the hot path and handed to
 * coverage.ts's CoverageRecorder at the end, so that an exploration fills the same report
 * (coverage.json, .md, .html) as the path suite and the campaign.
 *
 * Every explored transition counts: its rejection code, and each lifecycle transition of its
 * trace with the state it enters. Pairs and path classes need a job's history, which a state does
 * not hold (two paths may reach one state); the frontier record carries, per job, the history
 * along the path that first reached the state (its last transition and its first PATH_BOUND
 * ones, one word, see codec.ts), so every pair and path class counted is one a real run from the
 * initial state takes. A path class is counted each time a job's history grows while shorter
 * than PATH_BOUND, and at admission (a run may end at any of those points).
 */
import { REJECTION_CODES } from '../../contract/index.ts';
import type { JobStep } from '../../model/index.ts';
import { lifecycleTransitions, transitionOf } from '../../model/index.ts';
import { ADMITTED_ONLY, CoverageRecorder, PATH_BOUND, shortName } from '../coverage/coverage.ts';
import type { Coverage } from '../coverage/coverage.ts';

const TRANSITIONS = lifecycleTransitions();
const SEP = ' >> ';
/** Transition indices by from, event, to and reason (nested maps: no key string is built per step). */
const TRANSITION_INDEX = new Map<string, Map<string, Map<string, Map<string, number>>>>();

/** The map of `key` in `map`, made when missing. */
function inner<V>(map: Map<string, V>, key: string, make: () => V): V {
  let v = map.get(key);
  if (v === undefined) {
    v = make();
    map.set(key, v);
  }
  return v;
}

/** The index (in lifecycleTransitions order) of the transition a job step took. Pure (it memoises). */
export function transitionIndex(step: JobStep): number {
  const byTo = inner(
    inner(TRANSITION_INDEX, step.from, () => new Map()),
    step.event,
    () => new Map(),
  );
  const byReason = inner(byTo, step.to, () => new Map<string, number>());
  const reason = step.reason ?? '';
  let i = byReason.get(reason);
  if (i === undefined) {
    i = TRANSITIONS.indexOf(transitionOf(step));
    byReason.set(reason, i);
  }
  return i;
}

// History word: bits 0-4 last transition + 1 (0: none), bits 5-7 prefix length, then 4 bits a transition.
/** The history word after a job takes transition `t`. Pure. */
export function extendHistory(history: number, t: number): number {
  const length = (history >>> 5) & 7;
  let next = (history & ~31) | (t + 1);
  if (length < PATH_BOUND) next = (next & ~(7 << 5)) | ((length + 1) << 5) | (t << (8 + 4 * length));
  return next;
}

const historyLast = (h: number): number => (h & 31) - 1;
const historyLength = (h: number): number => (h >>> 5) & 7;

/** Counters of one exploration (or of one worker's share of it); plain numbers, mergeable. */
export class ExploreCoverage {
  readonly transitions = new Float64Array(TRANSITIONS.length);
  readonly pairs = new Float64Array(TRANSITIONS.length * TRANSITIONS.length);
  readonly rejections = new Float64Array(REJECTION_CODES.length);
  readonly admitted = new Float64Array(1);
  /** Path classes by their history word (length and prefix bits). */
  readonly paths = new Map<number, number>();
  steps = 0;

  /** Counts a rejection code. */
  rejection(code: string): void {
    const i = REJECTION_CODES.indexOf(code as (typeof REJECTION_CODES)[number]);
    if (i >= 0) this.rejections[i]! += 1;
  }

  /** Counts an admission (the job enters `ready`; the path class of a job with no transition yet). */
  admission(): void {
    this.admitted[0]! += 1;
    this.paths.set(0, (this.paths.get(0) ?? 0) + 1);
  }

  /** Counts one transition of a job with history `history`; returns the job's new history. */
  transition(history: number, t: number): number {
    this.transitions[t]! += 1;
    const last = historyLast(history);
    if (last >= 0) this.pairs[last * TRANSITIONS.length + t]! += 1;
    const next = extendHistory(history, t);
    if (historyLength(history) < PATH_BOUND) {
      const cls = next & ~31;
      this.paths.set(cls, (this.paths.get(cls) ?? 0) + 1);
    }
    return next;
  }

  /** Adds another counter's counts to this one. */
  merge(other: ExploreCoverageData): void {
    const add = (a: Float64Array, b: ArrayLike<number>): void => {
      for (let i = 0; i < a.length; i++) a[i]! += b[i] ?? 0;
    };
    add(this.transitions, other.transitions);
    add(this.pairs, other.pairs);
    add(this.rejections, other.rejections);
    add(this.admitted, other.admitted);
    for (const [k, v] of other.paths) this.paths.set(k, (this.paths.get(k) ?? 0) + v);
    this.steps += other.steps;
  }

  /** The counts as plain data (to cross a thread boundary). */
  toData(): ExploreCoverageData {
    return {
      transitions: [...this.transitions],
      pairs: [...this.pairs],
      rejections: [...this.rejections],
      admitted: [...this.admitted],
      paths: [...this.paths],
      steps: this.steps,
    };
  }

  /** The coverage value of these counts, over the full universe (runs: one per exploration). */
  toCoverage(source: string, runs: number): Coverage {
    const r = new CoverageRecorder(source);
    r.count(runs, this.steps);
    const name = (i: number): string => shortName(TRANSITIONS[i] ?? TRANSITIONS[0]!);
    if ((this.admitted[0] ?? 0) > 0) r.hit('states', 'ready', this.admitted[0]);
    this.transitions.forEach((n, i) => {
      const t = TRANSITIONS[i];
      if (n === 0 || t === undefined) return;
      r.hit('transitions', t.id, n);
      if (t.to !== t.from) r.hit('states', t.to, n);
    });
    this.pairs.forEach((n, i) => {
      if (n > 0) r.hit('pairs', name(Math.floor(i / TRANSITIONS.length)) + SEP + name(i % TRANSITIONS.length), n);
    });
    this.rejections.forEach((n, i) => {
      const code = REJECTION_CODES[i];
      if (n > 0 && code !== undefined) r.hit('rejections', code, n);
    });
    for (const [cls, n] of this.paths) {
      const length = historyLength(cls);
      if (length === 0) {
        r.hit('paths', ADMITTED_ONLY, n);
        continue;
      }
      const names: string[] = [];
      for (let k = 0; k < length; k++) names.push(name((cls >>> (8 + 4 * k)) & 15));
      r.hit('paths', names.join(SEP), n);
    }
    return r.toCoverage();
  }
}

/** ExploreCoverage as plain data. */
export interface ExploreCoverageData {
  readonly transitions: readonly number[];
  readonly pairs: readonly number[];
  readonly rejections: readonly number[];
  readonly admitted: readonly number[];
  readonly paths: ReadonlyArray<readonly [number, number]>;
  readonly steps: number;
}
