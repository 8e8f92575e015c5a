/**
 * Checks a concurrent campaign's path (`--concurrent-path`) against what its seed generates, before
 * any scenario runs. fast-check replays a path by skipping to the run's index and walking one shrink
 * stream per step; a path that names no value runs nothing, and the campaign would tell its zero
 * runs as "every history linearizable". A huge index would make fast-check skip that many values
 * synchronously, deaf to the time limit and to signals. So the path is bounded first (parsePath),
 * then walked with a property that runs nothing, shaped as the campaign's own: with fast-check's
 * scheduler for a factory that can pause (the scheduler's value is part of the path), without one
 * otherwise.
 */
import fc from 'fast-check';
import type { Config } from '../../contract/index.ts';
import { MAX_RUNS, parsePath, pathNamesValue } from '../random/campaign.ts';
import { ConformanceError } from '../errors.ts';
import type { ConcurrentFactory } from './adapter.ts';
import { concurrentScenarioArb } from './generate.ts';
import { isSchedulable } from './inProcess.ts';

/** Most scenarios a concurrent campaign plans (`--concurrent-runs`), and the bound of a concurrent path's run index. */
export const MAX_CONCURRENT_RUNS = MAX_RUNS;

/** What shapes the scenarios of a concurrent campaign: the same options runConcurrentCampaign is given. */
export interface ConcurrentPathOptions {
  /** The campaign's factory: whether it can pause decides the shape of the property. */
  readonly factory: ConcurrentFactory;
  readonly workers: number;
  readonly seed: number;
  readonly path: string;
  readonly maxRounds?: number;
  readonly config?: Config;
  /** Most send-time perturbations of a scenario, as the campaign was given (default 0). */
  readonly perturbations?: number;
  /** Scenarios of the campaign, when the path must name one of them (default MAX_CONCURRENT_RUNS). */
  readonly runs?: number;
  /** What to call the path in an error (default `concurrent path`). */
  readonly what?: string;
}

/**
 * Throws ConformanceError `invalid_path`, naming the path, unless it names a scenario (and, for a
 * scheduled factory, an interleaving) of the seed. Bounded in time by parsePath's bounds.
 */
export async function checkConcurrentPath(options: ConcurrentPathOptions): Promise<void> {
  const what = options.what ?? 'concurrent path';
  parsePath(options.path, options.runs ?? MAX_CONCURRENT_RUNS, what);
  const arb = concurrentScenarioArb({
    workers: options.workers,
    ...(options.maxRounds === undefined ? {} : { maxRounds: options.maxRounds }),
    ...(options.config === undefined ? {} : { config: options.config }),
    ...(options.perturbations === undefined ? {} : { perturbations: options.perturbations }),
  });
  const named = isSchedulable(options.factory)
    ? await pathNamesValue((probe) => fc.asyncProperty(arb, fc.scheduler(), () => probe()), options.seed, options.path)
    : await pathNamesValue((probe) => fc.asyncProperty(arb, () => probe()), options.seed, options.path);
  if (!named) {
    const shown = options.path.length > 60 ? `${options.path.slice(0, 60)}...` : options.path;
    throw new ConformanceError(
      'invalid_path',
      `${what} ${JSON.stringify(shown)} names no scenario of seed ${options.seed} with ${options.workers} workers: ` +
        'a shrink step goes past the end of its stream (was the path edited, or found with another seed or --workers?)',
    );
  }
}
