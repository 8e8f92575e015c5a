/**
 * Benchmark of concurrent checking, written to docs/concurrency-bench.md: each part (PARTS) is one
 * function that measures something and returns a section of the report.
 *
 * The linearizability checker's histories are recorded from impl/JobStore driven by simulated
 * workers in rounds (conformance/concurrent/jobModel.ts, `jobStoreRoundHistory`): at most one
 * request a worker a round, all with the same `now`, run in a random order, overlapping each other,
 * each round over before the next. Beside them, histories whose rounds overlap
 * (`overlappingHistory`): each worker sends its next request as soon as its reply came, with a `now`
 * from a clock that moves while requests are in flight, so a request may reach the store after the
 * clock passed its `now` (and be refused, as the contract says). Times are CPU time of the process
 * (user + system, garbage collection included), medians over histories of different seeds.
 *
 * The last part is wall time: how long `jobcheck check --impl ... --workers 4` takes to find each
 * racy variant of the Python example (examples/python/broken/), real processes over jobcheck/2.
 *
 * Run: npx tsx bench/concurrency.ts   (`--quick`: fewer histories and in-process seeds, the seven
 * seeds of the racy Python stores kept; the report is written either way;
 * `--part <text>`: only the parts whose name contains the text, printed and not written)
 */
import { writeFileSync } from 'node:fs';
import type { Command, Config, Reply } from '../contract/index.ts';
import { JobStore } from '../impl/index.ts';
import { SNAPSHOT_REQUEST, jobModel, jobStoreRoundHistory, seededRandom } from '../conformance/concurrent/jobModel.ts';
import type { History, Operation } from '../conformance/concurrent/history.ts';
import { concurrentProcessFactory } from '../conformance/protocol/index.ts';
import { PYTHON_RACY, findPython, pythonCommand } from '../examples/python/interpreter.ts';
import { DEFAULT_MAX_STEPS, checkLinearizability } from '../conformance/concurrent/linearizability.ts';
import type { CheckOutcome } from '../conformance/concurrent/history.ts';
import { loadAverage, machine, median, timed } from './measure.ts';
import { runConcurrentCampaign } from '../conformance/concurrent/campaign.ts';
import { CONCURRENT_BROKEN_VARIANTS } from '../conformance/broken/index.ts';
import { lockedJobStoreFactory } from '../conformance/concurrent/inProcess.ts';
import { requestCount } from '../conformance/concurrent/generate.ts';

const quick = process.argv.includes('--quick');
const partArg = process.argv.indexOf('--part');
const only = partArg < 0 ? undefined : process.argv[partArg + 1];
const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

/** One part of the benchmark: measures, and returns its section of the report (Markdown lines). */
export interface BenchPart {
  readonly name: string;
  run(): Promise<readonly string[]>;
}

/** The store config of every recorded history. */
export const BENCH_CONFIG: Config = { capacity: 16, maxAttempts: 3, leaseTicks: 6, backoffBase: 1, backoffCap: 4 };

/**
 * A history of simulated workers against impl/JobStore in which rounds overlap and time moves while
 * requests are in flight. Each worker has one request in flight at a time and sends the next one as
 * soon as its reply came (a worker holding a delivery settles it, an idle one submits, claims or
 * ticks, as in `jobStoreRoundHistory`); every request carries the workload's clock at the instant
 * it is sent, and that clock moves on as requests are sent. At each instant one of three things
 * happens at random: an idle worker sends, the store takes one of the requests in flight (any of
 * them: the order is the store's), or a request taken replies. So a request may reach the store
 * after one sent later with a later `now`, and is then refused (`clock_regressed`). Ends with a
 * snapshot request. Deterministic in the seed; linearizable by construction (the store's order is
 * one). Not pure: it runs a store.
 */
export function overlappingHistory(options: {
  readonly config: Config;
  readonly workers: number;
  readonly requests: number;
  readonly seed: number;
}): History<unknown, unknown> {
  const random = seededRandom(options.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
  const store = new JobStore(options.config);
  const held: ({ token: number; committed: boolean } | undefined)[] = Array.from(
    { length: options.workers },
    () => undefined,
  );
  interface InFlight {
    readonly id: number;
    readonly lane: number;
    readonly command: Command;
    readonly invoked: number;
    reply?: Reply;
  }
  const flying: InFlight[] = [];
  const operations: Operation<unknown, unknown>[] = [];
  let now = 0;
  let instant = 0;
  let jobs = 0;
  let sent = 0;
  const commandOf = (lane: number): Command => {
    const worker = `w${lane}`;
    const h = held[lane];
    if (h !== undefined) {
      const r = random();
      if (!h.committed && r < 0.6) return { type: 'commit', worker, token: h.token, now };
      if (r < 0.85) return { type: 'ack', worker, token: h.token, now };
      const kind = random() < 0.7 ? 'transient' : 'permanent';
      return { type: 'fail', worker, token: h.token, kind, error: pick(['boom', 'timeout']), now };
    }
    const r = random();
    if (r < 0.3) {
      const id = random() < 0.1 && jobs > 0 ? `j${Math.floor(random() * jobs)}` : `j${jobs++}`;
      const account = pick(['acme', 'bolt', 'core', 'dyne', 'echo', 'flux']);
      const key = `k${Math.floor(random() * 30)}`;
      return {
        type: 'submit',
        id,
        account,
        key,
        amount: pick([1, 2, 5, -3]),
        deadline: now + 4 + Math.floor(random() * 20),
        now,
      };
    }
    return r < 0.9 ? { type: 'claim', worker, now } : { type: 'tick', now };
  };
  while (sent < options.requests || flying.length > 0) {
    const idle = Array.from({ length: options.workers }, (_, lane) => lane).filter(
      (lane) => !flying.some((f) => f.lane === lane),
    );
    const untaken = flying.filter((f) => f.reply === undefined);
    const taken = flying.filter((f) => f.reply !== undefined);
    const r = random();
    if (sent < options.requests && idle.length > 0 && (r < 0.4 || untaken.length + taken.length === 0)) {
      // The workload's clock moves on as requests are sent, whatever is still in flight.
      if (random() < 0.4 / options.workers) now += 1 + Math.floor(random() * 2);
      const lane = pick(idle);
      flying.push({ id: sent++, lane, command: commandOf(lane), invoked: instant++ });
    } else if (untaken.length > 0 && (r < 0.7 || taken.length === 0)) {
      const f = pick(untaken);
      f.reply = store.execute(f.command);
    } else if (taken.length > 0) {
      const f = pick(taken);
      flying.splice(flying.indexOf(f), 1);
      track(held, f.lane, f.command, f.reply as Reply);
      operations.push({
        id: f.id,
        lane: f.lane,
        input: f.command,
        invoked: f.invoked,
        returned: instant++,
        output: f.reply,
      });
    }
  }
  const invoked = instant++;
  operations.push({
    id: operations.length,
    lane: 0,
    input: SNAPSHOT_REQUEST,
    invoked,
    returned: instant++,
    output: store.snapshot(),
  });
  return { operations };
}

/** What a worker learns from a reply: the delivery it now holds, or that it holds none. */
function track(
  held: ({ token: number; committed: boolean } | undefined)[],
  lane: number,
  command: Command,
  reply: Reply,
): void {
  const h = held[lane];
  if (command.type === 'claim') {
    held[lane] =
      reply.ok && reply.type === 'claim' && reply.job !== null
        ? { token: reply.job.token, committed: false }
        : undefined;
  } else if (command.type === 'commit')
    held[lane] = h !== undefined && reply.ok ? { ...h, committed: true } : undefined;
  else if (command.type === 'ack' || command.type === 'fail') held[lane] = undefined;
}

/** One check of one recorded history: its outcome and the CPU milliseconds it took. */
export function timeCheck(options: {
  workers: number;
  requests: number;
  seed: number;
  indefinite?: number;
  overlapping?: boolean;
}): {
  outcome: CheckOutcome<unknown>;
  ms: number;
  requests: number;
} {
  const { overlapping, ...rest } = options;
  const history = (overlapping === true ? overlappingHistory : jobStoreRoundHistory)({ config: BENCH_CONFIG, ...rest });
  const model = jobModel(BENCH_CONFIG);
  let outcome: CheckOutcome<unknown> | undefined;
  const ms = timed(() => {
    outcome = checkLinearizability(model, history);
  });
  return { outcome: outcome as CheckOutcome<unknown>, ms, requests: history.operations.length };
}

/** The checker against the job-store model: speed at 8 workers, growth, and how often the budget runs out. */
const checkerPart: BenchPart = {
  name: 'linearizability checker',
  run() {
    const lines: string[] = [];
    timeCheck({ workers: 8, requests: 500, seed: 999 }); // warm-up
    // 1. The headline: 8 workers x 1,000 requests.
    const headline = Array.from({ length: quick ? 3 : 9 }, (_, k) =>
      timeCheck({ workers: 8, requests: 1000, seed: 1 + k }),
    );
    for (const h of headline)
      if (h.outcome.verdict !== 'linearizable')
        throw new Error(`bench: a recorded history was found ${h.outcome.verdict}`);
    const perSecond = median(headline.map((h) => (h.requests / h.ms) * 1000));
    const slowest = Math.max(...headline.map((h) => h.ms));
    log(`headline: ${fmt(perSecond)} requests/s, slowest ${fmt(slowest)} ms`);
    lines.push(
      '## The checker on the job-store model',
      '',
      `Histories of 8 workers and 1,000 requests (plus the final snapshot request), ${headline.length} seeds, every one found linearizable:`,
      '',
      '| measure | value |',
      '| --- | ---: |',
      `| requests checked per CPU second (median) | ${fmt(perSecond)} |`,
      `| CPU ms per history (median / slowest) | ${fmt(median(headline.map((h) => h.ms)))} / ${fmt(slowest)} |`,
      `| model steps per history (median) | ${fmt(median(headline.map((h) => h.outcome.steps)))} |`,
      '',
      `Target: each history checked in well under a second: ${slowest < 1000 ? 'met' : '**not met**'} (slowest ${fmt(slowest)} ms).`,
      '',
    );
    // 2. Growth with workers and length.
    const workers = [2, 4, 8, 16];
    const lengths = [250, 500, 1000, 2000];
    const seeds = quick ? 1 : 3;
    lines.push(
      '### Growth',
      '',
      `CPU ms per history (median of ${seeds} seed${seeds === 1 ? '' : 's'}), and in brackets the median model steps per request; rows are workers, columns requests per history.`,
      '',
      `| workers | ${lengths.map((n) => fmt(n)).join(' | ')} |`,
      `| ---: | ${lengths.map(() => '---:').join(' | ')} |`,
    );
    for (const w of workers) {
      const cells = lengths.map((n) => {
        const runs = Array.from({ length: seeds }, (_, k) => timeCheck({ workers: w, requests: n, seed: 100 + k }));
        const bad = runs.filter((r) => r.outcome.verdict !== 'linearizable').length;
        log(`growth: ${w} workers, ${n} requests: ${fmt(median(runs.map((r) => r.ms)))} ms`);
        return `${fmt(median(runs.map((r) => r.ms)))} (${fmt(median(runs.map((r) => r.outcome.steps / r.requests)), 1)})${bad > 0 ? ` ${bad} not linearizable or unknown` : ''}`;
      });
      lines.push(`| ${w} | ${cells.join(' | ')} |`);
    }
    lines.push(
      '',
      'A round of k concurrent requests can be ordered in up to k! ways, of which the memo keeps at most 2^k sets of requests; with every reply known, the search rarely leaves the first order that fits, and time grows with history length about as the model step does (the model scans every job, and the jobs accumulate).',
      '',
    );
    // 3. How often the default budget runs out.
    const count = quick ? 5 : 20;
    const rate = (
      indefinite: number,
      w: number,
      n: number,
    ): { unknown: number; other: number; slowest: number; steps: number } => {
      const runs = Array.from({ length: n }, (_, k) =>
        timeCheck({ workers: w, requests: 1000, seed: 500 + k, indefinite }),
      );
      log(
        `budget: ${w} workers, ${indefinite * 100}% lost: ${runs.filter((r) => r.outcome.verdict === 'unknown').length} unknown of ${n}`,
      );
      return {
        unknown: runs.filter((r) => r.outcome.verdict === 'unknown').length,
        other: runs.filter((r) => r.outcome.verdict === 'not_linearizable').length,
        slowest: Math.max(...runs.map((r) => r.ms)),
        steps: Math.max(...runs.map((r) => r.outcome.steps)),
      };
    };
    lines.push(
      '### How often the budget runs out',
      '',
      `At the default budget (${fmt(DEFAULT_MAX_STEPS)} model steps, no time limit), histories of 1,000 requests each. "Lost replies" drops the reply of that share of requests (half of them never reached the store, half ran): each becomes an indefinite operation that the checker may place anywhere after its invoke, or nowhere.`,
      '',
      '| workers | lost replies | histories | unknown | not linearizable | slowest CPU ms | most steps |',
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    );
    const cases: readonly (readonly [number, number, number])[] = [
      [8, 0, count],
      [8, 0.02, count],
      [8, 0.05, count],
      [4, 0.05, count],
      [16, 0.05, quick ? 2 : 5],
    ];
    const unknownAt8 = { unknown: 0, histories: 0 };
    const unknownWide = { unknown: 0, histories: 0 };
    for (const [w, indefinite, n] of cases) {
      const r = rate(indefinite, w, n);
      const tally = w <= 8 ? unknownAt8 : unknownWide;
      tally.unknown += r.unknown;
      tally.histories += n;
      lines.push(
        `| ${w} | ${fmt(indefinite * 100)}% | ${n} | ${r.unknown} | ${r.other} | ${fmt(r.slowest)} | ${fmt(r.steps)} |`,
      );
    }
    lines.push(
      '',
      `Target: \`unknown\` never occurs. Up to 8 workers: ${unknownAt8.unknown} of ${unknownAt8.histories} histories (${unknownAt8.unknown === 0 ? 'met' : '**not met**'}); 16 workers with 5% lost replies: ${unknownWide.unknown} of ${unknownWide.histories}.`,
      '',
      'Where the cost comes from: a lost reply whose effect shows only much later (a commit whose balance is next seen in the final snapshot) makes the search undo every round in between, and each undone round of k requests can cost up to 2^k sets of requests. Two hints of the job-store model keep this in check: requests whose reply leaves the state unchanged (refusals, empty claims, ticks, snapshots) are linearized where they first fit and never reordered (`stableWhenUnchanged`), and a lost request whose `now` the clock has passed is no longer tried (`inertFrom`). Wide rounds with lost replies remain the costly case.',
      '',
    );
    return Promise.resolve(lines);
  },
};

/** Requests of a history that overlap it in real time (neither returned before the other was sent), on average. */
function meanOverlap(history: History<unknown, unknown>): number {
  const ops = history.operations.filter((o) => o.returned !== undefined);
  let overlaps = 0;
  for (const a of ops) {
    for (const b of ops)
      if (a !== b && a.invoked < (b.returned as number) && b.invoked < (a.returned as number)) overlaps += 1;
  }
  return ops.length === 0 ? 0 : overlaps / ops.length;
}

/** The checker on histories whose rounds overlap, beside today's rounds, at the same workers and lengths. */
const overlapPart: BenchPart = {
  name: 'rounds that overlap',
  run() {
    const workers = [2, 4, 8, 16];
    const requests = 1000;
    const seeds = quick ? 1 : 3;
    timeCheck({ workers: 8, requests: 500, seed: 999, overlapping: true }); // warm-up
    const lines: string[] = [
      '### Rounds that overlap',
      '',
      `Histories of ${fmt(requests)} requests, in rounds as above and with rounds that overlap (each worker sends its next request as soon as its reply came, with its own \`now\` from a clock that moves while requests are in flight; the store takes the requests in flight in an order of its own). CPU ms per history (median of ${seeds} seed${seeds === 1 ? '' : 's'}), in brackets the median model steps per request; "overlap" is the mean number of other requests in flight beside a request; "late" is the share of requests that reached the store after one with a later \`now\` and were refused (\`clock_regressed\`).`,
      '',
      '| workers | rounds: CPU ms (steps) | overlap | overlapping: CPU ms (steps) | overlap | late | not linearizable or unknown |',
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ];
    for (const w of workers) {
      const measure = (
        overlapping: boolean,
      ): { ms: number; steps: number; overlap: number; late: number; bad: number } => {
        const runs = Array.from({ length: seeds }, (_, k) => {
          const options = { config: BENCH_CONFIG, workers: w, requests, seed: 100 + k };
          const history = overlapping ? overlappingHistory(options) : jobStoreRoundHistory(options);
          const refused = history.operations.filter(
            (o) => (o.output as { code?: string } | undefined)?.code === 'clock_regressed',
          );
          const late = refused.length / history.operations.length;
          return {
            ...timeCheck({ workers: w, requests, seed: 100 + k, overlapping }),
            overlap: meanOverlap(history),
            late,
          };
        });
        return {
          ms: median(runs.map((r) => r.ms)),
          steps: median(runs.map((r) => r.outcome.steps / r.requests)),
          overlap: median(runs.map((r) => r.overlap)),
          late: median(runs.map((r) => r.late)),
          bad: runs.filter((r) => r.outcome.verdict !== 'linearizable').length,
        };
      };
      const rounds = measure(false);
      const over = measure(true);
      log(`overlap: ${w} workers: rounds ${fmt(rounds.ms)} ms, overlapping ${fmt(over.ms)} ms`);
      lines.push(
        `| ${w} | ${fmt(rounds.ms)} (${fmt(rounds.steps, 1)}) | ${fmt(rounds.overlap, 1)} | ${fmt(over.ms)} (${fmt(over.steps, 1)}) | ${fmt(over.overlap, 1)} | ${fmt(over.late * 100, 1)}% | ${rounds.bad + over.bad} |`,
      );
    }
    lines.push(
      '',
      'Without rounds the search has no point where every request in flight has returned, so the memo of sets of requests is all that bounds it; with every reply known the first order that fits is still found quickly, and a request whose `now` the clock has passed costs one refused step.',
      '',
    );
    return Promise.resolve(lines);
  },
};

/** Scenarios of the concurrent campaign over the protocol, per seed. */
const PROTOCOL_RUNS = 300;

/**
 * The concurrent campaign over the protocol against each racy Python store (examples/python/broken/),
 * as `jobcheck check --impl "python3 examples/python/broken/<file>" --workers 4` runs it: a real
 * process speaking jobcheck/2, a thread per request. Wall time, since the races are real.
 */
const protocolFinderPart: BenchPart = {
  name: 'time to find each racy Python store over the protocol',
  async run() {
    const title = '## Finding the racy Python stores over the protocol';
    const python = findPython();
    if (python === undefined) return [title, '', 'Not measured: python3 is not installed.', ''];
    // Seven seeds even in a quick run: "found on x of 7 seeds" is the figure this part is for.
    const seeds = [1, 2, 3, 4, 5, 6, 7];
    const rows: string[] = [];
    type Timed = { r: Awaited<ReturnType<typeof runConcurrentCampaign>>; ms: number };
    const campaign = async (script: string, seed: number, numRuns: number): Promise<Timed> => {
      const factory = concurrentProcessFactory(pythonCommand(python, script));
      const started = performance.now();
      try {
        const r = await runConcurrentCampaign({ factory, workers: 4, numRuns, seed });
        return { r, ms: performance.now() - started };
      } finally {
        await factory.close();
      }
    };
    for (const v of PYTHON_RACY) {
      const found: { ms: number; runs: number; story: number; first: number }[] = [];
      for (const seed of seeds) {
        const { r, ms } = await campaign(v.script, seed, PROTOCOL_RUNS);
        if (r.verdict === 'failed')
          found.push({ ms, runs: r.runs, story: requestsOf(r), first: r.firstFailureRequests ?? 0 });
        log(`  ${v.race} seed ${seed}: ${r.verdict} after ${r.runs} runs, ${Math.round(ms)} ms`);
      }
      const med = (xs: readonly number[]): string => (xs.length === 0 ? '-' : fmt(median(xs)));
      const most = found.length === 0 ? '-' : fmt(Math.max(...found.map((f) => f.story)));
      rows.push(
        `| ${v.race} | \`${v.script.replace('examples/python/', '')}\` | ${found.length}/${seeds.length} | ${med(found.map((f) => f.ms))} | ${med(found.map((f) => f.runs))} | ${med(found.map((f) => f.first))} | ${med(found.map((f) => f.story))} | ${most} |`,
      );
    }
    const control = await campaign('examples/python/jobstore.py', 1, 100);
    return [
      title,
      '',
      `The concurrent campaign over the protocol (\`jobcheck check --impl "python3 examples/python/broken/<file>" --workers 4\`: 4 lanes, up to ${PROTOCOL_RUNS} scenarios, a real process speaking jobcheck/2 with a thread per request) against each racy Python store, seeds ${seeds[0]}-${seeds[seeds.length - 1]}; medians over the seeds that found it. Wall time, shrinking included; the interleavings are the operating system's, so a seed does not fix them.`,
      '',
      '| race | program | found | wall ms | runs to the first failure | requests before shrinking | requests of the shrunk story | longest shrunk story |',
      '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...rows,
      '',
      `Control: the correct store (\`jobstore.py\`), 100 scenarios of seed 1: ${control.r.verdict}${control.r.unknownRuns === 0 ? '' : ` (${control.r.unknownRuns} unknown)`}, ${fmt(control.ms)} ms.`,
      '',
    ];
  },
};

/** Requests of a failure's run. */
const requestsOf = (r: Awaited<ReturnType<typeof runConcurrentCampaign>>): number =>
  r.failure?.run == null ? 0 : requestCount(r.failure.run.rounds);

/**
 * The concurrent campaign against the catalogue's racy variants (in process, interleavings chosen
 * by fast-check's scheduler), 4 workers, as `jobcheck check --broken <name> --workers 4` runs it:
 * for each variant and seed, the wall time until the failure was found and shrunk, the runs it
 * took, and the requests of the shrunk story. The control is impl/JobStore behind a mutex.
 */
const finderPart: BenchPart = {
  name: 'time to find each racy variant',
  async run() {
    const seeds = quick ? [1, 2, 3] : [1, 2, 3, 4, 5, 6, 7];
    const rows: string[] = [];
    for (const v of CONCURRENT_BROKEN_VARIANTS) {
      const found: { ms: number; runs: number; story: number; first: number }[] = [];
      let missed = 0;
      for (const seed of seeds) {
        const started = performance.now();
        const r = await runConcurrentCampaign({ factory: v.factory, workers: 4, numRuns: 2000, seed });
        const ms = performance.now() - started;
        if (r.verdict !== 'failed') missed += 1;
        else found.push({ ms, runs: r.runs, story: requestsOf(r), first: r.firstFailureRequests ?? 0 });
        log(`  ${v.name} seed ${seed}: ${r.verdict} after ${r.runs} runs, ${Math.round(ms)} ms`);
      }
      const med = (xs: readonly number[]): string => (xs.length === 0 ? '-' : fmt(median(xs)));
      rows.push(
        `| \`${v.name}\` | ${found.length}/${seeds.length} | ${med(found.map((f) => f.ms))} | ${med(found.map((f) => f.runs))} | ${med(found.map((f) => f.first))} | ${med(found.map((f) => f.story))} | ${found.length === 0 ? '-' : fmt(Math.max(...found.map((f) => f.story)))} |${missed === 0 ? '' : ` missed on ${missed} seed(s)`}`,
      );
    }
    const control = await runConcurrentCampaign({
      factory: lockedJobStoreFactory(),
      workers: 4,
      numRuns: 300,
      seed: 1,
    });
    return [
      '## Finding the racy variants',
      '',
      `The concurrent campaign (4 workers, up to 2,000 scenarios, interleavings chosen by fast-check's scheduler) against each racy variant of the catalogue (\`conformance/broken/concurrent/\`), seeds ${seeds[0]}-${seeds[seeds.length - 1]}; medians over the seeds that found it. Wall time includes shrinking.`,
      '',
      '| variant | found | wall ms | runs to the first failure | requests before shrinking | requests of the shrunk story | longest shrunk story |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...rows,
      '',
      `Control: impl/JobStore behind a mutex, 300 scenarios of seed 1: ${control.verdict}${control.unknownRuns === 0 ? '' : ` (${control.unknownRuns} unknown)`}, ${fmt(control.durationMs)} ms.`,
      '',
    ];
  },
};

/** Every part, in report order. Add a part here to have it measured and reported. */
export const PARTS: BenchPart[] = [checkerPart, overlapPart, finderPart, protocolFinderPart];

const sections: string[] = [];
const loadStart = loadAverage();
for (const part of PARTS.filter((p) => only === undefined || p.name.includes(only))) {
  log(`part: ${part.name}`);
  sections.push(...(await part.run()));
}
const m = machine();
const text = [
  '# Benchmark of concurrent checking',
  '',
  'Generated by `bench/concurrency.ts`; do not edit by hand: re-run the command below to refresh it.',
  '',
  `- Command: \`npx tsx bench/concurrency.ts\`${quick ? ' (quick run: `--quick`)' : ''}`,
  `- Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}; Node ${m.node}`,
  `- 1-minute load average at start / end: ${loadStart} / ${loadAverage()}`,
  '- Times are CPU time of the process (user + system, garbage collection included), except in the last part (the racy Python stores over the protocol): wall time.',
  '',
  ...sections,
].join('\n');
if (only === undefined) writeFileSync(new URL('../docs/concurrency-bench.md', import.meta.url), text);
process.stdout.write(`${text}\n`);
