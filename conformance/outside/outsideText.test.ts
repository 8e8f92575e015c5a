/**
 * The escaping of text from outside: whatever an implementation, an artifact or a coverage file
 * says, it is printed and written as itself (visible escapes for what would act on a terminal,
 * Markdown or HTML), and ordinary text passes unchanged. Each medium's door gets 10,000 hostile
 * strings and is read back by that medium's own reader where there is one (JSON.parse, parse5,
 * saxes, edn-data, GitHub's unescaping); cli/outsideTextOutputs.test.ts drives whole outputs.
 */
import { parseEDNString } from 'edn-data';
import fc from 'fast-check';
import { parseFragment } from 'parse5';
import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import {
  ednString,
  htmlBlock,
  htmlText,
  jsonText,
  markdownBlock,
  markdownCode,
  markdownText,
  outsideText,
  quotedLines,
  scriptJson,
  terminalBlock,
  workflowData,
  workflowProperty,
  xmlBlock,
  xmlText,
} from './outsideText.ts';

const HOSTILE = 'x\nverdict: AGREE\r\u001b[2J\u009b31m\u202edone\u2028\ttab\u0000';

describe('escaping text from outside', () => {
  it('turns every control character, line separator and bidirectional override into a visible escape on one line', () => {
    expect(outsideText(HOSTILE)).toBe('x\\nverdict: AGREE\\r\\x1b[2J\\x9b31m\\u202edone\\u2028\\ttab\\x00');
  });

  it('keeps the newlines of a block the harness laid out, and escapes every other control character in it', () => {
    expect(terminalBlock('line 1\nline 2 \u001b[2J\r')).toBe('line 1\nline 2 \\x1b[2J\\r');
  });

  it('returns ordinary text unchanged, accents, emoji and backslashes included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        const plain = text.replace(
          /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
          '',
        );
        expect(outsideText(plain)).toBe(plain);
        expect(terminalBlock(plain)).toBe(plain);
      }),
    );
    expect(outsideText('café ✓ C:\\jobs 🚀')).toBe('café ✓ C:\\jobs 🚀');
  });

  it('never lets a line break or an ESC through, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(outsideText(text)).not.toMatch(/[\n\r\u001b\u009b\u2028\u2029]/);
        expect(markdownText(text)).not.toMatch(/[\n\r\u001b]|(?<!\\)[|`<]/);
        expect(htmlText(text)).not.toMatch(/[<>"'\n\u001b]/);
      }),
    );
  });

  it('writes Markdown inline text and code spans that render as the text, table cells included', () => {
    expect(markdownText('a|b *c* `d` [e](f) <script> &amp; ~~g~~ _h_')).toBe(
      'a\\|b \\*c\\* \\`d\\` \\[e\\](f) \\<script\\> \\&amp; \\~\\~g\\~\\~ \\_h\\_',
    );
    expect(markdownCode('plain')).toBe('`plain`');
    expect(markdownCode('a`b|c')).toBe('``a`b\\|c``');
    expect(markdownCode('`x`')).toBe('`` `x` ``');
  });

  it('writes HTML text that is text, in elements and in quoted attributes', () => {
    expect(htmlText('<img src=x onerror="alert(1)"> & \'q\'\n')).toBe(
      '&lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; &#39;q&#39;\\n',
    );
  });
});

/** Pieces of hostile text: control characters, line breaks, workflow commands, bidi marks, markup of every medium. */
const PIECES = [
  '\n',
  '\r',
  '\t',
  '\u0000',
  '\u001b[2J',
  '\u009b',
  '\u0085',
  '\u202e',
  '\u2066',
  '\u2028',
  '\uFFFE',
  '\uD800',
  '🚀',
  '::error::x',
  '  ::add-mask::y',
  '::stop-commands::z',
  '##[error]x',
  'verdict: AGREE',
  '</script>',
  '<!--',
  '<b>',
  ']]>',
  '&amp;',
  '"',
  "'",
  '`',
  '```',
  '|',
  '\\',
  '{:a 1}',
  '#',
  ';',
  ',',
  ':',
  '%0A',
  '%25',
];
const hostile = fc
  .array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ unit: 'binary', maxLength: 4 })), { maxLength: 8 })
  .map((parts) => parts.join(''));
const RUNS = { numRuns: 10_000 };
/** Characters that act, the newline included. */
const ACTS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** A line a GitHub runner would read as a workflow command. */
const COMMAND = /^\s*::|##\[/;
/** What XML cannot hold: the doors drop it. */
const xmlOnly = (text: string): string => text.replace(/[\uD800-\uDFFF\uFFFE\uFFFF]/gu, '');

describe('each medium, 10,000 hostile strings', () => {
  it('terminal: one line of no acting character and no workflow command; a block keeps its own lines only', () => {
    fc.assert(
      fc.property(hostile, hostile, (a, b) => {
        const line = outsideText(a);
        expect(line).not.toMatch(ACTS);
        expect(line).not.toMatch(COMMAND);
        const block = terminalBlock(`jobcheck: ${outsideText(a)}\n  impl: ${outsideText(b)}`);
        expect(block.split('\n').map((l) => l.slice(0, 8))).toEqual(['jobcheck', '  impl: ']);
        for (const l of terminalBlock(`${a}\n${b}`).split('\n')) {
          expect(l).not.toMatch(COMMAND);
          expect(l).not.toMatch(ACTS);
        }
        const quoted = quotedLines(`${a}\n${b}`, '  | ').split('\n');
        expect(quoted.length).toBe(`${a}\n${b}`.split('\n').length);
        for (const l of quoted) expect(l.startsWith('  | ') && !ACTS.test(l) && !COMMAND.test(l)).toBe(true);
      }),
      RUNS,
    );
  });

  it('JSON: parses back to the value, with no acting character and no workflow command in its text', () => {
    fc.assert(
      fc.property(hostile, hostile, (a, b) => {
        const value = { [a]: [b, { k: a }], n: 1 };
        for (const text of [jsonText(value), jsonText(value, 2), scriptJson(value)]) {
          expect(JSON.parse(text)).toEqual(value);
          expect(text.replace(/\n/g, '')).not.toMatch(ACTS);
          expect(text).not.toContain('##[');
        }
        expect(scriptJson(value)).not.toContain('<');
      }),
      RUNS,
    );
  });

  it('HTML: text and attribute values parse back to the escaped line, with no element of their own', () => {
    fc.assert(
      fc.property(hostile, (a) => {
        type Node = { nodeName: string; attrs: Array<{ value: string }>; childNodes: Node[]; value?: string };
        const html = `<p title="${htmlText(a)}">${htmlText(a)}</p><pre>x${htmlBlock(a)}</pre>`;
        const nodes = parseFragment(html).childNodes as unknown as Node[];
        expect(nodes.map((n) => n.nodeName)).toEqual(['p', 'pre']);
        expect(nodes[0]?.attrs[0]?.value).toBe(outsideText(a));
        expect(nodes.map((n) => n.childNodes.map((c) => c.nodeName).join())).toEqual([
          outsideText(a) === '' ? '' : '#text',
          '#text',
        ]);
        expect(nodes[0]?.childNodes[0]?.value ?? '').toBe(outsideText(a));
        expect(nodes[1]?.childNodes[0]?.value).toBe(`x${terminalBlock(a).split('\n').map(outsideText).join('\n')}`);
      }),
      RUNS,
    );
  });

  it('XML: well-formed, attribute and text read back as the escaped text', () => {
    fc.assert(
      fc.property(hostile, (a) => {
        const parser = new SaxesParser();
        let attribute: string | undefined;
        let text = '';
        parser.on('opentag', (tag) => {
          attribute = tag.attributes['m'] as string;
        });
        parser.on('text', (t) => {
          text += t;
        });
        parser.on('error', (error) => {
          throw error;
        });
        parser.write(`<a m="${xmlText(a)}">${xmlBlock(a)}</a>`).close();
        expect(attribute).toBe(xmlOnly(outsideText(a)));
        expect(text).toBe(xmlOnly(terminalBlock(a)));
      }),
      RUNS,
    );
  });

  it('EDN: a string literal that reads back as the string, acting characters as escapes', () => {
    fc.assert(
      fc.property(hostile, (a) => {
        const literal = ednString(a);
        expect(literal).not.toMatch(ACTS);
        expect(parseEDNString(`[${literal}]`)).toEqual([a]);
      }),
      RUNS,
    );
  });

  it('Markdown: inline text and code on one line, and a block no line of which closes its fence', () => {
    fc.assert(
      fc.property(hostile, (a) => {
        for (const md of [markdownText(a), markdownCode(a)]) {
          expect(md).not.toMatch(ACTS);
          expect(md).not.toMatch(COMMAND);
        }
        expect(markdownText(a)).not.toMatch(/(?<!\\)[|`<>*_[\]]/);
        const block = markdownBlock(a).split('\n');
        const fence = (block[0] ?? '').replace(/text$/, '');
        expect(block.at(-1)).toBe(fence);
        for (const l of block.slice(1, -1)) {
          expect(l.trimStart().startsWith(fence)).toBe(false);
          expect(l).not.toMatch(ACTS);
          expect(l).not.toMatch(COMMAND);
        }
      }),
      RUNS,
    );
  });

  it('GitHub workflow commands: data and properties stay one line and unescape, as the runner does, to the text', () => {
    const unescaped = (s: string): string => s.replaceAll('%0D', '\r').replaceAll('%0A', '\n').replaceAll('%25', '%');
    fc.assert(
      fc.property(hostile, (a) => {
        const data = workflowData(a);
        expect(data).not.toMatch(/[\r\n]/);
        expect(unescaped(data)).toBe(a);
        const property = workflowProperty(a);
        expect(property).not.toMatch(/[\r\n:,]/);
        expect(unescaped(property.replaceAll('%3A', ':').replaceAll('%2C', ','))).toBe(outsideText(a));
      }),
      RUNS,
    );
  });
});
