/**
 * The benchmark (run through bench/run.ts, i.e. `npm run bench [-- --quick] [-- --write]`).
 *
 * For each resident size it builds a store by running the contended workload (bench/workload.ts)
 * until it holds that many jobs, takes its snapshot, and records streams of further commands from
 * it: each stream continues the same store and driver state with its own seed and is a tenth of
 * the resident size long. Then, side by side in one process, each stream is replayed on a fresh
 * copy of the store through: JobStore.execute (validated, the real entry point),
 * JobStore.executeTrusted (schema parse skipped), the floor (bench/floor.ts), and at 1e3 and 1e4
 * the reference model. At the largest size it also times snapshot -> JSON.stringify -> JSON.parse
 * -> JobStore.restore against JSON.stringify + JSON.parse alone.
 *
 * Every size is measured the same way: a fresh copy per stream, built (untimed) just before it is
 * replayed, so that each is measured on a store of its size in the same cache state. Small sizes
 * replay several streams a repetition, to time at least MIN_TIMED commands. Times are CPU time;
 * all sizes are prepared first, then raced in rounds, each size and contender timed once a round
 * in rotating order, so that load from elsewhere falls alike on every row; each cell is the median
 * of the rounds. The model runs after the rounds.
 */
import { writeFileSync } from 'node:fs';
import type { Command, Snapshot } from '../contract/index.ts';
import { parseSnapshot } from '../contract/index.ts';
import { JobStore } from '../impl/index.ts';
import { fromSnapshot, step } from '../model/index.ts';
import type { ModelState } from '../model/index.ts';
import { FloorQueue } from './floor.ts';
import { PreloadedStore, canCollect, collect, collectYoung, heapUsed, loadAverage, median, timed } from './measure.ts';
import { report } from './report.ts';
import type { RestoreResult, SizeResult } from './report.ts';
import { buildStore, configFor, recordStream, shapeFor } from './workload.ts';
import type { Stream } from './workload.ts';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const write = !quick || args.includes('--write');

/** Resident sizes; `--sizes=1000,100000` picks others (for a look at one size, never for the report's targets). */
const sizesArg = args.find((a) => a.startsWith('--sizes='));
const SIZES =
  sizesArg !== undefined
    ? sizesArg.slice('--sizes='.length).split(',').map(Number)
    : quick
      ? [1e3, 1e4, 1e5]
      : [1e3, 1e4, 1e5, 1e6];
/** Fewest commands timed in one repetition (several streams in a row at small sizes). */
const MIN_TIMED = quick ? 10_000 : 20_000;
/** Model: commands per repetition (whole streams at 1e3, a prefix of the first at 1e4), repetitions. */
const MODEL_COMMANDS: Record<number, number> = quick ? { 1000: 200, 10000: 30 } : { 1000: 300, 10000: 100 };
const MODEL_REPS = 3;
/** Interleaved rounds in which every size and contender is timed once. */
const REPS = quick ? 3 : 5;
/** Commands each contender runs untimed at each size before it is measured (whole rounds, at least one). */
const WARMUP = quick ? 30_000 : 100_000;

/** How a size is measured (`reps` is the same at every size: the rounds are shared). */
export interface Plan {
  /** Commands per stream (a tenth of the resident size). */
  readonly commands: number;
  /** Streams replayed in one repetition, each on its own fresh copy. */
  readonly streams: number;
  readonly reps: number;
}

function planFor(resident: number): Plan {
  const commands = Math.max(100, Math.floor(resident / 10));
  return { commands, streams: Math.ceil(MIN_TIMED / commands), reps: REPS };
}

/** One way of running the command streams. */
interface Contender<T> {
  readonly name: string;
  /** A new target holding the measured store's state (not timed). */
  readonly fresh: () => T;
  readonly run: (target: T, command: unknown, wellFormed: number, hint: number) => unknown;
}

/** Replays the first `limit` commands of `stream` on `target`; CPU ms. */
function replay<T>(contender: Contender<T>, target: T, stream: Stream, limit: number): number {
  const { commands, wellFormed, hints } = stream;
  const run = contender.run;
  return timed(() => {
    for (let j = 0; j < limit; j++) run(target, commands[j], wellFormed[j] as number, hints[j] as number);
  });
}

/**
 * Replays the streams through each contender (untimed rounds first, so that every contender is
 * compiled and warm) and returns each one's median microseconds per command. Repetitions are
 * interleaved: contender order rotates each round, so load from elsewhere on the machine falls on
 * all contenders alike. Every stream starts on a fresh copy built just before it (not timed; a
 * young-generation collection follows the build, a full one starts each contender's turn).
 */
function race(
  reps: number,
  streams: readonly Stream[],
  limit: number,
  contenders: readonly Contender<unknown>[],
  warmup: number,
): number[] {
  const perCommand: number[][] = contenders.map(() => []);
  const n = contenders.length;
  for (let r = -warmup; r < reps; r++) {
    for (let k = 0; k < n; k++) {
      const i = (r + warmup + k) % n;
      const contender = contenders[i] as Contender<unknown>;
      collect();
      let ms = 0;
      let commands = 0;
      for (const stream of streams) {
        const target = contender.fresh();
        collectYoung();
        const count = Math.min(limit, stream.commands.length);
        ms += replay(contender, target, stream, count);
        commands += count;
      }
      if (r >= 0) perCommand[i]?.push((ms * 1000) / commands);
    }
  }
  return perCommand.map((list) => median(list));
}

/**
 * Times the restart path at the store's size. `JobStore.restore(x)` is exactly
 * `parseSnapshot(x)` followed by building the store from the result, so the two halves are timed
 * one after the other and reported apart as well as summed (see impl/memory/JobStore.ts).
 */
function measureRestore(store: JobStore, reps: number): RestoreResult {
  const loadStart = loadAverage();
  const rows: { snapshot: number; stringify: number; parse: number; validate: number; load: number }[] = [];
  let jsonMiB = 0;
  for (let r = 0; r < reps; r++) {
    collect();
    let snap: Snapshot | undefined;
    let text = '';
    let parsed: unknown;
    let valid: Snapshot | undefined;
    let restored: JobStore | undefined;
    const snapshot = timed(() => {
      snap = store.snapshot();
    });
    const stringify = timed(() => {
      text = JSON.stringify(snap);
    });
    snap = undefined;
    jsonMiB = text.length / 2 ** 20;
    const parse = timed(() => {
      parsed = JSON.parse(text);
    });
    text = '';
    const validate = timed(() => {
      valid = parseSnapshot(parsed);
    });
    parsed = undefined;
    const load = timed(() => {
      restored = PreloadedStore.fromValidated(valid as Snapshot);
    });
    valid = undefined;
    if (restored?.size !== store.size) throw new Error('bench: restore lost jobs');
    restored = undefined;
    rows.push({ snapshot, stringify, parse, validate, load });
    console.log(
      `  snapshot/restore rep ${r + 1} (CPU ms): ${JSON.stringify(rows[rows.length - 1], (_, v: unknown) => (typeof v === 'number' ? Math.round(v) : v))}`,
    );
  }
  const med = (k: keyof (typeof rows)[number]) => median(rows.map((row) => row[k]));
  return {
    jobs: store.size,
    jsonMiB,
    reps,
    snapshot: med('snapshot'),
    stringify: med('stringify'),
    parse: med('parse'),
    restore: median(rows.map((row) => row.validate + row.load)),
    validate: med('validate'),
    load: med('load'),
    bare: median(rows.map((row) => row.stringify + row.parse)),
    full: median(rows.map((row) => row.snapshot + row.stringify + row.parse + row.validate + row.load)),
    fast: median(rows.map((row) => row.snapshot + row.stringify + row.parse + row.load)),
    loadStart,
    loadEnd: loadAverage(),
  };
}

function tally(into: Map<string, number>, from: Map<string, number>): void {
  for (const [k, v] of from) into.set(k, (into.get(k) ?? 0) + v);
}

/** A size ready to be raced: its snapshot, its streams, and what was learnt while making them. */
interface Prepared {
  readonly resident: number;
  /**
   * The snapshot as JSON text: copies are parsed from it. Held as one string rather than as the
   * snapshot's objects, so that a full garbage collection during a small size's turn does not
   * have to mark the large sizes' snapshots (a cost that would fall on the small sizes only).
   */
  readonly snapText: string;
  readonly streams: Stream[];
  readonly contenders: Contender<unknown>[];
  readonly result: Omit<SizeResult, 'execute' | 'trusted' | 'floor' | 'model' | 'spread'>;
}

function prepareSize(resident: number, largest: boolean): { prepared: Prepared; restore?: RestoreResult } {
  const shape = shapeFor(resident);
  const plan = planFor(resident);
  console.log(
    `\n== ${resident} resident jobs (capacity ${shape.capacity}, ${shape.accounts} accounts, ${shape.hot} hot, ${shape.workers} workers); ${plan.streams} stream(s) of ${plan.commands} commands x ${plan.reps}`,
  );
  const before = heapUsed();
  const built = buildStore(JobStore.create(configFor(shape)), shape);
  const store = built.store;
  const bytesPerJob = (heapUsed() - before) / store.size;
  const jobs = store.size;
  console.log(
    `  built ${jobs} jobs ${JSON.stringify(store.counts())} at clock ${store.clock}; ${bytesPerJob.toFixed(0)} heap bytes per job`,
  );
  const restore = largest ? measureRestore(store, quick ? 2 : 3) : undefined;
  const snap = store.snapshot();
  const statuses: Record<string, number> = {};
  const unresolvedPerAccount = new Map<string, number>();
  for (const job of Object.values(snap.jobs)) {
    const k = job.status === 'dead' ? `dead: ${job.reason}` : job.status;
    statuses[k] = (statuses[k] ?? 0) + 1;
    if (job.status === 'ready' || job.status === 'waiting' || job.status === 'running') {
      unresolvedPerAccount.set(job.payload.account, (unresolvedPerAccount.get(job.payload.account) ?? 0) + 1);
    }
  }
  const queues = [...unresolvedPerAccount.values()].sort((a, b) => b - a);
  const streams: Stream[] = [];
  const replies = new Map<string, number>();
  for (let s = 0; s < plan.streams; s++) {
    // The last stream continues the built store itself; the others a copy of it.
    const target = s === plan.streams - 1 ? store : PreloadedStore.fromValidated(snap);
    const recorded = recordStream(target, shape, built.state, plan.commands, 1000 + s);
    streams.push(recorded.stream);
    tally(replies, recorded.replies);
  }
  const growth = (store.size - jobs) / jobs;
  // How often the floor's settlements found no delivery, beside how often the store's did not.
  let settles = 0;
  let floorMisses = 0;
  for (const stream of streams) {
    const check = FloorQueue.fromSnapshot(snap);
    stream.commands.forEach((c, j) => {
      const type = (c as { type?: unknown }).type;
      if (stream.wellFormed[j] === 1 && (type === 'commit' || type === 'ack' || type === 'fail')) settles++;
      check.execute(c as Command, stream.wellFormed[j] as number, stream.hints[j] as number);
    });
    floorMisses += check.misses;
  }
  const stale = [...replies].filter(([k]) => /^(commit|ack|fail): stale_token$/.test(k)).reduce((a, [, v]) => a + v, 0);
  const snapText = JSON.stringify(snap);
  const copy = (): Snapshot => JSON.parse(snapText) as Snapshot;
  const contenders = [
    {
      name: 'impl execute',
      fresh: () => PreloadedStore.fromValidated(copy()),
      run: (t: JobStore, c: unknown) => t.execute(c),
    },
    {
      name: 'impl trusted',
      fresh: () => PreloadedStore.fromValidated(copy()),
      run: (t: JobStore, c: unknown, ok: number) => (ok === 1 ? t.executeTrusted(c as Command) : t.execute(c)),
    },
    {
      name: 'floor',
      fresh: () => FloorQueue.fromSnapshot(copy()),
      run: (t: FloorQueue, c: unknown, ok: number, hint: number) => t.execute(c as Command, ok, hint),
    },
  ] as Contender<unknown>[];
  const result = {
    shape,
    jobs,
    clock: snap.clock,
    plan,
    bytesPerJob,
    growth,
    statuses,
    queues: { accounts: queues.length, top: queues.slice(0, 3), median: queues[queues.length >> 1] ?? 0 },
    replies,
    settles: { total: settles, floorMisses, stale },
  };
  const prepared: Prepared = { resident, snapText, streams, contenders, result };
  return restore === undefined ? { prepared } : { prepared, restore };
}

/**
 * Races every size's contenders in the same rounds: warm-up rounds for each size first (untimed),
 * then in each round every size (in an order that rotates) and within it every contender (also
 * rotating), so that load from elsewhere on the machine falls alike on all sizes and contenders.
 * Returns per size the median microseconds per command of each contender.
 */
function raceSizes(sizes: readonly Prepared[], reps: number): number[][] {
  for (const p of sizes)
    race(
      0,
      p.streams,
      p.result.plan.commands,
      p.contenders,
      Math.ceil(WARMUP / (p.streams.length * p.result.plan.commands)),
    );
  const perCommand = sizes.map((p) => p.contenders.map((): number[] => []));
  for (let r = 0; r < reps; r++) {
    for (let q = 0; q < sizes.length; q++) {
      const s = (r + q) % sizes.length;
      const p = sizes[s] as Prepared;
      const times = race(
        1,
        p.streams,
        p.result.plan.commands,
        p.contenders.map((_, k) => p.contenders[(r + k) % p.contenders.length] as Contender<unknown>),
        0,
      );
      times.forEach((t, k) => {
        perCommand[s]?.[(r + k) % p.contenders.length]?.push(t);
      });
    }
    perCommand.forEach((lists, i) => {
      spreads[i] = lists.map((l) => [Math.min(...l), Math.max(...l)] as [number, number]);
    });
    console.log(
      `  round ${r + 1}/${reps}: ${sizes.map((p, s) => `${p.resident}: ${perCommand[s]?.map((l) => (l[l.length - 1] ?? 0).toFixed(3)).join(' / ')}`).join('; ')}`,
    );
  }
  return perCommand.map((lists) => lists.map((l) => median(l)));
}

/** Lowest and highest of each contender's per-round figures, filled in by raceSizes. */
const spreads: [number, number][][] = [];

function measureModel(p: Prepared): SizeResult['model'] {
  const modelCommands = MODEL_COMMANDS[p.resident];
  if (modelCommands === undefined) return undefined;
  const commands = p.result.plan.commands;
  const modelStreams = p.streams.slice(0, Math.ceil(modelCommands / commands));
  const modelContender: Contender<{ state: ModelState }> = {
    name: 'model',
    fresh: () => ({ state: fromSnapshot(JSON.parse(p.snapText) as Snapshot) }),
    run: (box, c) => {
      box.state = step(box.state, c).state;
    },
  };
  const limit = Math.min(commands, modelCommands);
  const [perCommand] = race(MODEL_REPS, modelStreams, limit, [modelContender as Contender<unknown>], 1) as [number];
  console.log(
    `  model at ${p.resident}: ${perCommand.toFixed(1)} µs/command (${limit * modelStreams.length} commands)`,
  );
  return { perCommand, commands: limit * modelStreams.length };
}

// ------------------------------------------------------------------------------------------------

if (!canCollect()) console.warn('bench: run through `npm run bench` (needs --expose-gc); heap figures will be rough');
const startLoad = loadAverage();
const started = performance.now();
const prepared: Prepared[] = [];
let restoreResult: RestoreResult | undefined;
for (const resident of SIZES) {
  const { prepared: p, restore } = prepareSize(resident, resident === SIZES[SIZES.length - 1]);
  prepared.push(p);
  if (restore !== undefined) restoreResult = restore;
}
console.log('\n== racing all sizes in the same rounds');
const commandsLoad = { start: loadAverage(), end: 0 };
const times = raceSizes(prepared, REPS);
commandsLoad.end = loadAverage();
const modelLoad = { start: loadAverage(), end: 0 };
const results: SizeResult[] = prepared.map((p, s) => {
  const [execute, trusted, floor] = times[s] as [number, number, number];
  const model = measureModel(p);
  return { ...p.result, execute, trusted, floor, spread: spreads[s] ?? [], ...(model === undefined ? {} : { model }) };
});
modelLoad.end = loadAverage();
const seconds = (performance.now() - started) / 1000;
const text = report({
  results,
  restore: restoreResult as RestoreResult,
  startLoad,
  endLoad: loadAverage(),
  commandsLoad,
  modelLoad,
  seconds,
  quick,
  minTimed: MIN_TIMED,
  warmup: WARMUP,
  modelReps: MODEL_REPS,
});
console.log(`\n${text}`);
if (write) {
  writeFileSync(new URL('../docs/benchmarks.md', import.meta.url), `${text}\n`);
  console.log('\nwrote docs/benchmarks.md');
}
