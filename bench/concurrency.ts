/**
 * Benchmark of concurrent checking. Each part is one function that measures something and
 * returns a section of the report; the report is docs/concurrency-bench.md. The linearizability
 * checker's part is here; further parts (the runner against real concurrent stores) are added
 * to PARTS.
 *
 * The checker's histories are recorded from impl/JobStore driven by simulated workers in rounds
 * (conformance/concurrent/jobModel.ts, `jobStoreRoundHistory`): each round at most one request a
 * worker, all with the same `now`, executed in a random order, every request of a round
 * overlapping the others, each round over before the next. Times are CPU time of the process
 * (user + system, garbage collection included), medians over several histories (different seeds).
 *
 * Run: npx tsx bench/concurrency.ts   (`--quick`: fewer histories; the report is written either way)
 */
import { writeFileSync } from 'node:fs';
import type { Config } from '../contract/index.ts';
import { jobModel, jobStoreRoundHistory } from '../conformance/concurrent/jobModel.ts';
import { DEFAULT_MAX_STEPS, checkLinearizability } from '../conformance/concurrent/linearizability.ts';
import type { CheckOutcome } from '../conformance/concurrent/history.ts';
import { loadAverage, machine, median, timed } from './measure.ts';
import { runConcurrentCampaign } from '../conformance/concurrent/campaign.ts';
import { CONCURRENT_BROKEN_VARIANTS } from '../conformance/broken/concurrent/index.ts';
import { lockedJobStoreFactory } from '../conformance/concurrent/inProcess.ts';
import { requestCount } from '../conformance/concurrent/generate.ts';

const quick = process.argv.includes('--quick');
const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
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

/** One check of one recorded history: its outcome and the CPU milliseconds it took. */
export function timeCheck(options: { workers: number; requests: number; seed: number; indefinite?: number }): { outcome: CheckOutcome<unknown>; ms: number; requests: number } {
  const history = jobStoreRoundHistory({ config: BENCH_CONFIG, ...options });
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
    const headline = Array.from({ length: quick ? 3 : 9 }, (_, k) => timeCheck({ workers: 8, requests: 1000, seed: 1 + k }));
    for (const h of headline) if (h.outcome.verdict !== 'linearizable') throw new Error(`bench: a recorded history was found ${h.outcome.verdict}`);
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
    const rate = (indefinite: number, w: number, n: number): { unknown: number; other: number; slowest: number; steps: number } => {
      const runs = Array.from({ length: n }, (_, k) => timeCheck({ workers: w, requests: 1000, seed: 500 + k, indefinite }));
      log(`budget: ${w} workers, ${indefinite * 100}% lost: ${runs.filter((r) => r.outcome.verdict === 'unknown').length} unknown of ${n}`);
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
      lines.push(`| ${w} | ${fmt(indefinite * 100)}% | ${n} | ${r.unknown} | ${r.other} | ${fmt(r.slowest)} | ${fmt(r.steps)} |`);
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

/** Requests of a failure's run. */
const requestsOf = (r: Awaited<ReturnType<typeof runConcurrentCampaign>>): number => (r.failure?.run == null ? 0 : requestCount(r.failure.run.rounds));

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
    const control = await runConcurrentCampaign({ factory: lockedJobStoreFactory(), workers: 4, numRuns: 300, seed: 1 });
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
export const PARTS: BenchPart[] = [checkerPart, finderPart];

const sections: string[] = [];
const loadStart = loadAverage();
for (const part of PARTS) {
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
  '- Times are CPU time of the process (user + system, garbage collection included).',
  '',
  ...sections,
].join('\n');
writeFileSync(new URL('../docs/concurrency-bench.md', import.meta.url), text);
process.stdout.write(`${text}\n`);
