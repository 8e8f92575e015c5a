/**
 * Bounded exhaustive exploration of the store model: breadth-first from the empty store over the
 * alphabet of a scope (scope.ts), one config at a time, states deduplicated by the fingerprint of
 * their canonical key (canonical.ts, visited.ts). Every state reached is held to the store
 * invariants (model/invariants.ts); with an implementation, every transition is also run against
 * it (differential.ts). The result is data (result.ts): counts per level, coverage, guard
 * boundaries reached, and either `complete`, a counterexample (the path from the empty store,
 * shortest by construction: breadth-first order reaches every state first by a shortest path), or
 * `incomplete` when a budget (states, time) ran out first. An incomplete exploration is never
 * reported as complete.
 *
 * Each config is explored by one frontier loop (frontier.ts), its levels expanded in this thread
 * (sequential.ts) or on worker threads (parallel.ts).
 */
import { MAX_NAMES } from './canonical.ts';
import type { ExploreOptions } from './options.ts';
import { WorkerPool, exploreInParallel } from './parallel.ts';
import { exploreResultOf } from './result.ts';
import type { ConfigExploration, ExploreResult } from './result.ts';
import { DEFAULT_SCOPE, EXPLORE_CONFIGS, exploreConfig } from './scope.ts';
import type { ExploreScope, NamedConfig } from './scope.ts';
import { exploreSequentially } from './sequential.ts';
import { startStopwatch } from './stopwatch.ts';

/** The complete scope of options (defaults filled in), checked. Throws RangeError for one the engine cannot explore. Pure. */
export function resolveScope(partial: Partial<ExploreScope> = {}): ExploreScope {
  const scope = { ...DEFAULT_SCOPE, ...partial };
  const whole = (name: string, v: number, min: number, max: number): void => {
    if (!Number.isInteger(v) || v < min || v > max)
      throw new RangeError(`scope: ${name} must be a whole number from ${min} to ${max} (got ${v})`);
  };
  whole('jobs', scope.jobs, 1, 15);
  whole('accounts', scope.accounts, 1, MAX_NAMES);
  whole('workers', scope.workers, 1, MAX_NAMES);
  whole('keys', scope.keys, 1, MAX_NAMES);
  whole('horizon', scope.horizon, 0, 10_000);
  if (scope.amounts.length === 0 || scope.lifetimes.length === 0)
    throw new RangeError('scope: amounts and lifetimes must not be empty');
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
  if (options.parts === undefined)
    return [{ name: 'scope', scope: resolveScope(options.scope), configs: options.configs ?? EXPLORE_CONFIGS }];
  return options.parts.map((p) => ({
    name: p.name,
    scope: resolveScope(p.scope),
    configs: p.configs.map((n) => {
      const c = exploreConfig(n);
      if (c === undefined)
        throw new RangeError(
          `no explore config named ${JSON.stringify(n)} (known: ${EXPLORE_CONFIGS.map((x) => x.name).join(', ')})`,
        );
      return c;
    }),
  }));
}

/**
 * Explores the scope for each config in turn (stopping at the first counterexample or when the
 * budget runs out), against the model alone or, given a factory, against an implementation too.
 * Divergences and violations are data; throws only for a bad scope or a defect of the engine.
 */
export async function explore(options: ExploreOptions = {}): Promise<ExploreResult> {
  const clock = startStopwatch();
  const parts = resolveParts(options);
  const threads = Math.max(1, Math.floor(options.threads ?? 1));
  const parallel =
    threads > 1 && options.factory === undefined && options.step === undefined && options.invariants === undefined;
  const results: ConfigExploration[] = [];
  const notRun: string[] = [];
  const pool = parallel ? new WorkerPool(threads) : undefined;
  try {
    for (const part of parts) {
      for (const named of part.configs) {
        if (
          results.some((r) => r.verdict === 'violation' || r.verdict === 'diverge') ||
          options.budget?.expired === true
        ) {
          notRun.push(`${part.name}/${named.name}`);
          continue;
        }
        const one =
          pool === undefined
            ? exploreSequentially(part.name, named, part.scope, options)
            : exploreInParallel(part.name, named, part.scope, pool, options);
        results.push(await one);
      }
    }
  } finally {
    await pool?.close();
  }
  return exploreResultOf(parts, results, notRun, clock);
}
