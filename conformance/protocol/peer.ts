/**
 * One implementation process and the line-by-line conversation with it: write a line, wait for
 * the next line of output, with a timeout. Failures (cannot start, exit, silence, a line nobody
 * asked for, a flood) become ProcessErrors carrying the line that was sent and the tail of stderr.
 *
 * The process is not trusted, so it is contained:
 * - it runs in a process group of its own (a new session), and the harness always signals the
 *   whole group: the shell that `--impl` runs under, the implementation, and anything they forked;
 * - the end of a peer is the exit of the process the harness started, never the closing of the
 *   pipes alone (a forked child can hold them open for ever); at that exit the rest of the group is
 *   killed, and the pipes get PIPE_DRAIN_MS to close before the harness stops reading them;
 * - ending it closes stdin, then TERMs and finally KILLs the group, each after END_GRACE_MS, and
 *   gives up waiting after that, so `end()` always returns;
 * - a reply line is read up to MAX_REPLY_LINE_BYTES and must be UTF-8; stderr keeps only its last
 *   lines, each cut to STDERR_LINE_BYTES_KEPT; the harness's memory does not grow with the output.
 * Every group still alive is killed when the harness process exits (`killAllPeers`).
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { LineSplitter, decodeLenientUtf8, decodeStrictUtf8 } from './lineSplitter.ts';
import type { SplitLine } from './lineSplitter.ts';
import {
  END_GRACE_MS,
  MAX_REPLY_LINE_BYTES,
  PIPE_DRAIN_MS,
  STDERR_LINES_KEPT,
  STDERR_LINE_BYTES_KEPT,
} from './limits.ts';
import { ProcessError, REPLY_FLUSH_HINT } from './processError.ts';
import type { ProcessErrorCode, ProcessErrorDetails } from './processError.ts';
import { scheduledSpawn } from './scheduling.ts';
import type { Scheduling } from './scheduling.ts';

/** How a peer is started. */
export interface PeerOptions {
  /** Working directory of the command (default: the current one). */
  readonly cwd?: string;
  /** Environment of the command (default: the harness's). */
  readonly env?: NodeJS.ProcessEnv;
  /** Receives every line the implementation writes on stderr (cut to the kept length), with the id of the process that started it. */
  readonly onStderr?: (line: string, pid: number | undefined) => void;
  /** Grace before SIGTERM and again before SIGKILL when ending the process (default END_GRACE_MS). */
  readonly endGraceMs?: number;
  /** Longest reply line in bytes (default MAX_REPLY_LINE_BYTES). */
  readonly maxLineBytes?: number;
  /** The process's scheduling policy (scheduling.ts; default 'batch', SCHED_BATCH where Linux allows it). */
  readonly scheduling?: Scheduling;
}

/** How a peer ended: by itself, or only after the harness signalled its group. */
export type PeerEnding = 'exited' | 'SIGTERM' | 'SIGKILL';

/**
 * Receives a peer's output in place of request(): for a protocol with several requests in flight
 * (jobcheck/2), where a line is not the reply to the line sent last.
 */
export interface PeerListener {
  /** A line of stdout, already checked to be UTF-8 within the line limit. */
  readonly line: (text: string) => void;
  /** The peer failed (exit, flood, bad UTF-8, ended or killed by the harness); called once, with its first failure. */
  readonly failed: (error: ProcessError) => void;
}

/** A line sent whose reply is awaited, with its number (the hello is line 1). */
export interface SentLine {
  readonly line: string;
  readonly number: number;
}

/** A request written whose reply is awaited (replies come in the order of the requests). */
interface Waiter extends SentLine {
  readonly timeoutMs: number;
  readonly resolve: (line: string) => void;
  readonly reject: (error: ProcessError) => void;
}

/** A request written ahead (Peer.requestAll): the line, its number, and its reply to come. */
export interface WrittenRequest extends SentLine {
  readonly reply: Promise<string>;
}

/** Every peer whose process group may still have members. */
const living = new Set<Peer>();

/** Sends SIGKILL to the process group of every peer still alive. Synchronous; safe in an exit handler. */
export function killAllPeers(): void {
  for (const peer of living) peer.killGroup('SIGKILL');
}
process.once('exit', killAllPeers);

/** Peers whose processes may still be running (for tests and diagnostics). */
export const livingPeers = (): number => living.size;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());
const within = (promise: Promise<unknown>, ms: number): Promise<boolean> =>
  Promise.race([promise.then(() => true), sleep(ms).then(() => false)]);

/** A running implementation process speaking one line at a time. */
export class Peer {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly stderr: string[] = [];
  /** Requests written whose replies are awaited, oldest first; only the oldest's wait is timed. */
  private readonly waiters: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;
  private listener: PeerListener | undefined;
  private listenerTold = false;
  private failure: ProcessError | undefined;
  private linesSent = 0;
  private repliesReceived = 0;
  /** The request errors name: the one whose reply is awaited first, else the one answered last. */
  private about: SentLine | undefined;
  private exit: { code: number | null; signal: string | null } | undefined;
  private groupGone = false;
  private finished = false;
  private readonly exited: Promise<void>;
  private readonly done: Promise<void>;
  private markExited!: () => void;
  private markDone!: () => void;
  private readonly graceMs: number;
  private onStderr: PeerOptions['onStderr'];
  /**
   * Whether the implementation's last hello reply on this process said `pipelining` (set by the
   * adapter that read it): it then reads requests written ahead, a later hello with them.
   */
  pipelining = false;

  /** Starts `command` through the shell, in a process group of its own. Never throws: a start failure surfaces on the first request. */
  constructor(
    readonly command: string,
    options: PeerOptions = {},
  ) {
    this.graceMs = options.endGraceMs ?? END_GRACE_MS;
    this.onStderr = options.onStderr;
    this.exited = new Promise((resolve) => (this.markExited = resolve));
    this.done = new Promise((resolve) => (this.markDone = resolve));
    // detached: the shell becomes the leader of a new session and process group, whose id is its
    // pid (under batch scheduling, chrt is that leader and replaces itself with the shell).
    const scheduled = scheduledSpawn(command, options.scheduling ?? 'batch');
    const spawnOptions = {
      detached: true,
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'] as ['pipe', 'pipe', 'pipe'],
    };
    this.child =
      scheduled === undefined
        ? spawn(command, { ...spawnOptions, shell: true })
        : spawn(scheduled.file, [...scheduled.args], spawnOptions);
    living.add(this);
    const maxLine = options.maxLineBytes ?? MAX_REPLY_LINE_BYTES;
    const stdout = new LineSplitter(maxLine, {
      line: (line) => this.onLine(line),
      overflow: (bytes) =>
        this.abort(
          'protocol_error',
          `a reply line is longer than the limit of ${maxLine} bytes (${bytes} bytes read without a newline); the process group was killed`,
        ),
    });
    const stderr = new LineSplitter(STDERR_LINE_BYTES_KEPT, {
      line: (line) => {
        const text =
          decodeLenientUtf8(line.head) + (line.bytes > line.head.length ? ` ... (${line.bytes} bytes in all)` : '');
        this.stderr.push(text);
        if (this.stderr.length > STDERR_LINES_KEPT) this.stderr.shift();
        this.onStderr?.(text, this.child.pid);
      },
    });
    this.child.stdout.on('data', (chunk: Buffer) => {
      if (!this.finished) stdout.push(chunk);
    });
    this.child.stdout.on('end', () => {
      stdout.end();
      // A process that exits closes its stdout too, maybe a moment before its exit is seen.
      setTimeout(() => {
        if (this.exit === undefined && !this.finished)
          this.abort(
            'protocol_error',
            'the implementation closed its stdout but kept running; the process group was killed',
          );
      }, PIPE_DRAIN_MS).unref();
    });
    this.child.stderr.on('data', (chunk: Buffer) => {
      if (!this.finished) stderr.push(chunk);
    });
    this.child.stderr.on('end', () => stderr.end());
    // EPIPE and friends: the process is gone or stopped reading; its exit reports that.
    this.child.stdin.on('error', () => undefined);
    this.child.stdout.on('error', () => undefined);
    this.child.stderr.on('error', () => undefined);
    this.child.on('error', (error) => {
      this.fail(
        new ProcessError(
          'spawn_failed',
          `cannot start ${JSON.stringify(command)}: ${error.message}`,
          this.details({ cause: error }),
        ),
      );
      this.markExited();
      this.finish();
    });
    this.child.on('exit', (code, signal) => {
      this.exit = { code, signal };
      this.markExited();
      // Whatever the implementation left behind in its group ends with it.
      this.killGroup('SIGKILL');
      setTimeout(() => this.finish(), PIPE_DRAIN_MS).unref();
    });
    this.child.on('close', () => this.finish());
  }

  /**
   * Hands the process's stderr to `onStderr` from now on, after the lines it has written so far
   * (those kept: the last STDERR_LINES_KEPT): for a process started before anyone could say where
   * its stderr goes (prestart.ts).
   */
  adoptStderr(onStderr: PeerOptions['onStderr']): void {
    this.onStderr = onStderr;
    for (const line of this.stderr) onStderr?.(line, this.child.pid);
  }

  /** The process id of the shell, which is also the id of the process group (undefined if it never started). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** True while the process runs and nothing has gone wrong in the conversation. */
  get healthy(): boolean {
    return this.failure === undefined && this.exit === undefined && this.waiters.length === 0;
  }

  /** Details for an error: the command, the last line sent, stderr's tail, the exit status. */
  details(extra: Partial<ProcessErrorDetails> = {}): ProcessErrorDetails {
    const d: { -readonly [K in keyof ProcessErrorDetails]: ProcessErrorDetails[K] } = {
      command: this.command,
      stderr: [...this.stderr],
    };
    if (this.about !== undefined) {
      d.sent = this.about.line;
      d.lineNumber = this.about.number;
    }
    if (this.exit !== undefined) {
      d.exitCode = this.exit.code;
      d.signal = this.exit.signal;
    }
    return { ...d, ...extra };
  }

  /**
   * A ProcessError about the line just sent, or `sent` (a request written ahead, see requestAll),
   * and the reply received, if any.
   */
  error(code: ProcessErrorCode, problem: string, received?: string, sent?: SentLine): ProcessError {
    return new ProcessError(
      code,
      problem,
      this.details({
        ...(received === undefined ? {} : { received }),
        ...(sent === undefined ? {} : { sent: sent.line, lineNumber: sent.number }),
      }),
    );
  }

  private onLine(line: SplitLine): void {
    if (this.failure !== undefined) return;
    const decoded = decodeStrictUtf8(line.head);
    if (!decoded.ok) {
      const at = decoded.offset;
      const hex = [...line.head.subarray(at, at + 8)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
      const before = decodeLenientUtf8(line.head.subarray(Math.max(0, at - 40), at));
      this.abort(
        'protocol_error',
        `a reply line is not valid UTF-8: byte ${at} starts the bytes ${hex}, after ${JSON.stringify(before)}; the process group was killed`,
      );
      return;
    }
    if (this.listener !== undefined && this.waiters.length === 0) {
      this.repliesReceived += 1;
      this.listener.line(decoded.text);
      return;
    }
    const waiter = this.waiters.shift();
    if (waiter === undefined) {
      const after = this.repliesReceived === 0 ? 'before any request' : `after its reply to line ${this.linesSent}`;
      this.abort(
        'protocol_error',
        `the implementation wrote a line nobody asked for (${after}: one reply per request); the process group was killed`,
        decoded.text,
      );
      return;
    }
    this.repliesReceived += 1;
    this.timeHead();
    waiter.resolve(decoded.text);
  }

  /** Times the wait for the oldest reply still awaited (from now), if any. */
  private timeHead(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const head = this.waiters[0];
    if (head === undefined) return;
    this.about = head;
    const { timeoutMs } = head;
    this.timer = setTimeout(
      () => this.abort('timeout', `no reply within ${timeoutMs} ms; the process group was killed; ${REPLY_FLUSH_HINT}`),
      timeoutMs,
    );
  }

  /** Marks the peer failed and rejects the pending request, if any. The first failure is kept. */
  private fail(error: ProcessError): void {
    if (this.failure === undefined) this.failure = error;
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const waiter of this.waiters.splice(0)) waiter.reject(this.failure);
    this.tellListener();
  }

  private tellListener(): void {
    if (this.listener === undefined || this.listenerTold || this.failure === undefined) return;
    this.listenerTold = true;
    this.listener.failed(this.failure);
  }

  /**
   * From now on every line of output goes to `listener` (while no request() waits), and the
   * peer's failure is told to it once (at once if the peer has already failed). For protocols with
   * several requests in flight; request() keeps working for a line answered in turn.
   */
  listen(listener: PeerListener): void {
    this.listener = listener;
    this.tellListener();
  }

  /** Writes one line without waiting for anything (see listen()). Says whether it was written: not once the peer failed. */
  send(line: string): boolean {
    if (this.failure !== undefined) return false;
    this.linesSent += 1;
    this.about = { line, number: this.linesSent };
    this.child.stdin.write(`${line}\n`);
    return true;
  }

  /** The number of lines sent so far (the hello is line 1). */
  get sent(): number {
    return this.linesSent;
  }

  /** Fails the peer with `error` and kills its process group at once (a violation its listener found). */
  failWith(error: ProcessError): void {
    this.fail(error);
    this.killGroup('SIGKILL');
  }

  /** Fails the peer with a new error and kills its process group at once. */
  private abort(code: ProcessErrorCode, problem: string, received?: string): void {
    this.fail(this.error(code, problem, received));
    this.killGroup('SIGKILL');
  }

  /** Sends `signal` to the whole process group. Never throws. */
  killGroup(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined || this.groupGone) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // ESRCH: no member of the group is left.
      if (this.exit !== undefined) this.groupGone = true;
    }
  }

  /** The process has exited and its pipes are closed (or given up on): nothing of it is read any more. */
  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    const how =
      this.exit === undefined
        ? 'its output was closed'
        : this.exit.signal === null
          ? `exit code ${this.exit.code}`
          : `signal ${this.exit.signal}`;
    this.fail(
      new ProcessError(
        'process_exited',
        `the implementation ended (${how}) while a reply was awaited`,
        this.details({}),
      ),
    );
    this.killGroup('SIGKILL');
    for (const stream of [this.child.stdin, this.child.stdout, this.child.stderr]) stream.destroy();
    living.delete(this);
    this.markDone();
  }

  /**
   * Sends one line and waits for the next line of output; rejects with a ProcessError. The wait
   * ends after `timeoutMs` (code `timeout`, the group is killed) or when `abort` fires (code
   * `time_limit`: the check's budget ran out, the group is killed).
   */
  request(line: string, timeoutMs: number, abort?: AbortSignal): Promise<string> {
    const [written] = this.requestAll([line], [timeoutMs], abort);
    // requestAll returns one entry for each line given: here exactly one.
    return (written as WrittenRequest).reply;
  }

  /**
   * Writes several lines at once (one write) and returns each with its reply to come: the lines
   * of output that follow, in order, one per line written. Only for an implementation that reads
   * requests written ahead (`pipelining` in its hello reply, docs/protocol.md); request() is
   * requestAll() of one line. Each wait is timed from the moment the reply before it came (or
   * from now, for the first), for its line's entry of `timeoutsMs`; then code `timeout`, and the
   * group is killed. `abort` ends every wait (code `time_limit`, the group killed). A failure
   * rejects every reply still awaited; a rejection nobody awaits is not reported as unhandled.
   */
  requestAll(lines: readonly string[], timeoutsMs: readonly number[], abort?: AbortSignal): WrittenRequest[] {
    const refused = (error: ProcessError): WrittenRequest[] =>
      lines.map((line) => {
        const reply = Promise.reject(error);
        reply.catch(() => undefined);
        return { line, number: this.linesSent, reply };
      });
    if (this.failure !== undefined) return refused(this.failure);
    if (abort?.aborted === true) return refused(this.error('time_limit', 'the time limit of the check was reached'));
    const onAbort = (): void =>
      this.abort(
        'time_limit',
        'the time limit of the check was reached while a reply was awaited; the process group was killed',
      );
    abort?.addEventListener('abort', onAbort, { once: true });
    let outstanding = lines.length;
    const settled = (): void => {
      outstanding -= 1;
      if (outstanding === 0) abort?.removeEventListener('abort', onAbort);
    };
    const first = this.waiters.length === 0;
    const written = lines.map((line, at): WrittenRequest => {
      const timeoutMs = timeoutsMs[at] ?? timeoutsMs[timeoutsMs.length - 1] ?? 0;
      this.linesSent += 1;
      const number = this.linesSent;
      const reply = new Promise<string>((resolve, reject) => {
        this.waiters.push({
          line,
          number,
          timeoutMs,
          resolve: (text) => {
            settled();
            resolve(text);
          },
          reject: (error) => {
            settled();
            reject(error);
          },
        });
      });
      reply.catch(() => undefined);
      return { line, number, reply };
    });
    if (first) this.timeHead();
    this.child.stdin.write(lines.length === 1 ? `${lines[0]}\n` : `${lines.join('\n')}\n`);
    return written;
  }

  /**
   * Ends the process: closes its stdin, then TERMs its group, finally KILLs it, each after the
   * grace period; then stops reading it. Idempotent; always returns, in at most about three grace
   * periods plus PIPE_DRAIN_MS. Says how it ended: `exited` by itself once its stdin closed (or
   * earlier), or only after `SIGTERM` or `SIGKILL`.
   */
  async end(): Promise<PeerEnding> {
    if (this.failure === undefined)
      this.failure = new ProcessError('closed', 'the process was ended by the harness', this.details());
    this.tellListener();
    let ending: PeerEnding = 'exited';
    if (!this.finished && this.exit === undefined) {
      this.child.stdin.end();
      if (!(await within(this.exited, this.graceMs))) {
        ending = 'SIGTERM';
        this.killGroup('SIGTERM');
        if (!(await within(this.exited, this.graceMs))) {
          ending = 'SIGKILL';
          this.killGroup('SIGKILL');
        }
      }
    }
    await this.settle();
    return ending;
  }

  /** The grace period of this peer, in ms. */
  get grace(): number {
    return this.graceMs;
  }

  /** Waits for the process to be done (exit, then pipes closed), giving up after a grace period: never hangs. */
  private async settle(): Promise<void> {
    if (!(await within(this.done, this.graceMs + PIPE_DRAIN_MS))) this.finish();
  }

  /** Kills the group at once (no grace) and stops reading it: for a peer that already failed. */
  async kill(): Promise<void> {
    if (this.failure === undefined)
      this.failure = new ProcessError('closed', 'the process was killed by the harness', this.details());
    this.tellListener();
    this.killGroup('SIGKILL');
    await this.settle();
  }
}
