/**
 * Bounded exhaustive exploration of the store model (docs/conformance.md, "Exhaustive
 * exploration"): `explore` over a scope, `runExploration` over the default exploration (what
 * `jobcheck check` runs beside the path suite). Results are data.
 */
export type { Boundary } from './boundaries.ts';
export { BOUNDARIES, expectedBoundaries, observeBoundaries, reachedBoundaries } from './boundaries.ts';
export { MAX_NAMES, canonicalKey, collisionProbability, fingerprint, fingerprintOut } from './canonical.ts';
export { JOB_WORDS, Words, decodeState, encodeState, recordLength } from './codec.ts';
export type { DifferentialCounts, EdgeDivergence } from './differential.ts';
export { DifferentialChecker } from './differential.ts';
export type { Expansion, StepFunction, Successor } from './expander.ts';
export { Expander } from './expander.ts';
export type { ResolvedPart } from './explore.ts';
export { explore, resolveParts, resolveScope } from './explore.ts';
export type { ExploreOptions, ExploreProgress } from './options.ts';
export { DEFAULT_MAX_STATES } from './options.ts';
export type { ConfigExploration, Counterexample, ExploreResult, ExploreVerdict } from './result.ts';
export { pathSteps } from './pathSteps.ts';
export { violationStory } from './violationStory.ts';
export type { RunExplorationOptions } from './runExploration.ts';
export { runExploration } from './runExploration.ts';
export type { ExplorePart, ExploreScope, NamedConfig, ScopeNames } from './scope.ts';
export {
  CHECK_EXPLORATION,
  DEFAULT_CONFIG_NAMES,
  DEFAULT_EXPLORATION,
  DEFAULT_SCOPE,
  EXPLORE_CONFIGS,
  RESTART,
  alphabet,
  exploreConfig,
  scopeNames,
} from './scope.ts';
export { VisitedSet } from './visited.ts';
// Not exported: the frontier loop (frontier.ts) and its two ways of expanding a level
// (sequential.ts, parallel.ts), the worker threads' entry (worker.ts, workerEntry.mjs) and their
// messages (messages.ts), which only explore() uses; the coverage counters (coverageCounter.ts),
// which end up in the result's Coverage; and the pieces of a result (configExploration.ts,
// stopwatch.ts).
