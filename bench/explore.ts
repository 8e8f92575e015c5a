/**
 * Benchmark of the explorer (conformance/explore/): distinct states per second and bytes per state,
 * by scope, in one run beside the explorer of an earlier revision (`--before <dir>`: a checkout of
 * it with this checkout's node_modules linked in), `jobcheck explore` itself, and two baselines:
 * - the explorer now and before: each repetition in a fresh process (bench/exploreChild.ts),
 *   alternating, each on its own model; both must find the same states, levels, transitions,
 *   boundaries and coverage (a digest of them);
 * - the command: `jobcheck explore ... --json` on the M scope as a child process, its rate over the
 *   whole process's CPU time, beside the explorer's own rate, both as installed (`node
 *   dist/cli/main.js`, built first with `node scripts/build.mjs --if-changed`) and from the
 *   sources (`node bin/jobcheck.js`, through tsx);
 * - plain BFS: the model's `step`, states keyed by `JSON.stringify(toSnapshot(state))` in a Set;
 * - @xstate/graph's `getAdjacencyMap` with the model's `step` and the same JSON keys.
 * The baselines are capped by time and states, and what they reached is reported. CPU time (user +
 * system, all threads), medians of repetitions, the 1-minute load average at start and end; a CPU
 * profile of the explorer on the M scope; the targets table computes its verdicts from the rows.
 *
 * Run: npm run bench:explore -- --before <dir>   (`--quick`: small scopes only; `--no-baselines`:
 * without the plain BFS and @xstate/graph rows; `--write`: writes docs/explore-bench.md)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getAdjacencyMap } from '@xstate/graph';
import { fromSnapshot, initialState, step, toSnapshot } from '../model/index.ts';
import type { ModelState } from '../model/index.ts';
import { alphabet, exploreConfig, resolveScope, scopeNames } from '../conformance/explore/index.ts';
import type { ExploreScope, NamedConfig } from '../conformance/explore/index.ts';
import { commitOf } from './measure.ts';

const quick = process.argv.includes('--quick');
const write = process.argv.includes('--write');
/** `--no-baselines`: leave out the plain BFS and @xstate/graph rows (quicker runs while working; never with --write). */
const baselines = !process.argv.includes('--no-baselines') || write;
const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const beforeFlag = process.argv.indexOf('--before');
const BEFORE = beforeFlag >= 0 ? process.argv[beforeFlag + 1] : undefined;
const beforeCommit = BEFORE === undefined ? undefined : commitOf(BEFORE);
const nowCommit = commitOf(ROOT);
const load1 = (): string => (loadavg()[0] ?? 0).toFixed(2);
const loadStart = load1();
const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

interface Case {
  readonly name: string;
  readonly scope: Partial<ExploreScope>;
  readonly config: string;
  /** Repetitions of each explorer (medians are reported). */
  readonly reps: number;
  /** Repetitions of each baseline (each stops at its cap). */
  readonly baselineReps: number;
  /** Cap of each baseline, in CPU seconds. */
  readonly capS: number;
}

const CASES: readonly Case[] = [
  { name: 'S: 2 jobs, horizon 3', scope: { jobs: 2, horizon: 3 }, config: 'basic', reps: 3, baselineReps: 3, capS: 20 },
  {
    name: 'M: 2 jobs, horizon 4, lifetimes 3,5',
    scope: { jobs: 2, horizon: 4, lifetimes: [3, 5] },
    config: 'backoff-cap',
    reps: 3,
    baselineReps: 3,
    capS: 20,
  },
  ...(quick
    ? []
    : [
        {
          name: 'L: 2 jobs, amounts 1,2, lifetimes 3,6, horizon 6',
          scope: { jobs: 2, amounts: [1, 2], lifetimes: [3, 6], horizon: 6 },
          config: 'backoff-cap',
          reps: 3,
          baselineReps: 1,
          capS: 30,
        },
      ]),
];

interface Row {
  readonly case: string;
  readonly contender: string;
  readonly states: number;
  readonly complete: boolean;
  readonly cpuS: number;
  readonly wallS: number;
  readonly perSecond: number;
  readonly bytesPerState: number;
}

/** The plain breadth-first search baseline. */
function plainBfs(
  named: NamedConfig,
  scope: ExploreScope,
  capS: number,
): { states: number; complete: boolean; heap: number } {
  const names = scopeNames(scope, named.config.maxAttempts);
  const heap0 = process.memoryUsage().heapUsed;
  const start = cpuMs();
  const seen = new Set<string>();
  const root = initialState(named.config);
  seen.add(JSON.stringify(toSnapshot(root)));
  let queue: ModelState[] = [root];
  let heap = 0;
  while (queue.length > 0) {
    const next: ModelState[] = [];
    for (const s of queue) {
      if (cpuMs() - start > capS * 1000)
        return { states: seen.size, complete: false, heap: Math.max(heap, process.memoryUsage().heapUsed - heap0) };
      for (const a of alphabet(s.context, scope, names)) {
        const t = 'do' in a ? step(s, a.do).state : fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(s))));
        const k = JSON.stringify(toSnapshot(t));
        if (seen.has(k)) continue;
        seen.add(k);
        next.push(t);
      }
    }
    heap = Math.max(heap, process.memoryUsage().heapUsed - heap0);
    queue = next;
  }
  return { states: seen.size, complete: true, heap };
}

class Stop extends Error {}

/** The @xstate/graph baseline. */
function xstateGraph(
  named: NamedConfig,
  scope: ExploreScope,
  capS: number,
): { states: number; complete: boolean; heap: number } {
  const names = scopeNames(scope, named.config.maxAttempts);
  const heap0 = process.memoryUsage().heapUsed;
  const start = cpuMs();
  let states = 0;
  let heap = 0;
  const logic = {
    config: {},
    transition: (s: ModelState, e: unknown) => step(s, e).state,
    getInitialSnapshot: () => initialState(named.config),
    getPersistedSnapshot: (s: ModelState) => s,
  };
  try {
    getAdjacencyMap(logic as never, {
      fromState: initialState(named.config) as never,
      serializeState: (s: unknown) => JSON.stringify(toSnapshot(s as ModelState)),
      events: ((s: ModelState) => {
        states++;
        if ((states & 255) === 0) {
          heap = Math.max(heap, process.memoryUsage().heapUsed - heap0);
          if (cpuMs() - start > capS * 1000) throw new Stop();
        }
        return alphabet(s.context, scope, names).flatMap((a) => ('do' in a ? [a.do] : []));
      }) as never,
    });
  } catch (e) {
    if (e instanceof Stop) return { states, complete: false, heap };
    throw e;
  }
  return { states, complete: true, heap: Math.max(heap, process.memoryUsage().heapUsed - heap0) };
}

const rows: Row[] = [];
const lines: string[] = [];
const log = (s: string): void => {
  process.stdout.write(`${s}\n`);
};

/** What a child exploration reports (bench/exploreChild.ts). */
interface ChildRun {
  readonly verdict: string;
  readonly states: number;
  readonly cpuMs: number;
  readonly wallMs: number;
  readonly bytesPerState: number;
  readonly digest: string;
}

const CHILD = join(ROOT, 'bench/exploreChild.ts');

/** One exploration by the explorer of the checkout at `root`, in a fresh process. */
function childRun(root: string, c: Case, threads: number, nodeFlags: readonly string[] = []): ChildRun {
  const r = spawnSync(
    process.execPath,
    [...nodeFlags, '--import', 'tsx', CHILD, root, JSON.stringify({ scope: c.scope, config: c.config, threads })],
    { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 24 },
  );
  if (r.status !== 0) throw new Error(`exploration in ${root} failed: ${r.stderr}`);
  const run = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as ChildRun;
  if (run.verdict !== 'complete') throw new Error(`${c.name} in ${root}: ${run.verdict}`);
  return run;
}

/** CPU ms of this process's waited-for children so far (Linux: /proc/self/stat), or NaN. */
const ticksPerSecond = ((): number => {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const n = Number(r.stdout?.trim());
  return r.status === 0 && n > 0 ? n : 100;
})();
function childrenCpuMs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[13]) + Number(fields[14])) / ticksPerSecond) * 1000;
  } catch {
    return Number.NaN;
  }
}

interface CommandRun {
  readonly states: number;
  /** The exploration's CPU time as the command reports it. */
  readonly exploreCpuMs: number;
  /** The whole process's CPU time (start-up, exploration, reports). */
  readonly processCpuMs: number;
  readonly wallMs: number;
}

/**
 * How the command is started: as the installed package runs it (plain node over the compiled
 * dist/: an installed package ships dist/ and no sources, and its bin/jobcheck.js imports
 * dist/cli/main.js), or from the sources (bin/jobcheck.js in a checkout registers tsx).
 */
type CommandForm = 'installed' | 'sources';
const ENTRY: Record<CommandForm, string> = { installed: 'dist/cli/main.js', sources: 'bin/jobcheck.js' };

/** Builds the checkout's dist/ unless it was built from exactly its sources (scripts/build.mjs --if-changed). */
function buildDist(root: string): void {
  const r = spawnSync(process.execPath, ['scripts/build.mjs', '--if-changed'], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`the build of ${root} failed: ${r.stdout}${r.stderr}`);
}

/** `jobcheck explore` of the checkout at `root`, in the given form, as a child process. */
function commandRun(root: string, form: CommandForm, args: readonly string[]): CommandRun {
  const report = mkdtempSync(join(tmpdir(), 'jobcheck-explore-bench-'));
  const cpu0 = childrenCpuMs();
  const w0 = performance.now();
  const r = spawnSync(process.execPath, [join(root, ENTRY[form]), 'explore', ...args, '--report', report], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  const wallMs = performance.now() - w0;
  const processCpuMs = childrenCpuMs() - cpu0;
  rmSync(report, { recursive: true, force: true });
  if (r.status !== 0) throw new Error(`jobcheck explore in ${root} exited with ${r.status}: ${r.stderr}`);
  if (!args.includes('--json')) return { states: 0, exploreCpuMs: 0, processCpuMs, wallMs };
  const out = JSON.parse(r.stdout) as { states: number; cpuMs: number };
  return { states: out.states, exploreCpuMs: out.cpuMs, processCpuMs, wallMs };
}

const digests: string[] = [];
for (const c of CASES) {
  const named = exploreConfig(c.config);
  if (named === undefined) throw new Error(`no config ${c.config}`);
  const scope = resolveScope(c.scope);
  const contenders: Array<{ name: string; root: string; threads: number }> = [
    { name: 'explorer now, 1 thread', root: ROOT, threads: 1 },
    ...(BEFORE === undefined
      ? []
      : [{ name: `explorer before (${beforeCommit}), 1 thread`, root: BEFORE, threads: 1 }]),
    { name: 'explorer now, 2 threads', root: ROOT, threads: 2 },
  ];
  const runs = new Map<string, ChildRun[]>(contenders.map((k) => [k.name, []]));
  // Repetitions alternate between the contenders, so that a change in the machine's load touches both.
  for (let r = 0; r < c.reps; r++) {
    for (const k of contenders) runs.get(k.name)?.push(childRun(k.root, c, k.threads));
  }
  for (const k of contenders) {
    const mine = runs.get(k.name) ?? [];
    const first = mine[0];
    if (first === undefined) continue;
    if (mine.some((m) => m.digest !== first.digest)) throw new Error(`${c.name}: ${k.name} found different things`);
    const cpu = mine.map((m) => m.cpuMs / 1000);
    const wall = mine.map((m) => m.wallMs / 1000);
    const row: Row = {
      case: c.name,
      contender: k.name,
      states: first.states,
      complete: true,
      cpuS: median(cpu),
      wallS: median(wall),
      perSecond: first.states / median(k.threads === 1 ? cpu : wall),
      bytesPerState: first.bytesPerState,
    };
    rows.push(row);
    log(
      `${c.name} | ${k.name}: ${fmt(first.states)} states, ${row.cpuS.toFixed(1)} s CPU, ${row.wallS.toFixed(1)} s wall, ${fmt(row.perSecond)} states/s, ${first.bytesPerState.toFixed(0)} B/state, digest ${first.digest}`,
    );
  }
  const all = [...runs.values()].flat();
  const same = all.every((m) => m.digest === all[0]?.digest);
  if (!same) throw new Error(`${c.name}: the explorers found different states, levels, boundaries or coverage`);
  digests.push(`${c.name}: ${all[0]?.digest ?? ''}`);
  for (const [contender, run] of baselines
    ? ([
        ['plain BFS (JSON keys in a Set)', plainBfs],
        ['@xstate/graph getAdjacencyMap', xstateGraph],
      ] as const)
    : []) {
    const cpu: number[] = [];
    const wall: number[] = [];
    let out = { states: 0, complete: false, heap: 0 };
    for (let r = 0; r < c.baselineReps; r++) {
      const c0 = cpuMs();
      const w0 = performance.now();
      out = run(named, scope, c.capS);
      cpu.push((cpuMs() - c0) / 1000);
      wall.push((performance.now() - w0) / 1000);
    }
    const row: Row = {
      case: c.name,
      contender,
      states: out.states,
      complete: out.complete,
      cpuS: median(cpu),
      wallS: median(wall),
      perSecond: out.states / median(cpu),
      bytesPerState: out.heap / Math.max(1, out.states),
    };
    rows.push(row);
    log(
      `${c.name} | ${contender}: ${fmt(out.states)} states${out.complete ? '' : ' (capped)'}, ${row.cpuS.toFixed(1)} s CPU, ${fmt(row.perSecond)} states/s, ${row.bytesPerState.toFixed(0)} B/state (heap)`,
    );
  }
}

// The command on the M scope, now and before, installed and from the sources, alternating.
const M = CASES[1] as Case;
const M_FLAGS = ['--jobs', '2', '--horizon', '4', '--lifetimes', '3,5', '--configs', 'backoff-cap'];
const checkouts: Array<{ name: string; root: string }> = [
  { name: 'now', root: ROOT },
  ...(BEFORE === undefined ? [] : [{ name: `before (${beforeCommit})`, root: BEFORE }]),
];
for (const k of checkouts) buildDist(k.root);
const FORM_NAME: Record<CommandForm, string> = {
  installed: 'installed (node dist/cli/main.js)',
  sources: 'from the sources (node bin/jobcheck.js, tsx)',
};
const commands = (['installed', 'sources'] as const).flatMap((form) =>
  checkouts.map((k) => ({ name: `${k.name}, ${FORM_NAME[form]}`, checkout: k.name, root: k.root, form })),
);
const commandRuns = new Map<string, CommandRun[]>(commands.map((k) => [k.name, []]));
// Start-up alone: `explore --help` loads the command's modules and ends (installed form).
const startupRuns = new Map<string, number[]>(checkouts.map((k) => [k.name, []]));
// The explorer now on M once more in each round, between the command runs: the 1.5x target compares the
// command with this rate, measured beside it, and not with the M row above, measured minutes earlier.
const besideRuns: ChildRun[] = [];
for (let r = 0; r < M.reps; r++) {
  for (const k of commands) commandRuns.get(k.name)?.push(commandRun(k.root, k.form, [...M_FLAGS, '--json']));
  besideRuns.push(childRun(ROOT, M, 1));
  for (const k of checkouts) startupRuns.get(k.name)?.push(commandRun(k.root, 'installed', ['--help']).processCpuMs);
}
interface CommandRow {
  readonly name: string;
  readonly checkout: string;
  readonly form: CommandForm;
  readonly states: number;
  readonly processCpuS: number;
  readonly exploreCpuS: number;
  readonly wallS: number;
  readonly perSecond: number;
}
const commandRows: CommandRow[] = commands.map((k) => {
  const mine = commandRuns.get(k.name) ?? [];
  const states = mine[0]?.states ?? 0;
  if (mine.some((m) => m.states !== states)) throw new Error(`command ${k.name}: different state counts`);
  const processCpuS = median(mine.map((m) => m.processCpuMs / 1000));
  return {
    name: k.name,
    checkout: k.checkout,
    form: k.form,
    states,
    processCpuS,
    exploreCpuS: median(mine.map((m) => m.exploreCpuMs / 1000)),
    wallS: median(mine.map((m) => m.wallMs / 1000)),
    perSecond: states / processCpuS,
  };
});
const startupS = new Map(checkouts.map((k) => [k.name, median(startupRuns.get(k.name) ?? []) / 1000]));
for (const r of commandRows)
  log(
    `command ${r.name}: ${fmt(r.states)} states, ${r.processCpuS.toFixed(2)} s CPU (process), ${r.exploreCpuS.toFixed(2)} s (exploration), ${fmt(r.perSecond)} states/s`,
  );
for (const [name, s] of startupS) log(`start-up of ${name} (installed, explore --help): ${s.toFixed(2)} s CPU`);
/** The explorer's rate on M, one thread, from the runs between the command's (states per CPU s). */
const besidePerSecond = (besideRuns[0]?.states ?? 0) / (median(besideRuns.map((r) => r.cpuMs)) / 1000);
log(`explorer now on M beside the command: ${fmt(besidePerSecond)} states/s (median of ${besideRuns.length})`);

// Where the time goes now: a CPU profile of the explorer on the M scope, self time by place.
const profileDir = mkdtempSync(join(tmpdir(), 'jobcheck-explore-profile-'));
childRun(ROOT, M, 1, ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]);
interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
  readonly children?: readonly number[];
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}
const profiles = readdirSync(profileDir)
  .filter((f) => f.endsWith('.cpuprofile'))
  .map((f) => JSON.parse(readFileSync(join(profileDir, f), 'utf8')) as Profile)
  .sort((a, b) => b.nodes.length - a.nodes.length);
rmSync(profileDir, { recursive: true, force: true });
const profile = profiles[0];
const placeOf = (url: string, fn: string): string => {
  if (fn === '(garbage collector)') return 'garbage collection';
  if (url.includes('/node_modules/zod/')) return 'zod (parsing in the model)';
  if (url.includes('/node_modules/xstate/')) return 'xstate';
  const local = url.startsWith('file://') ? fileURLToPath(url) : url;
  if (local.startsWith(`${ROOT}/`)) {
    const rel = local.slice(ROOT.length + 1);
    if (rel === 'model/invariants.ts') return 'model/invariants.ts (the checks themselves)';
    if (rel.startsWith('model/') || rel.startsWith('contract/')) return `${rel.split('/')[0]}/ (step, snapshots)`;
    return rel;
  }
  return 'other (module loading, node)';
};
const places = new Map<string, number>();
const inclusive = new Map<string, number>([
  ['violatedInvariant', 0],
  ['fromSnapshot', 0],
  ['step', 0],
]);
let profiled = 0;
if (profile !== undefined) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  for (const [id, t] of self) {
    const n = byId.get(id);
    if (n === undefined || n.callFrame.functionName === '(idle)' || n.callFrame.functionName === '(program)') continue;
    profiled += t;
    const place = placeOf(n.callFrame.url, n.callFrame.functionName);
    places.set(place, (places.get(place) ?? 0) + t);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const fn = byId.get(cur)?.callFrame.functionName ?? '';
      if (inclusive.has(fn) && !seen.has(fn)) {
        seen.add(fn);
        inclusive.set(fn, (inclusive.get(fn) ?? 0) + t);
      }
    }
  }
}
const share = (t: number): string => `${((100 * t) / Math.max(1, profiled)).toFixed(1)} %`;
const topPlaces = [...places].sort((a, b) => b[1] - a[1]).slice(0, 12);

// The targets, computed from the rows.
const rowOf = (caseName: string | undefined, contender: string): Row | undefined =>
  rows.find((r) => r.case === caseName && r.contender.startsWith(contender));
const L = CASES[2];
const lNow = rowOf(L?.name, 'explorer now, 1 thread');
const lBefore = rowOf(L?.name, 'explorer before');
const commandNow = commandRows.find((r) => r.checkout === 'now' && r.form === 'installed');
const sourcesNow = commandRows.find((r) => r.checkout === 'now' && r.form === 'sources');
const yes = (ok: boolean): string => (ok ? '**met**' : '**not met**');
const targets: string[] = [];
if (lNow !== undefined) {
  targets.push(
    `| at least 65,000 distinct states per CPU second, one thread, on L | ${fmt(lNow.perSecond)} | ${yes(lNow.perSecond >= 65_000)} |`,
  );
  if (lBefore !== undefined)
    targets.push(
      `| no more bytes per state on L than before (${fmt(lBefore.bytesPerState)}) | ${lNow.bytesPerState.toFixed(1)} | ${yes(lNow.bytesPerState <= lBefore.bytesPerState)} |`,
    );
}
if (commandNow !== undefined) {
  const ratio = besidePerSecond / commandNow.perSecond;
  targets.push(
    `| \`jobcheck explore\` as installed within 1.5× of the explorer's rate on M, measured beside it (${fmt(besidePerSecond)} states / CPU s) | ${fmt(commandNow.perSecond)} states / CPU s (${ratio.toFixed(2)}×)${sourcesNow === undefined ? '' : `; from the sources ${fmt(sourcesNow.perSecond)} (${(besidePerSecond / sourcesNow.perSecond).toFixed(2)}×)`} | ${yes(ratio <= 1.5)} |`,
  );
}

const loadEnd = load1();
lines.push(
  '# Explorer benchmark',
  '',
  `Generated by \`npm run bench:explore -- --write${BEFORE === undefined ? '' : ' --before <checkout>'}\` (bench/explore.ts) on ${platform()}, ${cpus()[0]?.model ?? 'unknown CPU'} (${cpus().length} cores), Node ${process.version}: the explorer now (${nowCommit} with the working tree's changes)${beforeCommit === undefined ? '' : ` against the explorer before (${beforeCommit}, a checkout of that commit, each with its own model)`}.`,
  `1-minute load average: ${loadStart} at the start, ${loadEnd} at the end.`,
  '',
  '## Targets',
  '',
  '| target | measured | verdict |',
  '| --- | ---: | :---: |',
  ...targets,
  '',
  '## Exploration',
  '',
  'Distinct states per second of CPU time (user + system, all threads; for two threads, per second of wall time), medians',
  'of repetitions (3 of each explorer; of each baseline 3 for the smaller scopes, 1 for the largest). Each repetition of',
  'an explorer runs in a fresh process (bench/exploreChild.ts), the contenders alternating; every explorer row of a scope found the same states, levels,',
  'transitions, boundaries and coverage (checked by a digest of them, listed below). The baselines run in this process with',
  "the model of this checkout, over the same scope and alphabet (conformance/explore/scope.ts) and the model's own `step`;",
  'the alphabet already offers unused names in pool order only, so the baselines, which key states by their snapshot JSON',
  'and reduce nothing, count (nearly) the same states. The explorer keeps 64-bit fingerprints and integer frontiers; the',
  'difference is time and memory per state. The baselines stop after a cap of CPU time (20 s, 30 s for the largest scope):',
  '"capped" rows report what they reached by then. Bytes per state: for the explorer, its visited set (fingerprints and the',
  'tree of first discoveries) and its two widest frontiers; for the baselines, the growth of the JavaScript heap over the',
  'run (approximate).',
  '',
  '| scope (config) | contender | distinct states | complete | CPU s | wall s | states / s | bytes / state |',
  '| --- | --- | ---: | :---: | ---: | ---: | ---: | ---: |',
  ...rows.map(
    (r) =>
      `| ${r.case} (${CASES.find((c) => c.name === r.case)?.config ?? ''}) | ${r.contender} | ${fmt(r.states)} | ${r.complete ? 'yes' : 'capped'} | ${r.cpuS.toFixed(1)} | ${r.wallS.toFixed(1)} | ${fmt(r.perSecond)} | ${fmt(r.bytesPerState)} |`,
  ),
  '',
  'Scopes (the rest as the base scope of `jobcheck explore --help`: 2 accounts, 2 workers, 1 key, amount 1, lifetime 3):',
  '',
  ...CASES.map((c) => `- ${c.name}: \`${JSON.stringify(c.scope)}\`, config ${c.config}`),
  '',
  'Digests of what the explorers found, by scope:',
  '',
  ...digests.map((d) => `- ${d}`),
  '',
  '## The command',
  '',
  `\`jobcheck explore ${M_FLAGS.join(' ')}\` (the M scope), run as a child process in two forms, medians of ${M.reps} runs, the`,
  `checkouts and forms alternating, with one more run of the explorer now on M in each round (${fmt(besidePerSecond)} states per`,
  'CPU s, the median of those runs: the rate the 1.5× target compares the command with, measured beside it):',
  '',
  '- installed: `node <checkout>/dist/cli/main.js`, plain node over the compiled `dist/` (built first in each checkout by',
  '  `node scripts/build.mjs --if-changed`). This is what a user who installs the package runs: the package ships `dist/`',
  '  and no TypeScript sources, and its `bin/jobcheck.js` imports `dist/cli/main.js`. The 1.5× target is read on this form.',
  '- from the sources: `node bin/jobcheck.js` in the checkout, which registers tsx and compiles the sources as it loads',
  "  them (about 2 CPU s more of start-up): how the tests and the docs' console blocks run it, not how users do.",
  '',
  "The rate is over the whole process's CPU time (start-up, exploration, coverage files and reports), read from the",
  'operating system once the process has ended; the exploration column is the CPU time the command itself reports for',
  'the exploration, and the rest is what the command adds.',
  '',
  '| command | distinct states | CPU s (process) | CPU s (exploration) | CPU s (the rest) | wall s | states / CPU s |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...commandRows.map(
    (r) =>
      `| ${r.name} | ${fmt(r.states)} | ${r.processCpuS.toFixed(2)} | ${r.exploreCpuS.toFixed(2)} | ${(r.processCpuS - r.exploreCpuS).toFixed(2)} | ${r.wallS.toFixed(1)} | ${fmt(r.perSecond)} |`,
  ),
  '',
  `Start-up alone, installed (\`node dist/cli/main.js explore --help\`, which loads the command's modules and ends): ${[
    ...startupS,
  ]
    .map(([name, s]) => `${name} ${s.toFixed(2)} CPU s`)
    .join(', ')}.`,
  '',
  '## Where the time goes now',
  '',
  'Self time of a CPU profile of the explorer now on the M scope, one thread, by place (start-up included, idle left out):',
  '',
  '| place | share of CPU time |',
  '| --- | ---: |',
  ...topPlaces.map(([place, t]) => `| ${place} | ${share(t)} |`),
  '',
  `Including what they call: the invariant checks \`violatedInvariant\` ${share(inclusive.get('violatedInvariant') ?? 0)}, of which the model's \`fromSnapshot\` (the snapshot-round-trip invariant) ${share(inclusive.get('fromSnapshot') ?? 0)}; the model's \`step\` ${share(inclusive.get('step') ?? 0)}.`,
  '',
  'The anchor: TLC, the TLA+ model checker, reports about 65,000 distinct states per second.',
  '',
);
if (write) {
  writeFileSync(new URL('../docs/explore-bench.md', import.meta.url), lines.join('\n'));
  log('wrote docs/explore-bench.md');
} else log(`\n${lines.join('\n')}`);
