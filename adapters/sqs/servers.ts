/**
 * The SQS emulators' processes, started by the suite itself: each a child node process
 * (emulatorMain.ts) on 127.0.0.1, at a port the system picks on the first start and the same port
 * after every restart, in a process group of its own, with an IPC channel through which it reports
 * its port and takes its clock. For the fault campaign a handle kills it (SIGKILL of its tree),
 * restarts it (a fresh process: the emulators keep everything in memory, so a restart keeps only
 * the port and the clock's last instant), pauses and resumes it (SIGSTOP, SIGCONT). `stop()`
 * closes the channel (the child exits on that alone), then ends the group, SIGKILL after a grace; a
 * child whose parent dies sees its channel close and exits, and a Reaper (conformance/servers/
 * processes.ts) ends a paused one, so no emulator outlives the harness. The child's stderr is
 * kept to its last 4 KiB, for the error that says why it did not start.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { tsxEntry } from '../../conformance/isolated/load.ts';
import { Reaper, killTree, signalTree, stopTree, treeOf, waitGone } from '../../conformance/servers/processes.ts';
import { SqsAdapterError } from './SqsAdapterError.ts';

/** The emulators the suite starts. */
export const EMULATORS = ['fauxqs', 'local-aws-sqs'] as const;
/** One of EMULATORS. */
export type EmulatorName = (typeof EMULATORS)[number];

/** The clock an emulator's process runs on (emulatorClock.ts). */
export type EmulatorClock =
  | { readonly kind: 'stopped'; readonly ms: number }
  | { readonly kind: 'fast'; readonly factor: number };

/** running: answers (or is starting); paused: SIGSTOPped; down: killed, its port kept for restart(); stopped: gone for good. */
export type EmulatorState = 'running' | 'paused' | 'down' | 'stopped';

/** How long an emulator's process may take to report its port (node with tsx, on a loaded machine). */
const START_TIMEOUT_MS = 30_000;
/** How long a clock move may take to be confirmed. */
const CLOCK_TIMEOUT_MS = 5_000;
/** How long a stopped process may take to end before it is killed. */
const STOP_GRACE_MS = 2_000;
/** How long a killed process may take to end. */
const GONE_MS = 30_000;
/** How long a SIGSTOP may take to stop every thread of the emulator's tree. */
const STOP_MS = 5_000;
const STDERR_KEPT = 4096;

const childMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), port: z.number().int().min(1).max(65535), now: z.number() }),
  z.object({ type: z.literal('clock-set'), id: z.number().int() }),
]);

/** One process of an emulator: the child, when it exited, and its clock's instant when it reported its port. */
interface Launched {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  readonly port: number;
  /** The emulator's Date.now() when it was ready, and the real Date.now() then. */
  readonly readyAt: { readonly emulated: number; readonly real: number };
}

/** One running emulator: its process now, and the port and clock every restart keeps. */
export class SqsEmulator {
  private nextId = 1;
  private readonly waiting = new Map<number, () => void>();
  private stopping: Promise<void> | undefined;
  private status: EmulatorState = 'running';
  private pauseTimer: NodeJS.Timeout | undefined;
  /** The stopped clock's last instant (a restart resumes from it). */
  private lastSet: number | undefined;

  private constructor(
    readonly name: EmulatorName,
    private current: Launched,
    private readonly clock: EmulatorClock,
    private readonly reaper: Reaper,
  ) {
    if (clock.kind === 'stopped') this.lastSet = clock.ms;
    this.listen(current.child);
  }

  /** `http://127.0.0.1:<port>`: the only address the adapter's clients are given (the same after a restart). */
  get endpoint(): string {
    return `http://127.0.0.1:${this.current.port}`;
  }

  /** The port on 127.0.0.1 (the same after a restart). */
  get port(): number {
    return this.current.port;
  }

  /** The process id of the emulator now (its group's leader). */
  get pid(): number | undefined {
    return this.current.child.pid;
  }

  /** The emulator's processes now (its tree), and the reaper's. */
  get pids(): number[] {
    const pid = this.current.child.pid;
    const reaper = this.reaper.pid;
    return [
      ...(pid === undefined || this.status === 'down' || this.status === 'stopped' ? [] : treeOf([pid])),
      ...(reaper === undefined ? [] : [reaper]),
    ];
  }

  /** The emulator's state now. */
  get state(): EmulatorState {
    return this.status;
  }

  private listen(child: ChildProcess): void {
    child.on('message', (raw) => {
      const m = childMessage.safeParse(raw);
      if (m.success && m.data.type === 'clock-set') {
        this.waiting.get(m.data.id)?.();
        this.waiting.delete(m.data.id);
      }
    });
  }

  /** Starts `name` on `clock`; throws `emulator_failed` with its stderr when it does not report a port in time. */
  static async start(name: EmulatorName, clock: EmulatorClock): Promise<SqsEmulator> {
    const reaper = new Reaper('');
    try {
      const launched = await launch(name, clockArg(clock), 0, reaper);
      return new SqsEmulator(name, launched, clock, reaper);
    } catch (error) {
      reaper.finish();
      throw error;
    }
  }

  private need(...states: EmulatorState[]): void {
    if (!states.includes(this.status))
      throw new SqsAdapterError(
        'emulator_failed',
        `${this.name} on ${this.endpoint} is ${this.status}, not ${states.join(' or ')}`,
      );
  }

  /** Sets the stopped clock to `ms` and waits until the emulator confirms it. */
  async setClock(ms: number): Promise<void> {
    const { child, exited } = this.current;
    if (this.stopping !== undefined || this.status === 'down' || !child.connected)
      throw new SqsAdapterError('emulator_gone', `${this.name} is not running`);
    const id = this.nextId++;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        new Promise<void>((resolve) => {
          this.waiting.set(id, resolve);
          child.send({ type: 'clock', id, ms });
        }),
        exited.then(() => Promise.reject(new SqsAdapterError('emulator_gone', `${this.name} ended`))),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new SqsAdapterError('emulator_failed', `${this.name} did not confirm its clock in time`)),
            CLOCK_TIMEOUT_MS,
          );
        }),
      ]);
      this.lastSet = ms;
    } finally {
      clearTimeout(timer);
      this.waiting.delete(id);
    }
  }

  /** SIGKILLs the emulator's tree and waits until it is gone: everything it held in memory with it. */
  async kill(): Promise<void> {
    this.need('running', 'paused');
    clearTimeout(this.pauseTimer);
    const { child, exited } = this.current;
    const pid = child.pid as number;
    const killed = killTree([pid]);
    if (!(await waitGone([pid, ...killed], GONE_MS)))
      throw new SqsAdapterError(
        'emulator_failed',
        `${this.name}'s process ${pid} did not end within ${GONE_MS} ms of SIGKILL`,
      );
    await exited;
    this.reaper.release(pid);
    this.status = 'down';
  }

  /**
   * Starts a fresh process on the same port, its clock where the last one's was (a stopped clock at
   * its last instant, a fast clock at the instant it had reached); a running one is killed first.
   */
  async restart(): Promise<void> {
    this.need('running', 'paused', 'down');
    if (this.status !== 'down') await this.kill();
    const { readyAt } = this.current;
    const arg =
      this.clock.kind === 'stopped'
        ? `stopped:${this.lastSet ?? this.clock.ms}`
        : `fast:${this.clock.factor}:${Math.floor(readyAt.emulated + (Date.now() - readyAt.real) * this.clock.factor)}`;
    this.current = await launch(this.name, arg, this.current.port, this.reaper);
    this.listen(this.current.child);
    this.status = 'running';
  }

  /** SIGSTOPs the emulator's tree and waits until every thread of it has stopped; with `ms`, SIGCONTs it that much later (or at resume(), whichever comes first). */
  pause(ms?: number): void {
    this.need('running');
    const running = stopTree([this.current.child.pid as number], STOP_MS);
    this.status = 'paused';
    if (running.length > 0)
      throw new SqsAdapterError(
        'emulator_failed',
        `${this.name}'s processes ${running.join(', ')} did not stop within ${STOP_MS} ms of SIGSTOP`,
      );
    if (ms !== undefined) this.pauseTimer = setTimeout(() => this.status === 'paused' && this.resume(), ms);
  }

  /** SIGCONTs a paused emulator's tree. */
  resume(): void {
    this.need('paused');
    clearTimeout(this.pauseTimer);
    signalTree([this.current.child.pid as number], 'SIGCONT');
    this.status = 'running';
  }

  /** Ends the emulator's process group and waits for it. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      clearTimeout(this.pauseTimer);
      const was = this.status;
      if (was === 'paused') signalTree([this.current.child.pid as number], 'SIGCONT');
      this.status = 'stopped';
      try {
        // A killed process is gone already, and its number may be another's by now.
        if (was !== 'down') await endGroup(this.current.child, this.current.exited);
      } finally {
        this.reaper.finish();
        // The reaper has nothing left to end: it exits once it reads the end of its pipe.
        if (this.reaper.pid !== undefined) await waitGone([this.reaper.pid], STOP_GRACE_MS);
      }
    })();
    return this.stopping;
  }
}

/** The argument emulatorMain.ts reads for `clock`. Pure. */
const clockArg = (clock: EmulatorClock): string =>
  clock.kind === 'stopped' ? `stopped:${clock.ms}` : `fast:${clock.factor}`;

/** Starts one process of `name` on `port` (0: the system picks) and waits for its report; the reaper watches it. */
async function launch(name: EmulatorName, clock: string, port: number, reaper: Reaper): Promise<Launched> {
  const here = fileURLToPath(import.meta.url);
  const main = fileURLToPath(new URL(`./emulatorMain${extname(here)}`, import.meta.url));
  const loader = extname(here) === '.ts' ? ['--import', new URL(`file://${tsxEntry(here, 'esm')}`).href] : [];
  const child = spawn(process.execPath, [...loader, main, name, clock, String(port)], {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  if (child.pid !== undefined) reaper.watch(child.pid);
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEPT);
  });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  const failed = (why: string) =>
    new SqsAdapterError(
      'emulator_failed',
      `${name} did not start: ${why}${stderr === '' ? '' : `; stderr: ${stderr.trim()}`}`,
    );
  let timer: NodeJS.Timeout | undefined;
  try {
    const ready = await Promise.race([
      new Promise<{ port: number; now: number }>((resolve) =>
        child.on('message', (raw) => {
          const m = childMessage.safeParse(raw);
          if (m.success && m.data.type === 'ready') resolve(m.data);
        }),
      ),
      exited.then(() => Promise.reject(failed(`its process ended (${child.exitCode ?? child.signalCode})`))),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(failed(`no port within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
      }),
    ]);
    return { child, exited, port: ready.port, readyAt: { emulated: ready.now, real: Date.now() } };
  } catch (error) {
    await endGroup(child, exited);
    if (child.pid !== undefined) reaper.release(child.pid);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** Closes the channel, SIGTERMs the group's tree, SIGKILLs what is left after the grace; resolves when the leader has exited. */
async function endGroup(child: ChildProcess, exited: Promise<void>): Promise<void> {
  const pid = child.pid;
  if (child.connected) child.disconnect();
  if (pid !== undefined) {
    signalTree([pid], 'SIGTERM');
    if (!(await waitGone(treeOf([pid]), STOP_GRACE_MS))) killTree([pid]);
  }
  await exited;
}
