/**
 * Bounded exhaustive exploration of the store model: breadth-first from the empty store over the
 * alphabet of a scope (scope.ts), one config at a time, states deduplicated by the fingerprint of
 * their canonical key (canonical.ts, visited.ts). Every state reached is held to the store
 * invariants (model/invariants.ts); with an implementation, every transition is also run against
 * it (differential.ts). The result is data: counts per level, coverage, guard boundaries reached,
 * and either `complete`, a counterexample (the path from the empty store, shortest by
 * construction: breadth-first order reaches every state first by a shortest path), or
 * `incomplete` when a budget (states, time) ran out first. An incomplete exploration is never
 * reported as complete.
 */
import type { Config } from '../../contract/index.ts';
import { STORE_INVARIANTS, fromSnapshot, initialState, step as modelStep, toSnapshot, violatedInvariant } from '../../model/index.ts';
import type { ModelState, StoreInvariant } from '../../model/index.ts';
import type { AdapterFactory } from '../adapter.ts';
import type { Budget } from '../budget.ts';
import { mergeCoverage } from '../coverage.ts';
import type { Coverage } from '../coverage.ts';
import { runLockstep } from '../lockstep.ts';
import type { LockstepResult } from '../lockstep.ts';
import { describeCommand, describeConfig, describeReply, renderStory } from '../story.ts';
import type { ScriptStep } from '../symbolic.ts';
import { expectedBoundaries, reachedBoundaries } from './boundaries.ts';
import type { Boundary } from './boundaries.ts';
import { MAX_NAMES, collisionProbability, fingerprintOut } from './canonical.ts';
import { Words } from './codec.ts';
import { DifferentialChecker } from './differential.ts';
import type { DifferentialCounts, EdgeDivergence } from './differential.ts';
import { Expander } from './expander.ts';
import type { StepFunction } from './expander.ts';
import { WorkerPool, exploreInParallel } from './parallel.ts';
import { DEFAULT_SCOPE, EXPLORE_CONFIGS, alphabet, exploreConfig, scopeNames } from './scope.ts';
import type { ExplorePart, ExploreScope, NamedConfig, ScopeNames } from './scope.ts';
import { VisitedSet } from './visited.ts';

/** Options of an exploration. */
export interface ExploreOptions {
  /** The scope; missing fields are those of DEFAULT_SCOPE. */
  readonly scope?: Partial<ExploreScope>;
  /** The configs to explore, one after the other (default: EXPLORE_CONFIGS). */
  readonly configs?: readonly NamedConfig[];
  /** Several scopes, each with its configs, explored in turn (instead of `scope` and `configs`). */
  readonly parts?: readonly ExplorePart[];
  /** Most distinct states per config (default DEFAULT_MAX_STATES): beyond, the exploration is incomplete. */
  readonly maxStates?: number;
  /** The time budget of the whole exploration. */
  readonly budget?: Budget;
  /** An implementation: every explored transition is also run against it (differential mode). */
  readonly factory?: AdapterFactory;
  /** Threads for a model-only exploration with the model's own step (default 1). */
  readonly threads?: number;
  /** The step function (default: the model's); tests pass broken variants. */
  readonly step?: StepFunction;
  /** The invariants checked at every state (default: STORE_INVARIANTS). */
  readonly invariants?: readonly StoreInvariant[];
  /** Called after each breadth-first level. */
  readonly onProgress?: (progress: ExploreProgress) => void;
}

/** Where an exploration is. */
export interface ExploreProgress {
  readonly config: string;
  readonly depth: number;
  readonly states: number;
  readonly transitions: number;
}

/** A path from the empty store that breaks an invariant or shows a divergence. */
export interface Counterexample {
  readonly kind: 'invariant' | 'divergence';
  /** The invariant broken (kind `invariant`). */
  readonly invariant?: string;
  /** What is wrong, in one line. */
  readonly message: string;
  /** The steps from the empty store: the last one breaks the invariant or diverges. */
  readonly path: readonly ScriptStep[];
  /** The story of the path, for people. */
  readonly story: string;
  /** The lockstep run of the path against the implementation (kind `divergence`): an artifact can be written from it. */
  readonly run?: LockstepResult;
}

/** The verdict of an exploration. */
export type ExploreVerdict = 'complete' | 'violation' | 'diverge' | 'incomplete';

/** The exploration of one config. */
export interface ConfigExploration {
  /** The part of the exploration (its scope) this config was explored in. */
  readonly part: string;
  readonly name: string;
  readonly config: Config;
  /**
   * `complete`: every state of the scope was reached and held (and, with an implementation, every
   * transition agreed); `violation`: an invariant broke; `diverge`: the implementation disagreed;
   * `incomplete`: a budget stopped it first.
   */
  readonly verdict: ExploreVerdict;
  readonly stoppedBy?: 'max-states' | 'time-limit';
  /** Distinct states reached (up to symmetry when the scope reduces by it). */
  readonly states: number;
  /** Transitions taken (alphabet steps from every state expanded). */
  readonly transitions: number;
  /** The deepest level reached. */
  readonly depth: number;
  /** Distinct states first reached at each depth. */
  readonly levels: readonly number[];
  readonly durationMs: number;
  /** CPU time of the process (user + system, all threads) while exploring. */
  readonly cpuMs: number;
  /** Bytes of the visited set (fingerprints and the tree of first discoveries). */
  readonly visitedBytes: number;
  /** Bytes of the two widest consecutive frontiers held at once. */
  readonly frontierPeakBytes: number;
  /** (visitedBytes + frontierPeakBytes) / states. */
  readonly bytesPerState: number;
  /** The chance that two distinct states shared a fingerprint (collisionProbability). */
  readonly collisionProbability: number;
  readonly boundaries: { readonly reached: readonly Boundary[]; readonly expected: readonly Boundary[]; readonly missing: readonly Boundary[] };
  readonly counterexample: Counterexample | null;
  /** Differential mode: the implementation's name and the work done against it. */
  readonly differential?: DifferentialCounts & { readonly adapter: string };
  /** Worker threads used. */
  readonly threads: number;
  readonly coverage: Coverage;
}

/** The exploration of a scope over its configs. */
export interface ExploreResult {
  /** The worst of the configs' verdicts (a config not run makes it `incomplete`). */
  readonly verdict: ExploreVerdict;
  /** The scopes explored, by part. */
  readonly parts: ReadonlyArray<{ readonly name: string; readonly scope: ExploreScope }>;
  readonly configs: readonly ConfigExploration[];
  /** Configs not explored (a counterexample or the time limit came first). */
  readonly notRun: readonly string[];
  /** The implementation, in differential mode. */
  readonly adapter: string | null;
  readonly states: number;
  readonly transitions: number;
  readonly durationMs: number;
  readonly cpuMs: number;
  readonly coverage: Coverage;
  /** The first counterexample's story, or null. */
  readonly story: string | null;
}

/** Default most states per config. */
export const DEFAULT_MAX_STATES = 5_000_000;

const cpuNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** The complete scope of options (defaults filled in), checked. Throws RangeError for one the engine cannot explore. Pure. */
export function resolveScope(partial: Partial<ExploreScope> = {}): ExploreScope {
  const scope = { ...DEFAULT_SCOPE, ...partial };
  const whole = (name: string, v: number, min: number, max: number): void => {
    if (!Number.isInteger(v) || v < min || v > max) throw new RangeError(`scope: ${name} must be a whole number from ${min} to ${max} (got ${v})`);
  };
  whole('jobs', scope.jobs, 1, 15);
  whole('accounts', scope.accounts, 1, MAX_NAMES);
  whole('workers', scope.workers, 1, MAX_NAMES);
  whole('keys', scope.keys, 1, MAX_NAMES);
  whole('horizon', scope.horizon, 0, 10_000);
  if (scope.amounts.length === 0 || scope.lifetimes.length === 0) throw new RangeError('scope: amounts and lifetimes must not be empty');
  for (const a of scope.amounts) whole('an amount', Math.abs(a), 0, 1_000_000);
  for (const l of scope.lifetimes) whole('a lifetime', l, 1, 10_000);
  return scope;
}

/** A part with its scope filled in and its configs looked up. */
export interface ResolvedPart {
  readonly name: string;
  readonly scope: ExploreScope;
  readonly configs: readonly NamedConfig[];
}

/** The parts an exploration's options ask for. Throws RangeError for a bad scope or an unknown config name. Pure. */
export function resolveParts(options: Pick<ExploreOptions, 'parts' | 'scope' | 'configs'>): ResolvedPart[] {
  if (options.parts === undefined) return [{ name: 'scope', scope: resolveScope(options.scope), configs: options.configs ?? EXPLORE_CONFIGS }];
  return options.parts.map((p) => ({
    name: p.name,
    scope: resolveScope(p.scope),
    configs: p.configs.map((n) => {
      const c = exploreConfig(n);
      if (c === undefined) throw new RangeError(`no explore config named ${JSON.stringify(n)} (known: ${EXPLORE_CONFIGS.map((x) => x.name).join(', ')})`);
      return c;
    }),
  }));
}

/** The steps of a path given as alphabet indices, replayed with the model from the empty store. Pure. */
export function pathSteps(config: Config, scope: ExploreScope, names: ScopeNames, indices: readonly number[], stepFn: StepFunction = modelStep): ScriptStep[] {
  let state: ModelState = initialState(config);
  const out: ScriptStep[] = [];
  for (const i of indices) {
    const s = alphabet(state.context, scope, names)[i];
    if (s === undefined) throw new Error(`explore: step ${i} is not in the alphabet of a state on the path (an engine defect)`);
    out.push(s);
    state = 'do' in s ? stepFn(state, s.do).state : fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(state))));
  }
  return out;
}

/** The story of a path that breaks an invariant: each step with the model's reply, then what broke. Pure. */
export function violationStory(config: Config, path: readonly ScriptStep[], invariant: string, message: string, stepFn: StepFunction = modelStep): string {
  const lines = [`the model breaks invariant ${invariant} after step ${path.length} of ${path.length}.`, `config: ${describeConfig(config)}`, ''];
  let state: ModelState = initialState(config);
  path.forEach((s, i) => {
    if ('do' in s) {
      const r = stepFn(state, s.do);
      state = r.state;
      lines.push(`${String(i + 1).padStart(3)}. ${describeCommand(s.do)}`, `       model: ${describeReply(r.reply)}`);
    } else {
      state = fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(state))));
      lines.push(`${String(i + 1).padStart(3)}. restart (snapshot -> JSON -> restore)`);
    }
  });
  if (path.length === 0) lines.push('  (the empty store)');
  lines.push(`       >> ${invariant}: ${message}`);
  return lines.join('\n');
}

async function divergenceOf(config: Config, factory: AdapterFactory, d: EdgeDivergence): Promise<Counterexample> {
  const path = d.step === undefined ? [...d.path] : [...d.path, d.step];
  const run = await runLockstep(config, path, factory);
  const what = d.kind === 'alias' ? 'its snapshot is a live alias' : d.kind === 'impl_error' ? `it failed: ${d.error ?? ''}` : `its ${d.kind} differs`;
  const message = `the implementation disagrees after ${path.length} steps (${what})`;
  const story =
    run.divergence === null
      ? `${message}, but a second run of the same steps agreed: the implementation does not answer the same steps the same way.\n${renderStory(run)}`
      : renderStory(run);
  return { kind: 'divergence', message, path, story, run };
}

async function exploreOne(part: string, named: NamedConfig, scope: ExploreScope, options: ExploreOptions): Promise<ConfigExploration> {
  const started = performance.now();
  const cpu0 = cpuNow();
  const { config } = named;
  const names = scopeNames(scope, config.maxAttempts);
  const stepFn = options.step ?? modelStep;
  const invariants = options.invariants ?? STORE_INVARIANTS;
  const maxStates = options.maxStates ?? DEFAULT_MAX_STATES;
  const budget = options.budget;
  const expander = new Expander(config, scope, names, stepFn);
  const visited = new VisitedSet();
  const checker = options.factory === undefined ? undefined : new DifferentialChecker(config, options.factory, budget);
  let counterexample: Counterexample | null = null;
  let stoppedBy: 'max-states' | 'time-limit' | undefined;
  const levels: number[] = [1];
  let frontierPeakBytes = 0;

  const root = initialState(config);
  let cur = new Words();
  expander.encode(root, cur);
  expander.fingerprintOf(cur.data, 0);
  visited.add(fingerprintOut[0] ?? 0, fingerprintOut[1] ?? 0, -1, 0);
  let curOffsets: number[] = [0];
  let curIds: number[] = [0];
  let curPaths: ScriptStep[][] = [[]];
  const rootBroken = violatedInvariant(root, invariants);
  if (rootBroken !== undefined) {
    counterexample = { kind: 'invariant', invariant: rootBroken.name, message: rootBroken.message, path: [], story: violationStory(config, [], rootBroken.name, rootBroken.message, stepFn) };
  }

  outer: while (counterexample === null && curIds.length > 0) {
    const next = new Words();
    const nextOffsets: number[] = [];
    const nextIds: number[] = [];
    const nextPaths: ScriptStep[][] = [];
    for (let e = 0; e < curIds.length; e++) {
      if (visited.size >= maxStates) {
        stoppedBy = 'max-states';
        break outer;
      }
      if (budget?.expired === true) {
        stoppedBy = 'time-limit';
        break outer;
      }
      const source = curIds[e] ?? 0;
      const offset = curOffsets[e] ?? 0;
      let broken: { index: number; name: string; message: string } | undefined;
      const found: Array<[index: number, step: number]> = [];
      const expansion = expander.expand(
        cur.data,
        offset,
        (s) => {
          const index = visited.add(s.hi, s.lo, source, s.step);
          if (index < 0) return;
          nextOffsets.push(next.length);
          next.reserve(s.length);
          next.data.set(s.record.data.subarray(s.at, s.at + s.length), next.length);
          next.length += s.length;
          nextIds.push(index);
          found.push([index, s.step]);
          if (broken === undefined) {
            const v = violatedInvariant(s.result.state, invariants);
            if (v !== undefined) broken = { index, ...v };
          }
        },
        checker !== undefined,
      );
      if (broken !== undefined) {
        const path = pathSteps(config, scope, names, visited.pathTo(broken.index), stepFn);
        counterexample = { kind: 'invariant', invariant: broken.name, message: broken.message, path, story: violationStory(config, path, broken.name, broken.message, stepFn) };
        break outer;
      }
      if (checker !== undefined && expansion !== undefined && options.factory !== undefined) {
        const path = curPaths[e] ?? [];
        for (const [, stepIndex] of found) nextPaths.push([...path, expansion.steps[stepIndex] ?? { restart: true }]);
        const outcome = await checker.check(path, expansion, expansion.selfLoop.map((x) => !x));
        if (outcome === 'time_limit') {
          stoppedBy = 'time-limit';
          break outer;
        }
        if (outcome !== undefined) {
          await checker.close();
          counterexample = await divergenceOf(config, options.factory, outcome);
          break outer;
        }
      }
    }
    frontierPeakBytes = Math.max(frontierPeakBytes, 4 * (cur.length + next.length) + 16 * (curIds.length + nextIds.length));
    if (nextIds.length > 0) levels.push(nextIds.length);
    options.onProgress?.({ config: named.name, depth: levels.length - 1, states: visited.size, transitions: expander.transitions });
    cur = next;
    curOffsets = nextOffsets;
    curIds = nextIds;
    curPaths = nextPaths;
  }
  await checker?.close();
  const reached = reachedBoundaries(expander.boundaries);
  const expected = expectedBoundaries(config, scope);
  const verdict: ExploreVerdict =
    counterexample !== null ? (counterexample.kind === 'invariant' ? 'violation' : 'diverge') : stoppedBy !== undefined ? 'incomplete' : 'complete';
  const source = `explore ${part}/${named.name} ${checker === undefined ? 'model' : checker.name}`;
  return {
    part,
    name: named.name,
    config,
    verdict,
    ...(stoppedBy === undefined || counterexample !== null ? {} : { stoppedBy }),
    states: visited.size,
    transitions: expander.transitions,
    depth: levels.length - 1,
    levels,
    durationMs: performance.now() - started,
    cpuMs: cpuNow() - cpu0,
    visitedBytes: visited.bytes,
    frontierPeakBytes,
    bytesPerState: (visited.bytes + frontierPeakBytes) / Math.max(1, visited.size),
    collisionProbability: collisionProbability(visited.size),
    boundaries: { reached, expected, missing: expected.filter((b) => !reached.includes(b)) },
    counterexample,
    ...(checker === undefined ? {} : { differential: { adapter: checker.name, ...checker.counts } }),
    threads: 1,
    coverage: expander.coverage.toCoverage(source, 1),
  };
}

/**
 * Explores the scope for each config in turn (stopping at the first counterexample or when the
 * budget runs out), against the model alone or, given a factory, against an implementation too.
 * Divergences and violations are data; throws only for a bad scope or a defect of the engine.
 */
export async function explore(options: ExploreOptions = {}): Promise<ExploreResult> {
  const started = performance.now();
  const cpu0 = cpuNow();
  const parts = resolveParts(options);
  const threads = Math.max(1, Math.floor(options.threads ?? 1));
  const parallel = threads > 1 && options.factory === undefined && options.step === undefined && options.invariants === undefined;
  const results: ConfigExploration[] = [];
  const notRun: string[] = [];
  const pool = parallel ? new WorkerPool(threads) : undefined;
  try {
  for (const part of parts) {
    for (const named of part.configs) {
      if (results.some((r) => r.verdict === 'violation' || r.verdict === 'diverge') || options.budget?.expired === true) {
        notRun.push(`${part.name}/${named.name}`);
        continue;
      }
      results.push(pool !== undefined ? await exploreInParallel(part.name, named, part.scope, pool, options) : await exploreOne(part.name, named, part.scope, options));
    }
  }
  } finally {
    await pool?.close();
  }
  const failed = results.find((r) => r.counterexample !== null);
  const verdict: ExploreVerdict =
    failed !== undefined ? failed.verdict : results.some((r) => r.verdict === 'incomplete') || notRun.length > 0 ? 'incomplete' : 'complete';
  return {
    verdict,
    parts: parts.map((p) => ({ name: p.name, scope: p.scope })),
    configs: results,
    notRun,
    adapter: results.find((r) => r.differential !== undefined)?.differential?.adapter ?? null,
    states: results.reduce((n, r) => n + r.states, 0),
    transitions: results.reduce((n, r) => n + r.transitions, 0),
    durationMs: performance.now() - started,
    cpuMs: cpuNow() - cpu0,
    coverage: mergeCoverage(...results.map((r) => r.coverage)),
    story: failed?.counterexample?.story ?? null,
  };
}
