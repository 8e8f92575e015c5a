/**
 * The SQS emulators' processes, started by the suite itself: each a child node process
 * (emulatorMain.ts) on 127.0.0.1 at a port the system picks, in a process group of its own, with an
 * IPC channel through which it reports its port and takes its clock. `stop()` closes the channel
 * (the child exits on that alone), then ends the group, SIGKILL after a grace; a child whose parent
 * dies sees its channel close and exits, so no emulator outlives the harness. The child's stderr is
 * kept to its last 4 KiB, for the error that says why it did not start.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { tsxEntry } from '../../conformance/isolated/load.ts';
import { killTree, signalTree, treeOf, waitGone } from '../../conformance/servers/processes.ts';
import { SqsAdapterError } from './SqsAdapterError.ts';

/** The emulators the suite starts. */
export const EMULATORS = ['fauxqs', 'local-aws-sqs'] as const;
/** One of EMULATORS. */
export type EmulatorName = (typeof EMULATORS)[number];

/** The clock an emulator's process runs on (emulatorClock.ts). */
export type EmulatorClock =
  | { readonly kind: 'stopped'; readonly ms: number }
  | { readonly kind: 'fast'; readonly factor: number };

/** How long an emulator's process may take to report its port (node with tsx, on a loaded machine). */
const START_TIMEOUT_MS = 30_000;
/** How long a clock move may take to be confirmed. */
const CLOCK_TIMEOUT_MS = 5_000;
/** How long a stopped process may take to end before it is killed. */
const STOP_GRACE_MS = 2_000;
const STDERR_KEPT = 4096;

const childMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), port: z.number().int().min(1).max(65535) }),
  z.object({ type: z.literal('clock-set'), id: z.number().int() }),
]);

/** One running emulator process. */
export class SqsEmulator {
  private nextId = 1;
  private readonly waiting = new Map<number, () => void>();
  private stopping: Promise<void> | undefined;

  private constructor(
    readonly name: EmulatorName,
    private readonly child: ChildProcess,
    /** `http://127.0.0.1:<port>`: the only address the adapter's clients are given. */
    readonly endpoint: string,
    private readonly exited: Promise<void>,
  ) {
    child.on('message', (raw) => {
      const m = childMessage.safeParse(raw);
      if (m.success && m.data.type === 'clock-set') {
        this.waiting.get(m.data.id)?.();
        this.waiting.delete(m.data.id);
      }
    });
  }

  /** The process id of the emulator (its group's leader). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Starts `name` on `clock`; throws `emulator_failed` with its stderr when it does not report a port in time. */
  static async start(name: EmulatorName, clock: EmulatorClock): Promise<SqsEmulator> {
    const here = fileURLToPath(import.meta.url);
    const main = fileURLToPath(new URL(`./emulatorMain${extname(here)}`, import.meta.url));
    const loader = extname(here) === '.ts' ? ['--import', new URL(`file://${tsxEntry(here, 'esm')}`).href] : [];
    const clockArg = clock.kind === 'stopped' ? `stopped:${clock.ms}` : `fast:${clock.factor}`;
    const child = spawn(process.execPath, [...loader, main, name, clockArg], {
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
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
      const port = await Promise.race([
        new Promise<number>((resolve) =>
          child.on('message', (raw) => {
            const m = childMessage.safeParse(raw);
            if (m.success && m.data.type === 'ready') resolve(m.data.port);
          }),
        ),
        exited.then(() => Promise.reject(failed(`its process ended (${child.exitCode ?? child.signalCode})`))),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(failed(`no port within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
        }),
      ]);
      return new SqsEmulator(name, child, `http://127.0.0.1:${port}`, exited);
    } catch (error) {
      await endGroup(child, exited);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Sets the stopped clock to `ms` and waits until the emulator confirms it. */
  async setClock(ms: number): Promise<void> {
    if (this.stopping !== undefined || !this.child.connected)
      throw new SqsAdapterError('emulator_failed', `${this.name} is not running`);
    const id = this.nextId++;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        new Promise<void>((resolve) => {
          this.waiting.set(id, resolve);
          this.child.send({ type: 'clock', id, ms });
        }),
        this.exited.then(() => Promise.reject(new SqsAdapterError('emulator_failed', `${this.name} ended`))),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new SqsAdapterError('emulator_failed', `${this.name} did not confirm its clock in time`)),
            CLOCK_TIMEOUT_MS,
          );
        }),
      ]);
    } finally {
      clearTimeout(timer);
      this.waiting.delete(id);
    }
  }

  /** Ends the emulator's process group and waits for it. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= endGroup(this.child, this.exited);
    return this.stopping;
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
