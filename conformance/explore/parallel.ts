/**
 * A model-only exploration across worker threads. The main thread keeps the visited set, the
 * tree of first discoveries and the frontier; the workers (worker.ts) do what costs: decoding,
 * the model's steps, canonical keys, fingerprints and invariants. Each level's frontier is cut
 * into chunks that go to the workers in turn; their answers are taken in chunk order, so states
 * get the same indices, the same parents and the same counterexample as in a single-threaded
 * exploration, whatever the timing.
 *
 * A worker answers only successors it has not produced before: one it produced before was
 * already answered in an earlier chunk (which the main thread took first) or earlier in the same
 * chunk, so it is in the visited set, and leaving it out changes nothing. That keeps what crosses
 * the thread boundary near the number of distinct states rather than the number of transitions.
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import type { Config } from '../../contract/index.ts';
import { initialState, violatedInvariant } from '../../model/index.ts';
import { expectedBoundaries, reachedBoundaries, BOUNDARIES } from './boundaries.ts';
import { collisionProbability, fingerprintOut } from './canonical.ts';
import { Words } from './codec.ts';
import { ExploreCoverage } from './coverageCounter.ts';
import type { ExploreCoverageData } from './coverageCounter.ts';
import { Expander } from './expander.ts';
import { DEFAULT_MAX_STATES, pathSteps, violationStory } from './explore.ts';
import type { ConfigExploration, Counterexample, ExploreOptions, ExploreVerdict } from './explore.ts';
import { scopeNames } from './scope.ts';
import type { ExploreScope, NamedConfig } from './scope.ts';
import { VisitedSet } from './visited.ts';

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

/** States per chunk sent to a worker. */
const CHUNK_STATES = 256;
/** Chunks in flight per worker. */
const IN_FLIGHT = 2;
// From the sources a worker thread registers tsx itself (workerEntry.mjs) before loading
// worker.ts; in the built package (dist/) the worker is plain JavaScript and needs no tsx.
const ENTRY = fileURLToPath(import.meta.url.endsWith('.ts') ? new URL('./workerEntry.mjs', import.meta.url) : new URL('./worker.js', import.meta.url));

const cpuNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Worker threads kept for the configs of one exploration. */
export class WorkerPool {
  readonly workers: Worker[];
  constructor(threads: number) {
    this.workers = Array.from({ length: threads }, () => new Worker(ENTRY));
  }

  /** Ends every worker. */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

/** Explores one config of a scope with the pool's threads; the same result as a single-threaded exploration, computed in parallel. */
export async function exploreInParallel(part: string, named: NamedConfig, scope: ExploreScope, pool: WorkerPool, options: ExploreOptions): Promise<ConfigExploration> {
  const threads = pool.workers.length;
  const started = performance.now();
  const cpu0 = cpuNow();
  const config: Config = named.config;
  const names = scopeNames(scope, config.maxAttempts);
  const maxStates = options.maxStates ?? DEFAULT_MAX_STATES;
  const budget = options.budget;
  const local = new Expander(config, scope, names);
  const visited = new VisitedSet();
  const workers = pool.workers;
  const waiting = new Map<number, (reply: ChunkReply) => void>();
  let failure: Error | undefined;
  const onMessage = (m: ChunkReply | FinishReply): void => {
    if (m.type === 'chunk') waiting.get(m.chunk)?.(m);
  };
  const onError = (e: Error): void => {
    failure = e;
    for (const resolve of waiting.values()) resolve({ type: 'chunk', chunk: -1, words: new Int32Array(0), successors: 0, violations: [] });
  };
  for (const w of workers) {
    w.on('message', onMessage);
    w.on('error', onError);
    w.postMessage({ type: 'begin', named, scope } satisfies WorkerInit);
  }
  let counterexample: Counterexample | null = null;
  let stoppedBy: 'max-states' | 'time-limit' | undefined;
  const levels: number[] = [1];
  let frontierPeakBytes = 0;
  let chunkId = 0;
  try {
    const root = initialState(config);
    let cur = new Words();
    local.encode(root, cur);
    local.fingerprintOf(cur.data, 0);
    visited.add(fingerprintOut[0] ?? 0, fingerprintOut[1] ?? 0, -1, 0);
    let curOffsets: number[] = [0];
    let curIds: number[] = [0];
    const rootBroken = violatedInvariant(root);
    if (rootBroken !== undefined) {
      counterexample = { kind: 'invariant', invariant: rootBroken.name, message: rootBroken.message, path: [], story: violationStory(config, [], rootBroken.name, rootBroken.message) };
    }
    outer: while (counterexample === null && curIds.length > 0) {
      const next = new Words();
      const nextOffsets: number[] = [];
      const nextIds: number[] = [];
      const chunks: Array<{ first: number; count: number; reply: Promise<ChunkReply> }> = [];
      let dispatched = 0;
      const dispatch = (): void => {
        const first = dispatched;
        const count = Math.min(CHUNK_STATES, curIds.length - first);
        const start = curOffsets[first] ?? 0;
        const endIndex = first + count;
        const end = endIndex < curIds.length ? (curOffsets[endIndex] ?? 0) : cur.length;
        const data = cur.data.slice(start, end);
        const offsets = new Int32Array(count);
        for (let i = 0; i < count; i++) offsets[i] = (curOffsets[first + i] ?? 0) - start;
        const chunk = chunkId++;
        const worker = workers[chunk % workers.length];
        const reply = new Promise<ChunkReply>((resolve) => waiting.set(chunk, resolve));
        worker?.postMessage({ type: 'chunk', chunk, data, offsets } satisfies ChunkRequest, [data.buffer, offsets.buffer]);
        chunks.push({ first, count, reply });
        dispatched += count;
      };
      while (dispatched < curIds.length && chunks.length < IN_FLIGHT * workers.length) dispatch();
      while (chunks.length > 0) {
        const c = chunks.shift();
        if (c === undefined) break;
        const reply = await c.reply;
        waiting.delete(reply.chunk);
        if (failure !== undefined) throw failure;
        const w = reply.words;
        let p = 0;
        let broken: { index: number; name: string; message: string } | undefined;
        let ordinal = 0;
        const violations = new Map(reply.violations.map((v) => [v.successor, v]));
        while (p < w.length) {
          const source = curIds[c.first + (w[p] ?? 0)] ?? 0;
          const stepIndex = w[p + 1] ?? 0;
          const hi = (w[p + 2] ?? 0) >>> 0;
          const lo = (w[p + 3] ?? 0) >>> 0;
          const flagged = w[p + 4] === 1;
          const length = w[p + 5] ?? 0;
          const at = p + 6;
          const index = visited.add(hi, lo, source, stepIndex);
          if (index >= 0) {
            nextOffsets.push(next.length);
            next.reserve(length);
            next.data.set(w.subarray(at, at + length), next.length);
            next.length += length;
            nextIds.push(index);
            const v = violations.get(ordinal);
            if (flagged && v !== undefined && broken === undefined) broken = { index, name: v.name, message: v.message };
          }
          p = at + length;
          ordinal++;
        }
        if (broken !== undefined) {
          const path = pathSteps(config, scope, names, visited.pathTo(broken.index));
          counterexample = { kind: 'invariant', invariant: broken.name, message: broken.message, path, story: violationStory(config, path, broken.name, broken.message) };
          break outer;
        }
        if (dispatched < curIds.length) {
          if (visited.size >= maxStates) {
            stoppedBy = 'max-states';
            break outer;
          }
          if (budget?.expired === true) {
            stoppedBy = 'time-limit';
            break outer;
          }
          dispatch();
        }
      }
      frontierPeakBytes = Math.max(frontierPeakBytes, 4 * (cur.length + next.length) + 16 * (curIds.length + nextIds.length));
      if (nextIds.length > 0) levels.push(nextIds.length);
      options.onProgress?.({ config: named.name, depth: levels.length - 1, states: visited.size, transitions: 0 });
      if (nextIds.length > 0 && visited.size >= maxStates) {
        stoppedBy = 'max-states';
        break;
      }
      cur = next;
      curOffsets = nextOffsets;
      curIds = nextIds;
    }
    // Chunks still in flight after a stop are answered before the counts (a worker answers in
    // order) and dropped; their counts stay in the coverage.
    const finals = await Promise.all(
      workers.map(
        (w) =>
          new Promise<FinishReply>((resolve) => {
            const done = (m: ChunkReply | FinishReply): void => {
              if (m.type !== 'finish') return;
              w.off('message', done);
              resolve(m);
            };
            w.on('message', done);
            w.postMessage({ type: 'finish' });
          }),
      ),
    );
    const coverage = new ExploreCoverage();
    const boundaries = new Float64Array(BOUNDARIES.length);
    let transitions = 0;
    let workerBytes = 0;
    for (const f of finals) {
      coverage.merge(f.coverage);
      f.boundaries.forEach((n, i) => {
        boundaries[i]! += n;
      });
      transitions += f.transitions;
      workerBytes += f.bytes;
    }
    const reached = reachedBoundaries(boundaries);
    const expected = expectedBoundaries(config, scope);
    const verdict: ExploreVerdict = counterexample !== null ? 'violation' : stoppedBy !== undefined ? 'incomplete' : 'complete';
    const visitedBytes = visited.bytes + workerBytes;
    return {
      part,
      name: named.name,
      config,
      verdict,
      ...(stoppedBy === undefined || counterexample !== null ? {} : { stoppedBy }),
      states: visited.size,
      transitions,
      depth: levels.length - 1,
      levels,
      durationMs: performance.now() - started,
      cpuMs: cpuNow() - cpu0,
      visitedBytes,
      frontierPeakBytes,
      bytesPerState: (visitedBytes + frontierPeakBytes) / Math.max(1, visited.size),
      collisionProbability: collisionProbability(visited.size),
      boundaries: { reached, expected, missing: expected.filter((b) => !reached.includes(b)) },
      counterexample,
      threads,
      coverage: coverage.toCoverage(`explore ${part}/${named.name} model`, 1),
    };
  } finally {
    for (const w of workers) {
      w.off('message', onMessage);
      w.off('error', onError);
    }
  }
}
