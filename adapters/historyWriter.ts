/**
 * The writer every recorder shares: a `jobcheck-history/1` file (docs/history-format.md) written
 * while a team's workers run. `HistoryWriter.open` creates the file (never overwrites one) and
 * writes the header; `op` serialises one operation line into a buffer, which is appended to the
 * file when it passes `flushBytes` or every `flushMs`, one write at a time, so that a worker never
 * waits on the disk; `close` flushes and writes the end line that counts the lines before it.
 *
 * Invariants: a recorder never changes what its worker does, so the writer throws nothing after
 * `open`. A line it cannot keep (the disk refused a write, or more than `maxPendingBytes` wait for a
 * slow disk) is never dropped silently: the writer stops, keeps the `error`, and writes no end line,
 * so that the file reads as truncated and `jobcheck audit` answers INCONCLUSIVE, never PASS.
 * `recordCall` times one client call and records its outcome; it returns what the call returned and
 * rethrows what it threw, unchanged.
 */
import * as crypto from 'node:crypto';
import { closeSync, openSync, write } from 'node:fs';
import { hostname } from 'node:os';
import type { HistoryHeader, HistoryOp, HistoryOperationLine } from '../contract/history.ts';
import { HISTORY_FORMAT } from '../contract/history.ts';

/** Where and how a history is written. */
export interface HistoryWriterOptions {
  /** The file to create; an existing file is refused (`history_exists`). */
  readonly path: string;
  /** The queue or recorder, as the header names it (`nats-jetstream`, `rabbitmq`). */
  readonly source: string;
  /** The host every line names (default the machine's hostname). */
  readonly host?: string;
  readonly capacity?: number;
  readonly accountOrder?: boolean;
  /** Buffered bytes that start a write (default 64 KiB). */
  readonly flushBytes?: number;
  /** Longest a line waits in the buffer (default 200 ms). */
  readonly flushMs?: number;
  /** Most bytes waiting for the disk before the writer stops (default 64 MiB). */
  readonly maxPendingBytes?: number;
  /** The clock of every line (default `Date.now`: milliseconds since the epoch). */
  readonly now?: () => number;
}

/** The fields of an operation line a recorder fills in. */
export type OpFields = Omit<HistoryOperationLine, 'type' | 'id' | 'host'>;

/** A typed error of `HistoryWriter.open`. */
export class HistoryWriterError extends Error {
  override readonly name = 'HistoryWriterError' as const;
  constructor(
    readonly code: 'history_exists' | 'history_unwritable',
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** A history file being written. */
export class HistoryWriter {
  /** The clock of every line. */
  readonly now: () => number;
  /** Why the writer stopped keeping lines, if it did. */
  error: Error | undefined;
  private buffer: string[] = [];
  private bufferBytes = 0;
  private pendingBytes = 0;
  private lines = 0;
  private nextId = 0;
  private writing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly prefix = crypto.randomBytes(3).toString('hex');
  private readonly host: string;
  private readonly flushBytes: number;
  private readonly maxPendingBytes: number;

  private constructor(
    private readonly fd: number,
    options: HistoryWriterOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.host = options.host ?? hostname();
    this.flushBytes = options.flushBytes ?? 65_536;
    this.maxPendingBytes = options.maxPendingBytes ?? 64 * 2 ** 20;
    this.timer = setInterval(() => this.flush(), options.flushMs ?? 200);
    this.timer.unref();
  }

  /** Creates the file and writes its header. Throws HistoryWriterError. */
  static open(options: HistoryWriterOptions): HistoryWriter {
    let fd: number;
    try {
      fd = openSync(options.path, 'wx');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code === 'EEXIST' ? 'history_exists' : 'history_unwritable';
      throw new HistoryWriterError(
        code,
        `cannot create the history ${JSON.stringify(options.path)}: ${String(error)}`,
        {
          cause: error,
        },
      );
    }
    const writer = new HistoryWriter(fd, options);
    const header: HistoryHeader = { type: 'header', format: HISTORY_FORMAT, source: options.source };
    if (options.capacity !== undefined) header.capacity = options.capacity;
    if (options.accountOrder !== undefined) header.accountOrder = options.accountOrder;
    writer.push(header);
    return writer;
  }

  /** A fresh operation id, unique in this file and, by its random prefix, across files. */
  id(worker: string): string {
    this.nextId += 1;
    return `${worker}-${this.prefix}-${this.nextId}`;
  }

  /** Records one operation (both times and its outcome) in one line; never throws. */
  op(fields: OpFields): void {
    const line: HistoryOperationLine = { type: 'op', id: this.id(fields.worker ?? 'w'), ...fields, host: this.host };
    this.push(line);
  }

  private push(line: object): void {
    if (this.closed || this.error !== undefined) return;
    const text = `${JSON.stringify(line)}\n`;
    this.buffer.push(text);
    this.bufferBytes += text.length;
    this.lines += 1;
    if (this.bufferBytes >= this.flushBytes) this.flush();
  }

  /** Hands the buffer to the disk (one write at a time); resolves when it is written. Never rejects. */
  flush(): Promise<void> {
    if (this.buffer.length === 0 || this.error !== undefined) return this.writing;
    const text = this.buffer.join('');
    this.buffer = [];
    this.bufferBytes = 0;
    this.pendingBytes += text.length;
    if (this.pendingBytes > this.maxPendingBytes) {
      this.error = new Error(`more than ${this.maxPendingBytes} bytes of history wait for the disk: recording stopped`);
      return this.writing;
    }
    const data = Buffer.from(text, 'utf8');
    this.writing = this.writing.then(
      () =>
        new Promise<void>((resolve) => {
          const rest = (from: number): void =>
            write(this.fd, data, from, data.length - from, null, (error, n) => {
              if (error !== null) this.error ??= error;
              else if (from + n < data.length) return rest(from + n);
              this.pendingBytes -= text.length;
              resolve();
            });
          rest(0);
        }),
    );
    return this.writing;
  }

  /** Flushes, writes the end line (unless a line was lost) and closes the file. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return this.writing;
    if (this.timer !== undefined) clearInterval(this.timer);
    if (this.error === undefined) this.push({ type: 'end', lines: this.lines });
    this.closed = true;
    await this.flush();
    closeSync(this.fd);
  }

  /**
   * Runs `call`, timed, and records it: `result` turns what it returned into the line's outcome
   * and fields, `failed` what it threw. Returns the call's value, rethrows its error unchanged.
   */
  async recordCall<T>(
    base: { readonly op: HistoryOp; readonly worker: string } & Partial<OpFields>,
    call: () => Promise<T>,
    result: (value: T) => Partial<OpFields>,
    failed: (error: unknown) => string,
  ): Promise<T> {
    const invokedAt = this.now();
    let value: T;
    try {
      value = await call();
    } catch (error) {
      let outcome = 'unknown';
      try {
        outcome = failed(error);
      } catch {
        // A recorder's own mistake never reaches the worker: the outcome stays unknown.
      }
      this.op({ ...base, invokedAt, returnedAt: this.now(), outcome });
      throw error;
    }
    const returnedAt = this.now();
    let fields: Partial<OpFields> = {};
    try {
      fields = result(value);
    } catch {
      // As above: fields the recorder cannot compute are left out.
    }
    this.op({ outcome: 'ok', ...base, invokedAt, returnedAt, ...fields });
    return value;
  }
}

/** A short hash of a payload (sha-256, 16 hex digits): its identity for the audit's conflict check. Pure. */
export function payloadHash(data: Uint8Array | string): string {
  // The one-shot `crypto.hash` (Node 20.12) costs a third of a Hash object; older Node has none.
  const oneShot = (crypto as { hash?: (algorithm: string, data: Uint8Array | string) => string }).hash;
  return (
    oneShot === undefined ? crypto.createHash('sha256').update(data).digest('hex') : oneShot('sha256', data)
  ).slice(0, 16);
}

/** The outcome code of an error's own word (`ETIMEDOUT` → `etimedout`), or `unknown`. Pure. */
export function outcomeCode(word: string | number | undefined): string {
  const code = String(word ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^[^a-z]+/, '')
    .slice(0, 64);
  return code === '' || code === 'ok' ? 'unknown' : code;
}
