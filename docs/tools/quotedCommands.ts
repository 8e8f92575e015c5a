/**
 * Commands quoted in the docs, executed so their outputs cannot rot. A ```console block holds
 * `$ command` lines, each followed by its output; the generator runs every command and rewrites the
 * output under it, and the docs test fails when the committed output differs.
 *
 * `jobcheck ...`, `npx jobcheck ...` and `npx --no-install jobcheck ...` (the docs' spelling: it
 * never installs a package of that name from a registry) run the command line in-process (cli/cli.ts,
 * the same code the `jobcheck` binary runs), so no second Node.js has to start; anything else (`npm run x`,
 * `python3 ...`, `cat ...`) runs through the shell in the project root, with node_modules/.bin on
 * the PATH. Outputs are made portable: colour codes are stripped and the project's own absolute
 * path is written as `.`.
 *
 * A block opened with ```console slow quotes commands too slow for every test run (a check of a
 * program in another language takes tens of seconds): `npm run docs` and the docs test run them
 * unless JOBCHECK_DOCS_FAST=1. Durations in outputs (`1.1 s`, `250 ms`) differ from run
 * to run and are ignored when outputs are compared.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../cli/cli.ts';
import { runDemo } from '../../cli/demo/index.ts';
import { messageOf } from '../../contract/index.ts';

/** The project root (the folder holding package.json). */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url)).replace(/[\\/]$/, '');

/** A quoted command that cannot be run; the message names the command and the document line. */
export class QuotedCommandError extends Error {
  override name = 'QuotedCommandError' as const;
  readonly code = 'unrunnable_command' as const;
}

/** What a quoted command printed (stdout and stderr interleaved as written) and its exit code. */
export interface CommandResult {
  readonly output: string;
  readonly code: number;
}

/** Splits a command line into words, honouring single and double quotes (no other shell syntax). Pure. */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (const ch of line) {
    if (quote !== null) {
      if (ch === quote) quote = null;
      else word += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (quote !== null) throw new QuotedCommandError(`unclosed ${quote} in ${JSON.stringify(line)}`);
  if (inWord) words.push(word);
  return words;
}

/** Output made portable and stable: no colour codes, no trailing spaces, the project path shown as `.`. Pure. */
export function normalizeOutput(text: string, root: string = PROJECT_ROOT): string {
  return text
    .replace(/\x1b\[[0-9;]*[A-Za-z]/g, '')
    .split(root)
    .join('.')
    .split('\n')
    .map((l) => l.replace(/\s+$/, ''))
    .join('\n')
    .replace(/\n+$/, '');
}

function spawnCollect(file: string, args: readonly string[], root: string, viaShell: boolean): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const env = {
      ...process.env,
      NO_COLOR: '1',
      FORCE_COLOR: '0',
      PATH: `${join(root, 'node_modules', '.bin')}${delimiter}${process.env['PATH'] ?? ''}`,
    };
    const child = spawn(file, args, {
      cwd: root,
      env,
      shell: viaShell,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 120_000,
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (output += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ output, code: code ?? (signal === null ? 0 : 128) }));
  });
}

async function runJobcheck(args: readonly string[], root: string): Promise<CommandResult> {
  let output = '';
  const sink = { write: (s: string) => (output += s) };
  if (args[0] === 'demo') {
    const code = await runDemo(args.slice(1), { stdin: Readable.from([]), stdout: sink, stderr: sink, isTTY: false });
    return { output, code };
  }
  // In-process runs resolve relative paths against the current folder, so they need to be in the root.
  if (process.cwd() !== root) {
    const main = join(root, 'cli', 'main.ts');
    if (!existsSync(main))
      throw new QuotedCommandError(`jobcheck ${args.join(' ')}: the CLI entry cli/main.ts does not exist`);
    return spawnCollect(process.execPath, ['--import', 'tsx', main, ...args], root, false);
  }
  const code = await runCli(args, { stdout: sink, stderr: sink, isTTY: false, stdin: Readable.from([]) });
  return { output, code };
}

/** npm's own banner before a script's output, so a quoted `npm run x` shows what the reader will see. */
function npmBanner(script: string, root: string): { banner: string; command: string } {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    scripts?: Record<string, string>;
  };
  const command = pkg.scripts?.[script];
  if (command === undefined) throw new QuotedCommandError(`npm run ${script}: package.json has no such script`);
  return { banner: `\n> ${pkg.name}@${pkg.version} ${script}\n> ${command}\n\n`, command };
}

/**
 * The arguments of a command line that runs jobcheck (`jobcheck …`, `npx jobcheck …`,
 * `npx --no-install jobcheck …`), or undefined for any other command. Pure.
 */
export function jobcheckArgs(words: readonly string[]): string[] | undefined {
  if (words[0] === 'jobcheck') return words.slice(1);
  if (words[0] !== 'npx') return undefined;
  const at = words[1] === '--no-install' ? 2 : 1;
  return words[at] === 'jobcheck' ? words.slice(at + 1) : undefined;
}

/** Runs one quoted command line in the project root and returns its normalized output and exit code. */
export async function runQuoted(line: string, root: string = PROJECT_ROOT): Promise<CommandResult> {
  const words = splitWords(line);
  const args = jobcheckArgs(words);
  let result: CommandResult;
  if (args !== undefined) result = await runJobcheck(args, root);
  else if (words[0] === 'npm' && words[1] === 'run' && words[2] !== undefined && !words[2].startsWith('-')) {
    const { banner, command } = npmBanner(words[2], root);
    const extra = words.slice(3);
    const rest = extra[0] === '--' ? extra.slice(1) : extra;
    const run = await spawnCollect(
      [command, ...rest.map((w) => `'${w.replace(/'/g, `'\\''`)}'`)].join(' '),
      [],
      root,
      true,
    );
    result = { output: banner + run.output, code: run.code };
  } else result = await spawnCollect(line, [], root, true);
  return { output: normalizeOutput(result.output, root), code: result.code };
}

/** One ```console block of a document: where it sits and the commands it quotes. */
export interface ConsoleBlock {
  /** Offsets of the block's body (after the opening fence line, before the closing fence). */
  readonly start: number;
  readonly end: number;
  readonly line: number;
  readonly commands: readonly string[];
  /** Opened with ```console slow: run by `npm run docs`, by the test only when asked. */
  readonly slow: boolean;
}

/** Every ```console block of a document, with the `$ ` commands it quotes. Pure. */
export function findConsoleBlocks(text: string): ConsoleBlock[] {
  const blocks: ConsoleBlock[] = [];
  const fence = /^```console( slow)?[ \t]*\n([\s\S]*?)^```[ \t]*$/gm;
  for (const m of text.matchAll(fence)) {
    const start = (m.index ?? 0) + m[0].indexOf('\n') + 1;
    const body = m[2] ?? '';
    const commands = body
      .split('\n')
      .filter((l) => l.startsWith('$ '))
      .map((l) => l.slice(2).trim());
    blocks.push({
      start,
      end: start + body.length,
      line: text.slice(0, m.index ?? 0).split('\n').length,
      commands,
      slow: m[1] !== undefined,
    });
  }
  return blocks;
}

/** Options of refreshConsoleBlocks. */
export interface RefreshOptions {
  readonly root?: string;
  /** Run the ```console slow blocks too (default true); when false they are left as they are. */
  readonly runSlow?: boolean;
}

/**
 * The document with every ```console block rewritten: each quoted command followed by the output
 * it prints now. A block without a `$ ` line is an error (nothing to run). Runs the commands.
 */
export async function refreshConsoleBlocks(
  text: string,
  doc = 'document',
  options: RefreshOptions = {},
): Promise<string> {
  const root = options.root ?? PROJECT_ROOT;
  let out = '';
  let at = 0;
  for (const block of findConsoleBlocks(text)) {
    if (block.commands.length === 0)
      throw new QuotedCommandError(`${doc}:${block.line}: console block quotes no "$ " command`);
    if (block.slow && options.runSlow === false) continue;
    const parts: string[] = [];
    for (const command of block.commands) {
      let result: CommandResult;
      try {
        result = await runQuoted(command, root);
      } catch (cause) {
        throw new QuotedCommandError(
          `${doc}:${block.line}: cannot run ${JSON.stringify(command)}: ${messageOf(cause)}`,
          { cause },
        );
      }
      parts.push(`$ ${command}`);
      if (result.output !== '') parts.push(result.output);
    }
    out += `${text.slice(at, block.start)}${parts.join('\n')}\n`;
    at = block.end;
  }
  return out + text.slice(at);
}

/**
 * A text with what depends on the machine and the moment replaced by placeholders, for comparing
 * outputs of two runs: durations (`1.1 s`, `250 ms`), and how many stores a check ran at once
 * (`2 stores at once`: by default one per core). Pure.
 */
export function withoutMachineFigures(text: string): string {
  return text
    .replace(/\b\d+(\.\d+)? ?(ms|s)\b/g, '<duration>')
    .replace(/\b\d+ stores? at once\b/g, '<n> stores at once');
}
