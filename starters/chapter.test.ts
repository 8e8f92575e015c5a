/**
 * docs/10-your-first-implementation.md is executed, step by step, in a fresh copy of the starters,
 * so that the chapter cannot drift from the starter or from the check's output:
 * - a ```console block (the docs generator's convention: `$ command` lines, each followed by its
 *   output) is run in the copy and its output compared, durations aside, as docs/docs.test.ts
 *   compares the other chapters' outputs (that test also runs these blocks, in the project's root,
 *   on the unedited starter);
 * - `<!-- chapter:replace <file> -->` before a code block and `<!-- chapter:with -->` before the
 *   next one replace the first block's text, which must occur exactly once, by the second's in that
 *   file of the copy: the reader's edit;
 * - a ```console after-edit block is a console block that makes sense only after the edits above,
 *   so it runs here alone (the docs generator, which runs in the root, leaves it alone).
 * `JOBCHECK_UPDATE_CHAPTER=1` writes the outputs of this run into the chapter instead of comparing.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { normalizeOutput, splitWords, withoutMachineFigures } from '../docs/tools/quotedCommands.ts';

const ROOT = join(import.meta.dirname, '..');
const CHAPTER = join(ROOT, 'docs', '10-your-first-implementation.md');
const copy = mkdtempSync(join(tmpdir(), 'jobcheck-chapter-'));
afterAll(() => rmSync(copy, { recursive: true, force: true }));

/** A new user's shell: no colour, and no PYTHONUNBUFFERED, so the starter's own flushing is what counts. */
const { PYTHONUNBUFFERED: _unbuffered, ...userEnv } = process.env;
const ENV = { ...userEnv, NO_COLOR: '1', FORCE_COLOR: '0' };

/** One step of the chapter, in the order it appears. */
type Step =
  | { readonly kind: 'console'; readonly start: number; readonly end: number; readonly body: string }
  | { readonly kind: 'replace'; readonly file: string; readonly old: string; readonly new: string };

/** The chapter's steps, read from its Markdown. Pure. */
function steps(text: string): Step[] {
  const out: Step[] = [];
  const fence = /^(<!-- chapter:(replace ([^ ]+)|with) -->\n)?```([\w-]+)( after-edit)?\n([\s\S]*?)^```$/gm;
  let pending: { file: string; old: string } | undefined;
  for (const m of text.matchAll(fence)) {
    const body = m[6] ?? '';
    if (m[3] !== undefined) pending = { file: m[3], old: body };
    else if (m[2] === 'with') {
      if (pending === undefined) throw new Error('chapter:with without a chapter:replace before it');
      out.push({ kind: 'replace', file: pending.file, old: pending.old, new: body });
      pending = undefined;
    } else if (m[4] === 'console') {
      const start = (m.index ?? 0) + m[0].indexOf('\n') + 1;
      out.push({ kind: 'console', start, end: start + body.length, body });
    }
  }
  return out;
}

/** Runs one quoted command in the copy: `npx jobcheck` through this checkout's bin/jobcheck.js, anything else by the shell. */
function run(command: string): string {
  const words = splitWords(command);
  const result =
    words[0] === 'npx' && words[1] === 'jobcheck'
      ? spawnSync(process.execPath, [join(ROOT, 'bin', 'jobcheck.js'), ...words.slice(2)], { cwd: copy, env: ENV })
      : spawnSync(command, { cwd: copy, env: ENV, shell: true });
  return normalizeOutput(`${result.stdout.toString('utf8')}${result.stderr.toString('utf8')}`, copy);
}

describe('chapter 10, your first implementation', () => {
  it('runs as written: the first story, the edit, and the story after it', () => {
    cpSync(join(ROOT, 'starters', 'python'), join(copy, 'starters', 'python'), { recursive: true });
    const text = readFileSync(CHAPTER, 'utf8');
    const all = steps(text);
    expect(all.map((s) => s.kind)).toEqual(['console', 'replace', 'console']);
    let updated = '';
    let at = 0;
    for (const step of all) {
      if (step.kind === 'replace') {
        const path = join(copy, step.file);
        const source = readFileSync(path, 'utf8');
        expect(source.split(step.old).length - 1, `${step.file} holds the replaced lines once`).toBe(1);
        writeFileSync(path, source.replace(step.old, step.new));
        continue;
      }
      const commands = step.body.split('\n').filter((l) => l.startsWith('$ '));
      const fresh = commands.map((c) => `$ ${c.slice(2)}\n${run(c.slice(2))}`).join('\n');
      updated += `${text.slice(at, step.start)}${fresh}\n`;
      at = step.end;
      if (process.env['JOBCHECK_UPDATE_CHAPTER'] !== '1')
        expect(withoutMachineFigures(fresh)).toBe(withoutMachineFigures(step.body.trimEnd()));
    }
    if (process.env['JOBCHECK_UPDATE_CHAPTER'] === '1') writeFileSync(CHAPTER, updated + text.slice(at));
  }, 120_000);
});
