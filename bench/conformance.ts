/**
 * Benchmark of the conformance engine: commands checked per second (model and impl/JobStore in
 * lockstep, replies and snapshots compared after every command), where the time goes, and the
 * time to find and shrink each self-test bug. Writes docs/conformance-bench.md. CPU time (wall
 * time beside it), medians of rounds in which every part runs once, in rotating order.
 *
 * Run: npm run bench:conformance   (JOBCHECK_BENCH_RUNS scales the campaigns, default 1000)
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, platform } from 'node:os';
import fc from 'fast-check';
import { initialState, step, toSnapshot } from '../model/index.ts';
import { JobStore } from '../impl/index.ts';
import { jobStoreFactory } from '../conformance/stores/jobStore.ts';
import { modelFactory } from '../conformance/stores/model.ts';
import { scenarioArb } from '../conformance/random/arbitraries.ts';
import { BROKEN_VARIANTS } from '../conformance/broken/index.ts';
import { runCampaign } from '../conformance/random/campaign.ts';
import { firstDifference } from '../conformance/lockstep/compare.ts';
import { runLockstep } from '../conformance/lockstep/index.ts';
import type { LockstepResult } from '../conformance/lockstep/index.ts';
import { runPathSuite } from '../conformance/paths/pathSuite.ts';
import { median } from './measure.ts';

const RUNS = Number(process.env['JOBCHECK_BENCH_RUNS'] ?? 1000);
const ROUNDS = 5;
const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const load1 = (): string => (loadavg()[0] ?? 0).toFixed(2);

/** CPU and wall milliseconds of one (possibly async) run. CPU: user + system of this process. */
interface Took {
  readonly cpu: number;
  readonly wall: number;
}
async function took(f: () => unknown): Promise<Took> {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  await f();
  const used = process.cpuUsage(cpu);
  return { cpu: (used.user + used.system) / 1000, wall: performance.now() - wall };
}

/**
 * Runs every part once per round, in an order that rotates each round (so load from elsewhere on
 * the machine falls on all parts alike), after one untimed round; returns each part's times.
 */
async function interleaved(
  parts: Record<string, (round: number) => unknown>,
  rounds: number,
): Promise<Record<string, Took[]>> {
  const names = Object.keys(parts);
  const out: Record<string, Took[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = -1; r < rounds; r++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(Math.max(r, 0) + k) % names.length] as string;
      const t = await took(() => (parts[name] as (round: number) => unknown)(r));
      if (r >= 0) out[name]?.push(t);
    }
  }
  return out;
}

// Resolved scripts for the parts measured alone: 300 random scenarios, resolved once against the model.
const scenarios = fc.sample(scenarioArb(), { numRuns: 300, seed: 7 });
const resolved: LockstepResult[] = [];
for (const s of scenarios) resolved.push(await runLockstep(s.config, s.commands, modelFactory));
const scriptCommands = resolved.reduce((n, r) => n + r.steps.length, 0);
const states = resolved.map((r) => {
  let s = initialState(r.config);
  return r.steps.map((st) => (s = 'do' in st.action ? step(s, st.action.do).state : s));
});
const copies = resolved.map((r) => r.steps.map((st) => structuredClone(st.modelSnapshot)));

// 1 and 2. Whole campaigns (generation, resolution, model, impl, comparison, coverage), the
// lockstep over the resolved scripts, and each part alone, interleaved round by round.
const loadStart = load1();
const campaignCommands: number[] = [];
const times = await interleaved(
  {
    campaign: async (round) => {
      const r = await runCampaign({
        factory: jobStoreFactory(),
        runs: round < 0 ? 200 : RUNS,
        seed: round < 0 ? 99 : 1000 + round,
      });
      if (r.verdict !== 'agree') throw new Error(`bench: impl/JobStore diverged (seed ${r.seed})`);
      if (round >= 0) campaignCommands.push(r.commands);
    },
    lockstep: async () => {
      for (const r of resolved)
        await runLockstep(
          r.config,
          r.steps.map((s) => s.action),
          jobStoreFactory(),
        );
    },
    model: () => {
      for (const r of resolved) {
        let s = initialState(r.config);
        for (const st of r.steps) if ('do' in st.action) s = step(s, st.action.do).state;
      }
    },
    toSnapshot: () => {
      for (const list of states) for (const s of list) toSnapshot(s);
    },
    impl: () => {
      for (const r of resolved) {
        let store = JobStore.create(r.config);
        for (const st of r.steps) {
          if ('do' in st.action) store.execute(st.action.do);
          else store = JobStore.restore(JSON.parse(JSON.stringify(store.snapshot())));
          store.snapshot();
        }
      }
    },
    compare: () => {
      resolved.forEach((r, i) => {
        r.steps.forEach((st, j) => {
          firstDifference(st.modelSnapshot, copies[i]?.[j]);
        });
      });
    },
    paths: () => runPathSuite({ factory: jobStoreFactory() }),
  },
  ROUNDS,
);
const loadEnd = load1();
const campaign = times['campaign'] as Took[];
const cpuRate = median(campaign.map((t, i) => ((campaignCommands[i] ?? 0) / t.cpu) * 1000));
const wallRate = median(campaign.map((t, i) => ((campaignCommands[i] ?? 0) / t.wall) * 1000));
const commands = campaignCommands.reduce((a, b) => a + b, 0);
/** Median µs per script command of a part, CPU or wall. */
const us = (part: string, kind: keyof Took = 'cpu'): number =>
  (median((times[part] as Took[]).map((t) => t[kind])) * 1000) / scriptCommands;
const lockstepCpu = us('lockstep');
const paths = await runPathSuite({ factory: jobStoreFactory() });

// 3. Time to find and shrink each self-test bug (same seeds as the self-test), 3 interleaved rounds.
const bugLoadStart = load1();
const bugRuns: Record<string, Awaited<ReturnType<typeof runCampaign>>> = {};
const bugTimes = await interleaved(
  Object.fromEntries(
    BROKEN_VARIANTS.map((v) => [
      v.name,
      async () => {
        bugRuns[v.name] = await runCampaign({ factory: v.factory, runs: 500, seed: 20261129 });
      },
    ]),
  ),
  3,
);
const bugLoadEnd = load1();
const bugs = BROKEN_VARIANTS.map((v) => {
  const r = bugRuns[v.name] as Awaited<ReturnType<typeof runCampaign>>;
  const t = bugTimes[v.name] as Took[];
  return `| ${v.name} | ${r.verdict} | ${r.firstFailureLength ?? '-'} | ${r.counterexample?.steps.length ?? '-'} | ${r.shrinks} | ${fmt(median(t.map((x) => x.cpu)))} | ${fmt(median(t.map((x) => x.wall)))} | ${fmt(r.durationMs - r.shrinkMs)} | ${fmt(r.shrinkMs)} |`;
});

const cpu = cpus()[0]?.model ?? 'unknown CPU';
const report = `# Conformance engine benchmark

Generated by \`npm run bench:conformance\` (bench/conformance.ts) on ${platform()}, ${cpu} (${cpus().length} cores), Node ${process.version}.
Campaign size: ${RUNS} random runs per round (JOBCHECK_BENCH_RUNS changes it), ${ROUNDS} rounds after an untimed one.
Times are CPU time of the process (user + system of all its threads, so garbage collection and
compilation threads included: CPU can exceed wall), wall time beside it: on a small shared machine
wall time mostly measures the other work. Every part below runs once
per round, in an order that rotates each round; each figure is the median of the rounds.

## Commands checked per second

A command is checked when the model and impl/JobStore have both executed it, their replies
(without \`message\`) are equal and their canonical snapshots are equal.
1-minute load average: ${loadStart} at the start, ${loadEnd} at the end of these measurements.

| Measure | CPU time | wall time |
|---|---:|---:|
| Random campaign, median of ${ROUNDS} (${fmt(commands)} commands) | **${fmt(cpuRate)} commands/s** | ${fmt(wallRate)} commands/s |
| Target | 5,000 commands/s | |
| Lockstep over pre-resolved scripts (no generation) | ${fmt(1e6 / lockstepCpu)} commands/s (${lockstepCpu.toFixed(1)} µs/command) | ${fmt(1e6 / us('lockstep', 'wall'))} commands/s |
| Path suite (${paths.outcomes.length} paths, ${paths.outcomes.reduce((n, o) => n + o.result.steps.length, 0)} steps) | ${median((times['paths'] as Took[]).map((t) => t.cpu)).toFixed(0)} ms | ${median((times['paths'] as Took[]).map((t) => t.wall)).toFixed(0)} ms |

## Where the time goes (µs per command, each part alone over the same ${fmt(scriptCommands)} commands)

Measured in the same rounds as the table above (same load average).

| Part | CPU µs/command | wall µs/command |
|---|---:|---:|
| Model \`step\` (xstate pure transition, zod validation) | ${us('model').toFixed(1)} | ${us('model', 'wall').toFixed(1)} |
| Model \`toSnapshot\` | ${us('toSnapshot').toFixed(1)} | ${us('toSnapshot', 'wall').toFixed(1)} |
| impl/JobStore \`execute\` + \`snapshot\` (+ restarts) | ${us('impl').toFixed(1)} | ${us('impl', 'wall').toFixed(1)} |
| Snapshot comparison (\`firstDifference\`) | ${us('compare').toFixed(1)} | ${us('compare', 'wall').toFixed(1)} |

${us('model') > Math.max(us('impl'), us('compare'), us('toSnapshot')) ? "The model's step is the largest single part (xstate transitions and zod validation). " : ''}The rest of a checked command (resolving symbolic references, fast-check's generation, promises
of the async adapter interface, coverage counting) is the difference between the sum of the parts
above and the lockstep figure; the campaign adds generation and shrinking machinery on top.

## Time to find and shrink each self-test bug

Seed 20261129, up to 500 runs, as in conformance/selfTest.test.ts; 3 rounds, medians.
1-minute load average: ${bugLoadStart} at the start, ${bugLoadEnd} at the end. The split between
finding and shrinking is wall time as the campaign reports it (it does not time CPU).

| Bug | Verdict | First failing run (commands) | Shrunk story (steps) | Shrinks | CPU ms (find + shrink) | wall ms (find + shrink) | wall ms to find (last round) | wall ms to shrink (last round) |
|---|---|---:|---:|---:|---:|---:|---:|---:|
${bugs.join('\n')}
`;
writeFileSync(new URL('../docs/conformance-bench.md', import.meta.url), report);
console.log(report);
