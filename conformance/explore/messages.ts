/** The messages between a parallel exploration (parallel.ts) and its worker threads (worker.ts). */
import type { ExploreCoverageData } from './coverageCounter.ts';
import type { ExploreScope, NamedConfig } from './scope.ts';

/** Starts a worker on one config of a scope. */
export interface WorkerInit {
  readonly type: 'begin';
  readonly named: NamedConfig;
  readonly scope: ExploreScope;
}
/** A chunk of frontier records to expand. */
export interface ChunkRequest {
  readonly type: 'chunk';
  readonly chunk: number;
  readonly data: Int32Array;
  readonly offsets: Int32Array;
}
/** The successors of a chunk: per successor [source, step, hi, lo, broken, length, ...record]. */
export interface ChunkReply {
  readonly type: 'chunk';
  readonly chunk: number;
  readonly words: Int32Array;
  readonly successors: number;
  readonly violations: Array<{ readonly successor: number; readonly name: string; readonly message: string }>;
}
/** A worker's counts at the end. */
export interface FinishReply {
  readonly type: 'finish';
  readonly coverage: ExploreCoverageData;
  readonly boundaries: readonly number[];
  readonly transitions: number;
  readonly bytes: number;
}
