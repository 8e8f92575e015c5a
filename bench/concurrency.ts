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
 * The last two parts are wall time: every racy variant (in process, serve.ts and the racy Python
 * stores over jobcheck/2) on 20 seeds under the check's default concurrent budget, beside a
 * baseline checkout (bench/concurrencyFinder.ts in each); the correct stores over 1,000 scenarios.
 * Run: npm run bench:concurrency -- --baseline DIR   (`--quick`: fewer histories in the checker
 * parts; `--part <text>`: only the parts whose name contains the text, printed and not written)
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Command, Config, Reply } from '../contract/index.ts';
import { JobStore } from '../impl/index.ts';
import { SNAPSHOT_REQUEST, jobModel, jobStoreRoundHistory, seededRandom } from '../conformance/concurrent/jobModel.ts';
import type { History, Operation } from '../conformance/concurrent/history.ts';
import { concurrentProcessFactory } from '../conformance/protocol/index.ts';
import { PYTHON_RACY, findPython, pythonCommand } from '../examples/python/interpreter.ts';
import { DEFAULT_MAX_STEPS, checkLinearizability } from '../conformance/concurrent/linearizability.ts';
import type { CheckOutcome } from '../conformance/concurrent/history.ts';
import { commitOf, loadAverage, machine, median, timed } from './measure.ts';
import { CHECK_CONCURRENT_DEFAULTS } from '../cli/checkCommand.ts';
import { MAX_CONCURRENT_RUNS } from '../conformance/concurrent/pathCheck.ts';
import { OVERLAP_KINDS } from '../conformance/concurrent/overlap.ts';
import type { ConcurrentFactory } from '../conformance/concurrent/adapter.ts';
import { runConcurrentCampaign } from '../conformance/concurrent/campaign.ts';
import { CONCURRENT_BROKEN_VARIANTS } from '../conformance/broken/index.ts';
import { lockedJobStoreFactory } from '../conformance/concurrent/inProcess.ts';

const run = promisify(execFile);
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

/** One seed of bench/concurrencyFinder.ts's output. */
interface FinderLine {
  readonly seed: number;
  readonly verdict: string;
  readonly runs: number;
  readonly histories: number;
  readonly ms: number;
  readonly firstMs: number | null;
  readonly first: number | null;
  readonly story: number | null;
  readonly pairs: number;
  readonly kinds: Record<string, number> | null;
}

/** Runs bench/concurrencyFinder.ts in `root` (this checkout's script, that checkout's modules); its lines. */
async function finder(root: string, how: string, variant: string, seeds: number): Promise<FinderLine[]> {
  const script = fileURLToPath(new URL('./concurrencyFinder.ts', import.meta.url));
  const { stdout } = await run(process.execPath, ['--import', 'tsx', script, root, how, variant, '1', String(seeds)], {
    cwd: root,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as FinderLine);
}

/** Found/seeds, median wall ms, runs and histories to the failure, and story lengths, of one side. Pure. */
function finderCells(lines: readonly FinderLine[]): string[] {
  const found = lines.filter((l) => l.verdict === 'failed');
  const med = (xs: readonly number[]): string => (xs.length === 0 ? '-' : fmt(median(xs)));
  return [
    `${found.length}/${lines.length}`,
    med(found.map((l) => l.ms)),
    med(found.filter((l) => l.firstMs !== null).map((l) => l.firstMs ?? 0)),
    med(found.map((l) => l.runs)),
    med(found.map((l) => l.story ?? 0)),
    found.length === 0 ? '-' : fmt(Math.max(...found.map((l) => l.story ?? 0))),
  ];
}

/** The checkout `--baseline DIR` names (a git worktree of the revision before, node_modules linked), if any. */
const baselineArg = process.argv.indexOf('--baseline');
const baselineRoot = baselineArg < 0 ? undefined : resolve(process.argv[baselineArg + 1] ?? '');
const SEEDS = 20;

/**
 * Every racy variant of the catalogue, in process (fast-check's scheduler) and over jobcheck/2
 * (serve.ts and the racy Python stores), on seeds 1 to SEEDS under the concurrent campaign's
 * default budget as `jobcheck check --workers 4` gives it, in this checkout and in the baseline's,
 * side by side (both children at once, so that they share the machine's load).
 */
const defaultBudgetPart: BenchPart = {
  name: 'racy variants under the default budget',
  async run() {
    const here = fileURLToPath(new URL('..', import.meta.url));
    const variants: { how: string; name: string; shown: string }[] = [
      ...CONCURRENT_BROKEN_VARIANTS.map((v) => ({ how: 'inprocess', name: v.name, shown: `\`${v.name}\`` })),
      ...CONCURRENT_BROKEN_VARIANTS.map((v) => ({ how: 'serve', name: v.name, shown: `\`${v.name}\`` })),
      ...(findPython() === undefined
        ? []
        : PYTHON_RACY.map((v) => ({
            how: 'python',
            name: v.script.replace('examples/python/broken/', ''),
            shown: `${v.race} (\`${v.script.replace('examples/python/', '')}\`)`,
          }))),
    ];
    const where: Record<string, string> = {
      inprocess: 'in process, scheduler',
      serve: 'serve.ts over jobcheck/2',
      python: 'Python over jobcheck/2',
    };
    const rows: string[] = [];
    const kinds = new Map<string, number>();
    let missed = 0;
    for (const v of variants) {
      const [now, before] = await Promise.all([
        finder(here, v.how, v.name, SEEDS),
        baselineRoot === undefined ? Promise.resolve(undefined) : finder(baselineRoot, v.how, v.name, SEEDS),
      ]);
      missed += now.filter((l) => l.verdict !== 'failed').length;
      for (const l of now) for (const [k, n] of Object.entries(l.kinds ?? {})) kinds.set(k, (kinds.get(k) ?? 0) + n);
      const cells = finderCells(now);
      const old = before === undefined ? ['-', '-', '-', '-', '-', '-'] : finderCells(before);
      log(`  ${v.how} ${v.name}: this ${cells.join(' ')}; baseline ${old.join(' ')}`);
      rows.push(
        `| ${v.shown} | ${where[v.how]} | ${old[0]} | ${cells[0]} | ${old[1]} | ${cells[1]} | ${cells[2]} | ${old[3]} | ${cells[3]} | ${old[4]} | ${cells[4]} | ${cells[5]} |`,
      );
    }
    const base = baselineRoot === undefined ? 'no baseline' : `the baseline at \`${commitOf(baselineRoot)}\``;
    return [
      '## Finding every racy variant under the default budget',
      '',
      `The concurrent campaign as \`jobcheck check --workers 4\` runs it with its defaults (this checkout: at least ${fmt(CHECK_CONCURRENT_DEFAULTS.numRuns)} scenarios, more while the campaign has run less than ${fmt(CHECK_CONCURRENT_DEFAULTS.moreRunsWithinMs / 1000)} s, up to ${fmt(MAX_CONCURRENT_RUNS)}; each scenario run as generated and again for each of its up to ${CHECK_CONCURRENT_DEFAULTS.perturbations} send-time perturbations), on seeds 1-${SEEDS} of every racy variant: the catalogue's (\`conformance/broken/concurrent/\`) in process under fast-check's scheduler and over jobcheck/2 (\`serve.ts\`, real timers in each race's window), and the racy Python stores of \`examples/python/broken/\`. Beside it ${base} (its default: ${fmt(100)} scenarios, no perturbation), run at the same time on the same seeds (\`bench/concurrencyFinder.ts\` in each checkout). Wall ms from the start of the campaign to its shrunk story, and (now only: the baseline does not report it) to the end of its first failing run (medians over the seeds that found it); runs: scenarios up to the first failure; story: requests of the shrunk story.`,
      '',
      '| variant | where | found before | found now | wall ms before | wall ms now | ms to first failure now | runs before | runs now | story before | story now | longest story now |',
      '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...rows,
      '',
      `Target: every racy variant found on ${SEEDS} of ${SEEDS} seeds under the default budget: ${missed === 0 ? 'met' : `**not met** (${missed} seed(s) missed)`}.`,
      '',
      `Overlapping pairs of each kind, over the runs of every campaign above until its failure (this checkout): ${[...kinds].map(([k, n]) => `${k} ${fmt(n)}`).join(', ')}.`,
      '',
    ];
  },
};

/** The correct stores (in process, over jobcheck/2, the Python example) over 1,000 concurrent scenarios each. */
const correctPart: BenchPart = {
  name: 'correct stores over 1,000 scenarios',
  async run() {
    const runs = 1000;
    const stores: { name: string; make: () => ConcurrentFactory & { close?: () => Promise<void> } }[] = [
      { name: 'impl/JobStore behind a mutex (in process, scheduler)', make: () => lockedJobStoreFactory() },
      {
        name: 'serve.ts `atomic` over jobcheck/2',
        make: () =>
          concurrentProcessFactory(
            `'${process.execPath}' --import tsx '${fileURLToPath(new URL('../conformance/broken/concurrent/serve.ts', import.meta.url))}' atomic`,
          ),
      },
    ];
    const python = findPython();
    if (python !== undefined)
      stores.push({
        name: 'the Python example (`jobstore.py`) over jobcheck/2',
        make: () => concurrentProcessFactory(pythonCommand(python, 'examples/python/jobstore.py')),
      });
    const rows: string[] = [];
    for (const store of stores) {
      const factory = store.make();
      const started = performance.now();
      try {
        const r = await runConcurrentCampaign({
          factory,
          workers: 4,
          numRuns: runs,
          perturbations: CHECK_CONCURRENT_DEFAULTS.perturbations,
          seed: 1,
        });
        const ms = performance.now() - started;
        log(`  ${store.name}: ${r.verdict} ${r.runs} runs ${Math.round(ms)} ms`);
        rows.push(
          `| ${store.name} | ${r.verdict}${r.unknownRuns === 0 ? '' : ` (${r.unknownRuns} unknown)`} | ${fmt(r.runs)} | ${fmt(r.histories)} | ${fmt(r.overlap.pairs)} | ${OVERLAP_KINDS.map((k) => fmt(r.overlap.kinds[k])).join(' | ')} | ${fmt(ms)} |`,
        );
      } finally {
        await factory.close?.();
      }
    }
    return [
      '## The correct stores over 1,000 concurrent scenarios',
      '',
      `\`jobcheck check --workers 4 --concurrent-runs ${runs} --seed 1\` as the campaign runs it (send-time perturbations included), against each correct store: every history must be linearizable. Pairs: requests in flight together, and of each kind (conformance/concurrent/overlap.ts).`,
      '',
      `| store | verdict | scenarios | histories | pairs | ${OVERLAP_KINDS.join(' | ')} | wall ms |`,
      `| --- | --- | ---: | ---: | ---: | ${OVERLAP_KINDS.map(() => '---:').join(' | ')} | ---: |`,
      ...rows,
      '',
    ];
  },
};

/** Every part, in report order. Add a part here to have it measured and reported. */
export const PARTS: BenchPart[] = [checkerPart, overlapPart, defaultBudgetPart, correctPart];

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
  `- Command: \`npm run bench:concurrency -- ${quick ? '--quick ' : ''}--baseline DIR\`, DIR a checkout of the revision before (a \`git worktree\` with node_modules linked)${quick ? ' (quick run: fewer histories in the checker parts)' : ''}`,
  `- Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}; Node ${m.node}`,
  `- 1-minute load average at start / end: ${loadStart} / ${loadAverage()}`,
  '- Times are CPU time of the process (user + system, garbage collection included), except in the last two parts (the racy variants, the correct stores): wall time.',
  '',
  ...sections,
].join('\n');
if (only === undefined) writeFileSync(new URL('../docs/concurrency-bench.md', import.meta.url), text);
process.stdout.write(`${text}\n`);
