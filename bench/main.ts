/**
 * The benchmark (run through bench/run.ts, i.e. `npm run bench [-- --quick] [-- --write]`).
 *
 * For each resident size it builds a store by running the mixed workload (bench/workload.ts),
 * takes its snapshot, records a stream of further commands, and then replays that same stream,
 * side by side in one process, through: JobStore.execute (validated, the real entry point),
 * JobStore.executeTrusted (schema parse skipped), the floor (bench/floor.ts), and at 1e3 and 1e4
 * the reference model. At the largest size it also times snapshot -> JSON.stringify -> JSON.parse
 * -> JobStore.restore against JSON.stringify + JSON.parse alone. Medians of several repetitions.
 *
 * Small sizes are replayed from a fresh copy of the store each repetition (so the store stays at
 * its size); large ones run consecutive segments of one long stream on one copy (each segment
 * adds about a quarter as many jobs as it has commands, so the store grows by ~13% at most).
 */
import { writeFileSync } from 'node:fs';
import type { Command, Snapshot } from '../contract/index.ts';
import { parseSnapshot } from '../contract/index.ts';
import { JobStore } from '../impl/index.ts';
import { fromSnapshot, step } from '../model/index.ts';
import type { ModelState } from '../model/index.ts';
import { FloorQueue } from './floor.ts';
import { PreloadedStore, canCollect, collect, heapUsed, loadAverage, machine, median, timed } from './measure.ts';
import { MIX, buildStore, recordStream, shapeFor } from './workload.ts';
import type { WorkloadShape } from './workload.ts';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const write = !quick || args.includes('--write');
const command = `npm run bench${quick ? ' -- --quick' : ''}`;

const SIZES = quick ? [1e3, 1e4, 1e5] : [1e3, 1e4, 1e5, 1e6];
const MODEL_COMMANDS: Record<number, number> = quick ? { 1000: 100, 10000: 20 } : { 1000: 300, 10000: 60 };
const MODEL_REPS = 3;

/** How a size is replayed: fresh copies for small stores, consecutive segments for large ones. */
interface Plan {
  readonly mode: 'fresh' | 'segments';
  /** Commands per timed repetition. */
  readonly commands: number;
  readonly reps: number;
  /** Untimed repetitions first (fresh mode only), so that every contender is compiled and warm. */
  readonly warmup: number;
  /** Fresh copies replayed one after the other in one timed repetition (fresh mode only). */
  readonly copies: number;
}

/** Fewest commands in one timed section of fresh mode (copies of the store are replayed in a row). */
const MIN_TIMED_COMMANDS = 20_000;
/** Commands each contender runs untimed before a fresh-mode size is measured. */
const WARMUP_COMMANDS = quick ? 30_000 : 100_000;

function planFor(resident: number): Plan {
  if (resident <= 1e4) {
    return { mode: 'fresh', commands: resident, reps: quick ? 9 : 21, warmup: Math.ceil(WARMUP_COMMANDS / resident), copies: Math.ceil(MIN_TIMED_COMMANDS / resident) };
  }
  return { mode: 'segments', commands: resident / 10, reps: quick ? 3 : 5, warmup: 0, copies: 1 };
}

/** One way of running the command stream. */
interface Contender<T> {
  readonly name: string;
  /** A new target holding the measured store's state (not timed). */
  readonly fresh: () => T;
  readonly run: (target: T, command: Command) => unknown;
}

/**
 * Replays `stream` through each contender and returns each one's median microseconds per
 * command. Repetitions are interleaved (contender order rotates each round), so that load from
 * elsewhere on the machine falls on all contenders alike.
 */
function race(plan: Plan, stream: readonly Command[], contenders: readonly Contender<unknown>[]): number[] {
  const perCommand: number[][] = contenders.map(() => []);
  const n = contenders.length;
  if (plan.mode === 'fresh') {
    // Several fresh copies per repetition, so that each timed section runs long enough to be read.
    const copies = plan.copies;
    for (let r = 0; r < plan.warmup + plan.reps; r++) {
      for (let k = 0; k < n; k++) {
        const i = (r + k) % n;
        const contender = contenders[i] as Contender<unknown>;
        const warm = r < plan.warmup;
        const targets = Array.from({ length: warm ? 1 : copies }, () => contender.fresh());
        if (!warm) collect();
        const ms = timed(() => {
          for (const target of targets) for (const c of stream) contender.run(target, c);
        });
        if (!warm) perCommand[i]?.push((ms * 1000) / (stream.length * targets.length));
      }
    }
  } else {
    const targets = contenders.map((c) => c.fresh());
    for (let r = 0; r < plan.reps; r++) {
      const from = r * plan.commands;
      for (let k = 0; k < n; k++) {
        const i = (r + k) % n;
        const contender = contenders[i] as Contender<unknown>;
        const target = targets[i];
        collect();
        const ms = timed(() => {
          for (let j = from; j < from + plan.commands; j++) contender.run(target, stream[j] as Command);
        });
        perCommand[i]?.push((ms * 1000) / plan.commands);
      }
    }
  }
  return perCommand.map((list) => median(list));
}

interface SizeResult {
  readonly shape: WorkloadShape;
  readonly jobs: number;
  readonly plan: Plan;
  readonly bytesPerJob: number;
  readonly mix: Record<string, number>;
  readonly execute: number;
  readonly trusted: number;
  readonly floor: number;
  readonly model?: { readonly perCommand: number; readonly commands: number };
}

interface RestoreResult {
  readonly jobs: number;
  readonly jsonMiB: number;
  readonly snapshot: number;
  readonly stringify: number;
  readonly parse: number;
  readonly restore: number;
  readonly validate: number;
  readonly load: number;
}

/**
 * Times the restart path at the store's size. `JobStore.restore(x)` is exactly
 * `parseSnapshot(x)` followed by building the store from the result, so the two halves are timed
 * one after the other and reported apart as well as summed (see impl/JobStore.ts).
 */
function measureRestore(store: JobStore, reps: number): RestoreResult {
  const rows: Omit<RestoreResult, 'jobs' | 'jsonMiB' | 'restore'>[] = [];
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
    console.log(`  snapshot/restore rep ${r + 1} (CPU ms): ${JSON.stringify(rows[rows.length - 1], (_, v: unknown) => (typeof v === 'number' ? Math.round(v) : v))}`);
  }
  const med = (k: keyof (typeof rows)[number]) => median(rows.map((row) => row[k]));
  return {
    jobs: store.size,
    jsonMiB,
    snapshot: med('snapshot'),
    stringify: med('stringify'),
    parse: med('parse'),
    restore: median(rows.map((row) => row.validate + row.load)),
    validate: med('validate'),
    load: med('load'),
  };
}

function measureSize(resident: number, largest: boolean): { size: SizeResult; restore?: RestoreResult } {
  const shape = shapeFor(resident);
  const plan = planFor(resident);
  console.log(`\n== ${resident} resident jobs (${shape.accounts} accounts, backlog ${shape.backlog}); ${plan.mode}, ${plan.commands} commands x ${plan.reps}`);
  const before = heapUsed();
  let store: JobStore | undefined = buildStore(shape);
  const bytesPerJob = (heapUsed() - before) / store.size;
  const jobs = store.size;
  console.log(`  built ${jobs} jobs ${JSON.stringify(store.counts())}; ${bytesPerJob.toFixed(0)} heap bytes per job`);
  const restore = largest ? measureRestore(store, quick ? 2 : 3) : undefined;
  const snap = store.snapshot();
  const stream = recordStream(store, shape, plan.mode === 'fresh' ? plan.commands : plan.commands * plan.reps);
  store = undefined;
  const mix: Record<string, number> = {};
  for (const c of stream) mix[c.type] = (mix[c.type] ?? 0) + 1;

  const contenders = [
    { name: 'impl execute', fresh: () => PreloadedStore.fromValidated(snap), run: (t: JobStore, c: Command) => t.execute(c) },
    { name: 'impl trusted', fresh: () => PreloadedStore.fromValidated(snap), run: (t: JobStore, c: Command) => t.executeTrusted(c) },
    { name: 'floor', fresh: () => FloorQueue.fromSnapshot(snap), run: (t: FloorQueue, c: Command) => t.execute(c) },
  ] as Contender<unknown>[];
  const [execute, trusted, floor] = race(plan, stream, contenders) as [number, number, number];
  console.log(`  impl execute ${execute.toFixed(3)}, impl trusted ${trusted.toFixed(3)}, floor ${floor.toFixed(3)} µs/command`);

  let model: SizeResult['model'];
  const modelCommands = MODEL_COMMANDS[resident];
  if (modelCommands !== undefined) {
    const prefix = stream.slice(0, modelCommands);
    const modelPlan: Plan = { mode: 'fresh', commands: modelCommands, reps: MODEL_REPS, warmup: resident === SIZES[0] ? 1 : 0, copies: 1 };
    const modelContender: Contender<{ state: ModelState }> = {
      name: 'model',
      fresh: () => ({ state: fromSnapshot(snap) }),
      run: (box, c) => {
        box.state = step(box.state, c).state;
      },
    };
    const [perCommand] = race(modelPlan, prefix, [modelContender as Contender<unknown>]) as [number];
    model = { perCommand, commands: modelCommands };
    console.log(`  model          ${perCommand.toFixed(1)} µs/command (first ${modelCommands} commands)`);
  }
  const size: SizeResult = { shape, jobs, plan, bytesPerJob, mix, execute, trusted, floor, ...(model === undefined ? {} : { model }) };
  return restore === undefined ? { size } : { size, restore };
}

// ------------------------------------------------------------------------------------------------

const f = (x: number, digits = 2): string => (x >= 100 ? x.toFixed(0) : x.toFixed(digits));
const rate = (usPerCommand: number): string => `${Math.round(1e6 / usPerCommand).toLocaleString('en-US')}`;
const verdict = (met: boolean): string => (met ? 'met' : '**not met**');

function report(results: SizeResult[], restore: RestoreResult, startLoad: number, endLoad: number, seconds: number): string {
  const m = machine();
  const first = results[0] as SizeResult;
  const last = results[results.length - 1] as SizeResult;
  const at1e4 = results.find((r) => r.shape.resident === 1e4);
  const ratioExec = last.execute / first.execute;
  const ratioTrusted = last.trusted / first.trusted;
  const floorRatios = results.map((r) => r.execute / r.floor);
  const trustedFloorRatios = results.map((r) => r.trusted / r.floor);
  const ratioFloor = last.floor / first.floor;
  const bare = restore.stringify + restore.parse;
  const fullPath = restore.snapshot + restore.stringify + restore.parse + restore.restore;
  const fastPath = restore.snapshot + restore.stringify + restore.parse + restore.load;
  const modelRatio = at1e4?.model === undefined ? undefined : at1e4.model.perCommand / at1e4.execute;
  const mixLine = Object.entries(last.mix)
    .map(([k, v]) => `${k} ${((100 * v) / Object.values(last.mix).reduce((a, b) => a + b, 0)).toFixed(1)}%`)
    .join(', ');

  const lines: string[] = [];
  lines.push('# Benchmarks');
  lines.push('');
  lines.push('Generated by `bench/main.ts`; do not edit by hand: re-run the command below to refresh it.');
  lines.push('');
  lines.push(`- Command: \`${command}\` (${seconds.toFixed(0)} s)`);
  lines.push('- A smaller run: `npm run bench -- --quick` (prints the table; add `-- --write` to write this file)');
  lines.push(`- Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB memory, ${m.os}`);
  lines.push(`- Runtime: Node ${m.node}, flags \`--expose-gc --max-old-space-size=8192\` (set by bench/run.ts)`);
  lines.push(`- 1-minute load average at start / end: ${startLoad} / ${endLoad} (other work on the machine inflates every column; ratios within one run are the fairer reading)`);
  lines.push('');
  lines.push('## Workload');
  lines.push('');
  lines.push(
    'A closed-loop driver (bench/workload.ts, seeded) plays producers and 64 workers: each clock tick it submits a job ' +
      'while the backlog is below its target, claims one, and settles the delivery: commit + ack, or a transient ' +
      `failure (${MIX.transientFail * 100}%; the job waits out a capped exponential backoff and is claimed again), or nothing ` +
      `(${MIX.abandon * 100}%; the lease of 20 ticks is left to expire). ${MIX.shortDeadline * 100}% of jobs get a 5-tick deadline ` +
      'and many of those die by it. The backlog is a tenth of the resident jobs, the accounts a tenth too (300 to 100 000); ' +
      'everything else is terminal (done or dead) and stays resident, as the contract requires.',
  );
  lines.push('');
  lines.push(`The store is first built to the resident size by running the workload; then a stream of further commands is recorded once and replayed, identically, through each contender. Command mix of the largest stream: ${mixLine}.`);
  lines.push('');
  lines.push('- **impl execute**: `JobStore.execute(command)`, the entry point for outside input (zod schema parse, clock, apply).');
  lines.push('- **impl trusted**: `JobStore.executeTrusted(command)`, the same without the schema parse.');
  lines.push('- **floor**: bench/floor.ts, a plain FIFO array with Maps for lookups and no semantics: the least work any queue does for the stream, replies included.');
  lines.push('- **model**: the reference model\'s `step` (xstate), on the first commands of the same stream (it is slow: it copies and scans every job each command).');
  lines.push('');
  lines.push(`Small sizes (≤ 1e4) are replayed from a fresh copy of the store each repetition, after ${WARMUP_COMMANDS.toLocaleString('en-US')} untimed warm-up commands per contender; 1e5 and 1e6 run consecutive segments of one long stream on one copy (after the smaller sizes have warmed everything up), so the store grows by at most ~13% while measured. Repetitions of the contenders are interleaved, a full garbage collection runs before each, and each cell is the median.`);
  lines.push('');
  lines.push('## Commands');
  lines.push('');
  lines.push('Times are CPU time of the benchmark process (user + system, garbage collection included), not wall time: on a small shared machine wall time mostly measures the other work.');
  lines.push('');
  lines.push('| resident jobs | accounts | backlog | timed commands × reps | impl execute µs/cmd | impl execute cmd/s | impl trusted µs/cmd | floor µs/cmd | execute / floor | trusted / floor | model µs/cmd | model / impl execute | heap bytes / job |');
  lines.push('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  results.forEach((r, i) => {
    lines.push(
      `| ${r.jobs.toLocaleString('en-US')} | ${r.shape.accounts.toLocaleString('en-US')} | ${r.shape.backlog.toLocaleString('en-US')} | ${r.plan.copies > 1 ? `${r.plan.commands.toLocaleString('en-US')} on ${r.plan.copies} copies` : r.plan.commands.toLocaleString('en-US')} × ${r.plan.reps} | ${f(r.execute, 3)} | ${rate(r.execute)} | ${f(r.trusted, 3)} | ${f(r.floor, 3)} | ${f(floorRatios[i] as number)} | ${f(trustedFloorRatios[i] as number)} | ${r.model === undefined ? '–' : `${f(r.model.perCommand, 0)} (${r.model.commands} cmds)`} | ${r.model === undefined ? '–' : f(r.model.perCommand / r.execute, 0)} | ${r.bytesPerJob.toFixed(0)} |`,
    );
  });
  lines.push('');
  lines.push(`Heap bytes per job: the growth of the V8 heap (after a full collection) while building the store, divided by its jobs. It includes everything a resident job costs: its record, its strings, its slot in the id index, and the ledger entry of its committed effect (most jobs commit); terminal jobs hold no heap or FIFO entries. At ${last.jobs.toLocaleString('en-US')} jobs that is about ${((last.bytesPerJob * last.jobs) / 2 ** 20).toFixed(0)} MiB.`);
  lines.push('');
  lines.push(`## Snapshot and restore at ${restore.jobs.toLocaleString('en-US')} jobs (${restore.jsonMiB.toFixed(0)} MiB of JSON)`);
  lines.push('');
  lines.push('| step | CPU ms (median) |');
  lines.push('|---|---:|');
  lines.push(`| \`store.snapshot()\` | ${f(restore.snapshot, 0)} |`);
  lines.push(`| \`JSON.stringify\` | ${f(restore.stringify, 0)} |`);
  lines.push(`| \`JSON.parse\` | ${f(restore.parse, 0)} |`);
  lines.push(`| \`JobStore.restore\` = \`parseSnapshot\` + rebuild | ${f(restore.restore, 0)} |`);
  lines.push(`| of which \`parseSnapshot\` (zod schema + cross-field rules) | ${f(restore.validate, 0)} |`);
  lines.push(`| of which rebuilding the store and its indexes | ${f(restore.load, 0)} |`);
  lines.push(`| **full path**: snapshot + stringify + parse + restore | ${f(fullPath, 0)} |`);
  lines.push(`| **bare JSON**: stringify + parse of the same data | ${f(bare, 0)} |`);
  lines.push('');
  lines.push('## Targets');
  lines.push('');
  lines.push('| target | measured | verdict |');
  lines.push('|---|---|---|');
  lines.push(
    `| per-command cost at ${sizeName(last)} within 2× of ${sizeName(first)} | execute ${f(ratioExec)}×, trusted ${f(ratioTrusted)}× (the floor itself: ${f(ratioFloor)}×) | ${verdict(ratioExec <= 2)} |`,
  );
  lines.push(`| impl within 4× of the floor, through \`execute\` | ${floorRatios.map((x) => `${f(x)}×`).join(' / ')} (by size) | ${verdict(floorRatios.every((x) => x <= 4))} |`);
  lines.push(`| impl within 4× of the floor, through \`executeTrusted\` | ${trustedFloorRatios.map((x) => `${f(x)}×`).join(' / ')} (by size) | ${verdict(trustedFloorRatios.every((x) => x <= 4))} |`);
  lines.push(`| snapshot + restore within 3× of bare JSON | ${f(fullPath / bare)}× (without the schema check: ${f(fastPath / bare)}×) | ${verdict(fullPath / bare <= 3)} |`);
  lines.push(`| at least 100× faster than the model at 1e4 | ${modelRatio === undefined ? 'not measured' : `${f(modelRatio, 0)}×`} | ${verdict(modelRatio !== undefined && modelRatio >= 100)} |`);
  lines.push('');
  lines.push('## Reading the numbers');
  lines.push('');
  const parseCost = results.map((r) => r.execute - r.trusted);
  lines.push(
    `- **Growth with size.** No command scans the jobs (the indexes are described in impl/JobStore.ts), yet the cost per command grows from ${sizeName(first)} to ${sizeName(last)}: ` +
      `${f(ratioTrusted)}× for the store's own work, while the floor, which does little more than a Map lookup or two and an array push per command, grows ${f(ratioFloor)}×. ` +
      `The growth is the memory hierarchy, not the algorithm: at ${sizeName(first)} the whole store sits in the CPU caches; at ${sizeName(last)} (about ${((last.bytesPerJob * last.jobs) / 2 ** 20).toFixed(0)} MiB of heap) ` +
      'each Map lookup, heap sift and job record touched is likely a cache and TLB miss. Any store with a hash index over all resident ids pays this; ' +
      `${ratioTrusted <= ratioFloor ? 'impl grows no faster than the floor, so' : ratioTrusted <= ratioFloor * 1.1 ? 'impl grows about as fast as the floor (within 10%), so' : 'impl grows somewhat faster than the floor (it touches more records per command: the account FIFO, two heaps, the ledger), and'} ` +
      'the 2× target is bounded by the machine rather than by the O(log n) structure. The `execute` ratio is lower only because the schema parse, whose work does not grow with the store, dilutes it.',
  );
  lines.push(
    `- **Distance to the floor.** The store's own work (\`executeTrusted\`) costs ${trustedFloorRatios.map((x) => `${f(x)}×`).join(' / ')} the floor by size. ` +
      `\`execute\` adds the zod schema parse of contract/schema.ts (\`parseCommand\`), about ${parseCost.map((x) => f(x, 2)).join(' / ')} µs per command by size (execute − trusted), ` +
      "work that does not depend on the jobs in the store (the spread across sizes comes from subtracting two medians, and likely from its garbage costing more to collect in a larger heap), comparable to or larger than the floor's whole cost. Proposal (not applied): a hand-written command validator with the same rules and messages, held equal to the zod schema by a property test over random valid and invalid commands, would bring `execute` close to `executeTrusted`.",
  );
  lines.push(
    `- **Snapshot and restore.** The schema check (\`parseSnapshot\`: zod over every job, then the cross-field rules) takes ${f(restore.validate, 0)} of the ${f(fullPath, 0)} CPU ms of the full path; ` +
      `rebuilding the store with all its indexes takes ${f(restore.load, 0)} ms and \`snapshot()\` ${f(restore.snapshot, 0)} ms. Without the schema check the path is ${f(fastPath / bare)}× bare JSON. ` +
      'Restore must validate (a snapshot is outside input), so the proposal (not applied) is a single-pass hand-written snapshot validator with the same rules, again held equal to the zod schema by a property test over valid and mutated snapshots.',
  );
  lines.push(
    `- **The model.** ${modelRatio === undefined ? '' : `At 1e4 the model takes ${f(at1e4?.model?.perCommand ?? 0, 0)} µs per command, ${f(modelRatio, 0)}× \`execute\`. `}` +
      'It is written to be read: each command that changes a job copies the job table (a new Map) and scans every job, so its cost grows linearly with the jobs and the ratio grows with size.',
  );
  lines.push(
    '- **Terminal jobs.** Done and dead jobs stay resident, as the contract requires (they answer queries, deduplicate re-submissions and are part of the snapshot). ' +
      'They hold no heap or FIFO entries, only their record, strings, id-index slot and ledger entry: the heap bytes per job above are almost entirely theirs, since nine in ten resident jobs are terminal. ' +
      'A store that runs forever needs a retention policy on top, which the contract leaves out.',
  );
  return lines.join('\n');
}

const sizeName = (r: SizeResult): string => r.shape.resident.toExponential(0).replace('+', '');

// ------------------------------------------------------------------------------------------------

if (!canCollect()) console.warn('bench: run through `npm run bench` (needs --expose-gc); heap figures will be rough');
const startLoad = loadAverage();
const started = performance.now();
const results: SizeResult[] = [];
let restoreResult: RestoreResult | undefined;
for (const resident of SIZES) {
  const { size, restore } = measureSize(resident, resident === SIZES[SIZES.length - 1]);
  results.push(size);
  if (restore !== undefined) restoreResult = restore;
}
const seconds = (performance.now() - started) / 1000;
const text = report(results, restoreResult as RestoreResult, startLoad, loadAverage(), seconds);
console.log(`\n${text}`);
if (write) {
  writeFileSync(new URL('../docs/benchmarks.md', import.meta.url), `${text}\n`);
  console.log('\nwrote docs/benchmarks.md');
}
