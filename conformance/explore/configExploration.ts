/** The result of one config's exploration, put together the same way by every way of exploring. */
import type { Coverage } from '../coverage/coverage.ts';
import { expectedBoundaries, reachedBoundaries } from './boundaries.ts';
import { collisionProbability } from './canonical.ts';
import type { DifferentialCounts } from './differential.ts';
import type { FrontierOutcome } from './frontier.ts';
import type { ConfigExploration, ExploreVerdict } from './result.ts';
import type { ExploreScope, NamedConfig } from './scope.ts';
import type { Stopwatch } from './stopwatch.ts';

/** What the expanders counted besides the frontier loop. */
export interface ExpansionCounts {
  readonly transitions: number;
  /** Boundary hits by BOUNDARIES index. */
  readonly boundaries: Float64Array;
  /** Bytes held outside the loop's visited set (the workers' own sets of what they produced). */
  readonly extraVisitedBytes: number;
  readonly threads: number;
  readonly coverage: Coverage;
  readonly differential?: DifferentialCounts & { readonly adapter: string };
}

/** The exploration of `named` in `part`, from where its search ended and what was counted. Reads the stopwatch; otherwise pure. */
export function configExploration(
  part: string,
  named: NamedConfig,
  scope: ExploreScope,
  outcome: FrontierOutcome,
  counts: ExpansionCounts,
  clock: Stopwatch,
): ConfigExploration {
  const { visited, levels, frontierPeakBytes, counterexample, stoppedBy } = outcome;
  const reached = reachedBoundaries(counts.boundaries);
  const expected = expectedBoundaries(named.config, scope);
  const failed = counterexample?.kind === 'invariant' ? 'violation' : 'diverge';
  const verdict: ExploreVerdict =
    counterexample !== null ? failed : stoppedBy !== undefined ? 'incomplete' : 'complete';
  const visitedBytes = visited.bytes + counts.extraVisitedBytes;
  return {
    part,
    name: named.name,
    config: named.config,
    verdict,
    ...(stoppedBy === undefined || counterexample !== null ? {} : { stoppedBy }),
    states: visited.size,
    transitions: counts.transitions,
    depth: levels.length - 1,
    levels,
    durationMs: clock.durationMs(),
    cpuMs: clock.cpuMs(),
    visitedBytes,
    frontierPeakBytes,
    bytesPerState: (visitedBytes + frontierPeakBytes) / Math.max(1, visited.size),
    collisionProbability: collisionProbability(visited.size),
    boundaries: { reached, expected, missing: expected.filter((b) => !reached.includes(b)) },
    counterexample,
    ...(counts.differential === undefined ? {} : { differential: counts.differential }),
    threads: counts.threads,
    coverage: counts.coverage,
  };
}
