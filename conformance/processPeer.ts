/**
 * One child process and the line-by-line conversation with it: write a line, wait for the next
 * line of output, with a timeout. Failures (cannot start, exit, silence, an unsolicited line)
 * become ProcessErrors carrying the line that was sent and the tail of stderr.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { ProcessError } from './processError.ts';
import type { ProcessErrorCode, ProcessErrorDetails } from './processError.ts';

/** How a peer is started. */
export interface PeerOptions {
  /** Working directory of the command (default: the current one). */
  readonly cwd?: string;
  /** Receives every line the implementation writes on stderr. */
  readonly onStderr?: (line: string) => void;
}

const STDERR_TAIL = 20;
const END_GRACE_MS = 2_000;

interface Waiter {
  readonly resolve: (line: string) => void;
  readonly reject: (error: ProcessError) => void;
}

/** Every peer still alive, so that they can be killed if the harness exits without closing them. */
const living = new Set<ChildProcessWithoutNullStreams>();
process.once('exit', () => {
  for (const child of living) child.kill('SIGKILL');
});

/** A running child process speaking one line at a time. */
export class Peer {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly stderr: string[] = [];
  private readonly unsolicited: string[] = [];
  private waiter: Waiter | undefined;
  private failure: ProcessError | undefined;
  private linesSent = 0;
  private lastSent: string | undefined;
  private readonly closed: Promise<void>;
  private exit: { code: number | null; signal: string | null } | undefined;

  /** Starts `command` through the shell. Never throws: a start failure surfaces on the first request. */
  constructor(
    readonly command: string,
    options: PeerOptions = {},
  ) {
    this.child = spawn(command, { shell: true, cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    living.add(this.child);
    createInterface({ input: this.child.stdout, crlfDelay: Infinity }).on('line', (line) => this.onLine(line));
    createInterface({ input: this.child.stderr, crlfDelay: Infinity }).on('line', (line) => {
      this.stderr.push(line);
      if (this.stderr.length > STDERR_TAIL) this.stderr.shift();
      options.onStderr?.(line);
    });
    // EPIPE and friends: the process is gone; its 'close' event reports that, with the exit status.
    this.child.stdin.on('error', () => undefined);
    this.closed = new Promise((resolve) => {
      this.child.on('error', (error) => {
        living.delete(this.child);
        this.fail(new ProcessError('spawn_failed', `cannot start ${JSON.stringify(command)}: ${error.message}`, this.details({ cause: error })));
        resolve();
      });
      this.child.on('close', (code, signal) => {
        living.delete(this.child);
        this.exit = { code, signal };
        const how = signal === null ? `exit code ${code}` : `signal ${signal}`;
        this.fail(new ProcessError('process_exited', `the implementation ended (${how}) while a reply was awaited`, this.details({})));
        resolve();
      });
    });
  }

  /** True while the process runs and nothing has gone wrong in the conversation. */
  get healthy(): boolean {
    return this.failure === undefined && this.exit === undefined && this.unsolicited.length === 0;
  }

  /** Details for an error: the command, the last line sent, stderr's tail, the exit status. */
  details(extra: Partial<ProcessErrorDetails> = {}): ProcessErrorDetails {
    const d: { -readonly [K in keyof ProcessErrorDetails]: ProcessErrorDetails[K] } = { command: this.command, stderr: [...this.stderr] };
    if (this.lastSent !== undefined) {
      d.sent = this.lastSent;
      d.lineNumber = this.linesSent;
    }
    if (this.exit !== undefined) {
      d.exitCode = this.exit.code;
      d.signal = this.exit.signal;
    }
    return { ...d, ...extra };
  }

  /** A ProcessError about the line just sent (and the reply received, if any). */
  error(code: ProcessErrorCode, problem: string, received?: string): ProcessError {
    return new ProcessError(code, problem, this.details(received === undefined ? {} : { received }));
  }

  private onLine(line: string): void {
    const waiter = this.waiter;
    if (waiter === undefined) {
      this.unsolicited.push(line);
      return;
    }
    this.waiter = undefined;
    waiter.resolve(line);
  }

  /** Marks the peer failed and rejects the pending request, if any. The first failure is kept. */
  private fail(error: ProcessError): void {
    if (this.failure === undefined) this.failure = error;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.reject(this.failure);
  }

  /** Sends one line and waits for the next line of output; rejects with a ProcessError. */
  request(line: string, timeoutMs: number): Promise<string> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const extra = this.unsolicited.shift();
    if (extra !== undefined) {
      const error = new ProcessError('protocol_error', 'the implementation wrote a line nobody asked for', this.details({ received: extra }));
      this.fail(error);
      return Promise.reject(error);
    }
    this.linesSent += 1;
    this.lastSent = line;
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.fail(new ProcessError('timeout', `no reply within ${timeoutMs} ms; the process was killed`, this.details()));
        this.child.kill('SIGKILL');
      }, timeoutMs);
      this.waiter = {
        resolve: (reply) => {
          clearTimeout(timer);
          resolve(reply);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.child.stdin.write(`${line}\n`);
    });
  }

  /** Ends the process: closes its stdin, then asks (SIGTERM), finally forces (SIGKILL). Idempotent. */
  async end(): Promise<void> {
    if (this.failure === undefined) this.failure = new ProcessError('closed', 'the process was ended by the harness', this.details());
    this.child.stdin.end();
    if (await settlesWithin(this.closed, END_GRACE_MS)) return;
    this.child.kill('SIGTERM');
    if (await settlesWithin(this.closed, END_GRACE_MS)) return;
    this.child.kill('SIGKILL');
    await this.closed;
  }
}

function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void promise.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
