/**
 * Which of the last lines of an implementation's stderr a ProcessError quotes. The last line alone
 * says what went wrong (`ValueError: boom`) but not where; a traceback says where in a line of its
 * own, above the last: Python's `File "store.py", line 42, in claim` (the innermost frame is the
 * last such line), Node's `at claim (/app/store.js:42:7)` and Go's `/app/store.go:42 +0x1d` (the
 * innermost frame is the first such line, runtime frames aside). The excerpt is that line, the one
 * after it (the source line or the function), and the last lines, in order, with `...` for a gap.
 *
 * Memory stays bounded where the lines are kept (peer.ts keeps the last STDERR_LINES_KEPT lines,
 * each cut to STDERR_LINE_BYTES_KEPT); this only chooses among them.
 */

/** Lines of stderr an excerpt holds at most, the location and its neighbour included. */
export const STDERR_EXCERPT_LINES = 6;

const PYTHON = /^\s*File "[^"]*", line \d+/;
// `at fn (file:line:col)` or `at file:line:col`, but not Node's own `node:internal/...` frames.
const NODE = /^\s*at (?:.*\()?(?!node:)[^()\s]+:\d+:\d+\)?\s*$/;
// `\t/app/store.go:42 +0x1d`, not the runtime's own files.
const GO = /^\s*(?!.*\/(?:runtime|src\/runtime)\/)\S+\.go:\d+\b/;

/** Where the innermost frame of a traceback in `lines` is, or -1 when there is none. Pure. */
export function tracebackLocation(lines: readonly string[]): number {
  for (let i = lines.length - 1; i >= 0; i--) if (PYTHON.test(lines[i] as string)) return i;
  const first = lines.findIndex((line) => NODE.test(line) || GO.test(line));
  return first;
}

/**
 * The lines of `lines` (the last lines of stderr, oldest first) a message quotes: the traceback's
 * innermost location and the line after it, then the last lines, at most `max` in all (the `...`
 * that marks lines left out between them included). Pure.
 */
export function stderrExcerpt(lines: readonly string[], max: number = STDERR_EXCERPT_LINES): string[] {
  const kept = lines.filter((line) => line.trim() !== '');
  if (kept.length <= max) return kept;
  const at = tracebackLocation(kept);
  if (at < 0 || at >= kept.length - max) return kept.slice(kept.length - max);
  const head = kept.slice(at, at + 2);
  const tail = kept.slice(Math.max(at + head.length, kept.length - (max - head.length - 1)));
  const gap = at + head.length < kept.length - tail.length ? ['...'] : [];
  return [...head, ...gap, ...tail];
}
