/**
 * cli/libraryWarnings.ts: a library's process warning is one line jobcheck writes, told once per
 * kind, in a real Node process whose stderr is read whole.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { warningLine } from './libraryWarnings.ts';

const MODULE = fileURLToPath(new URL('libraryWarnings.ts', import.meta.url));
const TSX = fileURLToPath(new URL('../node_modules/tsx/dist/loader.mjs', import.meta.url));

/** stderr of a Node process that installs the printer, then raises `warnings` (each: message, name, code). */
function stderrOf(warnings: readonly (readonly [string, string, string])[]): string {
  const script = [
    `const { tellLibraryWarnings } = await import(${JSON.stringify(MODULE)});`,
    'tellLibraryWarnings();',
    ...warnings.map(
      ([message, name, code]) =>
        `process.emitWarning(${JSON.stringify(message)}, { type: ${JSON.stringify(name)}, code: ${JSON.stringify(code)} });`,
    ),
    'await new Promise((resolve) => setTimeout(resolve, 50));',
  ].join('\n');
  const run = spawnSync(process.execPath, ['--import', TSX, '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(run.status).toBe(0);
  return run.stderr;
}

describe('library warnings', () => {
  it('tells a warning in one line of its own, the message escaped, never as Node prints it', () => {
    const err = stderrOf([['query while busy\njobcheck: verdict AGREE', 'DeprecationWarning', 'DEP0169']]);
    expect(err).toBe('jobcheck: a library in this process warned (DeprecationWarning DEP0169): query while busy\n');
    expect(err).not.toMatch(/\(node:\d+\)/);
  });

  it('tells each kind once, and another kind again', () => {
    const err = stderrOf([
      ['first', 'DeprecationWarning', 'DEP1'],
      ['again', 'DeprecationWarning', 'DEP1'],
      ['other', 'ExperimentalWarning', 'X1'],
    ]);
    expect(err.split('\n').filter((l) => l !== '')).toEqual([
      'jobcheck: a library in this process warned (DeprecationWarning DEP1): first',
      'jobcheck: a library in this process warned (ExperimentalWarning X1): other',
    ]);
  });

  it('escapes control characters in the name, code and message', () => {
    const w = Object.assign(new Error('a\x1b[2Jb'), { name: 'Warn\rX', code: 'C\x07' });
    const line = warningLine(w);
    expect(line.endsWith('\n')).toBe(true);
    expect([...line.slice(0, -1)].some((ch) => ch.charCodeAt(0) < 0x20)).toBe(false);
    expect(line.startsWith('jobcheck: a library in this process warned (')).toBe(true);
  });
});
