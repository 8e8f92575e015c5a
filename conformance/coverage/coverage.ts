/**
 * Coverage of a run, counted in the manner of TLC's per-action counts: how often each item was
 * hit, including the items never hit. Items are derived from the lifecycle machine
 * (model/lifecycle.ts), never listed by hand:
 *
 * - `states`: lifecycle states a job entered (admission enters `ready`);
 * - `transitions`: declared transitions (source, event, guard outcome, target), by lifecycle id;
 * - `pairs`: two consecutive transitions of one job (`t1 >> t2`), among those the graph allows;
 * - `rejections`: each rejection code the model replied with;
 * - `paths`: bounded path classes, a job's transition sequence truncated to PATH_BOUND steps;
 * - `rules`: the contract's rules (contract/rules.ts) that decided a step (model/rules.ts).
 *
 * Counts come from the model's step trace, so they mean "the implementation was checked in this
 * situation". A coverage value is plain JSON; merging two adds their counts (see docs/coverage-format.md).
 */
import { REJECTION_CODES, RULE_IDS } from '../../contract/index.ts';
import { JOB_STATES, lifecycleTransitions, transitionOf } from '../../model/index.ts';
import type { JobStep, LifecycleTransition } from '../../model/index.ts';
import { ConformanceError } from '../errors.ts';
import type { LockstepResult } from '../lockstep/index.ts';

/** Version tag of the coverage JSON format. */
export const COVERAGE_FORMAT = 'jobcheck.coverage/1' as const;
/** Path classes are job transition sequences truncated to this many transitions. */
export const PATH_BOUND = 4;
/** The categories of coverage items. */
export const COVERAGE_CATEGORIES = ['states', 'transitions', 'pairs', 'rejections', 'paths', 'rules'] as const;
/** One category of coverage items. */
export type CoverageCategory = (typeof COVERAGE_CATEGORIES)[number];

/** Hit counts per item, for every item of the universe (0 = never hit). Plain JSON, mergeable. */
export interface Coverage {
  readonly format: typeof COVERAGE_FORMAT;
  /** Lockstep runs counted (random runs, paths, replays). */
  readonly runs: number;
  /** Commands (steps) counted. */
  readonly steps: number;
  /** Where the counts come from, e.g. `campaign seed=42 impl/JobStore`. */
  readonly sources: readonly string[];
  readonly items: { readonly [C in CoverageCategory]: { readonly [item: string]: number } };
}

/** A short, unique name of a lifecycle transition, e.g. `running-fail->dead(no_time_for_retry)`. Pure. */
export function shortName(t: Pick<LifecycleTransition, 'from' | 'event' | 'to' | 'reason'>): string {
  return `${t.from}-${t.event.toLowerCase()}->${t.to}${t.reason === undefined ? '' : `(${t.reason})`}`;
}

/** The label of the path class of a job that took no transition yet. */
export const ADMITTED_ONLY = '(admitted)';
const SEP = ' >> ';

let universe: Coverage['items'] | undefined;

/** Every coverage item, each with count 0: the universe reports are measured against. Pure (cached). */
export function coverageUniverse(): Coverage['items'] {
  if (universe !== undefined) return universe;
  const ts = lifecycleTransitions();
  const zero = (keys: Iterable<string>): Record<string, number> => Object.fromEntries([...keys].map((k) => [k, 0]));
  const pairs: string[] = [];
  for (const a of ts) for (const b of ts) if (a.to === b.from) pairs.push(shortName(a) + SEP + shortName(b));
  const paths: string[] = [ADMITTED_ONLY];
  const extend = (prefix: string[], state: string): void => {
    if (prefix.length === PATH_BOUND) return;
    for (const t of ts) {
      if (t.from !== state) continue;
      const next = [...prefix, shortName(t)];
      paths.push(next.join(SEP));
      extend(next, t.to);
    }
  };
  extend([], 'ready');
  universe = {
    states: zero(JOB_STATES),
    transitions: zero(ts.map((t) => t.id)),
    pairs: zero(pairs),
    rejections: zero(REJECTION_CODES),
    paths: zero(paths),
    rules: zero(RULE_IDS),
  };
  return universe;
}

/** An empty coverage value (every item at 0). Pure. */
export function emptyCoverage(source?: string): Coverage {
  const u = coverageUniverse();
  const items = Object.fromEntries(COVERAGE_CATEGORIES.map((c) => [c, { ...u[c] }])) as Coverage['items'];
  return { format: COVERAGE_FORMAT, runs: 0, steps: 0, sources: source === undefined ? [] : [source], items };
}

/** Mutable counts used while recording; turned into a Coverage by `toCoverage`. */
export class CoverageRecorder {
  private readonly counts = new Map<CoverageCategory, Map<string, number>>(
    COVERAGE_CATEGORIES.map((c) => [c, new Map()]),
  );
  private runs = 0;
  private steps = 0;
  private readonly sources: string[] = [];

  constructor(source?: string) {
    if (source !== undefined) this.sources.push(source);
  }

  /** Counts one hit of an item. */
  hit(category: CoverageCategory, item: string, n = 1): void {
    const m = this.counts.get(category);
    if (m !== undefined) m.set(item, (m.get(item) ?? 0) + n);
  }

  /** Adds runs and steps counted elsewhere (an exploration counts its transitions as steps). */
  count(runs: number, steps: number): void {
    this.runs += runs;
    this.steps += steps;
  }

  /** Counts the model's side of one lockstep run (its replies and traces). */
  recordRun(result: LockstepResult): void {
    this.runs += 1;
    const history = new Map<string, string[]>();
    for (const s of result.steps) {
      this.steps += 1;
      for (const rule of s.rules ?? []) this.hit('rules', rule);
      const reply = s.modelReply;
      if (reply === undefined) continue;
      if (!reply.ok) this.hit('rejections', reply.code);
      else if (reply.type === 'submit' && !reply.duplicate) {
        this.hit('states', 'ready');
        history.set(reply.id, []);
      }
      for (const js of s.trace) this.recordTransition(history, js);
    }
    for (const seq of history.values())
      this.hit('paths', seq.length === 0 ? ADMITTED_ONLY : seq.slice(0, PATH_BOUND).join(SEP));
  }

  private recordTransition(history: Map<string, string[]>, step: JobStep): void {
    const t = transitionOf(step);
    this.hit('transitions', t.id);
    if (t.to !== t.from) this.hit('states', t.to);
    const seq = history.get(step.job) ?? [];
    const name = shortName(t);
    const prev = seq[seq.length - 1];
    if (prev !== undefined) this.hit('pairs', prev + SEP + name);
    seq.push(name);
    history.set(step.job, seq);
  }

  /** The counts so far, over the full universe. */
  toCoverage(): Coverage {
    const base = emptyCoverage();
    const items = {} as Record<CoverageCategory, Record<string, number>>;
    for (const c of COVERAGE_CATEGORIES) {
      const merged: Record<string, number> = { ...base.items[c] };
      for (const [k, v] of this.counts.get(c) ?? []) merged[k] = (merged[k] ?? 0) + v;
      items[c] = merged;
    }
    return { format: COVERAGE_FORMAT, runs: this.runs, steps: this.steps, sources: [...this.sources], items };
  }
}

/** The coverage of a set of lockstep runs. Pure. */
export function coverageOf(results: readonly LockstepResult[], source?: string): Coverage {
  const r = new CoverageRecorder(source);
  for (const result of results) r.recordRun(result);
  return r.toCoverage();
}

/** Adds coverage values: counts of the same item add up, runs and steps add, sources concatenate. Throws ConformanceError if a sum leaves the safe-integer range. Pure. */
export function mergeCoverage(...list: readonly Coverage[]): Coverage {
  const items = {} as Record<CoverageCategory, Record<string, number>>;
  const base = emptyCoverage();
  for (const c of COVERAGE_CATEGORIES) items[c] = { ...base.items[c] };
  let runs = 0;
  let steps = 0;
  const sources: string[] = [];
  for (const cov of list) {
    runs += cov.runs;
    steps += cov.steps;
    sources.push(...cov.sources);
    for (const c of COVERAGE_CATEGORIES) {
      const target = items[c];
      for (const [k, v] of Object.entries(cov.items[c] ?? {})) target[k] = (target[k] ?? 0) + v;
    }
  }
  const sums = [runs, steps, ...COVERAGE_CATEGORIES.flatMap((c) => Object.values(items[c]))];
  if (!sums.every(Number.isSafeInteger))
    throw new ConformanceError('invalid_artifact', 'the merged coverage counts leave the safe-integer range');
  return { format: COVERAGE_FORMAT, runs, steps, sources, items };
}

/** Hit and total counts of one category. Pure. */
export function categorySummary(cov: Coverage, category: CoverageCategory): { hit: number; total: number } {
  const entries = Object.values(cov.items[category]);
  return { hit: entries.filter((n) => n > 0).length, total: entries.length };
}

/** The items of a category never hit, in universe order. Pure. */
export function neverHit(cov: Coverage, category: CoverageCategory): string[] {
  return Object.entries(cov.items[category])
    .filter(([, n]) => n === 0)
    .map(([k]) => k);
}
