/**
 * docs/10-your-first-implementation.md is followed, step by step, in an empty folder, so that the
 * chapter cannot drift from the starter, from `jobcheck init` or from the check's output: the
 * chapter's first step writes the starter there (`jobcheck init`, a ```console in-a-project block),
 * its console blocks run with their outputs compared, durations aside, and the reader's edit is
 * applied to the written starter (docs/tools/chapterSteps.ts says how a page is read). `npx
 * --no-install jobcheck` is this checkout's bin/jobcheck.js; cli/pack.test.ts follows the same
 * chapter in a project that installed the packed package. docs/docs.test.ts also runs the
 * untagged blocks, in the project's root, on the unedited starter there.
 * `JOBCHECK_UPDATE_CHAPTER=1` writes the outputs of this run into the chapter instead of comparing.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chapterSteps, differingOutputs, followChapter } from '../docs/tools/chapterSteps.ts';
import type { Ran } from '../docs/tools/chapterSteps.ts';
import { jobcheckArgs, splitWords } from '../docs/tools/quotedCommands.ts';

const ROOT = join(import.meta.dirname, '..');
const CHAPTER = join(ROOT, 'docs', '10-your-first-implementation.md');
const folder = mkdtempSync(join(tmpdir(), 'jobcheck-chapter-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A new user's shell: no colour, and no PYTHONUNBUFFERED, so the starter's own flushing is what counts. */
const { PYTHONUNBUFFERED: _unbuffered, ...userEnv } = process.env;
const ENV = { ...userEnv, NO_COLOR: '1', FORCE_COLOR: '0' };

/** Runs one command of the chapter in the folder: jobcheck through this checkout's bin/jobcheck.js, anything else by the shell. */
function run(command: string): Ran {
  const args = jobcheckArgs(splitWords(command));
  const result =
    args !== undefined
      ? spawnSync(process.execPath, [join(ROOT, 'bin', 'jobcheck.js'), ...args], { cwd: folder, env: ENV })
      : spawnSync(command, { cwd: folder, env: ENV, shell: true });
  return { output: `${result.stdout.toString('utf8')}${result.stderr.toString('utf8')}`, code: result.status };
}

describe('chapter 10, your first implementation', () => {
  it('runs as written in an empty folder: the starter written, the first story, the edit, and the story after it', () => {
    const text = readFileSync(CHAPTER, 'utf8');
    expect(
      chapterSteps(text).map((s) => (s.kind === 'console' ? `console ${s.tags.join(' ')}`.trim() : s.kind)),
    ).toEqual(['console in-a-project', 'shell', 'console', 'replace', 'console after-edit']);
    const followed = followChapter(text, folder, run);
    if (process.env['JOBCHECK_UPDATE_CHAPTER'] === '1') {
      writeFileSync(CHAPTER, followed.updated);
      return;
    }
    expect(differingOutputs(followed).map((c) => `$ ${c.command}\n${c.output}`)).toEqual([]);
    expect(followed.commands.map((c) => c.code)).toEqual([0, 0, 1, 1]);
    expect(readFileSync(join(folder, '.gitignore'), 'utf8')).toBe('.jobcheck/\n');
  }, 120_000);
});
