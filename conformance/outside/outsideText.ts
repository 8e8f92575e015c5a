/**
 * Text from outside (an implementation's name, replies and stderr, an artifact's or a result
 * file's fields, a story file, a coverage file's sources) made safe to print or write: the one
 * door per medium. Whoever wrote it may want jobcheck to say AGREE or to run their command: a
 * newline could print a line of its own (`verdict: AGREE`, `::error::` or `::add-mask::` for a
 * GitHub runner), an ESC could clear the terminal, a right-to-left override reverse what follows,
 * a Markdown, HTML, XML or EDN character change the document's structure. Every call site that
 * puts such text into output calls the function of its medium here; none escapes for itself.
 * Invariants: control characters become visible escapes (`\n`, `\x1b`, `\u202e`), never what they
 * do; no line of a medium begins with text from outside, so no workflow command (`::` at a line's
 * start, `##[` anywhere) comes from it; text with nothing to escape comes back unchanged.
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
/**
 * What a GitHub runner reads as a workflow command in a line of log: `::` at the line's start
 * (after white space), and the older `##[` anywhere in it. The `:` or `[` is shown as an escape.
 */
const COMMAND_START = /^(\s*):(?=:)/;
const OLD_COMMAND = /##\[/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** The visible escape of one acting character. Pure. */
function visible(ch: string): string {
  const named = NAMED[ch];
  if (named !== undefined) return named;
  const code = ch.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** A line no runner reads as a workflow command: a leading `::` and every `##[` escaped. Pure. */
function noCommand(line: string): string {
  return line.replace(COMMAND_START, '$1\\x3a').replace(OLD_COMMAND, '##\\x5b');
}

/**
 * Text from outside as one line that prints as itself: every control character, newline and
 * bidirectional mark replaced by a visible escape (`a\nverdict: AGREE`, `\x1b[2J`), and nothing a
 * CI runner would take for a workflow command. Text with none comes back unchanged (the same
 * string). Pure.
 */
export function outsideText(text: string): string {
  ACTING.lastIndex = 0;
  const line = ACTING.test(text) ? text.replace(ACTING, visible) : text;
  return noCommand(line);
}

/**
 * A block the harness wrote, which may quote text from outside, made safe for a terminal or a
 * log: its newlines are kept (they are the block's own layout), every other control character is
 * escaped as outsideText does, and no line is left that a CI runner would take for a workflow
 * command. Text from outside must be passed through outsideText where it is put into the block
 * (only that keeps it from starting a line); this is the guard for whatever was missed. Pure.
 */
export function terminalBlock(text: string): string {
  ACTING_BUT_NEWLINE.lastIndex = 0;
  const block = ACTING_BUT_NEWLINE.test(text) ? text.replace(ACTING_BUT_NEWLINE, visible) : text;
  return block.includes('::') || block.includes('##[') ? block.split('\n').map(noCommand).join('\n') : block;
}

/**
 * Lines from outside (a story read from a result file, which kept its own newlines) quoted in a
 * terminal block: each line escaped as outsideText does and put after `prefix`, so that every
 * line still begins with what the harness wrote. Pure.
 */
export function quotedLines(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => `${prefix}${outsideText(line)}`)
    .join('\n');
}

/**
 * A JSON value as JSON text (`JSON.stringify`, indented by `space`) that also prints as itself:
 * every character JSON leaves raw but a terminal acts on (DEL, C1 controls, line separators,
 * bidirectional marks) written as a `\uXXXX` escape, and so is the `[` of a `##[` (an old-style
 * workflow command). It parses back to the same value. Pure.
 */
export function jsonText(value: unknown, space?: number): string {
  const text = JSON.stringify(value, null, space) ?? 'null';
  // JSON.stringify escapes every C0 control inside strings: a newline left is the layout's own.
  ACTING_BUT_NEWLINE.lastIndex = 0;
  const shown = ACTING_BUT_NEWLINE.test(text)
    ? text.replace(ACTING_BUT_NEWLINE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : text;
  // `##[` can only be inside a string here: its `[` as an escape, so no runner reads a workflow command.
  return shown.includes('##[') ? shown.replace(OLD_COMMAND, '##\\u005b') : shown;
}

/** A JSON value as the content of a `<script>` element: jsonText with every `<` escaped, so nothing in it can end the element. Pure. */
export function scriptJson(value: unknown): string {
  return jsonText(value).replace(/</g, '\\u003c');
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

/**
 * A block of text as a fenced Markdown code block (```` ```text ````): its lines kept, escaped
 * as terminalBlock does, inside a fence longer than any run of backticks in it, so that no line
 * of it can end the block. Pure.
 */
export function markdownBlock(text: string): string {
  const body = terminalBlock(text);
  const longest = Math.max(2, ...(body.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${body}\n${fence}`;
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

/** A block of text as the content of a `<pre>`: its newlines kept (terminalBlock), each line as htmlText. Pure. */
export function htmlBlock(text: string): string {
  return terminalBlock(text)
    .split('\n')
    .map((line) => htmlText(line))
    .join('\n');
}

/** What XML 1.0 cannot hold even as a reference, once controls are escaped: unpaired surrogates and U+FFFE, U+FFFF. */
const NOT_XML = /[\uD800-\uDFFF\uFFFE\uFFFF]/gu;

const xmlEntities = (text: string): string =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');

/**
 * Text from outside as XML character data or a quoted attribute value: one line (outsideText:
 * no control character, which XML 1.0 cannot hold anyway), the five specials as entities, and what
 * XML cannot hold at all (an unpaired surrogate, U+FFFE, U+FFFF) dropped. Pure.
 */
export function xmlText(text: string): string {
  return xmlEntities(outsideText(text).replace(NOT_XML, ''));
}

/** A block of text as XML character data: its newlines kept (terminalBlock), the rest as xmlText. Pure. */
export function xmlBlock(text: string): string {
  return xmlEntities(terminalBlock(text).replace(NOT_XML, ''));
}

/**
 * A string as an EDN string literal that Clojure's reader reads back as the same string: `\\`,
 * `"` and the named controls escaped, every other acting character as `\uXXXX`. Pure.
 */
export function ednString(text: string): string {
  let out = '"';
  for (const c of text) {
    if (c === '\\') out += '\\\\';
    else if (c === '"') out += '\\"';
    else if (c === '\n') out += '\\n';
    else if (c === '\t') out += '\\t';
    else if (c === '\r') out += '\\r';
    else {
      ACTING.lastIndex = 0;
      out += ACTING.test(c) ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c;
    }
  }
  return `${out}"`;
}

/**
 * Text as the message of a GitHub workflow command (`::error file=...::message`): `%`, CR and LF
 * as GitHub's runner unescapes them (`%25`, `%0D`, `%0A`), so the command stays one line. Text
 * from outside goes through outsideText first; the newlines left are the harness's own. Pure.
 */
export function workflowData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Text as a property of a GitHub workflow command (`file=`, `title=`): outsideText, then workflowData, and `:` and `,` as `%3A`, `%2C`. Pure. */
export function workflowProperty(text: string): string {
  return workflowData(outsideText(text)).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
