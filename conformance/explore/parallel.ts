/**
 * A model-only exploration across worker threads. The main thread runs the frontier loop
 * (frontier.ts: the visited set, the tree of first discoveries and the frontier); the workers
 * (worker.ts) do what costs: decoding, the model's steps, canonical keys, fingerprints and
 * invariants. Each level's frontier is cut into chunks that go to the workers in turn; their
 * answers are taken in chunk order, so states get the same indices, the same parents and the same
 * counterexample as in a single-threaded exploration, whatever the timing.
 *
 * A worker answers only successors it has not produced before: one it produced before was
 * already answered in an earlier chunk (which the main thread took first) or earlier in the same
 * chunk, so it is in the visited set, and leaving it out changes nothing. That keeps what crosses
 * the thread boundary near the number of distinct states rather than the number of transitions.
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { STORE_INVARIANTS, step as modelStep } from '../../model/index.ts';
import { BOUNDARIES } from './boundaries.ts';
import { configExploration } from './configExploration.ts';
import { ExploreCoverage } from './coverageCounter.ts';
import { Expander } from './expander.ts';
import { searchFrontier } from './frontier.ts';
import type { Level, LevelEnd } from './frontier.ts';
import type { ChunkReply, ChunkRequest, FinishReply, WorkerInit } from './messages.ts';
import { DEFAULT_MAX_STATES } from './options.ts';
import type { ExploreOptions } from './options.ts';
import type { ConfigExploration } from './result.ts';
import { scopeNames } from './scope.ts';
import type { ExploreScope, NamedConfig } from './scope.ts';
import { startStopwatch } from './stopwatch.ts';

/** States per chunk sent to a worker. */
const CHUNK_STATES = 256;
/** Chunks in flight per worker. */
const IN_FLIGHT = 2;
// From the sources a worker thread registers tsx itself (workerEntry.mjs) before loading
// worker.ts; in the built package (dist/) the worker is plain JavaScript and needs no tsx.
const ENTRY = fileURLToPath(
  import.meta.url.endsWith('.ts')
    ? new URL('./workerEntry.mjs', import.meta.url)
    : new URL('./worker.js', import.meta.url),
);

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
export async function exploreInParallel(
  part: string,
  named: NamedConfig,
  scope: ExploreScope,
  pool: WorkerPool,
  options: ExploreOptions,
): Promise<ConfigExploration> {
  const threads = pool.workers.length;
  const clock = startStopwatch();
  const names = scopeNames(scope, named.config.maxAttempts);
  const workers = pool.workers;
  const waiting = new Map<number, (reply: ChunkReply) => void>();
  let failure: Error | undefined;
  const onMessage = (m: ChunkReply | FinishReply): void => {
    if (m.type === 'chunk') waiting.get(m.chunk)?.(m);
  };
  const onError = (e: Error): void => {
    failure = e;
    for (const resolve of waiting.values())
      resolve({ type: 'chunk', chunk: -1, words: new Int32Array(0), successors: 0, violations: [] });
  };
  for (const w of workers) {
    w.on('message', onMessage);
    w.on('error', onError);
    w.postMessage({ type: 'begin', named, scope } satisfies WorkerInit);
  }
  let chunkId = 0;

  const expandLevel = async ({ frontier, admit, stopReason }: Level): Promise<LevelEnd> => {
    const { words: cur, offsets: curOffsets, ids: curIds } = frontier;
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
      worker?.postMessage({ type: 'chunk', chunk, data, offsets } satisfies ChunkRequest, [
        data.buffer,
        offsets.buffer,
      ]);
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
        const length = w[p + 5] ?? 0;
        const at = p + 6;
        const index = admit(source, w[p + 1] ?? 0, (w[p + 2] ?? 0) >>> 0, (w[p + 3] ?? 0) >>> 0, w, at, length);
        if (index >= 0) {
          const v = violations.get(ordinal);
          if (w[p + 4] === 1 && v !== undefined && broken === undefined)
            broken = { index, name: v.name, message: v.message };
        }
        p = at + length;
        ordinal++;
      }
      if (broken !== undefined) return { kind: 'broken', ...broken };
      if (dispatched < curIds.length) {
        const stop = stopReason();
        if (stop !== undefined) return { kind: 'stopped', by: stop };
        dispatch();
      }
    }
    return { kind: 'done' };
  };

  try {
    const outcome = await searchFrontier({
      named,
      scope,
      names,
      expander: new Expander(named.config, scope, names),
      stepFn: modelStep,
      invariants: STORE_INVARIANTS,
      maxStates: options.maxStates ?? DEFAULT_MAX_STATES,
      budget: options.budget,
      onProgress: options.onProgress,
      transitions: () => 0,
      expandLevel,
    });
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
    const source = `explore ${part}/${named.name} model`;
    const counts = {
      transitions,
      boundaries,
      extraVisitedBytes: workerBytes,
      threads,
      coverage: coverage.toCoverage(source, 1),
    };
    return configExploration(part, named, scope, outcome, counts, clock);
  } finally {
    for (const w of workers) {
      w.off('message', onMessage);
      w.off('error', onError);
    }
  }
}
