/**
 * Benchmark of checks over the protocol: `jobcheck check` on the Python example, the harness as it
 * was (one store at a time, every restart a newly started process) side by side with the harness
 * as it is (several stores at once, warm restarts in the path suite and campaign), and the pipe's
 * floor measured in the same run: a Python JSON echo over the same kind of pipe, driven by the
 * same Peer class, one line at a time.
 *
 * Then the bug-finding side: every broken Python variant, on several seeds, under both harnesses:
 * that each is caught, in how many campaign commands, and how long until the first divergence.
 *
 * And the whole default check as a user runs it, exploration included: `node bin/jobcheck.js check
 * --impl "python3 examples/python/jobstore.py"` in this checkout beside the same command in a
 * baseline checkout (`--baseline DIR`, e.g. a `git worktree` of the previous revision with
 * node_modules linked), each a child process, interleaved: wall and CPU time, the phases' times
 * from the check's JSON, the exploration's states and transitions (which must be equal), and a
 * summary of a CPU profile of each (the harness's main thread; the implementation processes are
 * separate processes and show as idle time there).
 *
 * Times are medians of interleaved repetitions. Wall time is what a user waits for; CPU time is
 * the harness's own plus that of the implementation processes it started (all of them ended and
 * reaped when it is read), and the 1-minute load average is printed beside every table.
 *
 * Run: npm run bench:protocol -- --baseline DIR   (`--quick` for a short run; `--write` writes
 * docs/protocol-bench.md; without --baseline the side-by-side section is left out)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';
import { runCheck } from '../conformance/check/index.ts';
import type { CheckReport, CheckTarget } from '../conformance/check/index.ts';
import { DEFAULT_PROCESS_PARALLEL } from '../cli/target.ts';
import { PYTHON_BROKEN, findPython, pythonCommand } from '../examples/python/interpreter.ts';
import { Peer, processAdapterFactory } from '../conformance/protocol/index.ts';
import { CHECK_EXPLORATION, runExploration } from '../conformance/explore/index.ts';
import type { ExploreResult } from '../conformance/explore/index.ts';

const quick = process.argv.includes('--quick');
const baselineAt = process.argv.indexOf('--baseline');
const baseline = baselineAt < 0 ? undefined : resolve(process.argv[baselineAt + 1] ?? '');
const write = process.argv.includes('--write') || !quick;
const root = fileURLToPath(new URL('..', import.meta.url));
process.chdir(root);
const python = findPython();
if (python === undefined) throw new Error('bench: python3 is needed');

// --- Measurement helpers. ----------------------------------------------------------------------
/** CPU ms of this process and of its reaped children (/proc/self/stat: utime stime cutime cstime). */
function cpuMs(): { self: number; children: number } {
  const fields = readFileSync('/proc/self/stat', 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
  const tick = 100; // USER_HZ on Linux
  const at = (i: number): number => Number(fields[i - 3] ?? 0);
  return { self: ((at(14) + at(15)) * 1000) / tick, children: ((at(16) + at(17)) * 1000) / tick };
}
const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? Number.NaN : s.length % 2 === 1 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};
const fmt = (n: number, digits = 0): string =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : '–';
const load1 = (): string => loadavg()[0]?.toFixed(2) ?? '?';
const loadAtStart = load1();

// --- The pipe's floor. -------------------------------------------------------------------------
const ECHO =
  'import sys, json\nfor line in sys.stdin:\n    sys.stdout.write(json.dumps(json.loads(line)) + "\\n")\n    sys.stdout.flush()\n';
const LINE = JSON.stringify({
  type: 'submit',
  now: 12,
  id: 'job-17',
  account: 'acct-3',
  key: 'op-17',
  amount: 250,
  deadline: 40,
});
async function echoRoundTrips(n: number): Promise<number> {
  const peer = new Peer(`'${python}' -S -c '${ECHO.replace(/'/g, `'\\''`)}'`, {});
  for (let i = 0; i < 200; i++) await peer.request(LINE, 5000); // start-up and warm-up
  const t = performance.now();
  for (let i = 0; i < n; i++) await peer.request(LINE, 5000);
  const rate = (n / (performance.now() - t)) * 1000;
  await peer.end();
  return rate;
}

// --- The two harnesses. ------------------------------------------------------------------------
type Harness = 'before' | 'now';
const HARNESSES: readonly Harness[] = ['before', 'now'];
interface Measured {
  readonly report: CheckReport;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly processes: number;
}
async function check(harness: Harness, script: string, seed: number, runs: number): Promise<Measured> {
  // "before" is the pool as it was: one spare process, one store at a time, cold restarts only.
  const factory = processAdapterFactory(
    pythonCommand(python as string, script),
    harness === 'before' ? { spares: 1 } : { spares: 2 },
  );
  const cpu0 = cpuMs();
  const t = performance.now();
  let report: CheckReport;
  try {
    const target: CheckTarget =
      harness === 'before'
        ? { factory, parallel: 1, restarts: () => factory.restarts }
        : { factory, warmFactory: factory.warm, parallel: DEFAULT_PROCESS_PARALLEL, restarts: () => factory.restarts };
    report = await runCheck(target, { runs, seed, noExplore: true });
  } finally {
    await factory.close();
  }
  const wallMs = performance.now() - t;
  const cpu1 = cpuMs();
  return {
    report,
    wallMs,
    cpuMs: cpu1.self - cpu0.self + cpu1.children - cpu0.children,
    processes: factory.processesStarted,
  };
}

// 1. The correct example, default check, interleaved repetitions, with the floor between them.
const reps = quick ? 3 : 7;
const echoN = quick ? 5_000 : 20_000;
const floor: number[] = [];
const runsOf: Record<Harness, Measured[]> = { before: [], now: [] };
await check('now', 'examples/python/jobstore.py', 1, 50); // warm-up
for (let rep = 0; rep < reps; rep++) {
  floor.push(await echoRoundTrips(echoN));
  for (const h of rep % 2 === 0 ? HARNESSES : [...HARNESSES].reverse()) {
    const m = await check(h, 'examples/python/jobstore.py', 1000 + rep, 300);
    if (m.report.verdict !== 'agree')
      throw new Error(`bench: the Python example did not agree under ${h} (seed ${1000 + rep})`);
    runsOf[h].push(m);
  }
}
const floorCommands = median(floor) / 2; // a command plus the snapshot after it
const stat = (h: Harness, f: (m: Measured) => number): number => median(runsOf[h].map(f));
const commandsOf = (m: Measured): number =>
  m.report.campaign.commands +
  m.report.paths.outcomes.reduce((n, o) => n + o.result.steps.length, 0) +
  m.report.fixtures.reduce((n, f) => n + f.fixture.steps.length, 0);
const campaignRate = (m: Measured): number => (m.report.campaign.commands / m.report.phases.campaignMs) * 1000;
const wholeRate = (m: Measured): number => (commandsOf(m) / m.wallMs) * 1000;

// 1b. What a user waits for: the command line itself (node, the TypeScript loader, python3 as found
// on PATH), exploration included, this checkout beside the baseline's, interleaved.
type Tree = 'baseline' | 'this';
interface CliRun {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly phases: Record<string, number>;
  readonly states: number;
  readonly transitions: number;
  readonly hit: number;
}
const reportDir = join(mkdtempSync(join(tmpdir(), 'jobcheck-bench-')), 'report');
const CLI_ARGS = ['bin/jobcheck.js', 'check', '--impl', 'python3 examples/python/jobstore.py', '--report', reportDir];
function cliCheck(cwd: string, seed: number, nodeFlags: readonly string[] = []): CliRun {
  const cpu0 = cpuMs().children;
  const t = performance.now();
  const r = spawnSync(process.execPath, [...nodeFlags, ...CLI_ARGS, '--seed', String(seed), '--json'], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const wallMs = performance.now() - t;
  const cpu = cpuMs().children - cpu0;
  if (r.status !== 0) throw new Error(`bench: jobcheck check in ${cwd} exited ${r.status}: ${r.stderr}`);
  const j = JSON.parse(r.stdout) as {
    phases: Record<string, number>;
    exploration: { states: number; transitions: number } | null;
    coverage: { transitions: { hit: number } };
  };
  return {
    wallMs,
    cpuMs: cpu,
    phases: j.phases,
    states: j.exploration?.states ?? 0,
    transitions: j.exploration?.transitions ?? 0,
    hit: j.coverage.transitions.hit,
  };
}
const trees: Array<[Tree, string]> =
  baseline === undefined
    ? [['this', root]]
    : [
        ['baseline', baseline],
        ['this', root],
      ];
const cliReps: number = quick ? 3 : 5;
const cliRuns: Record<Tree, CliRun[]> = { baseline: [], this: [] };
const cliLoad: string[] = [load1()];
for (let rep = 0; rep < cliReps; rep++) {
  for (const [tree, dir] of rep % 2 === 0 ? trees : [...trees].reverse()) cliRuns[tree].push(cliCheck(dir, 2000 + rep));
  cliLoad.push(load1());
}
const cliStat = (tree: Tree, f: (r: CliRun) => number): number => median(cliRuns[tree].map(f));
const cliWall = cliRuns.this.map((r) => r.wallMs);
const sameExploration = trees.every(([tree]) =>
  cliRuns[tree].every(
    (r) =>
      r.states === cliRuns.this[0]?.states &&
      r.transitions === cliRuns.this[0]?.transitions &&
      r.hit === cliRuns.this[0]?.hit,
  ),
);

/** The top self costs of a CPU profile of the command (its main thread), grouped by function and file. */
function profileSummary(cwd: string): { readonly totalMs: number; readonly idleMs: number; readonly top: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'jobcheck-prof-'));
  cliCheck(cwd, 2000, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
  let biggest = { size: -1, file: '' };
  for (const f of readdirSync(dir)) {
    const size = readFileSync(join(dir, f)).length;
    if (size > biggest.size) biggest = { size, file: f };
  }
  const p = JSON.parse(readFileSync(join(dir, biggest.file), 'utf8')) as {
    nodes: Array<{ id: number; callFrame: { functionName: string; url: string } }>;
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  p.samples.forEach((id, i) => {
    const n = byId.get(id);
    const dt = (p.timeDeltas[i] ?? 0) / 1000;
    total += dt;
    if (n === undefined) return;
    const file = n.callFrame.url.split('/').slice(-2).join('/');
    const name = n.callFrame.functionName || '(anonymous)';
    const key = file === '' ? name : `${name} (${file})`;
    self.set(key, (self.get(key) ?? 0) + dt);
  });
  const idleMs = self.get('(idle)') ?? 0;
  const top = [...self.entries()]
    .filter(([k]) => k !== '(idle)')
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([k, ms]) => `\`${k}\` ${fmt(ms)} ms`);
  return { totalMs: total, idleMs, top };
}
const profiles = trees.map(([tree, dir]) => [tree, profileSummary(dir)] as const);

// 1c. The exploration's requests, one store replaying paths against lanes resetting in place.
async function exploreCounts(lanes: number | undefined): Promise<{ result: ExploreResult; wallMs: number }> {
  const factory = processAdapterFactory(pythonCommand(python as string, 'examples/python/jobstore.py'), { spares: 2 });
  const t = performance.now();
  try {
    const result = await runExploration({
      parts: CHECK_EXPLORATION,
      factory: factory.warm,
      ...(lanes === undefined ? {} : { lanes }),
    });
    return { result, wallMs: performance.now() - t };
  } finally {
    await factory.close();
  }
}
const oneStore = await exploreCounts(undefined);
const overLanes = await exploreCounts(DEFAULT_PROCESS_PARALLEL);
const requestsOf = (r: ExploreResult) => {
  const sum = (f: (d: NonNullable<ExploreResult['configs'][number]['differential']>) => number): number =>
    r.configs.reduce((n, c) => n + (c.differential === undefined ? 0 : f(c.differential)), 0);
  return {
    stores: sum((d) => d.replays + (d.resets ?? 0)),
    commands: sum((d) => d.commands),
    snapshots: sum((d) => d.snapshots),
  };
};

// 2. Bug-finding power: every broken variant, several seeds, both harnesses.
const seeds = quick ? [1, 2, 3] : [1, 2, 3, 4, 5, 6, 7];
interface Found {
  readonly caught: number;
  readonly toFirstFailure: number[];
  readonly firstDivergenceMs: number[];
  readonly wallMs: number[];
  readonly storyLength: number[];
}
const found = new Map<string, Record<Harness, Found>>();
let identical = true;
for (const variant of PYTHON_BROKEN) {
  const row: Record<Harness, Found> = {
    before: { caught: 0, toFirstFailure: [], firstDivergenceMs: [], wallMs: [], storyLength: [] },
    now: { caught: 0, toFirstFailure: [], firstDivergenceMs: [], wallMs: [], storyLength: [] },
  };
  for (const seed of seeds) {
    const paths: Partial<Record<Harness, string | null>> = {};
    for (const h of seed % 2 === 0 ? HARNESSES : [...HARNESSES].reverse()) {
      const m = await check(h, `examples/python/broken/${variant.name}.py`, seed, 300);
      const r = row[h];
      if (m.report.verdict === 'diverge') {
        (r as { caught: number }).caught += 1;
        if (m.report.firstDivergenceMs !== null) r.firstDivergenceMs.push(m.report.firstDivergenceMs);
        if (m.report.failure !== null) r.storyLength.push(m.report.failure.steps);
      }
      if (m.report.campaign.commandsToFirstFailure !== null)
        r.toFirstFailure.push(m.report.campaign.commandsToFirstFailure);
      r.wallMs.push(m.wallMs);
      paths[h] = m.report.campaign.path;
    }
    if (paths.before !== paths.now) identical = false;
  }
  found.set(variant.name, row);
}

// --- Report. -------------------------------------------------------------------------------------
const ratio = floorCommands / stat('now', campaignRate);
const wholeRatio = floorCommands / stat('now', wholeRate);
const lines = [
  '# Benchmark of checks over the protocol',
  '',
  'Generated by `bench/protocol.ts`; do not edit by hand: re-run the command below to refresh it.',
  '',
  `- Command: \`npm run bench:protocol\`${quick ? ' (quick run)' : ''}`,
  `- Machine: ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${cpus().length} cores, ${platform()} ${release()}; Node ${process.version}`,
  `- 1-minute load average at start / end: ${loadAtStart} / ${load1()}`,
  `- Implementation: the Python example, \`python3 -S examples/python/jobstore.py\` (the real interpreter, resolved once)`,
  `- Each figure is the median of ${reps} interleaved repetitions of \`jobcheck check\` with its defaults (13 fixture stories, 42 paths, 300 random runs; a new seed each repetition, the same for both harnesses), but without the exploration phase, which the harness before did not have (the command line below has it).`,
  '',
  '"Before" is the harness as it was: one store at a time, and every restart ends the process and restores into a newly started one (with one spare process started ahead). "Now" checks several stores at once, each on its own process, and restarts warm in the path suite and the campaign: the snapshot goes, as JSON text, into another process of the pool that its `hello` has reset (docs/cli.md). The fixture stories still restart cold.',
  '',
  '## The correct example',
  '',
  '| measure | before | now | before / now |',
  '|---|---:|---:|---:|',
  `| whole check, wall s | ${fmt(stat('before', (m) => m.wallMs) / 1000, 2)} | ${fmt(stat('now', (m) => m.wallMs) / 1000, 2)} | ${fmt(stat('before', (m) => m.wallMs) / stat('now', (m) => m.wallMs), 1)}× |`,
  `| whole check, CPU s (harness + implementation processes) | ${fmt(stat('before', (m) => m.cpuMs) / 1000, 2)} | ${fmt(stat('now', (m) => m.cpuMs) / 1000, 2)} | ${fmt(stat('before', (m) => m.cpuMs) / stat('now', (m) => m.cpuMs), 1)}× |`,
  `| processes started | ${fmt(stat('before', (m) => m.processes))} | ${fmt(stat('now', (m) => m.processes))} | |`,
  `| restarts cold / warm | ${fmt(stat('before', (m) => m.report.phases.restarts?.cold ?? 0))} / ${fmt(stat('before', (m) => m.report.phases.restarts?.warm ?? 0))} | ${fmt(stat('now', (m) => m.report.phases.restarts?.cold ?? 0))} / ${fmt(stat('now', (m) => m.report.phases.restarts?.warm ?? 0))} | |`,
  `| fixtures / paths / campaign phase, wall s | ${['fixturesMs', 'pathsMs', 'campaignMs'].map((k) => fmt(stat('before', (m) => m.report.phases[k as 'fixturesMs']) / 1000, 2)).join(' / ')} | ${['fixturesMs', 'pathsMs', 'campaignMs'].map((k) => fmt(stat('now', (m) => m.report.phases[k as 'fixturesMs']) / 1000, 2)).join(' / ')} | |`,
  `| campaign: commands checked per second | ${fmt(stat('before', campaignRate))} | ${fmt(stat('now', campaignRate))} | ${fmt(stat('now', campaignRate) / stat('before', campaignRate), 1)}× faster |`,
  `| whole check: commands checked per wall second | ${fmt(stat('before', wholeRate))} | ${fmt(stat('now', wholeRate))} | ${fmt(stat('now', wholeRate) / stat('before', wholeRate), 1)}× faster |`,
  '',
  `The command a user types, with its exploration phase, is measured below beside the baseline.`,
  '',
  `**The pipe's floor**, measured between the repetitions: a Python JSON echo (\`json.loads\` + \`json.dumps\` of a submit line) over a pipe, driven one line at a time by the harness's own Peer class, does ${fmt(median(floor))} round trips per second (median of ${reps}); a command plus the snapshot after it is two round trips, so the floor is ${fmt(floorCommands)} commands per second. The campaign now checks ${fmt(stat('now', campaignRate))} per second, so the floor is ${fmt(ratio, 2)}× the campaign's rate; the whole check, fixtures and paths included, checks ${fmt(stat('now', wholeRate))} per wall second (the floor is ${fmt(wholeRatio, 2)}× that). A ratio below 1 means the check outruns the floor. The floor is one process, one line at a time; the check spreads its stores over several processes, which is why it can come close to a floor that pays every round trip's latency in full.`,
  '',
  '## The whole default check, exploration included',
  '',
  baseline === undefined
    ? `Run without \`--baseline\`: this checkout only. \`node bin/jobcheck.js check --impl "python3 examples/python/jobstore.py"\` takes ${fmt(median(cliWall) / 1000, 2)} s wall (median of ${cliReps}).`
    : `\`node bin/jobcheck.js check --impl "python3 examples/python/jobstore.py" --seed S --json\` (Node's start, the TypeScript loader, \`python3\` as found on PATH, every phase with its defaults, the exploration of CHECK_EXPLORATION included), run as a child process in a checkout of the baseline revision and in this one, interleaved, ${cliReps} repetition${cliReps === 1 ? '' : 's'} each (seeds from 2000). "Baseline" is the revision in the baseline checkout; "this" is this checkout. Both spread the exploration over the pool's four processes, bringing a store to a state by restoring the snapshot the implementation produced there (conformance/explore/differentialLanes.ts). This revision starts fewer processes: the pool keeps up to eight idle ones (four stores at once and a warm restart need five; a pool that kept four ended one at each store's close and started another at the next restart that found none idle), and a warm restart that finds none idle takes a spare without starting a replacement (conformance/protocol/pool.ts); \`python3\` here is a version manager's shim that costs about 0.5 CPU s a start. And a lane's restart step carries across the snapshot it has just compared instead of asking for it again (one request fewer per explored state). Any other change between the two trees shows in these figures too. 1-minute load average before and after each pair: ${cliLoad.join(', ')}.`,
  '',
  ...(baseline === undefined
    ? []
    : [
        '| measure (median) | baseline | this | baseline / this |',
        '|---|---:|---:|---:|',
        `| whole command, wall s | ${fmt(cliStat('baseline', (r) => r.wallMs) / 1000, 2)} | ${fmt(cliStat('this', (r) => r.wallMs) / 1000, 2)} | ${fmt(cliStat('baseline', (r) => r.wallMs) / cliStat('this', (r) => r.wallMs), 1)}× |`,
        `| whole command, CPU s (node + Python processes) | ${fmt(cliStat('baseline', (r) => r.cpuMs) / 1000, 2)} | ${fmt(cliStat('this', (r) => r.cpuMs) / 1000, 2)} | ${fmt(cliStat('baseline', (r) => r.cpuMs) / cliStat('this', (r) => r.cpuMs), 1)}× |`,
        ...(['fixturesMs', 'pathsMs', 'campaignMs', 'exploreMs'] as const).map(
          (k) =>
            `| ${k.replace('Ms', '')} phase, wall s | ${fmt(cliStat('baseline', (r) => r.phases[k] ?? 0) / 1000, 2)} | ${fmt(cliStat('this', (r) => r.phases[k] ?? 0) / 1000, 2)} | ${fmt(cliStat('baseline', (r) => r.phases[k] ?? 0) / cliStat('this', (r) => r.phases[k] ?? 0), 1)}× |`,
        ),
        `| exploration: states / transitions; lifecycle transitions covered by the check | ${cliRuns.baseline[0]?.states ?? 0} / ${cliRuns.baseline[0]?.transitions ?? 0}; ${cliRuns.baseline[0]?.hit ?? 0} | ${cliRuns.this[0]?.states ?? 0} / ${cliRuns.this[0]?.transitions ?? 0}; ${cliRuns.this[0]?.hit ?? 0} | ${sameExploration ? 'equal in every run' : '**differ**'} |`,
      ]),
  '',
  `The exploration's requests to the implementation, counted in process (\`runExploration\` of CHECK_EXPLORATION against the Python example, once each way, this checkout): one store replaying paths brought ${fmt(requestsOf(oneStore.result).stores)} stores to a state (each a hello and a replay) and sent ${fmt(requestsOf(oneStore.result).commands)} commands and ${fmt(requestsOf(oneStore.result).snapshots)} snapshots in ${fmt(oneStore.wallMs / 1000, 2)} s; ${DEFAULT_PROCESS_PARALLEL} lanes brought ${fmt(requestsOf(overLanes.result).stores)} stores to a state (each one restore, the initial state a hello) and sent ${fmt(requestsOf(overLanes.result).commands)} commands (one per transition) and ${fmt(requestsOf(overLanes.result).snapshots)} snapshots in ${fmt(overLanes.wallMs / 1000, 2)} s (a restart step also sends a hello and a restore: it carries across the snapshot just compared; the one-store checker's restart asks for the snapshot again).`,
  '',
  "**Profile** (one more run of each with `node --cpu-prof`; the harness's main thread, top self times; idle is the wait for the implementation processes):",
  '',
  ...profiles.map(
    ([tree, p]) =>
      `- ${tree}: ${fmt(p.totalMs / 1000, 2)} s sampled, ${fmt(p.idleMs / 1000, 2)} s idle; ${p.top.join(', ')}`,
  ),
  '',
  '## Bug-finding power',
  '',
  `Every broken variant of the Python example (examples/python/broken/), seeds ${seeds.join(', ')}, under both harnesses (the order of the two alternates by seed). "Campaign commands to the first failure" counts the commands of the generated runs up to and including the first failing one: what finding it cost. The campaign generates the same runs from a seed under both harnesses, so these must be equal${identical ? ', and the shrunk counterexample paths were identical for every variant and seed' : '; **the shrunk paths differed for some seed** (see the table)'}.`,
  '',
  '| variant | caught before | caught now | campaign commands to the first failure, median before / now | first divergence, median ms before / now | whole check, median s before / now | shortest story, median steps |',
  '|---|---:|---:|---:|---:|---:|---:|',
  ...[...found.entries()].map(([name, r]) => {
    const cell = (f: (x: Found) => number[], digits = 0, scale = 1): string =>
      `${fmt(median(f(r.before)) / scale, digits)} / ${fmt(median(f(r.now)) / scale, digits)}`;
    return `| \`${name}\` | ${r.before.caught}/${seeds.length} | ${r.now.caught}/${seeds.length} | ${cell((x) => x.toFirstFailure)} | ${cell((x) => x.firstDivergenceMs)} | ${cell((x) => x.wallMs, 2, 1000)} | ${fmt(median(r.now.storyLength))} |`;
  }),
  '',
  '## Targets',
  '',
  '| target | measured | verdict |',
  '|---|---|---|',
  `| the Python example's default check in ≤ 10 s wall | the command ${fmt(median(cliWall) / 1000, 2)} s; the check inside it without exploration ${fmt(stat('now', (m) => m.wallMs) / 1000, 2)} s (was ${fmt(stat('before', (m) => m.wallMs) / 1000, 2)} s) | ${median(cliWall) <= 10_000 ? 'met' : '**not met**'} |`,
  `| the Python example's default check ≤ 5 s wall (with its exploration) | the command ${fmt(median(cliWall) / 1000, 2)} s, its exploration ${fmt(cliStat('this', (r) => r.phases['exploreMs'] ?? 0) / 1000, 2)} s${baseline === undefined ? '' : `; baseline ${fmt(cliStat('baseline', (r) => r.wallMs) / 1000, 2)} s, its exploration ${fmt(cliStat('baseline', (r) => r.phases['exploreMs'] ?? 0) / 1000, 2)} s`} (load average ${cliLoad.join(', ')}) | ${median(cliWall) <= 5_000 ? 'met' : '**not met**'} |`,
  `| the exploration explores the same states, transitions and coverage | ${baseline === undefined ? 'no baseline run' : sameExploration ? 'equal in every run' : 'differ'} | ${baseline === undefined ? '–' : sameExploration ? 'met' : '**not met**'} |`,
  `| commands checked per second within 10× of the pipe floor | floor ÷ campaign rate ${fmt(ratio, 2)}, floor ÷ whole-check rate ${fmt(wholeRatio, 2)} | ${ratio <= 10 ? 'met' : '**not met**'} (campaign)${wholeRatio <= 10 ? ', met (whole check)' : ', **not met** (whole check)'} |`,
  `| every broken Python variant still caught, in no more campaign commands | ${[...found.values()].every((r) => r.now.caught === seeds.length && r.before.caught === seeds.length) ? 'all caught on every seed' : 'some not caught'}; commands ${[...found.values()].every((r) => median(r.now.toFirstFailure) <= median(r.before.toFirstFailure)) ? 'no more' : 'more for some variant'} | ${[...found.values()].every((r) => r.now.caught >= r.before.caught && median(r.now.toFirstFailure) <= median(r.before.toFirstFailure)) ? 'met' : '**not met**'} |`,
  '',
];
const text = lines.join('\n');
process.stdout.write(`${text}\n`);
if (write) writeFileSync(join(root, 'docs', 'protocol-bench.md'), text);
