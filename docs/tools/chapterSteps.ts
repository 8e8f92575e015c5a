/**
 * A page followed the way a reader follows it, in a folder of its own: its steps, read from the
 * Markdown in order, then run one after the other there.
 * - A ```console block (tagged or not) holds `$ command` lines, each followed by its output: each
 *   command runs, and its output is compared with the page's, durations aside. Tags say where a
 *   block also runs: `slow` (docs/tools/quotedCommands.ts), `after-edit` (only after the edits
 *   above it, so never in the project's root), `in-a-project` (a step that only a project that
 *   installed the package needs, such as `jobcheck init`: a clone already holds what it writes).
 *   The docs generator, which runs commands in the project's root, runs only untagged and `slow` blocks.
 * - A ```sh block's lines are commands run without an output to compare (a `#` line is a comment).
 * - `<!-- chapter:replace <file> -->` before a code block and `<!-- chapter:with -->` before the next
 *   replace the first block's text, which must occur exactly once, by the second's in that file:
 *   the reader's edit.
 * starters/chapter.test.ts follows chapter 10 in a folder beside this checkout; cli/pack.test.ts
 * follows the README's "Start here" and chapters 4 and 10 in a project that installed the package.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { normalizeOutput, withoutMachineFigures } from './quotedCommands.ts';

/** One step of a page, in the order it appears. */
export type ChapterStep =
  | {
      readonly kind: 'console';
      readonly tags: readonly string[];
      /** Offsets of the block's body in the page. */
      readonly start: number;
      readonly end: number;
      readonly body: string;
      readonly commands: readonly string[];
    }
  | { readonly kind: 'shell'; readonly commands: readonly string[] }
  | { readonly kind: 'replace'; readonly file: string; readonly old: string; readonly new: string };

/** The steps of a page, read from its Markdown. Pure. */
export function chapterSteps(text: string): ChapterStep[] {
  const out: ChapterStep[] = [];
  const fence = /^(<!-- chapter:(replace ([^ ]+)|with) -->\n)?```([\w-]+)((?: [\w-]+)*)[ \t]*\n([\s\S]*?)^```[ \t]*$/gm;
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
      const commands = body
        .split('\n')
        .filter((l) => l.startsWith('$ '))
        .map((l) => l.slice(2).trim());
      const tags = (m[5] ?? '').split(' ').filter((t) => t !== '');
      out.push({ kind: 'console', tags, start, end: start + body.length, body, commands });
    } else if (m[4] === 'sh') {
      const commands = body
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '' && !l.startsWith('#'));
      out.push({ kind: 'shell', commands });
    }
  }
  return out;
}

/** What one command printed (stdout then stderr), and its exit code. */
export interface Ran {
  readonly output: string;
  readonly code: number | null;
}

/** One command of the page, run: what it printed (normalized) and, for a console block, what the page shows. */
export interface FollowedCommand {
  readonly command: string;
  readonly code: number | null;
  readonly output: string;
  /** The output the page shows under the command; undefined for a ```sh line. */
  readonly shown?: string;
}

/** A page followed: every command run, and the page with the outputs of this run in its console blocks. */
export interface Followed {
  readonly commands: readonly FollowedCommand[];
  readonly updated: string;
}

/** The output each `$ command` of a console block shows, in order. Pure. */
function shownOutputs(body: string): string[] {
  const outputs: string[][] = [];
  for (const line of body.trimEnd().split('\n')) {
    if (line.startsWith('$ ')) outputs.push([]);
    else outputs.at(-1)?.push(line);
  }
  return outputs.map((lines) => lines.join('\n'));
}

/**
 * Follows `text` in `folder`: every step in order, each command through `run` (which decides how
 * `npx --no-install jobcheck` is started), the reader's edits applied to the folder's files.
 * Throws when an edit's text is not in its file exactly once. Runs the commands.
 */
export function followChapter(text: string, folder: string, run: (command: string) => Ran): Followed {
  const commands: FollowedCommand[] = [];
  let updated = '';
  let at = 0;
  for (const step of chapterSteps(text)) {
    if (step.kind === 'replace') {
      const path = join(folder, step.file);
      const source = readFileSync(path, 'utf8');
      const count = source.split(step.old).length - 1;
      if (count !== 1) throw new Error(`${step.file} holds the replaced lines ${count} times, not once`);
      writeFileSync(path, source.replace(step.old, step.new));
      continue;
    }
    if (step.kind === 'shell') {
      for (const command of step.commands) {
        const ran = run(command);
        commands.push({ command, code: ran.code, output: normalizeOutput(ran.output, folder) });
      }
      continue;
    }
    const shown = shownOutputs(step.body);
    const fresh: string[] = [];
    for (const [i, command] of step.commands.entries()) {
      const ran = run(command);
      const output = normalizeOutput(ran.output, folder);
      commands.push({ command, code: ran.code, output, shown: shown[i] ?? '' });
      fresh.push(output === '' ? `$ ${command}` : `$ ${command}\n${output}`);
    }
    updated += `${text.slice(at, step.start)}${fresh.join('\n')}\n`;
    at = step.end;
  }
  return { commands, updated: updated + text.slice(at) };
}

/** The commands whose output differs from what the page shows, durations and store counts aside. Pure. */
export function differingOutputs(followed: Followed): FollowedCommand[] {
  return followed.commands.filter(
    (c) => c.shown !== undefined && withoutMachineFigures(c.output) !== withoutMachineFigures(c.shown),
  );
}
