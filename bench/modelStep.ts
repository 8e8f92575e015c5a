/**
 * Benchmark of the model's `step`: the reusable inert actor scope (model/pureTransition.ts) side by
 * side, in one run, with the step as it was before it, where every transition went through
 * xstate's `transition()` and its throw-away actor.
 *
 * The "before" contender is not a second copy kept in the tree: at start the benchmark copies
 * `contract/`, `model/`, `impl/` and `conformance/` into a cache folder and replaces only
 * model/pureTransition.ts there with a version that calls xstate's `transition()`. Both contenders
 * therefore run the same machines, guards and actions; they differ in that one function alone.
 *
 * Two measurements, each a median of interleaved repetitions, CPU time (user + system):
 * 1. `step` alone, replaying the concrete commands of 300 generated campaign runs;
 * 2. whole in-process campaigns against impl/JobStore (generation, model, impl, snapshots,
 *    comparison, coverage): commands checked per CPU second.
 *
 * Run: npm run bench:step   (`--quick` for a short run; `--write` writes docs/step-bench.md)
 */
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import fc from 'fast-check';

const quick = process.argv.includes('--quick');
const write = process.argv.includes('--write') || !quick;
const root = fileURLToPath(new URL('..', import.meta.url));
const legacyRoot = join(root, 'node_modules', '.cache', 'jobcheck-step-bench');

// --- The "before" contender: the same sources, with xstate's transition() per call. -------------
rmSync(legacyRoot, { recursive: true, force: true });
mkdirSync(legacyRoot, { recursive: true });
for (const dir of ['contract', 'model', 'impl', 'conformance']) {
  cpSync(join(root, dir), join(legacyRoot, dir), { recursive: true, filter: (src) => !src.endsWith('.test.ts') });
}
writeFileSync(
  join(legacyRoot, 'model', 'pureTransition.ts'),
  `import { transition } from 'xstate';
import type { AnyStateMachine, EventFromLogic, SnapshotFrom } from 'xstate';
export type PureTransition<M extends AnyStateMachine> = (snapshot: SnapshotFrom<M>, event: EventFromLogic<M>) => SnapshotFrom<M>;
export function pureTransition<M extends AnyStateMachine>(machine: M): PureTransition<M> {
  return (snapshot, event) => transition(machine, snapshot, event)[0] as SnapshotFrom<M>;
}
`,
);

type ModelModule = typeof import('../model/index.ts');
type CampaignModule = typeof import('../conformance/random/campaign.ts');
type JobStoreAdapterModule = typeof import('../conformance/stores/jobStore.ts');
interface Contender {
  readonly name: string;
  readonly model: ModelModule;
  readonly campaign: CampaignModule;
  readonly adapters: JobStoreAdapterModule;
}
async function load(name: string, base: string): Promise<Contender> {
  const url = (p: string): string => pathToFileURL(join(base, p)).href;
  return {
    name,
    model: (await import(url('model/index.ts'))) as ModelModule,
    campaign: (await import(url('conformance/random/campaign.ts'))) as CampaignModule,
    adapters: (await import(url('conformance/stores/jobStore.ts'))) as JobStoreAdapterModule,
  };
}
const before = await load('before: xstate transition() per call', legacyRoot);
const after = await load('now: one inert actor scope per machine', root);

// --- Measurement helpers. ----------------------------------------------------------------------
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};
const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const load1 = (): string => loadavg()[0]?.toFixed(2) ?? '?';
const loadAtStart = load1();

// --- 1. The step alone, on recorded commands. -------------------------------------------------------
const { scenarioArb } = await import('../conformance/random/arbitraries.ts');
const { runLockstep } = await import('../conformance/lockstep/index.ts');
const { modelFactory } = await import('../conformance/stores/model.ts');
const scenarios = fc.sample(scenarioArb(), { numRuns: 300, seed: 7 });
const scripts: { config: import('../contract/index.ts').Config; commands: unknown[] }[] = [];
for (const s of scenarios) {
  const r = await runLockstep(s.config, s.commands, modelFactory);
  scripts.push({ config: r.config, commands: r.steps.flatMap((st) => ('do' in st.action ? [st.action.do] : [])) });
}
const stepCommands = scripts.reduce((n, s) => n + s.commands.length, 0);
const replay = (c: Contender): void => {
  for (const s of scripts) {
    let state = c.model.initialState(s.config);
    for (const command of s.commands) state = c.model.step(state, command).state;
  }
};
// The two contenders must agree on every reply and state, or the comparison means nothing.
for (const s of scripts) {
  let a = before.model.initialState(s.config);
  let b = after.model.initialState(s.config);
  for (const command of s.commands) {
    const ra = before.model.step(a, command);
    const rb = after.model.step(b, command);
    if (
      JSON.stringify(ra.reply) !== JSON.stringify(rb.reply) ||
      JSON.stringify(before.model.toSnapshot(ra.state)) !== JSON.stringify(after.model.toSnapshot(rb.state))
    ) {
      throw new Error(`bench: the two steps disagree on ${JSON.stringify(command)}`);
    }
    a = ra.state;
    b = rb.state;
  }
}
const contenders = [before, after];
const stepReps = quick ? 5 : 15;
const stepUs = new Map<Contender, number[]>(contenders.map((c) => [c, []]));
for (const c of contenders) replay(c); // warm-up
for (let rep = 0; rep < stepReps; rep++) {
  for (const c of rep % 2 === 0 ? contenders : [...contenders].reverse()) {
    const t = cpuMs();
    replay(c);
    stepUs.get(c)?.push(((cpuMs() - t) * 1000) / stepCommands);
  }
}

// --- 2. Whole campaigns in process. --------------------------------------------------------------
const campaignRuns = quick ? 200 : 1000;
const campaignReps = quick ? 3 : 7;
const rates = new Map<Contender, number[]>(contenders.map((c) => [c, []]));
const wallRates = new Map<Contender, number[]>(contenders.map((c) => [c, []]));
for (const c of contenders)
  await c.campaign.runCampaign({ factory: c.adapters.jobStoreFactory(), runs: 100, seed: 99 }); // warm-up
for (let rep = 0; rep < campaignReps; rep++) {
  for (const c of rep % 2 === 0 ? contenders : [...contenders].reverse()) {
    const t = cpuMs();
    const r = await c.campaign.runCampaign({
      factory: c.adapters.jobStoreFactory(),
      runs: campaignRuns,
      seed: 1000 + rep,
    });
    const spent = cpuMs() - t;
    if (r.verdict !== 'agree') throw new Error(`bench: impl/JobStore diverged (seed ${r.seed})`);
    rates.get(c)?.push((r.commands / spent) * 1000);
    wallRates.get(c)?.push((r.commands / r.durationMs) * 1000);
  }
}

// --- Report. -------------------------------------------------------------------------------------
const m = (map: Map<Contender, number[]>, c: Contender): number => median(map.get(c) ?? []);
const stepRatio = m(stepUs, before) / m(stepUs, after);
const campaignRatio = m(rates, after) / m(rates, before);
const lines = [
  '# Benchmark of the model step',
  '',
  'Generated by `bench/modelStep.ts`; do not edit by hand: re-run the command below to refresh it.',
  '',
  `- Command: \`npm run bench:step\`${quick ? ' (quick run)' : ''}`,
  `- Machine: ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${cpus().length} cores, ${platform()} ${release()}; Node ${process.version}`,
  `- 1-minute load average at start / end: ${loadAtStart} / ${load1()}`,
  '- Times are CPU time of the process (user + system, garbage collection included); each figure is the median of interleaved repetitions.',
  '',
  '"Before" is the same model with every transition going through xstate\'s `transition()`, which builds a throw-away actor on each call; "now" keeps one inert actor scope per machine (model/pureTransition.ts). The benchmark checks that both give the same reply and snapshot on every command before it times them.',
  '',
  '| measure | before | now | ratio |',
  '|---|---:|---:|---:|',
  `| \`step\` µs per command (${fmt(stepCommands)} commands of 300 generated runs × ${stepReps}) | ${fmt(m(stepUs, before), 2)} | ${fmt(m(stepUs, after), 2)} | ${fmt(stepRatio, 2)}× faster |`,
  `| in-process campaign vs impl/JobStore, commands checked per CPU second (${fmt(campaignRuns)} runs × ${campaignReps}) | ${fmt(m(rates, before))} | ${fmt(m(rates, after))} | ${fmt(campaignRatio, 2)}× |`,
  `| the same campaigns, commands per wall second | ${fmt(m(wallRates, before))} | ${fmt(m(wallRates, after))} | ${fmt(m(wallRates, after) / m(wallRates, before), 2)}× |`,
  '',
  '## Targets',
  '',
  '| target | measured | verdict |',
  '|---|---|---|',
  `| step at least 2.5× faster | ${fmt(stepRatio, 2)}× | ${stepRatio >= 2.5 ? 'met' : '**not met**'} |`,
  `| at least 30,000 commands checked per second in process | ${fmt(m(rates, after))} per CPU second | ${m(rates, after) >= 30_000 ? 'met' : '**not met**'} |`,
  '',
];
const text = lines.join('\n');
process.stdout.write(`${text}\n`);
if (write) writeFileSync(join(root, 'docs', 'step-bench.md'), text);
rmSync(legacyRoot, { recursive: true, force: true });
