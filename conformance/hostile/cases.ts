/**
 * The hostile-peer suite: every misbehaviour of peer.py, run through the real `jobcheck check`
 * command, with what the harness must make of it. Each run is measured from outside: wall time,
 * the harness's peak memory (VmHWM of its process, polled), and the processes it left alive (every
 * process started for a run carries a tag in its environment, which /proc shows after the run).
 * Used by hostile.test.ts (assertions) and table.ts (the table in docs/hostile-peers.md).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HostileCase } from './case.ts';
import { CONCURRENT_CASES } from './surface/concurrent.ts';
import { DESTINATION_CASES } from './surface/destinations.ts';
import { FILE_CASES } from './surface/files.ts';
import { INIT_CASES } from './surface/init.ts';
import { INJECTION_CASES } from './surface/injection.ts';
import { MODULE_CASES } from './surface/modules.ts';
import { READ_CASES } from './surface/reads.ts';
import { REPRODUCE_CASES } from './surface/reproduce.ts';
import { RESULT_CASES } from './surface/results.ts';
import { SERVE_CASES } from './surface/serve.ts';
import { SIGNAL_CASES } from './surface/signals.ts';

export type { HostileCase } from './case.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PEER = 'conformance/hostile/peers/peer.py';

/**
 * Flags for peers that answer nothing: a short reply timeout, so that each stall costs little
 * (hello gets twice as long, which a loaded machine still starts Python in).
 */
const SHORT = ['--timeout', '1000'];

/** The misbehaviours of peer.py under the default check line, in the order of the table. */
const PEER_CASES: readonly HostileCase[] = [
  {
    name: 'correct',
    what: 'answers correctly (the control)',
    command: '{peer} correct',
    flags: [],
    exit: 0,
    outcome: 'agree',
    pattern: /AGREE/,
  },
  {
    name: 'background-helper',
    what: 'a correct implementation started with a background helper (`sleep 300 & ...`)',
    command: 'sleep 300 & {peer} correct',
    flags: [],
    exit: 0,
    outcome: 'agree',
    pattern: /AGREE/,
  },
  {
    name: 'stall',
    what: 'answers hello, then stops reading stdin and sleeps',
    command: '{peer} stall',
    flags: SHORT,
    exit: 1,
    outcome: 'diverge: timeout',
    pattern: /timeout: no reply within 1000 ms/,
  },
  {
    name: 'close-stdout',
    what: 'answers hello, closes its stdout, stays alive',
    command: '{peer} close-stdout',
    flags: SHORT,
    exit: 1,
    outcome: 'diverge: timeout or stdout closed',
    pattern: /(timeout: no reply within|closed its stdout)/,
  },
  {
    name: 'fork-holds-stdout',
    what: 'forks a child that keeps stdout open, then exits',
    command: '{peer} fork-holds-stdout',
    flags: [],
    exit: 1,
    outcome: 'diverge: process_exited',
    pattern: /process_exited/,
  },
  {
    name: 'ignore-term',
    what: 'ignores the end of stdin and SIGTERM',
    command: '{peer} ignore-term',
    flags: SHORT,
    exit: 1,
    outcome: 'diverge: exit_timeout',
    pattern: /exit_timeout/,
  },
  {
    name: 'stderr-flood',
    what: 'writes a 200 MB stderr line (once)',
    command: '{peer} stderr-flood 200 {once}',
    // Writing 200 MB takes the peer seconds on a busy machine: the reply it owes meanwhile gets
    // more than the default 5 s, so that the case tests the flood, not the machine's load.
    flags: ['--timeout', '20000'],
    timeLimit: '25',
    exit: 0,
    outcome: 'agree',
    pattern: /AGREE/,
  },
  {
    name: 'huge-reply',
    what: 'answers a claim with a 20 MB line',
    command: '{peer} huge-reply',
    flags: [],
    timeLimit: '25',
    exit: 1,
    outcome: 'diverge: protocol_error (line limit)',
    pattern: /longer than the limit of 1048576 bytes/,
  },
  {
    name: 'no-newline',
    what: 'answers a claim with 200 MB and no newline, then sleeps',
    command: '{peer} no-newline',
    flags: [],
    exit: 1,
    outcome: 'diverge: protocol_error (line limit)',
    pattern: /longer than the limit of 1048576 bytes/,
  },
  {
    name: 'flood-lines',
    what: 'writes lines without end after hello',
    command: '{peer} flood-lines',
    flags: [],
    exit: 1,
    outcome: 'diverge: protocol_error (unasked line)',
    pattern: /(a line nobody asked for|a line written unasked)/,
  },
  {
    name: 'two-lines',
    what: 'answers every request twice',
    command: '{peer} two-lines',
    flags: [],
    exit: 1,
    outcome: 'diverge: protocol_error at step 1',
    pattern: /(a line nobody asked for|a line written unasked)/,
  },
  {
    name: 'bad-utf8',
    what: 'answers a claim with bytes that are not UTF-8',
    command: '{peer} bad-utf8',
    flags: [],
    exit: 1,
    outcome: 'diverge: protocol_error (UTF-8)',
    pattern: /not valid UTF-8/,
  },
  {
    name: 'deep',
    what: 'sends snapshots nested 100,000 deep',
    command: '{peer} deep',
    flags: [],
    exit: 1,
    outcome: 'diverge: protocol_error (depth)',
    pattern: /nested deeper than the limit of 64 levels/,
  },
  {
    name: 'proto-key',
    what: 'adds a top-level "__proto__" field to every snapshot',
    command: '{peer} proto-key',
    flags: [],
    exit: 1,
    outcome: 'diverge: snapshot differs at __proto__',
    pattern: /snapshot differs at __proto__/,
  },
  {
    name: 'exit-midway',
    what: 'exits during its fifth command',
    command: '{peer} exit-midway',
    flags: [],
    exit: 1,
    outcome: 'diverge: process_exited',
    pattern: /process_exited: the implementation ended \(exit code 3\)/,
  },
  {
    name: 'lie',
    what: 'hands out a wrong token',
    command: '{peer} lie',
    flags: [],
    exit: 1,
    outcome: 'diverge: reply differs',
    pattern: /reply differs at reply\.job\.token/,
  },
  {
    name: 'huge-name',
    what: 'calls itself by a 1 MB name in hello',
    command: '{peer} huge-name',
    flags: [],
    // Every hello carries the 1 MB name: on a busy two-core machine the default 8 s limit, not the
    // peer, decided what the check reached (seen in CI: INCOMPLETE with 40 of 42 paths run).
    timeLimit: '25',
    exit: 0,
    outcome: 'agree (name clipped)',
    pattern: /AGREE/,
  },
  {
    name: 'slow',
    what: 'answers every command after 200 ms',
    command: '{peer} slow',
    flags: [],
    // The limit is what is proved, not what the check reaches: a short one proves it as well.
    timeLimit: '3',
    exit: 3,
    outcome: 'incomplete: time limit',
    pattern: /INCOMPLETE: stopped by the time limit/,
  },
  {
    name: 'hang-hello',
    what: 'never answers hello',
    command: '{peer} hang-hello',
    flags: SHORT,
    exit: 2,
    outcome: 'setup error: timeout',
    pattern: /cannot start the implementation .*timeout/,
  },
];

/** Every case, in the order of the table: the peer's misbehaviours, then the rest of the surface. */
export const HOSTILE_CASES: readonly HostileCase[] = [
  ...PEER_CASES,
  ...CONCURRENT_CASES,
  ...REPRODUCE_CASES,
  ...MODULE_CASES,
  ...SIGNAL_CASES,
  ...FILE_CASES,
  ...DESTINATION_CASES,
  ...READ_CASES,
  ...RESULT_CASES,
  ...SERVE_CASES,
  ...INJECTION_CASES,
  ...INIT_CASES,
];

/** What one run of a case measured. */
export interface HostileRun {
  readonly exit: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly wallMs: number;
  /** Peak resident memory of the harness process, in KiB (VmHWM, polled every 20 ms). */
  readonly peakKiB: number;
  /** Processes carrying the run's tag still alive a moment after the harness exited. */
  readonly left: number;
  /** What the case's `inspect` read in the run's folder after the harness exited ('' without one). */
  readonly inspected: string;
  /** What the case's readBack found wrong in what the run wrote (empty without one). */
  readonly problems: readonly string[];
}

/** The suite's bound on a run's wall time: the 8 s time limit, the grace periods, and a loaded machine. */
export const WALL_BOUND_MS = 45_000;
/** The suite's bound on the harness's peak resident memory (measured 100-200 MiB). */
export const MEMORY_BOUND_KIB = 320 * 1024;
/**
 * Memory at which the runner kills a harness: it has failed its bound long before, and the
 * machine running the suite is shared (a read of /dev/zero grows by hundreds of MB a second).
 */
const MEMORY_KILL_KIB = 1024 * 1024;

/**
 * Whether a run met its case: the exit, the outcome's pattern, nothing left, within its time and
 * memory bounds, and nothing wrong in what it wrote (readBack). Pure.
 */
export function asExpected(c: HostileCase, r: HostileRun): boolean {
  return (
    r.exit === c.exit &&
    r.signal === (c.signal ?? null) &&
    c.pattern.test(`${r.stdout}\n${r.stderr}\n${r.inspected}`) &&
    r.left === 0 &&
    r.wallMs < (c.withinMs ?? WALL_BOUND_MS) &&
    r.peakKiB < (c.peakBoundMiB === undefined ? MEMORY_BOUND_KIB : c.peakBoundMiB * 1024) &&
    r.problems.length === 0
  );
}

/** Every process whose environment carries `tag` (processes started for a test carry one, and so do their children). */
export function taggedProcesses(tag: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(tag)) found.push(Number(entry));
    } catch {
      // gone already, or not ours to read
    }
  }
  return found;
}

function peakOf(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m === null ? 0 : Number(m[1]);
  } catch {
    return 0;
  }
}

/** The command line of process `pid`, its arguments split (empty when it cannot be read). */
function argvOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0');
  } catch {
    return [];
  }
}

/** How long an interrupted run's processes get to end after the process started has, the last look (0.3 s) included. */
const INTERRUPT_SETTLE_MS = 15_000;
/** The pause between the end of a run and the count of what it left. */
const LAST_LOOK_MS = 300;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** How the harness is started for `launch` (case.ts): the executable and the arguments before the command line. */
function launcher(launch: HostileCase['launch']): [string, string[]] {
  if (launch === 'npx') return ['npx', ['--no-install', 'jobcheck']];
  // `; exit $?` keeps the shell from exec'ing node: it stays the harness's parent, as npm's does.
  if (launch === 'sh') return ['sh', ['-c', '"$0" bin/jobcheck.js "$@"; exit $?', process.execPath]];
  return [process.execPath, [join(ROOT, 'bin/jobcheck.js')]];
}

/**
 * Runs one case through `node bin/jobcheck.js check` and measures it. The exploration phase is
 * left out: it asks nothing of a peer's hostility that the campaign does not, and takes most of
 * the time limit on a loaded machine. `python` is the interpreter to run the peer with.
 * A case started through npx or a wrapper is measured in the harness's own process (the tagged
 * node process below the one started); an interrupted case lasts until no process of it is left.
 */
export async function runHostileCase(
  c: HostileCase,
  python: string,
  options: { timeLimit?: string; hardLimitMs?: number } = {},
): Promise<HostileRun> {
  const tag = `JOBCHECK_HOSTILE_TAG=${randomUUID()}`;
  const report = mkdtempSync(join(tmpdir(), 'jobcheck-hostile-'));
  const peer = `'${python}' -S ${PEER}`;
  const fill = (text: string): string =>
    text
      .replaceAll('{peer}', peer)
      .replaceAll('{python}', python)
      .replaceAll('{once}', join(report, 'once'))
      .replaceAll('{tmp}', report);
  await c.setup?.(report, python);
  const args =
    c.argv === undefined
      ? [
          'check',
          '--impl',
          fill(c.command ?? ''),
          '--runs',
          '30',
          '--seed',
          '1',
          '--time-limit',
          options.timeLimit ?? c.timeLimit ?? '8',
          '--no-explore',
          '--report',
          report,
          ...c.flags.map(fill),
        ]
      : c.argv.map(fill);
  const [key, value] = tag.split('=') as [string, string];
  const [exe, before] = launcher(c.launch);
  const started = performance.now();
  const extra = Object.fromEntries(Object.entries(c.env ?? {}).map(([k, v]) => [k, fill(v)]));
  const env = { ...process.env, [key]: value, NO_COLOR: '1', ...extra };
  const cwd = c.cwd === undefined ? ROOT : fill(c.cwd);
  const child = spawn(exe, [...before, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  // Only the first 256 KiB of each stream are kept: the harness's own output must be small anyway.
  child.stdout.on('data', (d: Buffer) => (stdout = (stdout + d.toString('utf8')).slice(0, 262_144)));
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString('utf8')).slice(0, 262_144)));
  let peakKiB = 0;
  // The harness: the process started, or under npx or a wrapper the tagged node process below it (looked for every 200 ms).
  let harness = c.launch === undefined || c.launch === 'node' ? child.pid : undefined;
  let looked = 0;
  const poll = setInterval(() => {
    looked += 1;
    if (harness === undefined && looked % 10 === 0) {
      harness = taggedProcesses(value).find((pid) => pid !== child.pid && /(^|\/)node$/.test(argvOf(pid)[0] ?? ''));
    }
    peakKiB = Math.max(peakKiB, peakOf(harness ?? -1));
    if (peakKiB > MEMORY_KILL_KIB) child.kill('SIGKILL');
  }, 20);
  const hardMs = options.hardLimitMs ?? (c.withinMs === undefined ? 120_000 : c.withinMs + 10_000);
  const hard = setTimeout(() => child.kill('SIGKILL'), hardMs);
  const ended = new Promise<[number | null, string | null]>((resolve) =>
    child.on('exit', (code, sig) => resolve([code, sig])),
  );
  let running = true;
  void ended.then(() => (running = false));
  if (c.interrupt !== undefined) {
    // Mid-run: once the first implementation process of the run is up, and `afterMs` more.
    const peerUp = (): boolean => taggedProcesses(value).some((pid) => argvOf(pid)[0] === python);
    while (running && !peerUp() && performance.now() - started < hardMs) await sleep(100);
    const ready = c.interrupt.readyWhen ?? (() => true);
    while (running && !ready(report) && performance.now() - started < hardMs) await sleep(100);
    await sleep(c.interrupt.afterMs);
    if (running) child.kill(c.interrupt.signal);
    for (let n = 0; n < (c.interrupt.again ?? 0) && running; n++) {
      await sleep(1);
      if (running) child.kill(c.interrupt.signal);
    }
  }
  const [exit, signal] = await ended;
  if (c.interrupt !== undefined) {
    // What was interrupted must end by itself: the run lasts until no process of it is left, or
    // its settle time more, after which what is left is counted (and killed) as usual.
    const by = performance.now() + (c.interrupt.settleMs ?? INTERRUPT_SETTLE_MS) - LAST_LOOK_MS;
    while (taggedProcesses(value).length > 0 && performance.now() < by) await sleep(100);
  }
  const wallMs = performance.now() - started;
  clearInterval(poll);
  clearTimeout(hard);
  await sleep(LAST_LOOK_MS);
  const survivors = taggedProcesses(value);
  for (const pid of survivors) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  const inspected = c.inspect?.(report) ?? '';
  let problems: readonly string[] = [];
  try {
    problems = c.readBack?.(report, { stdout, stderr }) ?? [];
  } catch (error) {
    problems = [`readBack failed: ${(error as Error).message}`];
  }
  rmSync(report, { recursive: true, force: true });
  return { exit, signal, stdout, stderr, wallMs, peakKiB, left: survivors.length, inspected, problems };
}
