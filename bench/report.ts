/**
 * The benchmark's report: docs/benchmarks.md, written from the measurements of bench/main.ts.
 * Pure: it formats what it is given.
 */
import { ENDINGS, RATES } from './workload.ts';
import type { WorkloadShape } from './workload.ts';
import { machine } from './measure.ts';

/** What bench/main.ts measured at one resident size. */
export interface SizeResult {
  readonly shape: WorkloadShape;
  readonly jobs: number;
  readonly clock: number;
  readonly plan: { readonly commands: number; readonly streams: number; readonly reps: number };
  readonly bytesPerJob: number;
  /** Share by which the store grew while one stream was recorded. */
  readonly growth: number;
  /** Resident jobs by status (dead ones by reason) when measuring starts. */
  readonly statuses: Record<string, number>;
  /** Unresolved jobs per account: accounts with any, the largest three queues, the median. */
  readonly queues: { readonly accounts: number; readonly top: readonly number[]; readonly median: number };
  /** Replies of the recorded streams by kind (see replyKind). */
  readonly replies: Map<string, number>;
  /** Settlements (commit, ack, fail) in the streams; those the floor found no delivery for; those the store refused as stale_token. */
  readonly settles: { readonly total: number; readonly floorMisses: number; readonly stale: number };
  readonly execute: number;
  readonly trusted: number;
  readonly floor: number;
  readonly model?: { readonly perCommand: number; readonly commands: number };
  /** Lowest and highest µs per command over the rounds: execute, trusted, floor. */
  readonly spread: readonly (readonly [number, number])[];
}

/** The restart path at the largest size (CPU ms, medians). */
export interface RestoreResult {
  readonly jobs: number;
  readonly jsonMiB: number;
  readonly reps: number;
  readonly snapshot: number;
  readonly stringify: number;
  readonly parse: number;
  readonly restore: number;
  readonly validate: number;
  readonly load: number;
  /** Medians of the per-repetition sums: stringify + parse; the full path; the full path without parseSnapshot. */
  readonly bare: number;
  readonly full: number;
  readonly fast: number;
  readonly loadStart: number;
  readonly loadEnd: number;
}

/** Everything the report is written from. */
export interface ReportInput {
  readonly results: readonly SizeResult[];
  readonly restore: RestoreResult;
  readonly startLoad: number;
  readonly endLoad: number;
  /** 1-minute load average at the start and end of the interleaved rounds, and of the model's runs. */
  readonly commandsLoad: { readonly start: number; readonly end: number };
  readonly modelLoad: { readonly start: number; readonly end: number };
  readonly seconds: number;
  readonly quick: boolean;
  readonly minTimed: number;
  readonly warmup: number;
  readonly modelReps: number;
}

const f = (x: number, digits = 2): string => (x >= 100 ? x.toFixed(0) : x.toFixed(digits));
const int = (x: number): string => Math.round(x).toLocaleString('en-US');
const pct = (x: number): string => (x > 0 && x < 0.0005 ? '<0.1%' : `${(100 * x).toFixed(1)}%`);
const verdict = (met: boolean): string => (met ? 'met' : '**not met**');
const sizeName = (r: SizeResult): string => r.shape.resident.toExponential(0).replace('+', '');
const sum = (m: Map<string, number>): number => [...m.values()].reduce((a, b) => a + b, 0);

/** The order replies are listed in: by command, then success before rejections. */
const REPLY_ORDER = [
  'submit: admitted',
  'submit: duplicate',
  'submit: capacity_exceeded',
  'submit: conflict',
  'submit: invalid_argument',
  'claim: job',
  'claim: null',
  'claim: invalid_argument',
  'commit: applied',
  'commit: reused',
  'commit: conflict',
  'commit: out_of_range',
  'commit: stale_token',
  'commit: not_owner',
  'commit: clock_regressed',
  'ack: ok',
  'ack: stale_token',
  'ack: not_owner',
  'ack: clock_regressed',
  'fail: waiting',
  'fail: dead (permanent)',
  'fail: dead (attempts_exhausted)',
  'fail: dead (no_time_for_retry)',
  'fail: stale_token',
  'fail: not_owner',
  'fail: clock_regressed',
  'tick: ok',
];
const STATUS_ORDER = [
  'done',
  'dead: deadline',
  'dead: permanent',
  'dead: lease_expired',
  'dead: attempts_exhausted',
  'dead: no_time_for_retry',
  'ready',
  'waiting',
  'running',
];

function mixTable(results: readonly SizeResult[]): string[] {
  const lines: string[] = [];
  const kinds = [...new Set([...REPLY_ORDER, ...results.flatMap((r) => [...r.replies.keys()])])].filter((k) =>
    results.some((r) => r.replies.has(k)),
  );
  lines.push(`| reply | ${results.map((r) => sizeName(r)).join(' | ')} |`);
  lines.push(`|---|${results.map(() => '---:').join('|')}|`);
  const commandTypes = ['submit', 'claim', 'commit', 'ack', 'fail', 'tick'];
  for (const type of commandTypes) {
    const share = results.map(
      (r) => [...r.replies].filter(([k]) => k.startsWith(`${type}:`)).reduce((a, [, v]) => a + v, 0) / sum(r.replies),
    );
    lines.push(`| **${type}** (all replies) | ${share.map((x) => `**${pct(x)}**`).join(' | ')} |`);
    for (const kind of kinds.filter((k) => k.startsWith(`${type}:`))) {
      lines.push(
        `| ${kind.slice(type.length + 2)} | ${results.map((r) => pct((r.replies.get(kind) ?? 0) / sum(r.replies))).join(' | ')} |`,
      );
    }
  }
  lines.push(`| commands recorded | ${results.map((r) => int(sum(r.replies))).join(' | ')} |`);
  return lines;
}

function statusTable(results: readonly SizeResult[]): string[] {
  const lines: string[] = [];
  lines.push(`| resident jobs when measuring starts | ${results.map((r) => sizeName(r)).join(' | ')} |`);
  lines.push(`|---|${results.map(() => '---:').join('|')}|`);
  const statuses = [...new Set([...STATUS_ORDER, ...results.flatMap((r) => Object.keys(r.statuses))])].filter((k) =>
    results.some((r) => (r.statuses[k] ?? 0) > 0),
  );
  for (const s of statuses)
    lines.push(`| ${s} | ${results.map((r) => pct((r.statuses[s] ?? 0) / r.jobs)).join(' | ')} |`);
  lines.push(`| accounts with an unresolved job | ${results.map((r) => int(r.queues.accounts)).join(' | ')} |`);
  lines.push(
    `| unresolved jobs of the three longest account queues | ${results.map((r) => r.queues.top.join(', ')).join(' | ')} |`,
  );
  lines.push(
    `| unresolved jobs per account (median, accounts with any) | ${results.map((r) => String(r.queues.median)).join(' | ')} |`,
  );
  lines.push(`| clock (ticks run to build the store) | ${results.map((r) => int(r.clock)).join(' | ')} |`);
  return lines;
}

/** The Markdown of docs/benchmarks.md. Pure. */
export function report(input: ReportInput): string {
  const { results, restore, startLoad, endLoad, seconds, quick } = input;
  const m = machine();
  const first = results[0] as SizeResult;
  const last = results[results.length - 1] as SizeResult;
  const at1e4 = results.find((r) => r.shape.resident === 1e4);
  const ratioExec = last.execute / first.execute;
  const ratioTrusted = last.trusted / first.trusted;
  const ratioFloor = last.floor / first.floor;
  const floorRatios = results.map((r) => r.execute / r.floor);
  const trustedFloorRatios = results.map((r) => r.trusted / r.floor);
  const modelRatio = at1e4?.model === undefined ? undefined : at1e4.model.perCommand / at1e4.execute;
  const restoreRatio = restore.full / restore.bare;
  const parseCost = results.map((r) => r.execute - r.trusted);
  const command = `npm run bench${quick ? ' -- --quick' : ''}`;
  const growth = results.map((r) => pct(r.growth)).join(' / ');

  const lines: string[] = [];
  lines.push('# Benchmarks');
  lines.push('');
  lines.push('Generated by `bench/main.ts`; do not edit by hand: re-run the command below to refresh it.');
  lines.push('');
  lines.push(`- Command: \`${command}\` (${seconds.toFixed(0)} s)`);
  lines.push('- A smaller run: `npm run bench -- --quick` (prints the report; add `-- --write` to write this file)');
  lines.push(`- Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB memory, ${m.os}`);
  lines.push(`- Runtime: Node ${m.node}, flags \`--expose-gc --max-old-space-size=8192\` (set by bench/run.ts)`);
  lines.push(
    `- 1-minute load average at the start / end of the whole run: ${startLoad} / ${endLoad}; each table gives its own (other work on the machine inflates every column; ratios within one run are the fairer reading)`,
  );
  lines.push('');
  lines.push('## Workload');
  lines.push('');
  lines.push(
    'A seeded closed-loop driver (bench/workload.ts) plays producers, workers and monitors against the store, with every rate proportional to the capacity ' +
      'so that the mix is the same at every size. The capacity is a tenth of the resident jobs and is full most of the time. ' +
      `Producers submit ${RATES.submits * 100}% of the capacity per tick; ${RATES.hotShare * 100}% of submits go to hot accounts (a hundredth of the capacity in number, 4% of the accounts), ` +
      `each receiving about ${f(RATES.hotShare * RATES.submits * 100, 1)} submits per tick, more than it can be served (one delivery at a time), so their unresolved jobs queue behind a head that runs or backs off, and many die by deadline there. ` +
      `A submit refused with \`capacity_exceeded\` is tried once more in the next tick; ${RATES.duplicate * 100}% repeat a recent id (duplicates), ${RATES.conflictingSubmit * 100}% repeat it with another amount (\`conflict\`); ` +
      `${RATES.reuseKey * 100}% of new jobs reuse a recent operation key with the same amount (the commit reuses the effect) and ${RATES.conflictingKey * 100}% with another (the commit is a \`conflict\` and the worker fails the job permanently); ` +
      `${RATES.whale * 100}% go to "whale" accounts (as many as the hot ones) whose amounts are 2^52, so the second effect of each is \`out_of_range\`. ` +
      `Deadlines are 3–40 ticks for ${RATES.shortDeadline * 100}% of jobs, 41–150 for the rest.`,
  );
  lines.push('');
  const endings = Object.entries(ENDINGS)
    .map(([k, v]) => `${k} ${v * 100}%`)
    .join(', ');
  lines.push(
    `Workers (a sixteenth of the capacity in number) each hold up to ${RATES.held} deliveries at once; a worker with room polls with probability ${RATES.poll} per tick and claims until it is full or a claim returns \`job: null\`. ` +
      'A delivery takes 1–5 ticks (lease: 12); all settlements due in a tick are sent in shuffled order. ' +
      `Endings of a delivery: ${endings} (commitAck: commit + ack; transient: a transient failure, retried after a capped exponential backoff, 4 attempts at most; commitTransient: commit then a transient failure, so the retry reuses the effect; ` +
      'ackTwice: ack without commit, then a second ack, `stale_token`; otherWorker: another worker commits first, `not_owner`; abandon: nothing, the lease expires; late: commit + ack after the lease, both `stale_token`). ' +
      `Besides, per tick, monitors send ticks (${RATES.ticks * 100}% of the capacity), ${RATES.staleNow * 100}% of settlements are first sent with a stale \`now\` (\`clock_regressed\`), some acks name a token never issued, ` +
      `and a few commands are malformed (\`invalid_argument\`); ${RATES.gap * 100}% of ticks are gaps of 2–6 ticks, in which leases and deadlines expire in bulk.`,
  );
  lines.push('');
  lines.push(
    `Each size: the store is built by running the workload from empty to the resident size; streams of further commands are then recorded from it, each continuing the same store and driver state (deliveries in flight, queues of refused submits) with its own seed, each a tenth of the resident size long. ` +
      'The replies the streams got, as a share of all their commands (<0.1%: present but rare; a row absent at every size is left out). The 1e3 store, with one hot account and 25 accounts, ends its build in a calmer state than the larger ones (fewer refusals for capacity, more empty claims): the mix is alike across sizes, not equal.',
  );
  lines.push('');
  lines.push(...mixTable(results));
  lines.push('');
  lines.push('The built store (what every stream starts from):');
  lines.push('');
  lines.push(...statusTable(results));
  lines.push('');
  lines.push(
    '`out_of_range` for `nextSeq` or `nextToken` at 2^53−1 is not in the streams: no store reaches it by counting from 1 (contract §12.17).',
  );
  lines.push('');
  lines.push('## Commands');
  lines.push('');
  lines.push(
    '- **impl execute**: `JobStore.execute(command)`, the entry point for outside input (zod schema parse, clock, apply).',
  );
  lines.push(
    '- **impl trusted**: `JobStore.executeTrusted(command)` for well-formed commands, the same without the schema parse (malformed ones still go through `execute`: a trusted caller would not send them).',
  );
  lines.push(
    '- **floor**: bench/floor.ts, a FIFO array, Maps by id and by token, and the effect ledger (per account a balance and per key the effect), replies included; no validation, clock, per-account order, leases, deadlines, backoff or capacity count. ' +
      'The decisions those need (did a claim find a job and with which token, was a submit admitted, does a failed job wait) are read from the recording instead of worked out, so the floor does the data-structure work the stream implies and no more. ' +
      `Its settlements found no delivery for ${results.map((r) => pct(r.settles.floorMisses / r.settles.total)).join(' / ')} of settlements by size, against ${results.map((r) => pct(r.settles.stale / r.settles.total)).join(' / ')} the store refused as \`stale_token\` (the floor keeps expired deliveries and skips no dead job, so it drifts a little from the store).`,
  );
  lines.push(
    `- **model**: the reference model's \`step\` (xstate), on the first commands of the same streams (whole streams at 1e3, a prefix of the first at 1e4), ${input.modelReps} repetitions.`,
  );
  lines.push('');
  lines.push(
    `The same mode at every size: each stream is replayed on a fresh copy of the built store, made just before it (not timed), so every size is measured on a store of its size (a stream adds ${growth} to it by size) that was just built. ` +
      `Sizes below ${int(input.minTimed * 10)} replay several streams per repetition so that each repetition times at least ${int(input.minTimed)} commands. ` +
      `Untimed rounds first warm every contender up (at least ${int(input.warmup)} commands each, at every size); then come ${results[0]?.plan.reps ?? 0} rounds, in each of which every size and, within it, every contender is timed once, in orders that rotate each round (so the load from elsewhere on the machine falls alike on all sizes and contenders); a full garbage collection starts each contender's turn and a young-generation one follows each copy; each cell is the median. ` +
      'Times are CPU time of the benchmark process (user + system, garbage collection included), not wall time: on a small shared machine wall time mostly measures the other work ' +
      '(CPU time is not immune either: work on the other core competes for caches and memory bandwidth).',
  );
  lines.push('');
  lines.push(
    `1-minute load average: ${input.commandsLoad.start} at the start of the rounds, ${input.commandsLoad.end} at their end; the model's runs, after them: ${input.modelLoad.start} → ${input.modelLoad.end}.`,
  );
  lines.push('');
  lines.push(
    '| resident jobs | capacity | accounts | workers | streams × commands, reps | impl execute µs/cmd | impl execute cmd/s | impl trusted µs/cmd | floor µs/cmd | execute / floor | trusted / floor | model µs/cmd | model / impl execute | heap bytes / job |',
  );
  lines.push('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  results.forEach((r, i) => {
    lines.push(
      `| ${int(r.jobs)} | ${int(r.shape.capacity)} | ${int(r.shape.accounts)} | ${int(r.shape.workers)} | ${r.plan.streams} × ${int(r.plan.commands)}, ${r.plan.reps} | ${f(r.execute, 3)} | ${int(1e6 / r.execute)} | ${f(r.trusted, 3)} | ${f(r.floor, 3)} | ${f(floorRatios[i] as number)} | ${f(trustedFloorRatios[i] as number)} | ${r.model === undefined ? '–' : `${f(r.model.perCommand, 0)} (${r.model.commands} cmds)`} | ${r.model === undefined ? '–' : f(r.model.perCommand / r.execute, 0)} | ${r.bytesPerJob.toFixed(0)} |`,
    );
  });
  lines.push('');
  lines.push(
    `Spread over the rounds (lowest–highest µs per command; execute / trusted / floor): ${results.map((r) => `${sizeName(r)}: ${r.spread.map(([lo, hi]) => `${f(lo, 2)}–${f(hi, 2)}`).join(' / ')}`).join('; ')}. The medians are the figures to read; the spread says how far one round can be off on this machine.`,
  );
  lines.push('');
  lines.push(
    `Heap bytes per job: the growth of the V8 heap (after a full collection) while building the store, divided by its jobs: each job's record, strings, id-index slot, ledger entry, and the store's indexes. At ${int(last.jobs)} jobs that is about ${((last.bytesPerJob * last.jobs) / 2 ** 20).toFixed(0)} MiB.`,
  );
  lines.push('');
  lines.push(`## Snapshot and restore at ${int(restore.jobs)} jobs (${restore.jsonMiB.toFixed(0)} MiB of JSON)`);
  lines.push('');
  lines.push(
    `Each step timed alone, ${restore.reps} repetitions in a row (each runs every step once, so the full path and bare JSON are measured in the same repetitions); CPU ms, medians; 1-minute load average ${restore.loadStart} at the start, ${restore.loadEnd} at the end.`,
  );
  lines.push('');
  lines.push('| step | CPU ms (median) |');
  lines.push('|---|---:|');
  lines.push(`| \`store.snapshot()\` | ${f(restore.snapshot, 0)} |`);
  lines.push(`| \`JSON.stringify\` | ${f(restore.stringify, 0)} |`);
  lines.push(`| \`JSON.parse\` | ${f(restore.parse, 0)} |`);
  lines.push(`| \`JobStore.restore\` = \`parseSnapshot\` + rebuild | ${f(restore.restore, 0)} |`);
  lines.push(`| of which \`parseSnapshot\` (zod schema + cross-field rules) | ${f(restore.validate, 0)} |`);
  lines.push(`| of which rebuilding the store and its indexes | ${f(restore.load, 0)} |`);
  lines.push(`| **full path**: snapshot + stringify + parse + restore | ${f(restore.full, 0)} |`);
  lines.push(`| **bare JSON**: stringify + parse of the same data | ${f(restore.bare, 0)} |`);
  lines.push('');
  lines.push('## Targets');
  lines.push('');
  lines.push(
    `1-minute load average: ${startLoad} at the start of the run, ${endLoad} at the end (each measurement's own is given with its table above).`,
  );
  lines.push('');
  lines.push('| target | measured | verdict |');
  lines.push('|---|---|---|');
  lines.push(
    `| per-command cost at ${sizeName(last)} within 2× of ${sizeName(first)} (both: fresh copies, same workload) | execute ${f(ratioExec)}×, trusted ${f(ratioTrusted)}× (the floor itself: ${f(ratioFloor)}×) | ${verdict(ratioExec <= 2)}${ratioExec <= 2 ? '' : ` by ${f(ratioExec / 2)}×`} |`,
  );
  lines.push(
    `| impl within 4× of the floor, through \`execute\` | ${floorRatios.map((x) => `${f(x)}×`).join(' / ')} (by size) | ${verdict(floorRatios.every((x) => x <= 4))}${floorRatios.every((x) => x <= 4) ? '' : ` by up to ${f(Math.max(...floorRatios) / 4)}×`} |`,
  );
  lines.push(
    `| impl within 4× of the floor, through \`executeTrusted\` | ${trustedFloorRatios.map((x) => `${f(x)}×`).join(' / ')} (by size) | ${verdict(trustedFloorRatios.every((x) => x <= 4))}${trustedFloorRatios.every((x) => x <= 4) ? '' : ` by up to ${f(Math.max(...trustedFloorRatios) / 4)}×`} |`,
  );
  lines.push(
    `| snapshot + restore within 3× of bare JSON | ${f(restoreRatio)}× (without the schema check: ${f(restore.fast / restore.bare)}×) | ${verdict(restoreRatio <= 3)}${restoreRatio <= 3 ? '' : ` by ${f(restoreRatio / 3)}×`} |`,
  );
  lines.push(
    `| at least 100× faster than the model at 1e4 | ${modelRatio === undefined ? 'not measured' : `${f(modelRatio, 0)}×`} | ${verdict(modelRatio !== undefined && modelRatio >= 100)} |`,
  );
  lines.push('');
  lines.push('## Reading the numbers');
  lines.push('');
  lines.push(
    `- **Growth with size.** No command scans the jobs (the indexes are described in impl/memory/JobStore.ts). From ${sizeName(first)} to ${sizeName(last)} the cost per command changes by ${f(ratioTrusted)}× for the store's own work (\`executeTrusted\`) and ${f(ratioExec)}× through \`execute\`, ` +
      `while the floor, which does a Map lookup or two, a ledger update and an array push per command, changes by ${f(ratioFloor)}×. ` +
      `At ${sizeName(first)} a just-built store sits in the CPU caches; at ${sizeName(last)} (about ${((last.bytesPerJob * last.jobs) / 2 ** 20).toFixed(0)} MiB of heap) each Map lookup, heap sift and job record touched is likely a cache and TLB miss: that, not the O(log n) structure, is what the growth measures. ` +
      `${ratioTrusted <= ratioFloor * 0.87 ? 'impl grows less than the floor.' : ratioTrusted <= ratioFloor * 1.15 ? 'impl grows about as fast as the floor.' : `impl grows ${f(ratioTrusted / ratioFloor)}× faster than the floor: it touches more records per command (the account FIFO, two heaps, the timers due at each tick, the ledger).`} ` +
      `The \`execute\` ratio is ${ratioExec < ratioTrusted ? 'lower than the trusted one because the schema parse, whose work does not grow with the store, dilutes it' : 'not diluted by the schema parse here'}. ` +
      'The rows between the ends are not monotone, and the spread above is wide: with 5 rounds on a loaded 2-core machine, differences under about 1.5× between sizes are within the noise.',
  );
  lines.push(
    `- **Distance to the floor.** The store's own work costs ${trustedFloorRatios.map((x) => `${f(x)}×`).join(' / ')} the floor by size. ` +
      `\`execute\` adds the zod schema parse of contract/schema.ts (\`parseCommand\`), about ${parseCost.map((x) => f(x, 2)).join(' / ')} µs per command by size (execute − trusted, a difference of two medians), work that does not depend on the store, ` +
      "comparable to or larger than the floor's whole cost. Proposal (not applied): a hand-written command validator with the same rules and messages, held equal to the zod schema by a property test over random valid and invalid commands, would bring `execute` close to `executeTrusted`.",
  );
  lines.push(
    `- **Snapshot and restore.** The schema check (\`parseSnapshot\`: zod over every job, then the cross-field rules) takes ${f(restore.validate, 0)} of the ${f(restore.full, 0)} CPU ms of the full path; ` +
      `rebuilding the store with all its indexes takes ${f(restore.load, 0)} ms and \`snapshot()\` ${f(restore.snapshot, 0)} ms. Without the schema check the path is ${f(restore.fast / restore.bare)}× bare JSON. ` +
      'Restore must validate (a snapshot is outside input), so the proposal (not applied) is a single-pass hand-written snapshot validator with the same rules, held equal to the zod schema by a property test over valid and mutated snapshots.',
  );
  lines.push(
    `- **The model.** ${modelRatio === undefined ? '' : `At 1e4 the model takes ${f(at1e4?.model?.perCommand ?? 0, 0)} µs per command, ${f(modelRatio, 0)}× \`execute\` (its figure comes from a prefix of the stream, impl's from whole streams). `}` +
      'It is written to be read, not to be fast; its cost grows with the jobs in the store.',
  );
  lines.push(
    '- **Terminal jobs.** Done and dead jobs stay resident, as the contract requires (they answer queries, deduplicate re-submissions and are part of the snapshot); nine in ten resident jobs are terminal here. ' +
      'A store that runs forever needs a retention policy on top, which the contract leaves out.',
  );
  return lines.join('\n');
}
