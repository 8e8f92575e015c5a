/**
 * Benchmark of the model's `step`: the fast step (compiled transition tables over plain states,
 * model/runMachine.ts; well-formed commands accepted without zod, contract/fastCommand.ts) beside
 * the reference step (model/referenceModel.ts: xstate's own `transition` over xstate snapshots,
 * every command validated by zod), in one run; both run the same machines, guards and actions.
 * For `step` alone the step of TODAY_COMMIT runs beside them (read with `git show` into a cache
 * folder), and the target is stated against it: the reference shares two speed-ups with the fast
 * step (guards that scan without copying, refusals without a ZodError), so it is faster than the
 * step it stands for. Three measures:
 * 1. `step` alone, replaying the concrete commands of 300 generated campaign runs (CPU time,
 *    median of interleaved repetitions), the empty states made outside the timings;
 * 2. whole in-process campaigns against impl/JobStore: commands checked per CPU second. The
 *    campaign reaches the model through model/index.ts, so the reference runs from a copy of the
 *    sources in a cache folder whose model/index.ts exports the reference step under those names;
 * 3. a CPU profile of the fast step alone, in a child process (`node --cpu-prof`, this file with
 *    `--profile-child`) so that nothing else runs beside it: the functions with the most self time.
 *
 * Run: npm run bench:step   (`--quick` for a short run; `--write` writes docs/step-bench.md)
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fc from 'fast-check';
import type { Config } from '../contract/index.ts';
import type { Model } from '../model/index.ts';

const quick = process.argv.includes('--quick');
const write = process.argv.includes('--write') || !quick;
const profileChild = process.argv.includes('--profile-child');
const profileSeconds = quick ? 1 : 4;
const root = fileURLToPath(new URL('..', import.meta.url));
const referenceRoot = join(root, 'node_modules', '.cache', 'jobcheck-step-bench');
const todayRoot = join(root, 'node_modules', '.cache', 'jobcheck-step-bench-today');
/** The last commit whose model step ran every transition through xstate: "today's step" of the target. */
const TODAY_COMMIT = 'a3f24a01695435bdcd1a7630ddcae814a7da2d37';

const load1 = (): string => loadavg()[0]?.toFixed(2) ?? '?';
const loadAtStart = load1();

// --- The commands every measure replays: the concrete commands of 300 generated campaign runs. --
const { scenarioArb } = await import('../conformance/random/arbitraries.ts');
const { runLockstep } = await import('../conformance/lockstep/index.ts');
const { modelFactory } = await import('../conformance/stores/model.ts');
const scripts: { config: Config; commands: unknown[] }[] = [];
for (const s of fc.sample(scenarioArb(), { numRuns: 300, seed: 7 })) {
  const r = await runLockstep(s.config, s.commands, modelFactory);
  scripts.push({ config: r.config, commands: r.steps.flatMap((st) => ('do' in st.action ? [st.action.do] : [])) });
}
const stepCommands = scripts.reduce((n, s) => n + s.commands.length, 0);
// Each model's empty states are made once, outside the timings: the measure is the step alone.
const starts = new Map<Model, ReturnType<Model['initialState']>[]>();
const replay = (model: Model): void => {
  let initial = starts.get(model);
  if (initial === undefined) {
    initial = scripts.map((s) => model.initialState(s.config));
    starts.set(model, initial);
  }
  scripts.forEach((s, i) => {
    let state = initial[i] ?? model.initialState(s.config);
    for (const command of s.commands) state = model.step(state, command).state;
  });
};
const modelModule = await import('../model/index.ts');
if (profileChild) {
  // The child of measure 3: replay with the fast step only, under --cpu-prof, and exit.
  // Replays for a few CPU seconds, so that they, not the generation of the commands, fill the profile.
  const until = process.cpuUsage().user / 1000 + profileSeconds * 1000;
  // Each replay with a model of its own, so that no malformed command is answered from the
  // memory of an earlier replay (model/rememberedRejections.ts), as in measure 1.
  let current: Model = modelModule.buildModel();
  const fastModel: Model = { ...modelModule, step: (s, c, choice) => current.step(s, c, choice) };
  while (process.cpuUsage().user / 1000 < until) {
    current = modelModule.buildModel();
    replay(fastModel);
  }
  process.exit(0);
}

// --- The reference contender for campaigns: the same sources, model/index.ts exporting the reference step.
rmSync(referenceRoot, { recursive: true, force: true });
mkdirSync(referenceRoot, { recursive: true });
for (const dir of ['contract', 'model', 'impl', 'conformance']) {
  cpSync(join(root, dir), join(referenceRoot, dir), { recursive: true, filter: (src) => !src.endsWith('.test.ts') });
}
const indexPath = join(referenceRoot, 'model', 'index.ts');
const fastExports = "export { configOf, fromSnapshot, initialState, step, toSnapshot } from './step.ts';";
const index = readFileSync(indexPath, 'utf8');
if (!index.includes(fastExports)) throw new Error('bench: model/index.ts no longer exports the step as expected');
writeFileSync(
  indexPath,
  index.replace(
    fastExports,
    `export { configOf, toSnapshot } from './step.ts';
import { buildReferenceModel as referenceOfBench } from './referenceModel.ts';
const benchReference = referenceOfBench();
export const initialState = benchReference.initialState;
export const fromSnapshot = benchReference.fromSnapshot;
export const step = (state: import('./step.ts').ModelState, command: unknown) => benchReference.step(state, command);`,
  ),
);

// --- Today's step: contract/ and model/ as they were at TODAY_COMMIT (model/ imports only contract/).
const git = (...args: string[]): string =>
  execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
let todayModel: Model | undefined;
try {
  rmSync(todayRoot, { recursive: true, force: true });
  const files = git('ls-tree', '-r', '--name-only', TODAY_COMMIT, '--', 'contract', 'model')
    .split('\n')
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
  for (const f of files) {
    mkdirSync(join(todayRoot, f, '..'), { recursive: true });
    writeFileSync(join(todayRoot, f), git('show', `${TODAY_COMMIT}:${f}`));
  }
  todayModel = (await import(pathToFileURL(join(todayRoot, 'model', 'index.ts')).href)) as Model;
} catch (e) {
  process.stderr.write(`bench: today's step (${TODAY_COMMIT.slice(0, 7)}) is not available: ${String(e)}\n`);
}

type CampaignModule = typeof import('../conformance/random/campaign.ts');
type JobStoreAdapterModule = typeof import('../conformance/stores/jobStore.ts');
interface Contender {
  readonly name: string;
  readonly model: Model;
  readonly campaign: CampaignModule;
  readonly adapters: JobStoreAdapterModule;
}
async function campaignOf(base: string): Promise<Pick<Contender, 'campaign' | 'adapters'>> {
  const url = (p: string): string => pathToFileURL(join(base, p)).href;
  return {
    campaign: (await import(url('conformance/random/campaign.ts'))) as CampaignModule,
    adapters: (await import(url('conformance/stores/jobStore.ts'))) as JobStoreAdapterModule,
  };
}
const reference: Contender = {
  name: 'reference (xstate transition, zod)',
  model: modelModule.buildReferenceModel(),
  ...(await campaignOf(referenceRoot)),
};
const fast: Contender = {
  name: 'fast (compiled tables, fast command path)',
  model: { initialState: modelModule.initialState, step: modelModule.step, fromSnapshot: modelModule.fromSnapshot },
  ...(await campaignOf(root)),
};
const contenders = [reference, fast];

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

// --- 1. The step alone, on recorded commands. -------------------------------------------------------
// The fast step remembers the rejections it has worded (model/rememberedRejections.ts), and the same
// commands are replayed in every repetition: each repetition of the fast step runs on a model built
// afresh (outside the timing), so that no malformed command is answered from an earlier one's memory.
let freshFast: Model = modelModule.buildModel();
const fastForSteps: Model = {
  initialState: modelModule.initialState,
  step: (state, command, choice) => freshFast.step(state, command, choice),
  fromSnapshot: modelModule.fromSnapshot,
};
interface StepContender {
  readonly name: string;
  readonly model: Model;
}
const stepContenders: StepContender[] = [
  ...(todayModel === undefined ? [] : [{ name: 'today', model: todayModel }]),
  { name: 'reference', model: reference.model },
  { name: 'fast', model: fastForSteps },
];
// Every contender must agree with the fast step on every reply, trace and state, or the comparison means nothing.
for (const c of stepContenders) {
  for (const s of scripts) {
    let a = c.model.initialState(s.config);
    let b = fast.model.initialState(s.config);
    for (const command of s.commands) {
      const ra = c.model.step(a, command);
      const rb = fast.model.step(b, command);
      const same =
        JSON.stringify(ra.reply) === JSON.stringify(rb.reply) &&
        JSON.stringify(ra.trace) === JSON.stringify(rb.trace) &&
        JSON.stringify(modelModule.toSnapshot(ra.state)) === JSON.stringify(modelModule.toSnapshot(rb.state));
      if (!same) throw new Error(`bench: the ${c.name} and fast steps disagree on ${JSON.stringify(command)}`);
      a = ra.state;
      b = rb.state;
    }
  }
}
const stepReps = quick ? 5 : 15;
const stepUs = new Map<StepContender, number[]>(stepContenders.map((c) => [c, []]));
for (const c of stepContenders) replay(c.model); // warm-up
for (let rep = 0; rep < stepReps; rep++) {
  // Each repetition starts with the next contender, so that none always runs first.
  const order = stepContenders.map((_, i) => stepContenders[(i + rep) % stepContenders.length]);
  for (const c of order) {
    if (c === undefined) continue;
    if (c.model === fastForSteps) freshFast = modelModule.buildModel();
    const t = cpuMs();
    replay(c.model);
    stepUs.get(c)?.push(((cpuMs() - t) * 1000) / stepCommands);
  }
}
const stepOf = (name: string): number => {
  const c = stepContenders.find((x) => x.name === name);
  return c === undefined ? Number.NaN : median(stepUs.get(c) ?? []);
};

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

// --- 3. Where the fast step's time goes now. -----------------------------------------------------
interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
}
interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples?: readonly number[];
  readonly timeDeltas?: readonly number[];
}
const profileDir = mkdtempSync(join(tmpdir(), 'jobcheck-step-profile-'));
execFileSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--cpu-prof',
    '--cpu-prof-dir',
    profileDir,
    fileURLToPath(import.meta.url),
    '--profile-child',
    ...(quick ? ['--quick'] : []),
  ],
  { stdio: 'inherit' },
);
const profileFile = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
if (profileFile === undefined) throw new Error('bench: the profiling child wrote no profile');
const profile = JSON.parse(readFileSync(join(profileDir, profileFile), 'utf8')) as CpuProfile;
rmSync(profileDir, { recursive: true, force: true });
const selfTime = new Map<number, number>();
(profile.samples ?? []).forEach((id, i) => {
  selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas?.[i] ?? 0));
});
const byFunction = new Map<string, number>();
let profiled = 0;
for (const node of profile.nodes) {
  const t = selfTime.get(node.id) ?? 0;
  profiled += t;
  const { functionName, url } = node.callFrame;
  const file = url === '' ? '' : basename(url.startsWith('file:') ? fileURLToPath(url) : url);
  const name = `${functionName === '' ? '(anonymous)' : functionName}${file === '' ? '' : ` (${file})`}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + t);
}
// The idle and program pseudo-frames are not the step's; the whole run's setup (generating the
// commands) is in the profile too, but is small beside the replays.
const top = [...byFunction]
  .filter(([name]) => name !== '(idle)' && name !== '(program)')
  .sort((a, b) => b[1] - a[1])
  .slice(0, 5);

// --- Report. -------------------------------------------------------------------------------------
const m = (map: Map<Contender, number[]>, c: Contender): number => median(map.get(c) ?? []);
const todayUs = stepOf('today');
const referenceUs = stepOf('reference');
const fastUs = stepOf('fast');
const todayRatio = todayUs / fastUs;
const stepRatio = referenceUs / fastUs;
const campaignRatio = m(rates, fast) / m(rates, reference);
const lines = [
  '# Benchmark of the model step',
  '',
  'Generated by `bench/modelStep.ts`; do not edit by hand: re-run the command below to refresh it.',
  '',
  `- Command: \`npm run bench:step\`${quick ? ' (quick run)' : ''}`,
  `- Machine: ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${cpus().length} cores, ${platform()} ${release()}; Node ${process.version}`,
  `- 1-minute load average at start / end: ${loadAtStart} / ${load1()}`,
  '- Times are CPU time of the process (user + system, garbage collection included); each figure is the median of interleaved repetitions.',
  ...(Number(loadAtStart) > cpus().length
    ? [
        `- The load average at start was above the ${cpus().length} cores: other work shared the machine, so absolute figures are inflated and vary between runs; the ratios, measured side by side, are the figures to read.`,
      ]
    : []),
  '',
  "\"Reference\" is the xstate path kept in the tree as the yardstick (model/referenceModel.ts): every transition, the store's and each job's, taken by xstate's own `transition` (one inert actor scope per machine, model/pureTransition.ts) over xstate snapshots, and every command validated by the zod schema alone. \"Fast\" is the model's `step`: the same machines' definitions compiled once into transition tables and run over plain states (model/runMachine.ts), and well-formed commands accepted without zod (contract/fastCommand.ts); malformed ones go to the schema, whose rejections it remembers (model/rememberedRejections.ts), but each repetition of the fast step starts with an empty memory, so that replaying the same commands answers none from an earlier repetition. The benchmark checks that every contender gives the same reply, trace and snapshot as the fast step on every command before it times them.",
  '',
  `"Today" is the step of commit ${TODAY_COMMIT.slice(0, 7)}, the last before the fast step: the reference as it was, before the store machine's guards stopped copying the job list and zod's refusals stopped building a ZodError, two speed-ups the reference shares with the fast step. The target is stated against it; the ratio to the reference is the part owed to the executor and the fast command path alone.`,
  '',
  '| measure | today | reference | fast | fast vs today | fast vs reference |',
  '|---|---:|---:|---:|---:|---:|',
  `| \`step\` µs per command (${fmt(stepCommands)} commands of 300 generated runs × ${stepReps}) | ${fmt(todayUs, 2)} | ${fmt(referenceUs, 2)} | ${fmt(fastUs, 2)} | ${fmt(todayRatio, 2)}× faster | ${fmt(stepRatio, 2)}× faster |`,
  '',
  '| measure | reference | fast | ratio |',
  '|---|---:|---:|---:|',
  `| in-process campaign vs impl/JobStore, commands checked per CPU second (${fmt(campaignRuns)} runs × ${campaignReps}) | ${fmt(m(rates, reference))} | ${fmt(m(rates, fast))} | ${fmt(campaignRatio, 2)}× |`,
  `| the same campaigns, commands per wall second | ${fmt(m(wallRates, reference))} | ${fmt(m(wallRates, fast))} | ${fmt(m(wallRates, fast) / m(wallRates, reference), 2)}× |`,
  '',
  '## Where the fast step spends its time',
  '',
  `Self time of the five costliest functions in a CPU profile (\`node --cpu-prof\`, a child process) of the fast step replaying the same commands for ${profileSeconds} CPU seconds, as a share of the profile's whole time (the generation of the commands included):`,
  '',
  '| function | share of self time |',
  '|---|---:|',
  ...top.map(([name, t]) => `| ${name.replaceAll('|', '\\|')} | ${fmt((100 * t) / Math.max(profiled, 1), 1)}% |`),
  '',
  '## Targets',
  '',
  '| target | measured | verdict |',
  '|---|---|---|',
  `| step at least 5× faster than today's step | ${fmt(todayRatio, 2)}× | ${todayRatio >= 5 ? 'met' : '**not met**'} |`,
  `| (for information) step against the reference step, same target | ${fmt(stepRatio, 2)}× | ${stepRatio >= 5 ? 'met' : '**not met**'} |`,
  `| at least 30,000 commands checked per second in process | ${fmt(m(rates, fast))} per CPU second | ${m(rates, fast) >= 30_000 ? 'met' : '**not met**'} |`,
  '',
];
const text = lines.join('\n');
process.stdout.write(`${text}\n`);
if (write) writeFileSync(join(root, 'docs', 'step-bench.md'), text);
rmSync(referenceRoot, { recursive: true, force: true });
rmSync(todayRoot, { recursive: true, force: true });
