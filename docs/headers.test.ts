/**
 * Every tracked source file's header (its first comment block) is at most 20 lines: what the file
 * is and which invariants hold. Figures belong on the bench pages that measure them, history in
 * commit bodies (CONTRIBUTING.md). A source file is one of code or configuration in any of the
 * project's languages, or an extensionless script that starts with `#!` (such as .ci/run).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from './tools/quotedCommands.ts';

const MAX_HEADER_LINES = 20;
const SOURCE = /\.(ts|mts|cts|js|mjs|cjs|go|py|sh|yml|yaml|jsonc)$/;

/**
 * The number of lines of a file's header: after a `#!` line and blank lines, a `/* … *\/` block, a
 * Python docstring, or a run of `//` or `#` lines; 0 when the file opens with none. Pure.
 */
function headerLines(text: string): number {
  const lines = text.split('\n');
  let i = lines[0]?.startsWith('#!') ? 1 : 0;
  while (i < lines.length && lines[i]?.trim() === '') i += 1;
  const first = lines[i] ?? '';
  const closing = first.startsWith('/*') ? '*/' : /^("""|''')/.test(first) ? first.slice(0, 3) : undefined;
  if (closing !== undefined) {
    const rest = first.slice(first.startsWith('/*') ? 2 : 3);
    if (rest.includes(closing)) return 1;
    for (let j = i + 1; j < lines.length; j += 1) if (lines[j]?.includes(closing)) return j - i + 1;
    return lines.length - i;
  }
  const mark = first.startsWith('//') ? '//' : first.startsWith('#') ? '#' : undefined;
  if (mark === undefined) return 0;
  let j = i;
  while (j < lines.length && lines[j]?.startsWith(mark)) j += 1;
  return j - i;
}

/** The tracked files that hold source: by extension, or extensionless with a `#!` line. */
function sourceFiles(): string[] {
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: PROJECT_ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== '');
  return tracked.filter((f) => {
    if (SOURCE.test(f)) return true;
    if (/\.[^/]+$/.test(f.slice(f.lastIndexOf('/') + 1))) return false;
    return readFileSync(join(PROJECT_ROOT, f), 'utf8').startsWith('#!');
  });
}

describe('file headers', () => {
  it('counts a comment block, a docstring or a run of line comments, after a #! line', () => {
    expect(headerLines('/**\n * one\n * two\n */\nexport const x = 1;\n')).toBe(4);
    expect(headerLines('/** One line. */\nexport const x = 1;\n')).toBe(1);
    expect(headerLines('// a\n// b\n\n// c\nconst x = 1;\n')).toBe(2);
    expect(headerLines('#!/usr/bin/env bash\n# a\n# b\n# c\nset -e\n')).toBe(3);
    expect(headerLines('#!/usr/bin/env python3\n"""A store.\n\nMore.\n"""\nimport sys\n')).toBe(4);
    expect(headerLines('"""One line."""\nimport sys\n')).toBe(1);
    expect(headerLines('import { x } from "y";\n/** Not a header. */\n')).toBe(0);
  });

  it(`are at most ${MAX_HEADER_LINES} lines in every tracked source file`, () => {
    const files = sourceFiles();
    expect(files.length).toBeGreaterThan(500);
    expect(files).toContain('.ci/run');
    const over = files
      .map((f) => ({ f, n: headerLines(readFileSync(join(PROJECT_ROOT, f), 'utf8')) }))
      .filter(({ n }) => n > MAX_HEADER_LINES)
      .map(({ f, n }) => `${f}: ${n} header lines`);
    expect(over).toEqual([]);
  });
});
