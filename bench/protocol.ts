/**
 * Benchmark of checks over the protocol: `jobcheck check` on the Python example with the harness
 * one store at a time (every restart a new process) beside the harness with several stores at once
 * (warm restarts in the path suite and campaign), and the pipe's floor in the same run: a Python
 * JSON echo over the same kind of pipe, driven by the same Peer class, one line at a time. Then
 * every broken Python variant, on several seeds, under both harnesses: caught, in how many campaign
 * commands, and how long until the first divergence.
 * And the whole default check as a user runs it, exploration included: installed
 * (`node dist/cli/main.js check --impl "python3 examples/python/jobstore.py"`), with the real
 * interpreter named, and through bin/jobcheck.js (tsx); beside a baseline checkout (`--baseline
 * DIR`, node_modules linked), each a child process, interleaved: wall and CPU time, the phases'
 * times, the exploration's states and transitions (which must be equal), a CPU profile summary of
 * the harness's main thread, and the broken variants caught by the whole command, seed for seed.
 * Times: medians of interleaved repetitions, CPU time with the implementation processes' (reaped
 * when read), the 1-minute load average beside every table.
 *
 * Run: npm run bench:protocol -- --baseline DIR   (`--quick` for a short run; `--write` writes
 * docs/protocol-bench.md; without --baseline no side-by-side section; `--changes FILE` puts that
 * Markdown, what changed between the two checkouts, beside their commits in the report)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, tmpdir } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join, resolve } from 'node:path';
import { runCheck } from '../conformance/check/index.ts';
import type { CheckReport, CheckTarget } from '../conformance/check/index.ts';
import { DEFAULT_PROCESS_PARALLEL } from '../cli/target.ts';
import { PYTHON_BROKEN, findPython, pythonCommand } from '../examples/python/interpreter.ts';
import { Peer, processAdapterFactory } from '../conformance/protocol/index.ts';
import type { ExploreResult } from '../conformance/explore/index.ts';
import { commitOf } from './measure.ts';

const quick = process.argv.includes('--quick');
const baselineAt = process.argv.indexOf('--baseline');
const baseline = baselineAt < 0 ? undefined : resolve(process.argv[baselineAt + 1] ?? '');
const write = process.argv.includes('--write') || !quick;
/** `--changes FILE`: a Markdown paragraph saying what changed between the two checkouts, written into the report as it is. */
const changesAt = process.argv.indexOf('--changes');
const changes =
  changesAt < 0 ? undefined : readFileSync(resolve(process.argv[changesAt + 1] ?? ''), 'utf8').trim() || undefined;
const root = fileURLToPath(new URL('..', import.meta.url));
process.chdir(root);
const thisCommit = commitOf(root);
const baselineCommit = baseline === undefined ? undefined : commitOf(baseline);
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
// The quick run keeps the benchmark lock a few minutes: one repetition of the old harness's
// comparison and one seed of its bug-finding table (the whole command below has three of each).
const reps = quick ? 1 : 7;
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

// 1b. What a user waits for: the command line itself, exploration included, this checkout beside
// the baseline's, interleaved, in three forms: the installed package (dist/, compiled, on plain
// node, as `npx jobcheck` runs it once installed) with `python3` as a user types it (found on
// PATH), the same with the real interpreter (findPython(), `-S`), and the checkout's own
// bin/jobcheck.js, which runs the sources through tsx. dist/ is built first in both checkouts
// (`scripts/build.mjs --if-changed`: nothing is rebuilt when it is current).
type Tree = 'baseline' | 'this';
type Form = 'installed' | 'installed-real' | 'sources';
const FORMS: readonly Form[] = ['installed', 'installed-real', 'sources'];
const REAL_IMPL = pythonCommand(python, 'examples/python/jobstore.py');
const formLabel: Record<Form, string> = {
  installed: 'installed (`node dist/cli/main.js`), `python3 examples/python/jobstore.py` as typed',
  'installed-real': 'installed, the real interpreter (`<python> -S examples/python/jobstore.py`)',
  sources: 'from the sources (`node bin/jobcheck.js`: tsx), `python3 …` as typed',
};
interface CliRun {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly phases: Record<string, number>;
  readonly states: number;
  readonly transitions: number;
  readonly hit: number;
  readonly verdict: string;
  /** What must be equal seed for seed: the verdict, the failure (source, name, steps, story), the campaign's first failure. */
  readonly catch: string;
}
const reportDir = join(mkdtempSync(join(tmpdir(), 'jobcheck-bench-')), 'report');
function cliCheck(
  cwd: string,
  form: Form,
  seed: number,
  nodeFlags: readonly string[] = [],
  impl = form === 'installed-real' ? REAL_IMPL : 'python3 examples/python/jobstore.py',
): CliRun {
  const entry = form === 'sources' ? 'bin/jobcheck.js' : 'dist/cli/main.js';
  const args = [...nodeFlags, entry, 'check', '--impl', impl, '--report', reportDir, '--seed', String(seed), '--json'];
  const cpu0 = cpuMs().children;
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const wallMs = performance.now() - t;
  const cpu = cpuMs().children - cpu0;
  if (r.status !== 0 && r.status !== 1)
    throw new Error(`bench: jobcheck check in ${cwd} exited ${r.status}: ${r.stderr}`);
  const j = JSON.parse(r.stdout) as {
    verdict: string;
    phases: Record<string, number>;
    exploration: { states: number; transitions: number } | null;
    coverage: { transitions: { hit: number } };
    failure: { source: string; name: string; steps: number; story: string } | null;
    campaign: { path: string | null; commandsToFirstFailure: number | null };
  };
  const f = j.failure;
  return {
    wallMs,
    cpuMs: cpu,
    phases: j.phases,
    states: j.exploration?.states ?? 0,
    transitions: j.exploration?.transitions ?? 0,
    hit: j.coverage.transitions.hit,
    verdict: j.verdict,
    catch: JSON.stringify([
      j.verdict,
      f === null ? null : [f.source, f.name, f.steps, f.story.split('\nartifact:')[0]],
      j.campaign.path,
      j.campaign.commandsToFirstFailure,
    ]),
  };
}
const trees: Array<[Tree, string]> =
  baseline === undefined
    ? [['this', root]]
    : [
        ['baseline', baseline],
        ['this', root],
      ];
for (const [, dir] of trees) {
  const built = spawnSync(process.execPath, ['scripts/build.mjs', '--if-changed'], { cwd: dir, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`bench: building dist/ in ${dir} failed: ${built.stderr}`);
}

/** CPU seconds and wall ms of one start of `command` (a Python that does nothing), median of `n`. */
function startCost(command: string, n: number): { cpuMs: number; wallMs: number } {
  const cpu: number[] = [];
  const wall: number[] = [];
  for (let i = 0; i < n; i++) {
    const c0 = cpuMs().children;
    const t = performance.now();
    spawnSync('sh', ['-c', command], { encoding: 'utf8' });
    wall.push(performance.now() - t);
    cpu.push(cpuMs().children - c0);
  }
  return { cpuMs: median(cpu), wallMs: median(wall) };
}
const shimStart = startCost('python3 -c pass', 9);
const realStart = startCost(`'${python}' -S -c pass`, 9);

const cliReps: number = quick ? 3 : 5;
const cliRuns: Record<Form, Record<Tree, CliRun[]>> = {
  installed: { baseline: [], this: [] },
  'installed-real': { baseline: [], this: [] },
  sources: { baseline: [], this: [] },
};
const cliLoad: string[] = [load1()];
for (let rep = 0; rep < cliReps; rep++) {
  for (const form of FORMS)
    for (const [tree, dir] of rep % 2 === 0 ? trees : [...trees].reverse())
      cliRuns[form][tree].push(cliCheck(dir, form, 2000 + rep));
  cliLoad.push(load1());
}
const cliStat = (form: Form, tree: Tree, f: (r: CliRun) => number): number => median(cliRuns[form][tree].map(f));
/** The stores the baseline's check ran at once (its JSON report's phases.parallel), when there is a baseline. */
const baselineStores =
  baseline === undefined ? undefined : cliStat('installed', 'baseline', (r) => r.phases['parallel'] ?? Number.NaN);
const cliWall = cliRuns.installed.this.map((r) => r.wallMs);
const checkMs = (r: CliRun): number =>
  ['fixturesMs', 'pathsMs', 'campaignMs', 'exploreMs'].reduce((n, k) => n + (r.phases[k] ?? 0), 0);
const first = cliRuns.installed.this[0];
const sameExploration = FORMS.every((form) =>
  trees.every(([tree]) =>
    cliRuns[form][tree].every(
      (r) =>
        r.verdict === 'agree' &&
        r.states === first?.states &&
        r.transitions === first?.transitions &&
        r.hit === first?.hit,
    ),
  ),
);

// The broken Python variants under the whole command (installed, the real interpreter, to keep it
// short): caught on every seed, and caught the same way in both checkouts, seed for seed.
const cliSeeds = [1, 2, 3];
const cliCatches = PYTHON_BROKEN.map((variant) => {
  const rows = cliSeeds.map((seed) => {
    const by: Partial<Record<Tree, CliRun>> = {};
    for (const [tree, dir] of seed % 2 === 0 ? trees : [...trees].reverse())
      by[tree] = cliCheck(
        dir,
        'installed-real',
        seed,
        [],
        pythonCommand(python, `examples/python/broken/${variant.name}.py`),
      );
    return by;
  });
  const caught = (tree: Tree): number => rows.filter((r) => r[tree]?.verdict === 'diverge').length;
  const same = rows.every((r) => r.baseline === undefined || r.baseline.catch === r.this?.catch);
  const steps = rows.map((r) => JSON.parse(r.this?.catch ?? 'null')?.[1]?.[2] as number | undefined);
  const source = rows.map((r) => JSON.parse(r.this?.catch ?? 'null')?.[1]?.[0] as string | undefined);
  return { name: variant.name, caughtBaseline: caught('baseline'), caughtThis: caught('this'), same, steps, source };
});

/** The top self costs of a CPU profile of the command (its main thread), grouped by function and file. */
function profileSummary(cwd: string): { readonly totalMs: number; readonly idleMs: number; readonly top: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'jobcheck-prof-'));
  cliCheck(cwd, 'installed', 2000, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
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

// 1c. The exploration's requests, one store replaying paths against lanes resetting in place (and
// the lanes of the baseline checkout, its own modules loaded from there).
async function exploreCounts(lanes: number | undefined, at = root): Promise<{ result: ExploreResult; wallMs: number }> {
  const from = (path: string): string => pathToFileURL(join(at, path)).href;
  const protocol = (await import(
    from('conformance/protocol/index.ts')
  )) as typeof import('../conformance/protocol/index.ts');
  const explore = (await import(
    from('conformance/explore/index.ts')
  )) as typeof import('../conformance/explore/index.ts');
  const factory = protocol.processAdapterFactory(pythonCommand(python as string, 'examples/python/jobstore.py'), {
    spares: 2,
  });
  const t = performance.now();
  try {
    const result = await explore.runExploration({
      parts: explore.CHECK_EXPLORATION,
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
const overLanesBaseline = baseline === undefined ? undefined : await exploreCounts(DEFAULT_PROCESS_PARALLEL, baseline);
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
const seeds = quick ? [1] : [1, 2, 3, 4, 5, 6, 7];
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
  `- Command: \`npm run bench:protocol --${quick ? ' --quick' : ''} --write${baseline === undefined ? '' : ' --baseline DIR'}\`${quick ? ' (quick run)' : ''}${baseline === undefined ? '' : '; DIR is a checkout of the baseline revision (a `git worktree` with node_modules linked), whose dist/ the bench builds'}`,
  `- Machine: ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${cpus().length} cores, ${platform()} ${release()}; Node ${process.version}`,
  `- 1-minute load average at start / end: ${loadAtStart} / ${load1()}`,
  `- Implementation: the Python example, \`python3 -S examples/python/jobstore.py\` (the real interpreter, resolved once)`,
  `- Each figure is ${reps === 1 ? 'one run (the quick run; the full run takes the median of 7)' : `the median of ${reps} interleaved repetitions`} of \`jobcheck check\` with its defaults (13 fixture stories, 42 paths, 300 random runs; a new seed each repetition, the same for both harnesses), but without the exploration phase, which the harness before did not have (the command line below has it).`,
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
  `**The pipe's floor**, measured between the repetitions: a Python JSON echo (\`json.loads\` + \`json.dumps\` of a submit line) over a pipe, driven one line at a time by the harness's own Peer class, does ${fmt(median(floor))} round trips per second (${reps === 1 ? 'one measurement' : `median of ${reps}`}); a command plus the snapshot after it is two round trips, so the floor is ${fmt(floorCommands)} commands per second. The campaign now checks ${fmt(stat('now', campaignRate))} per second, so the floor is ${fmt(ratio, 2)}× the campaign's rate; the whole check, fixtures and paths included, checks ${fmt(stat('now', wholeRate))} per wall second (the floor is ${fmt(wholeRatio, 2)}× that). A ratio below 1 means the check outruns the floor. The floor is one process, one line at a time; the check spreads its stores over several processes, which is why it can come close to a floor that pays every round trip's latency in full.`,
  '',
  '## The whole default check, exploration included',
  '',
  `\`jobcheck check --impl "python3 examples/python/jobstore.py" --seed S --json\`, every phase with its defaults and the exploration of CHECK_EXPLORATION included, run as a child process, ${cliReps} repetition${cliReps === 1 ? '' : 's'} of each form (seeds from 2000)${baseline === undefined ? ', in this checkout only (run without `--baseline`)' : ', in a checkout of the baseline revision ("baseline") and in this one ("this"), interleaved'}. Three forms of the command:`,
  '',
  `- **installed**: \`node dist/cli/main.js check …\`, the compiled package on plain node, as \`npx jobcheck\` runs it once installed (dist/ is built in both checkouts first), with \`python3\` as a user types it, found on PATH. **The 5 s target is read on this row**: it is what a user of the package waits for.`,
  `- **installed, real interpreter**: the same, with \`--impl "<python> -S examples/python/jobstore.py"\`, the interpreter behind \`python3\` (findPython() of examples/python/interpreter.ts) named directly.`,
  `- **from the sources**: \`node bin/jobcheck.js check …\` in the checkout, which runs the TypeScript sources through tsx (its loader's start and transforms are paid at every run; an installed package does not pay them).`,
  '',
  `\`python3\` on PATH here is a version manager's shim (pyenv: a bash script that runs several more before it execs the interpreter): one start of \`python3 -c pass\` costs ${fmt(shimStart.cpuMs / 1000, 2)} CPU s and ${fmt(shimStart.wallMs / 1000, 2)} s wall, against ${fmt(realStart.cpuMs / 1000, 3)} CPU s and ${fmt(realStart.wallMs / 1000, 3)} s wall for \`<python> -S -c pass\` (medians of 9, measured in this run). A check starts one process for each of its stores (${DEFAULT_PROCESS_PARALLEL} on this machine: one per core, 2 to 4${baselineStores === undefined ? '' : `; the baseline ran ${fmt(baselineStores)}`}), one for each cold restart of the fixture stories (two) and one for the warm restarts (its stores are all busy when one comes): ${DEFAULT_PROCESS_PARALLEL + 3} starts${baselineStores === undefined ? '' : ` (the baseline's ${fmt(baselineStores + 3)})`}, each paid in full on a machine of two cores. A Debian or Ubuntu \`python3\` (/usr/bin/python3) is no shim and costs what the real interpreter costs.`,
  '',
  ...(baseline === undefined
    ? [
        `| form | this: wall s | this: CPU s |`,
        '|---|---:|---:|',
        ...FORMS.map(
          (form) =>
            `| ${formLabel[form]} | ${fmt(cliStat(form, 'this', (r) => r.wallMs) / 1000, 2)} | ${fmt(cliStat(form, 'this', (r) => r.cpuMs) / 1000, 2)} |`,
        ),
      ]
    : [
        '| form (medians) | baseline: wall s | this: wall s | baseline / this | baseline: CPU s | this: CPU s |',
        '|---|---:|---:|---:|---:|---:|',
        ...FORMS.map(
          (form) =>
            `| ${formLabel[form]} | ${fmt(cliStat(form, 'baseline', (r) => r.wallMs) / 1000, 2)} | ${fmt(cliStat(form, 'this', (r) => r.wallMs) / 1000, 2)} | ${fmt(cliStat(form, 'baseline', (r) => r.wallMs) / cliStat(form, 'this', (r) => r.wallMs), 2)}× | ${fmt(cliStat(form, 'baseline', (r) => r.cpuMs) / 1000, 2)} | ${fmt(cliStat(form, 'this', (r) => r.cpuMs) / 1000, 2)} |`,
        ),
        '',
        'The phases inside the installed command with `python3` as typed (from its `--json` report; the rest of the wall time is the start of node and of the first implementation process, the report files and the end of the processes):',
        '',
        '| phase (median) | baseline: wall s | this: wall s |',
        '|---|---:|---:|',
        ...(['fixturesMs', 'pathsMs', 'campaignMs', 'exploreMs'] as const).map(
          (k) =>
            `| ${k.replace('Ms', '')} | ${fmt(cliStat('installed', 'baseline', (r) => r.phases[k] ?? 0) / 1000, 2)} | ${fmt(cliStat('installed', 'this', (r) => r.phases[k] ?? 0) / 1000, 2)} |`,
        ),
        `| the four phases | ${fmt(cliStat('installed', 'baseline', checkMs) / 1000, 2)} | ${fmt(cliStat('installed', 'this', checkMs) / 1000, 2)} |`,
      ]),
  '',
  `Every run of every form, in both checkouts, agreed and explored ${first?.states ?? 0} states and ${first?.transitions ?? 0} transitions, covering ${first?.hit ?? 0} lifecycle transitions: ${sameExploration ? 'equal in every run' : '**they differ**'}. 1-minute load average before and after each round of runs: ${cliLoad.join(', ')}.`,
  '',
  ...(baseline === undefined
    ? []
    : [
        `The two checkouts: the baseline at \`${baselineCommit}\`, this one at \`${thisCommit}\` (\`git log ${baselineCommit}..${thisCommit}\` lists what changed between them; every change between them shows in these figures).`,
        ...(changes === undefined ? [] : ['', changes]),
        '',
      ]),
  `The snapshot "read" counts below are the adapter's reads, whichever way each travelled.`,
  '',
  `The exploration's requests to the implementation, counted in process (\`runExploration\` of CHECK_EXPLORATION against the Python example): one store replaying paths brought ${fmt(requestsOf(oneStore.result).stores)} stores to a state (each a hello and a replay) and sent ${fmt(requestsOf(oneStore.result).commands)} commands and read ${fmt(requestsOf(oneStore.result).snapshots)} snapshots in ${fmt(oneStore.wallMs / 1000, 2)} s; ${DEFAULT_PROCESS_PARALLEL} lanes brought ${fmt(requestsOf(overLanes.result).stores)} stores to a state (each one restore, the initial state a hello) and sent ${fmt(requestsOf(overLanes.result).commands)} commands (one per transition) and read ${fmt(requestsOf(overLanes.result).snapshots)} snapshots in ${fmt(overLanes.wallMs / 1000, 2)} s${overLanesBaseline === undefined ? '' : `; the baseline's lanes brought ${fmt(requestsOf(overLanesBaseline.result).stores)} stores to a state for the same ${fmt(requestsOf(overLanesBaseline.result).commands)} commands and ${fmt(requestsOf(overLanesBaseline.result).snapshots)} snapshots, in ${fmt(overLanesBaseline.wallMs / 1000, 2)} s`} (a restart step also sends a hello and a restore, with the snapshot already read; the one-store checker's restart asks for the snapshot again).`,
  '',
  "**Profile** (one more run of the installed form with `python3` as typed, with `node --cpu-prof`; the harness's main thread, top self times; idle is the wait for the implementation processes; `writeUtf8String` is the write of a request to a pipe, and its time is mostly the wake-up of the implementation process that reads it, on a virtual machine of two cores):",
  '',
  ...profiles.map(
    ([tree, p]) =>
      `- ${tree}: ${fmt(p.totalMs / 1000, 2)} s sampled, ${fmt(p.idleMs / 1000, 2)} s idle; ${p.top.join(', ')}`,
  ),
  '',
  `**Catches of the whole command**: every broken Python variant (examples/python/broken/), seeds ${cliSeeds.join(', ')}, the installed form with the real interpreter${baseline === undefined ? '' : ', in both checkouts (the order alternating by seed)'}; "same" compares, seed for seed, the verdict, the failure reported (its phase, name, steps and story) and the campaign's first failing run and its command count.`,
  '',
  `| variant | caught${baseline === undefined ? '' : ' (baseline / this)'} | failure reported by, per seed | story steps, per seed | ${baseline === undefined ? '' : 'same seed for seed |'}`,
  `|---|---:|---|---|${baseline === undefined ? '' : '---|'}`,
  ...cliCatches.map(
    (c) =>
      `| \`${c.name}\` | ${baseline === undefined ? '' : `${c.caughtBaseline}/${cliSeeds.length} / `}${c.caughtThis}/${cliSeeds.length} | ${c.source.join(', ')} | ${c.steps.join(', ')} | ${baseline === undefined ? '' : `${c.same ? 'yes' : '**no**'} |`}`,
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
  `| the Python example's default check ≤ 5 s wall (with its exploration), installed, \`python3\` as typed | ${fmt(median(cliWall) / 1000, 2)} s, its exploration ${fmt(cliStat('installed', 'this', (r) => r.phases['exploreMs'] ?? 0) / 1000, 2)} s${baseline === undefined ? '' : `; baseline ${fmt(cliStat('installed', 'baseline', (r) => r.wallMs) / 1000, 2)} s, its exploration ${fmt(cliStat('installed', 'baseline', (r) => r.phases['exploreMs'] ?? 0) / 1000, 2)} s`}; with the real interpreter ${fmt(cliStat('installed-real', 'this', (r) => r.wallMs) / 1000, 2)} s (load average ${cliLoad.join(', ')}) | ${median(cliWall) <= 5_000 ? 'met' : '**not met**'} |`,
  `| the exploration explores the same states, transitions and coverage | ${baseline === undefined ? 'no baseline run' : sameExploration ? 'equal in every run' : 'differ'} | ${baseline === undefined ? '–' : sameExploration ? 'met' : '**not met**'} |`,
  `| every broken Python variant caught by the whole command, seed for seed as in the baseline | ${cliCatches.every((c) => c.caughtThis === cliSeeds.length) ? 'all caught on every seed' : 'some not caught'}${baseline === undefined ? '' : cliCatches.every((c) => c.same) ? '; the same catch on every seed' : '; **a catch differs**'} | ${cliCatches.every((c) => c.caughtThis === cliSeeds.length && (baseline === undefined || c.same)) ? 'met' : '**not met**'} |`,
  `| commands checked per second within 10× of the pipe floor | floor ÷ campaign rate ${fmt(ratio, 2)}, floor ÷ whole-check rate ${fmt(wholeRatio, 2)} | ${ratio <= 10 ? 'met' : '**not met**'} (campaign)${wholeRatio <= 10 ? ', met (whole check)' : ', **not met** (whole check)'} |`,
  `| every broken Python variant still caught, in no more campaign commands | ${[...found.values()].every((r) => r.now.caught === seeds.length && r.before.caught === seeds.length) ? 'all caught on every seed' : 'some not caught'}; commands ${[...found.values()].every((r) => median(r.now.toFirstFailure) <= median(r.before.toFirstFailure)) ? 'no more' : 'more for some variant'} | ${[...found.values()].every((r) => r.now.caught >= r.before.caught && median(r.now.toFirstFailure) <= median(r.before.toFirstFailure)) ? 'met' : '**not met**'} |`,
  '',
];
const text = lines.join('\n');
process.stdout.write(`${text}\n`);
if (write) writeFileSync(join(root, 'docs', 'protocol-bench.md'), text);
