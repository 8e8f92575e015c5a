/**
 * Splits a byte stream into lines with a bound on how much of a line is ever held in memory.
 * Node's readline keeps a whole line however long it grows, so a peer writing 200 MB without a
 * newline costs 200 MB (and a 200 MB stderr line per request exhausted the heap); here a line
 * longer than the bound is reported once, the moment it crosses the bound, and only its first
 * `maxBytes` bytes are kept while the rest is counted and dropped until the newline.
 *
 * Lines are bytes: decoding is the caller's choice (strict UTF-8 for replies, lenient for logs).
 */

/** A line as received: its first bytes (at most the bound) and its full length in bytes. */
export interface SplitLine {
  /** The line's bytes without the newline, cut to the bound when it was longer. */
  readonly head: Buffer;
  /** The line's full length in bytes, newline excluded. */
  readonly bytes: number;
}

/** What a splitter reports. */
export interface LineSplitterEvents {
  /** A complete line (or the unterminated rest of the stream at its end). */
  readonly line: (line: SplitLine) => void;
  /** The line being read has just grown past the bound (called once per line, before `line`). */
  readonly overflow?: (bytesSoFar: number) => void;
}

/** A bounded line splitter; feed it chunks with `push`, and `end` when the stream ends. */
export class LineSplitter {
  private parts: Buffer[] = [];
  private kept = 0;
  private total = 0;
  private overflowed = false;

  constructor(
    private readonly maxBytes: number,
    private readonly events: LineSplitterEvents,
  ) {}

  /** Takes the next chunk of the stream. */
  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(10, start);
      this.take(chunk.subarray(start, newline === -1 ? chunk.length : newline));
      if (newline === -1) return;
      this.emit();
      start = newline + 1;
    }
  }

  /** The stream ended: an unterminated last line is reported as a line. */
  end(): void {
    if (this.total > 0 || this.parts.length > 0) this.emit();
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    this.total += piece.length;
    const room = this.maxBytes - this.kept;
    if (room > 0) {
      // A copy: a subarray would keep the whole chunk alive until the line ends.
      const keep = Buffer.from(piece.length <= room ? piece : piece.subarray(0, room));
      this.parts.push(keep);
      this.kept += keep.length;
    }
    if (!this.overflowed && this.total > this.maxBytes) {
      this.overflowed = true;
      this.events.overflow?.(this.total);
    }
  }

  private emit(): void {
    const head = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts, this.kept);
    const bytes = this.total;
    this.parts = [];
    this.kept = 0;
    this.total = 0;
    this.overflowed = false;
    this.events.line({ head, bytes });
  }
}

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenient = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/**
 * Decodes bytes as UTF-8, refusing invalid sequences (never replaced by U+FFFD); on failure says
 * at which byte the first invalid sequence starts. Pure.
 */
export function decodeStrictUtf8(
  bytes: Buffer,
): { readonly ok: true; readonly text: string } | { readonly ok: false; readonly offset: number } {
  try {
    return { ok: true, text: strict.decode(bytes) };
  } catch {
    return { ok: false, offset: firstInvalidUtf8(bytes) };
  }
}

/** The offset of the first byte that does not begin a valid UTF-8 sequence (bytes.length if none). Pure. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] as number;
    const need =
      b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
    if (need < 0) return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
    }
    // Overlong three- and four-byte forms, surrogates and values above U+10FFFF.
    const c1 = bytes[i + 1] ?? 0;
    if (
      (b === 0xe0 && c1 < 0xa0) ||
      (b === 0xed && c1 > 0x9f) ||
      (b === 0xf0 && c1 < 0x90) ||
      (b === 0xf4 && c1 > 0x8f)
    )
      return i;
    i += need + 1;
  }
  return bytes.length;
}

/** Decodes bytes as UTF-8, replacing invalid sequences: for logs, which are only shown. Pure. */
export const decodeLenientUtf8 = (bytes: Buffer): string => lenient.decode(bytes);
