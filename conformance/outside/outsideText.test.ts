/**
 * The escaping of text from outside: whatever an implementation, an artifact or a coverage file
 * says, it is printed and written as itself (visible escapes for what would act on a terminal,
 * Markdown or HTML), and ordinary text passes unchanged.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { htmlText, markdownCode, markdownText, outsideText, terminalBlock } from './outsideText.ts';

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
