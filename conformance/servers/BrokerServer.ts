/**
 * A broker server the harness controls: started on free 127.0.0.1 ports with a folder of its own,
 * then killed (SIGKILL of its whole process tree), restarted on the same folder and ports, paused
 * (SIGSTOP) and resumed (SIGCONT), stopped cleanly, and disposed of (its processes ended, its folder
 * removed). Invariants:
 * - each program runs in a process group of its own, and every signal reaches its whole tree;
 * - nothing outlives the harness: dispose() is idempotent, every server still held is disposed of
 *   synchronously on process exit, SIGINT, SIGTERM and SIGHUP, and a Reaper (processes.ts) ends
 *   the rest and removes the folder even when this process is SIGKILLed;
 * - with a disk limit, the data folder is a tmpfs mounted inside a mount namespace held by a
 *   process of its own; the broker runs inside it, and the mount vanishes with that process;
 *   fillDisk() fills it to the last byte, freeDisk() empties it again;
 * - a kill is a process crash, never a power loss (MACHINE_LIMITS, limits.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerConfig } from './configurations.ts';
import { diskFullUnsupported } from './limits.ts';
import { freePort } from './network.ts';
import { Reaper, alive, killTree, signalTree, sleepSync, spawnGroup, stopTree, treeOf, waitGone } from './processes.ts';
import type { Recipe, ServerPlace } from './recipe.ts';
import { logTail, run } from './recipe.ts';
import { recipeOf } from './recipes.ts';
import { ServerError } from './ServerError.ts';

/** Where a BrokerServer lives and how it is limited. */
export interface StartOptions {
  /** Put the data folder on a tmpfs of its own (true: the recipe's size, or this many bytes), for fillDisk(). */
  readonly diskLimit?: boolean | number;
  /** The folder the server's folder is made in (default: the system's temporary folder). */
  readonly parent?: string;
}

/** running: answers (or is starting); paused: SIGSTOPped; down: killed or stopped, folder kept; disposed: gone. */
export type ServerState = 'running' | 'paused' | 'down' | 'disposed';

/** Every server not yet disposed of. */
const living = new Set<BrokerServer>();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
let hooked = false;

/** Ends every server still held, synchronously (exit and signal handlers). */
export function disposeAllNow(): void {
  for (const server of [...living]) server.disposeNow();
}

function onSignal(name: NodeJS.Signals): void {
  disposeAllNow();
  // With no other listener, the signal does what it would have done without this one.
  if (process.listenerCount(name) === 1) {
    process.off(name, onSignal);
    process.kill(process.pid, name);
  }
}

function hook(): void {
  if (hooked) return;
  hooked = true;
  process.once('exit', disposeAllNow);
  for (const name of SIGNALS) process.on(name, onSignal);
}

/** How long a process may take to end after SIGKILL (or after a clean stop's signal), ms. */
const GONE_MS = 30_000;
/** How long a SIGSTOP may take to stop every thread of the server's tree. */
const STOP_MS = 5_000;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A server the harness controls; see the top of the file. Start one with `BrokerServer.start`. */
export class BrokerServer {
  private current: ChildProcess | undefined;
  private status: ServerState = 'down';
  private pauseTimer: NodeJS.Timeout | undefined;
  private readonly companions: number[] = [];
  private holder: number | undefined;
  private readonly ballast: string | undefined;
  private place!: ServerPlace;
  /** Every process group this server has started (tests check that none is left). */
  readonly groups: number[] = [];

  private constructor(
    readonly config: ServerConfig,
    private readonly recipe: Recipe,
    readonly folder: string,
    private readonly reaper: Reaper,
    readonly diskBytes: number | undefined,
  ) {
    this.ballast = diskBytes === undefined ? undefined : 'jobcheck-ballast';
  }

  /** Starts a server of `config` and waits until it answers. Throws ServerError; leaves nothing behind when it does. */
  static async start(config: ServerConfig, options: StartOptions = {}): Promise<BrokerServer> {
    const recipe = recipeOf(config);
    const diskBytes =
      options.diskLimit === undefined || options.diskLimit === false
        ? undefined
        : options.diskLimit === true
          ? recipe.diskBytes
          : options.diskLimit;
    if (diskBytes !== undefined) {
      const why = await diskFullUnsupported();
      if (why !== undefined)
        throw new ServerError('disk_full_unsupported', `no disk limit for ${recipe.program}: ${why}`);
    }
    const folder = mkdtempSync(join(options.parent ?? tmpdir(), `jobcheck-${config.broker}-`));
    const server = new BrokerServer(config, recipe, folder, new Reaper(folder), diskBytes);
    living.add(server);
    hook();
    try {
      await server.setUp();
      return server;
    } catch (error) {
      await server.dispose();
      throw error;
    }
  }

  /** The server's state now. */
  get state(): ServerState {
    return this.status;
  }

  /** The main port on 127.0.0.1 (the same after every restart). */
  get port(): number {
    return this.place.port;
  }

  /** The data folder (the tmpfs's mount point with a disk limit). */
  get data(): string {
    return this.place.data;
  }

  /** The variables an adapter reads to find this server, as scripts/brokers.sh and scripts/pg.sh export them. */
  get env(): Readonly<Record<string, string>> {
    return this.recipe.exports(this.place);
  }

  /** The processes of the server now: its tree, its companions', the namespace holder's. */
  get pids(): number[] {
    return treeOf(this.leaders());
  }

  private leaders(): number[] {
    const server = this.current?.pid;
    return [
      ...(server === undefined ? [] : [server]),
      ...this.companions,
      ...(this.holder === undefined ? [] : [this.holder]),
    ];
  }

  private async setUp(): Promise<void> {
    const ports: number[] = [];
    for (let i = 0; i < 1 + (this.recipe.extraPorts ?? 0); i++) ports.push(await freePort());
    const root = process.getuid?.() === 0;
    const user = root && this.recipe.userWhenRoot !== undefined ? await userOr(this.recipe.userWhenRoot) : undefined;
    const data = join(this.folder, 'data');
    mkdirSync(data, { mode: 0o700 });
    if (user !== undefined) await run(['chown', '-R', user, this.folder]);
    if (this.diskBytes !== undefined) this.holder = await this.holdNamespace(data, user);
    const holder = this.holder;
    const asUser =
      user === undefined ? [] : ['setpriv', '--reuid', user, '--regid', await groupOf(user), '--init-groups', '--'];
    const inside = holder === undefined ? [] : ['nsenter', `--mount=/proc/${holder}/ns/mnt`, '--'];
    this.place = {
      folder: this.folder,
      data,
      port: ports[0] as number,
      ports: ports.slice(1),
      user: user ?? (await run(['id', '-un'])).trim(),
      wrap: (argv) => [...inside, ...asUser, ...argv],
    };
    await this.recipe.prepare(this.place);
    if (user !== undefined) await run(['chown', '-R', user, this.folder]);
    for (const argv of this.recipe.companions?.(this.place) ?? []) {
      const child = spawnGroup(this.place.wrap(argv), { env: process.env, log: join(this.folder, 'companion.log') });
      if (child.pid === undefined) throw new ServerError('start_failed', `${argv[0]} could not be started`);
      this.companions.push(child.pid);
      this.groups.push(child.pid);
      this.reaper.watch(child.pid);
    }
    await this.launch();
    await this.recipe.afterFirstStart?.(this.place);
  }

  /** Starts the namespace holder and waits for its tmpfs; returns its pid. */
  private async holdNamespace(data: string, user: string | undefined): Promise<number> {
    const owner =
      user === undefined ? '' : `,uid=${(await run(['id', '-u', user])).trim()},gid=${(await groupOf(user)).trim()}`;
    const child = spawnGroup(
      [
        'unshare',
        '-m',
        '--propagation',
        'private',
        '--',
        'sh',
        '-c',
        'mount -t tmpfs -o "size=$1,mode=0700$2" jobcheck "$3" && exec sleep 2147483647',
        'sh',
        String(this.diskBytes),
        owner,
        data,
      ],
      { env: process.env, log: join(this.folder, 'namespace.log') },
    );
    const pid = child.pid;
    if (pid === undefined) throw new ServerError('disk_full_unsupported', 'unshare could not be started');
    this.groups.push(pid);
    this.reaper.watch(pid);
    for (let i = 0; i < 200; i++) {
      let mounts = '';
      try {
        mounts = readFileSync(`/proc/${pid}/mountinfo`, 'utf8');
      } catch {
        break;
      }
      if (mounts.split('\n').some((line) => line.split(' ')[4] === data)) return pid;
      await sleep(25);
    }
    throw new ServerError(
      'disk_full_unsupported',
      `the tmpfs for ${this.recipe.program}'s data could not be mounted:\n${logTail(join(this.folder, 'namespace.log'))}`,
    );
  }

  /** Starts the server's program on the folder and waits until it answers. */
  private async launch(): Promise<void> {
    const { argv, env } = this.recipe.command(this.place);
    const log = join(this.folder, 'server.log');
    const child = spawnGroup(this.place.wrap(argv), { env: { ...process.env, ...env }, log, cwd: this.folder });
    if (child.pid === undefined) throw new ServerError('start_failed', `${this.recipe.program} could not be started`);
    this.current = child;
    this.groups.push(child.pid);
    this.reaper.watch(child.pid);
    this.status = 'running';
    let exited = false;
    child.once('exit', () => {
      exited = true;
    });
    const end = Date.now() + this.recipe.readyMs;
    while (!(await this.recipe.answers(this.place))) {
      if (exited || Date.now() >= end)
        throw new ServerError(
          'start_failed',
          `${this.recipe.program} on 127.0.0.1:${this.place.port} ${exited ? 'exited while starting' : `did not answer within ${this.recipe.readyMs} ms`}; its log:\n${logTail(log)}`,
        );
      await sleep(100);
    }
  }

  private need(...states: ServerState[]): void {
    if (!states.includes(this.status))
      throw new ServerError(
        'bad_state',
        `${this.recipe.program} on 127.0.0.1:${this.place?.port ?? '?'} is ${this.status}, not ${states.join(' or ')}`,
      );
  }

  /** SIGKILLs the server's whole tree and waits until it is gone; the folder and ports are kept for restart(). */
  async kill(): Promise<void> {
    this.need('running', 'paused');
    clearTimeout(this.pauseTimer);
    const leader = this.current?.pid as number;
    const killed = killTree([leader]);
    await this.gone([leader, ...killed], 'SIGKILL');
    this.reaper.release(leader);
    this.current = undefined;
    this.status = 'down';
  }

  /** Waits (at most GONE_MS) until none of `pids` is alive; throws `no_answer` naming those that are. */
  private async gone(pids: readonly number[], after: string): Promise<void> {
    if (await waitGone(pids, GONE_MS)) return;
    throw new ServerError(
      'no_answer',
      `${this.recipe.program} on 127.0.0.1:${this.place?.port ?? '?'}: processes ${alive(pids).join(', ')} did not end within ${GONE_MS} ms of ${after}`,
    );
  }

  /** Stops the server cleanly (its own stop signal; SIGKILL after 30 s); the folder is kept. */
  async stop(): Promise<void> {
    this.need('running', 'paused');
    if (this.status === 'paused') this.resume();
    const leader = this.current?.pid as number;
    const tree = treeOf([leader]);
    try {
      process.kill(leader, this.recipe.stopSignal);
    } catch {
      // Gone already.
    }
    if (!(await waitGone([leader, ...tree], GONE_MS))) killTree([leader]);
    await this.gone([leader, ...tree], `${this.recipe.stopSignal} and then SIGKILL`);
    this.reaper.release(leader);
    this.current = undefined;
    this.status = 'down';
  }

  /** Starts the server again on the same folder and ports (a running one is stopped cleanly first); waits until it answers. */
  async restart(): Promise<void> {
    this.need('running', 'paused', 'down');
    if (this.status !== 'down') await this.stop();
    await this.launch();
  }

  /** SIGSTOPs the server's tree and waits until every thread of it has stopped; with `ms`, SIGCONTs it that much later (or at resume(), whichever comes first). */
  pause(ms?: number): void {
    this.need('running');
    const running = stopTree([this.current?.pid as number], STOP_MS);
    this.status = 'paused';
    if (running.length > 0)
      throw new ServerError(
        'no_answer',
        `${this.recipe.program} on 127.0.0.1:${this.place.port}: processes ${running.join(', ')} did not stop within ${STOP_MS} ms of SIGSTOP`,
      );
    if (ms !== undefined) this.pauseTimer = setTimeout(() => this.status === 'paused' && this.resume(), ms);
  }

  /** SIGCONTs a paused server's tree. */
  resume(): void {
    this.need('paused');
    clearTimeout(this.pauseTimer);
    signalTree([this.current?.pid as number], 'SIGCONT');
    this.status = 'running';
  }

  /** Fills the data folder's tmpfs to its last byte (a disk-limited server only); returns the bytes written. */
  fillDisk(): number {
    this.need('running', 'paused', 'down');
    const path = this.ballastPath();
    const fd = openSync(path, 'a');
    let written = 0;
    try {
      for (const size of [1 << 20, 1 << 16, 1 << 12, 1 << 9, 1]) {
        const chunk = Buffer.alloc(size);
        for (;;) {
          try {
            written += writeSync(fd, chunk);
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
            throw error;
          }
        }
      }
    } finally {
      closeSync(fd);
    }
    return written;
  }

  /** Removes what fillDisk() wrote. */
  freeDisk(): void {
    this.need('running', 'paused', 'down');
    rmSync(this.ballastPath(), { force: true });
  }

  private ballastPath(): string {
    if (this.holder === undefined || this.ballast === undefined)
      throw new ServerError(
        'bad_state',
        `${this.recipe.program} was started without a disk limit: its disk cannot be filled`,
      );
    // The tmpfs is visible in the holder's mount namespace only: reach it through the holder's root.
    return `/proc/${this.holder}/root${join(this.place.data, this.ballast)}`;
  }

  /**
   * Ends every process of the server and removes its folder. Idempotent. Throws `no_answer` when a
   * process outlived SIGKILL for GONE_MS (the folder is removed and the reaper told even then).
   */
  async dispose(): Promise<void> {
    if (this.status === 'disposed') return;
    clearTimeout(this.pauseTimer);
    const leaders = this.leaders();
    const killed = killTree(leaders);
    try {
      await this.gone([...leaders, ...killed], 'SIGKILL');
    } finally {
      this.finish();
    }
  }

  /** dispose(), synchronously (exit and signal handlers). */
  disposeNow(): void {
    if (this.status === 'disposed') return;
    clearTimeout(this.pauseTimer);
    const leaders = this.leaders();
    const killed = killTree(leaders);
    for (let i = 0; i < 200 && alive([...leaders, ...killed]).length > 0; i++) sleepSync(10);
    this.finish();
  }

  private finish(): void {
    for (const leader of this.leaders()) this.reaper.release(leader);
    this.current = undefined;
    this.holder = undefined;
    this.companions.length = 0;
    this.status = 'disposed';
    living.delete(this);
    rmSync(this.folder, { recursive: true, force: true, maxRetries: 5 });
    this.reaper.finish();
  }
}

/** `name` when that user exists, else `nobody`. */
async function userOr(name: string): Promise<string> {
  try {
    await run(['id', '-u', name]);
    return name;
  } catch {
    return 'nobody';
  }
}

/** The primary group id of a user. */
const groupOf = async (user: string): Promise<string> => (await run(['id', '-g', user])).trim();
