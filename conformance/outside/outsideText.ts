/**
 * Text from outside (an implementation's name, its replies and stderr, an artifact's fields, a
 * coverage file's sources) made safe to print or write. The harness does not trust it: a name with
 * a newline could print a line of its own (`verdict: AGREE`), an ESC could clear the terminal or
 * recolour the verdict, a right-to-left override could reverse what follows, and a Markdown or
 * HTML character could change the report's structure. One set of rules, used wherever such text
 * is shown: control characters become visible escapes (`\n`, `\x1b`, `\u202e`), never what they do.
 *
 * Deliberately free of imports: the error path of cli/main.ts and conformance/protocol/processError.ts
 * load it before anything else.
 */

/**
 * Characters that act rather than show: C0 controls and DEL, C1 controls (0x9b is a CSI on some
 * terminals), the line and paragraph separators, and the marks and overrides of bidirectional text.
 */
const ACTING = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** ACTING except the newline, for a block the harness lays out in lines itself. */
const ACTING_BUT_NEWLINE =
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** The visible escape of one acting character. Pure. */
function visible(ch: string): string {
  const named = NAMED[ch];
  if (named !== undefined) return named;
  const code = ch.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * Text from outside as one line that prints as itself: every control character, newline and
 * bidirectional mark replaced by a visible escape (`a\nverdict: AGREE`, `\x1b[2J`). Text with none
 * comes back unchanged (the same string). Pure.
 */
export function outsideText(text: string): string {
  ACTING.lastIndex = 0;
  return ACTING.test(text) ? text.replace(ACTING, visible) : text;
}

/**
 * A block the harness wrote, which may quote text from outside, made safe for a terminal: its
 * newlines are kept (they are the block's own layout) and every other control character is
 * escaped as outsideText does. Text from outside should be passed through outsideText where it is
 * put into the block; this is the guard for whatever was missed. Pure.
 */
export function terminalBlock(text: string): string {
  ACTING_BUT_NEWLINE.lastIndex = 0;
  return ACTING_BUT_NEWLINE.test(text) ? text.replace(ACTING_BUT_NEWLINE, visible) : text;
}

/**
 * Text from outside as Markdown inline text, inside a line the harness began (never at a line's
 * start, where `#`, `-` or `1.` would mean more), that renders as itself: one line (outsideText),
 * then a backslash before every character Markdown or a GFM table could read as syntax there:
 * emphasis, code, links and images, HTML, entities, strikethrough, table cells. Pure.
 */
export function markdownText(text: string): string {
  return outsideText(text).replace(/[\\`*_[\]<>|~&]/g, (ch) => `\\${ch}`);
}

/**
 * Text from outside as a Markdown code span (shown in monospace, as itself): one line
 * (outsideText), fenced by more backticks than it holds in a row, with `|` escaped so that a GFM
 * table cell does not end inside it. Pure.
 */
export function markdownCode(text: string): string {
  const line = outsideText(text).replace(/\|/g, '\\|');
  const longest = Math.max(0, ...(line.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = line.startsWith('`') || line.endsWith('`') || line === '' ? ' ' : '';
  return `${fence}${pad}${line}${pad}${fence}`;
}

/** Text from outside as HTML text or a double- or single-quoted attribute value: one line (outsideText), `& < > " '` as entities. Pure. */
export function htmlText(text: string): string {
  return outsideText(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
