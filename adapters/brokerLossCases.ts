/**
 * The cases of adapters/brokerLoss.test.ts and adapters/brokerAbsent.test.ts: every real queue's
 * module, the server its profile needs (scripts/brokers.sh or scripts/pg.sh, started in a process
 * group of its own; for SQS, the emulator the profile starts itself, found by a mark in its
 * environment), `jobcheck` run in a group of its own with a bound, and the clean-up after each
 * test (every server stopped, every group ended), registered by the test file that imports this.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { RULE_IDS } from '../contract/rules.ts';
import { alive as running, treeOf } from '../conformance/servers/processes.ts';

export const root = fileURLToPath(new URL('..', import.meta.url));
/** The exit code of an incomplete profile (cli/limits.ts, which adapters/ may not import). */
export const EXIT_INCOMPLETE = 3;
export const required = (process.env['CI'] ?? '') !== '';
// The sources through tsx, whatever JOBCHECK_COMPILED_ROOT says: the modules profiled are the
// adapters' sources, whose classes must be the command's own.
const cli = join(root, 'cli/main.ts');
const tsx = join(root, 'node_modules/.bin/tsx');

/** A queue: its module, the server its profile needs, and its environment with no server at an address. */
export interface Queue {
  readonly name: string;
  /** What the one line of a setup error calls the server. */
  readonly broker: string;
  readonly module: string;
  /** `pg` (scripts/pg.sh), the broker's name in scripts/brokers.sh, or `emulator` (the profile's own child). */
  readonly server: 'pg' | 'redis' | 'rabbitmq' | 'nats' | 'beanstalkd' | 'emulator';
  /** The binary whose absence skips the case. */
  readonly binary: string;
  /** Whether the module exports an AdapterFactory for `check --module`. */
  readonly checkable: boolean;
  /**
   * The environment that points the adapter at `port` (or `dir`), where nothing listens, and the
   * address the error must name; none for a queue whose profile starts its own server.
   */
  readonly nowhere?: (port: number, dir: string) => { env: Record<string, string>; address: string };
}

export const QUEUES: readonly Queue[] = [
  {
    name: 'pg-boss',
    broker: 'PostgreSQL',
    module: 'adapters/pg-boss/profile.ts',
    server: 'pg',
    binary: 'initdb',
    checkable: false,
    nowhere: (_port, dir) => ({ env: { PGHOST: dir, PGDATABASE: 'jobcheck', PGUSER: 'nobody' }, address: dir }),
  },
  {
    name: 'bullmq-postgres',
    broker: 'PostgreSQL',
    module: 'adapters/bullmq-postgres/profile.ts',
    server: 'pg',
    binary: 'initdb',
    checkable: false,
    nowhere: (_port, dir) => ({ env: { PGHOST: dir, PGDATABASE: 'jobcheck', PGUSER: 'nobody' }, address: dir }),
  },
  {
    name: 'bullmq-redis',
    broker: 'Redis',
    module: 'adapters/bullmq-redis/profile.ts',
    server: 'redis',
    binary: 'redis-server',
    checkable: true,
    nowhere: (port) => ({ env: { JOBCHECK_REDIS_URL: `redis://127.0.0.1:${port}` }, address: `127.0.0.1:${port}` }),
  },
  {
    name: 'redis-streams',
    broker: 'Redis',
    module: 'adapters/redis-streams/profile.ts',
    server: 'redis',
    binary: 'redis-server',
    checkable: true,
    nowhere: (port) => ({ env: { JOBCHECK_REDIS_URL: `redis://127.0.0.1:${port}` }, address: `127.0.0.1:${port}` }),
  },
  // One SQS target stands for the four: their factories share one loss typing (adapters/sqs/profile.ts).
  {
    name: 'sqs-fauxqs-fifo',
    broker: 'fauxqs',
    module: 'adapters/sqs/fauxqs-fifo/profile.ts',
    server: 'emulator',
    binary: 'node',
    checkable: false,
  },
  {
    name: 'rabbitmq',
    broker: 'RabbitMQ',
    module: 'adapters/rabbitmq/profile.ts',
    server: 'rabbitmq',
    binary: 'rabbitmq-server',
    checkable: true,
    nowhere: (port) => ({
      env: { JOBCHECK_AMQP_URL: `amqp://guest:guest@127.0.0.1:${port}`, JOBCHECK_AMQP_CONSUMER_TIMEOUT_MS: '800' },
      address: `127.0.0.1:${port}`,
    }),
  },
  {
    name: 'nats-jetstream',
    broker: 'NATS',
    module: 'adapters/nats-jetstream/profile.ts',
    server: 'nats',
    binary: 'nats-server',
    checkable: true,
    nowhere: (port) => ({ env: { JOBCHECK_NATS_URL: `nats://127.0.0.1:${port}` }, address: `127.0.0.1:${port}` }),
  },
  {
    name: 'beanstalkd',
    broker: 'beanstalkd',
    module: 'adapters/beanstalkd/profile.ts',
    server: 'beanstalkd',
    binary: 'beanstalkd',
    checkable: true,
    nowhere: (port, dir) => ({
      env: { JOBCHECK_BEANSTALKD_ADDR: `127.0.0.1:${port}`, JOBCHECK_BEANSTALKD_CLOCK: join(dir, 'clock') },
      address: `127.0.0.1:${port}`,
    }),
  },
];

/** Whether `binary` is installed (on PATH, or PostgreSQL's versioned folder). */
export const installed = (binary: string): boolean =>
  spawnSync('sh', ['-c', `command -v ${binary} || ls /usr/lib/postgresql/*/bin/${binary}`], { stdio: 'ignore' })
    .status === 0;

/** The environment of the tests' commands: this one, without any server the runner of the tests set. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (
      k === 'JOBCHECK_COMPILED_ROOT' ||
      (!k.startsWith('JOBCHECK_') && !k.startsWith('PG') && !k.startsWith('VITEST'))
    )
      env[k] = v;
  return { ...env, ...extra };
}

/** The processes of group `pgid` that still run (zombies left out: they are gone but for their parent's reaping), as `pid state command`. */
function groupMembers(pgid: number): string[] {
  const out: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid || fields[0] === 'Z') continue;
      out.push(`${entry} ${fields[0]} ${readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ')}`);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Whether any process of group `pgid` is alive. */
const groupAlive = (pgid: number): boolean => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Waits until `child` exits or `ms` pass; its exit code and signal, or undefined when it is still running. */
function exited(child: ChildProcess, ms: number): Promise<{ code: number | null; signal: string | null } | undefined> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}

/** A throw-away server started by its script, and what to kill to lose it. */
export interface Server {
  readonly env: Record<string, string>;
  /** SIGKILLs the server's processes (not the script around them). */
  kill(): void;
  /** Whether the server's processes still run. */
  alive(): boolean;
  /** Whether it answers yet (a server the profile starts itself may not, a few seconds in); absent: it does. */
  ready?(): boolean;
  /** Ends the script, which removes its folder; SIGKILLs its group if it does not end in time. */
  stop(): Promise<void>;
}

/** What a case started: its servers, and the process groups of its servers and commands. */
interface Scope {
  readonly started: Server[];
  readonly groups: number[];
}
/** The scope of the case running (limiter below); outside one, the file's. */
const scopes = new AsyncLocalStorage<Scope>();
const fileScope: Scope = { started: [], groups: [] };
const scope = (): Scope => scopes.getStore() ?? fileScope;
/** Stops what `s` started, servers first, then any group still there. */
async function end(s: Scope): Promise<void> {
  for (const server of s.started.splice(0)) await server.stop();
  for (const g of s.groups.splice(0)) if (groupAlive(g)) process.kill(-g, 'SIGKILL');
}
afterEach(() => end(fileScope));

/** The processes of an SQS emulator (emulatorMain) whose environment carries `mark`. */
function markedEmulators(mark: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('emulatorMain')) continue;
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(`${EMULATOR_MARK}=${mark}`))
        found.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return running(found);
}
/** Whether `pid` holds a listening TCP socket (its socket inodes among /proc/net/tcp's LISTEN rows). */
function listening(pid: number): boolean {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m !== null) inodes.add(m[1] as string);
    }
  } catch {
    return false; // gone meanwhile
  }
  const rows = ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((f) => {
    try {
      return readFileSync(f, 'utf8').split('\n').slice(1);
    } catch {
      return [];
    }
  });
  // Columns: sl local remote st ... uid timeout inode; st 0A is LISTEN.
  return rows.map((r) => r.trim().split(/\s+/)).some((c) => c[3] === '0A' && inodes.has(c[9] ?? ''));
}

/** The variable that marks the emulator of one case (the profile's child inherits it). */
const EMULATOR_MARK = 'JOBCHECK_TEST_EMULATOR_MARK';

/** The emulator a profile will start, as a Server: its mark, and its processes found by it. */
function emulatorServer(): Server {
  const mark = `${process.pid}-${Math.random().toString(36).slice(2)}`;
  let since: number | undefined;
  const kill = (): void => {
    for (const p of markedEmulators(mark)) process.kill(p, 'SIGKILL');
  };
  const server: Server = {
    env: { [EMULATOR_MARK]: mark },
    kill,
    alive: () => markedEmulators(mark).length > 0,
    // Listening for 2 s: the profile has its first instance, so a loss is mid-run, not at its start.
    ready: () => {
      if (!markedEmulators(mark).some(listening)) return false;
      since ??= Date.now();
      return Date.now() - since >= 2_000;
    },
    stop: async () => kill(),
  };
  scope().started.push(server);
  return server;
}

/** Starts the queue's server through its script, in a process group of its own; resolves once its environment is read. */
export async function startServer(q: Queue): Promise<Server> {
  if (q.server === 'emulator') return emulatorServer();
  const report = 'env | grep -E "^(JOBCHECK_|PG)"; echo READY; cat >/dev/null';
  const args =
    q.server === 'pg'
      ? ['scripts/pg.sh', 'bash', '-c', report]
      : ['scripts/brokers.sh', q.server, '--', 'bash', '-c', report];
  const child = spawn('bash', args, {
    cwd: root,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: cleanEnv(q.server === 'rabbitmq' ? { JOBCHECK_AMQP_CONSUMER_TIMEOUTS: '800' } : {}),
  });
  const pgid = child.pid as number;
  scope().groups.push(pgid);
  let out = '';
  let err = '';
  child.stderr?.on('data', (c: Buffer) => {
    err += c.toString();
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${q.server} did not start in 90 s: ${err}`)), 90_000);
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('READY\n')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', () => reject(new Error(`${q.server}'s script ended: ${err}`)));
  });
  const env: Record<string, string> = {};
  for (const line of out.split('\n')) {
    const at = line.indexOf('=');
    if (at > 0) env[line.slice(0, at)] = line.slice(at + 1);
  }
  /** The server's own processes: the postmaster and its backends, or the group brokers.sh started last (RabbitMQ's epmd comes first and stays). */
  const processes = (): number[] => {
    if (q.server === 'pg') {
      // pg.sh runs the postmaster under pg_ctl, as another user.
      const pidFile = join(env['PGHOST'] as string, '..', 'data', 'postmaster.pid');
      const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
      return running(treeOf([pid]));
    }
    const pgids = (env['JOBCHECK_BROKERS_PIDS'] ?? '').split(' ').filter((s) => s !== '');
    return groupMembers(Number(pgids[pgids.length - 1])).map((line) => Number(line.split(' ')[0]));
  };
  const kill = (): void => {
    for (const p of processes()) process.kill(p, 'SIGKILL');
  };
  const alive = (): boolean => {
    try {
      return processes().length > 0;
    } catch {
      return false; // the postmaster's pid file went with it
    }
  };
  const server: Server = {
    env,
    kill,
    alive,
    stop: async () => {
      child.stdin?.end();
      if ((await exited(child, 30_000)) === undefined && groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
    },
  };
  scope().started.push(server);
  return server;
}

/** Runs `jobcheck <args>` in a process group of its own; its output, exit code and whether the group is gone after. */
export async function jobcheck(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  boundMs: number,
  during?: (ms: number) => void,
): Promise<{ code: number | null; out: string; err: string; ms: number; leftover: string[] }> {
  const t0 = performance.now();
  const child = spawn(tsx, [cli, ...args], {
    cwd: root,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pgid = child.pid as number;
  scope().groups.push(pgid);
  let out = '';
  let err = '';
  child.stdout?.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    err += c.toString();
  });
  during?.(0);
  const end = await exited(child, boundMs);
  const ms = performance.now() - t0;
  // What the command started must be gone with it (a moment for the kernel to reap).
  await new Promise((r) => setTimeout(r, 300));
  const leftover = groupMembers(pgid);
  if (end === undefined) process.kill(-pgid, 'SIGKILL');
  return { code: end?.code ?? null, out, err, ms, leftover };
}

/** The rule lines of a profile's text: rule id -> its result in words. */
export function ruleLines(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^ {2}([a-z-]+) {2,}(\S.*)$/.exec(line);
    if (m !== null && (RULE_IDS as readonly string[]).includes(m[1] as string)) out.set(m[1] as string, m[2] as string);
  }
  return out;
}

/**
 * Runs `task` once fewer than `n` tasks of this limiter are running: the cases of a file run two at
 * a time, each with its own server, so that the two cores are shared by two commands at most. The
 * servers and commands a task starts are stopped when it ends (an AsyncLocalStorage scope).
 */
export function limiter(n: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (running >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    // What the task starts is its own, stopped when it ends, never when another case ends.
    const own: Scope = { started: [], groups: [] };
    try {
      return await scopes.run(own, task);
    } finally {
      await end(own);
      running -= 1;
      waiting.shift()?.();
    }
  };
}
