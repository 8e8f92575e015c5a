/**
 * The implementation's stderr, kept beside a run's page as `stderr.txt`: every line of every
 * process (the sequential stores' processes, the competing workers' one, a module's), each
 * prefixed with the process it came from, up to a cap; past the cap lines are counted, not kept,
 * and a last line says how many bytes were dropped. The file is written as lines arrive (a stream,
 * opened at the first line), so memory holds at most what the stream has not yet flushed, which
 * the cap bounds, whatever the implementation prints. The last lines are also kept, for the page.
 */
import { createWriteStream } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { outsideText } from '../../conformance/outside/outsideText.ts';

/** The name of the file in a run folder. */
export const STDERR_FILE = 'stderr.txt';
/** Bytes of stderr kept in the file (1 MiB); the rest is counted. */
export const STDERR_FILE_CAP_BYTES = 1024 * 1024;
/** Lines the page quotes from the end of stderr. */
export const STDERR_TAIL_LINES = 12;

/** What a closed StderrFile holds. */
export interface StderrSummary {
  /** Lines received, written or not. */
  readonly lines: number;
  /** Bytes written to the file, the note on dropped bytes excluded. */
  readonly bytesWritten: number;
  /** Bytes of lines that did not fit under the cap (and arrived after close). */
  readonly bytesDropped: number;
  /** The last lines received, oldest first, as written (with their process prefix). */
  readonly tail: readonly string[];
}

/** A bounded sink for the implementation's stderr lines, writing `file` (created only when a line arrives). */
export class StderrFile {
  private stream: WriteStream | undefined;
  private lines = 0;
  private written = 0;
  private dropped = 0;
  private closed = false;
  private readonly tail: string[] = [];

  constructor(
    readonly file: string,
    readonly capBytes: number = STDERR_FILE_CAP_BYTES,
  ) {}

  /** Takes one line (without its newline) of the process `source`; never throws. */
  line(source: string, text: string): void {
    // The file is read with cat and less too: the line is escaped as a terminal line (a CR or an ESC shown, not done).
    const entry = `[${source}] ${outsideText(text)}`;
    const bytes = Buffer.byteLength(entry) + 1;
    this.lines++;
    this.tail.push(entry);
    if (this.tail.length > STDERR_TAIL_LINES) this.tail.shift();
    if (this.closed || this.written + bytes > this.capBytes) {
      this.dropped += bytes;
      return;
    }
    this.written += bytes;
    this.open().write(`${entry}\n`);
  }

  private open(): WriteStream {
    if (this.stream === undefined) {
      // 'wx': a new file, never one already there (a link or a FIFO put in the run's new folder).
      this.stream = createWriteStream(this.file, { flags: 'wx' });
      // A file that cannot be written loses stderr, not the check: the page then has no stderr link.
      this.stream.on('error', () => undefined);
    }
    return this.stream;
  }

  /** What it has taken so far, without closing it (the file may not have all of it yet). */
  summary(): StderrSummary {
    return { lines: this.lines, bytesWritten: this.written, bytesDropped: this.dropped, tail: [...this.tail] };
  }

  /** Writes the note on dropped bytes, closes the file, and says what it holds. Lines after this are dropped. */
  async close(): Promise<StderrSummary> {
    if (!this.closed) {
      this.closed = true;
      if (this.dropped > 0)
        this.open().write(
          `... ${this.dropped} bytes of stderr dropped: the file keeps the first ${this.capBytes} bytes\n`,
        );
      const stream = this.stream;
      if (stream !== undefined) await new Promise<void>((resolve) => stream.end(resolve));
    }
    return this.summary();
  }
}
