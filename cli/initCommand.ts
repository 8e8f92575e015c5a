/**
 * `jobcheck init`: writes a starter (`--starter python|javascript|go`) or the Python example with
 * its broken variants and chapter 4's session (`--example python`) into the current project, copied
 * from the files the package ships, at the paths they have in a clone (`starters/python/`,
 * `examples/`), so that the docs' commands run there as written.
 *
 * Invariants: it never overwrites. Every destination is checked before the first write, and one
 * that exists stops the command with nothing written (`destination_exists`); each file is created
 * with the exclusive flag, so one that appears meanwhile is not overwritten either, and a write that
 * fails midway removes every file this run created. The folder named by --dir is taken as named (its
 * path may pass through links); every folder init chooses below it, or below the working folder
 * without --dir (`starters/python/`), must be a real folder, never a link out of the project. A
 * Markdown file's relative links are rewritten to reach the same files in the package from where
 * the file lands (node_modules/jobcheck/docs/...).
 */
import { lstat, readFile, rm, rmdir } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { CodedError } from '../contract/CodedError.ts';
import { makeInnerFolder, writeOutputFile } from '../conformance/outside/outputFile.ts';
import { outsideText } from '../conformance/outside/outsideText.ts';
import type { CliIO } from './args.ts';
import { parseCommandArgs } from './args.ts';
import { SetupError, UsageError } from './errors.ts';
import { outputError, prepareOutputDir } from './outputs.ts';
import { messageOf } from '../contract/index.ts';

/** Usage text of `jobcheck init`. */
export const INIT_USAGE = `Usage: jobcheck init (--starter python|javascript|go | --example python) [--dir DIR]

Writes files to start from into the current project, never over an existing file:
  --starter LANG   a starter in LANG that speaks the protocol and implements submit (chapter 10),
                   written to starters/LANG/
  --example python the complete Python store, its broken variants and chapter 4's session,
                   written to examples/
  --dir DIR        write into DIR instead
  -h, --help       show this text
`;

/** Stable codes of InitError. */
export type InitErrorCode = 'destination_exists' | 'source_missing';

/** `jobcheck init` could not write what was asked: a destination exists, or the package lacks a file it should ship. */
export class InitError extends CodedError<InitErrorCode> {
  override name = 'InitError' as const;
}

/** A set of files `init` can write: where they are in the package, where they go by default, and what to run next. */
export interface InitKit {
  readonly title: string;
  /** The folder in the package (a path from its root) that holds the files. */
  readonly from: string;
  /** The destination folder when --dir is not given. */
  readonly dir: string;
  /** The files, as paths under `from` (and under the destination). */
  readonly files: readonly string[];
  /** Files written from text, not copied: the Go starter's .gitignore, which npm never packs. */
  readonly texts?: Readonly<Record<string, string>>;
  /** The command to run next, given the destination folder as the user named it. Pure. */
  readonly next: (dir: string) => string;
}

/** The files of each starter and of the example. starters/kits.test.ts holds them to the tree. */
export const INIT_KITS = {
  'starter:python': {
    title: 'the Python starter',
    from: 'starters/python',
    dir: 'starters/python',
    files: ['jobstore.py', 'README.md'],
    next: (dir) =>
      `npx --no-install jobcheck check --impl ${shellWord(`python3 ${shellWord(`${dir}/jobstore.py`)}`)} --seed 1 --runs 20 --no-explore`,
  },
  'starter:javascript': {
    title: 'the JavaScript starter',
    from: 'starters/javascript',
    dir: 'starters/javascript',
    files: ['jobstore.mjs', 'README.md'],
    next: (dir) =>
      `npx --no-install jobcheck check --impl ${shellWord(`node ${shellWord(`${dir}/jobstore.mjs`)}`)} --seed 1 --runs 20 --no-explore`,
  },
  'starter:go': {
    title: 'the Go starter',
    from: 'starters/go',
    dir: 'starters/go',
    files: ['main.go', 'go.mod', 'README.md'],
    texts: { '.gitignore': 'jobstore\n' },
    next: (dir) =>
      `(cd ${shellWord(dir)} && go build -o jobstore .) && npx --no-install jobcheck check --impl ${shellWord(shellWord(`${dir}/jobstore`))} --seed 1 --runs 20 --no-explore`,
  },
  'example:python': {
    title: 'the Python example',
    from: 'examples',
    dir: 'examples',
    files: [
      'python/jobstore.py',
      'python/broken/commit_not_idempotent.py',
      'python/broken/concurrent_double_claim.py',
      'python/broken/lease_one_tick_late.py',
      'python/broken/race_capacity.py',
      'python/broken/race_double_effect.py',
      'python/broken/race_lane_order.py',
      'python/broken/race_stale_ack.py',
      'python/broken/restart_resets_tokens.py',
      'python/broken/restore_half_applied.py',
      'sessions/lost-ack.jsonl',
    ],
    next: (dir) =>
      `npx --no-install jobcheck check --impl ${shellWord(`python3 ${shellWord(`${dir}/python/jobstore.py`)}`)}`,
  },
} as const satisfies Record<string, InitKit>;

/** The name of a kit: `starter:python`, `example:python`, ... */
export type InitKitName = keyof typeof INIT_KITS;

/** A shell word: as it is when it needs no quoting, else in double quotes (or single quotes when it holds `"`, `$`, `` ` `` or `\`). Pure. */
export function shellWord(text: string): string {
  if (/^[\w./:@%+=,-]+$/.test(text)) return text;
  if (!/["$`\\]/.test(text)) return `"${text}"`;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

const flagsSchema = z
  .strictObject({
    starter: z.enum(['python', 'javascript', 'go'], { error: '--starter must be python, javascript or go' }).optional(),
    example: z.enum(['python'], { error: '--example must be python (the one example there is)' }).optional(),
    dir: z.string().min(1, '--dir needs a folder name').optional(),
    help: z.boolean().optional(),
  })
  .refine((f) => f.help === true || (f.starter === undefined) !== (f.example === undefined), {
    message: 'name one thing to write: --starter python|javascript|go or --example python',
  });

/** The flags of `jobcheck init`, read. */
export type InitFlags = z.output<typeof flagsSchema>;

/** Reads the flags of `jobcheck init`; throws UsageError naming the bad flag or value. Pure. */
export function readInitFlags(argv: readonly string[]): InitFlags {
  const { values } = parseCommandArgs(
    'init',
    argv,
    {
      starter: { type: 'string' },
      example: { type: 'string' },
      dir: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    false,
  );
  const parsed = flagsSchema.safeParse(values);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path[0];
    const given = typeof field === 'string' ? (values as Record<string, unknown>)[field] : undefined;
    const got = typeof given === 'string' ? ` (got ${JSON.stringify(outsideText(given.slice(0, 60)))})` : '';
    throw new UsageError(`init: ${issue?.message ?? 'bad flags'}${got} (see jobcheck init --help)`);
  }
  return parsed.data;
}

/** The package's root: the folder of its package.json, two folders up from the sources (cli/), three from the built code (dist/cli/). */
export function packageRoot(): string {
  for (const up of ['..', '../..']) {
    const root = fileURLToPath(new URL(up, import.meta.url));
    const file = join(root, 'package.json');
    if (existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === 'jobcheck')
      return root.replace(/[\\/]$/, '');
  }
  throw new InitError('source_missing', 'the jobcheck package root (its package.json) is not found beside this code');
}

/** One file to write: its destination and its bytes. */
interface Planned {
  readonly to: string;
  readonly shown: string;
  readonly bytes: Buffer;
}

/**
 * A Markdown text with each relative link (`](../../docs/x.md#y)`) rewritten to reach the same
 * file from `toDir`, the file's folder once written; `fromDir` is its folder in the package. Links
 * with a scheme, anchors alone, and targets that do not exist in the package are left as they are. Pure
 * apart from checking that targets exist.
 */
export function relinkMarkdown(text: string, fromDir: string, toDir: string): string {
  return text.replace(/\]\(([^)#\s]+)(#[^)\s]*)?\)/g, (whole, target: string, anchor: string | undefined) => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('/')) return whole;
    const absolute = resolve(fromDir, target);
    if (!existsSync(absolute)) return whole;
    const moved = relative(toDir, absolute).split(sep).join('/');
    return `](${moved}${anchor ?? ''})`;
  });
}

/** Reads every file of `kit` from the package and plans where it goes under `destination` (`dir` resolved); throws InitError for a file the package lacks. */
async function plan(kit: InitKit, root: string, dir: string, destination: string): Promise<Planned[]> {
  const planned: Planned[] = [];
  for (const file of kit.files) {
    const source = join(root, kit.from, file);
    let bytes: Buffer;
    try {
      bytes = await readFile(source);
    } catch (error) {
      throw new InitError('source_missing', `the package has no ${kit.from}/${file} (${messageOf(error)})`, {
        cause: error,
      });
    }
    const to = join(destination, file);
    if (file.endsWith('.md')) bytes = Buffer.from(relinkMarkdown(bytes.toString('utf8'), dirname(source), dirname(to)));
    planned.push({ to, shown: `${dir}/${file}`, bytes });
  }
  for (const [file, text] of Object.entries(kit.texts ?? {}))
    planned.push({ to: join(destination, file), shown: `${dir}/${file}`, bytes: Buffer.from(text) });
  return planned;
}

/**
 * The planned destinations that exist already (as anything: a file, a folder, a link). A path lstat
 * cannot look at (a name too long, a folder that cannot be searched) is not said to exist: the
 * writer refuses it with what is wrong.
 */
async function existing(planned: readonly Planned[]): Promise<string[]> {
  const found: string[] = [];
  for (const p of planned) {
    if (
      await lstat(p.to).then(
        () => true,
        () => false,
      )
    )
      found.push(p.shown);
  }
  return found;
}

/** The folders from `base` (left out) down to `dir`, the shallowest first: those init chooses. Pure. */
function foldersBelow(base: string, dir: string): string[] {
  const levels: string[] = [];
  let at = base;
  for (const part of relative(base, dir)
    .split(sep)
    .filter((p) => p !== '')) {
    at = join(at, part);
    levels.push(at);
  }
  return levels;
}

/** The folders above `file` that do not exist yet, the deepest first. */
async function missingFolders(file: string): Promise<string[]> {
  const missing: string[] = [];
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      await lstat(dir);
      break;
    } catch {
      missing.push(dir);
    }
  }
  return missing;
}

const errnoOf = (error: unknown): string | undefined =>
  (error as { code?: string }).code ?? ((error as { cause?: { code?: string } }).cause?.code as string | undefined);

/**
 * Writes every planned file, created exclusively through the project's one writer of outside paths
 * (conformance/outside/outputFile.ts: no link followed, no FIFO opened), in `base` (made as named
 * when `named`, else the working folder) and real folders below it; on any failure removes the
 * files it created and the folders it made for them, and throws a SetupError or an InitError.
 */
async function writeAll(planned: readonly Planned[], base: string, named: boolean): Promise<void> {
  const files: string[] = [];
  const folders: string[] = [];
  for (const p of planned) {
    try {
      folders.push(...(await missingFolders(p.to)));
      if (named) await prepareOutputDir('init', 'the folder', base);
      for (const folder of foldersBelow(base, dirname(p.to)))
        await makeInnerFolder(folder).catch((error: unknown) => {
          throw outputError('init', 'the folder', folder, error);
        });
      try {
        await writeOutputFile(p.to, p.bytes, { exclusive: true });
      } catch (error) {
        // Not ours to remove when it appeared meanwhile (EEXIST); else what was created goes.
        if (errnoOf(error) !== 'EEXIST') files.push(p.to);
        throw error;
      }
      files.push(p.to);
    } catch (error) {
      await Promise.all(files.map((f) => rm(f, { force: true })));
      // Deepest first: a folder is removed only once what this run put in it is gone (rmdir of a
      // folder that holds anything else fails, and it is kept).
      for (const folder of [...new Set(folders)].sort((a, b) => b.length - a.length))
        await rmdir(folder).catch(() => {});
      if (errnoOf(error) === 'EEXIST')
        throw new InitError(
          'destination_exists',
          `${outsideText(p.shown)} appeared while init was writing; nothing was kept`,
          {
            cause: error,
          },
        );
      if (error instanceof SetupError) throw error;
      throw outputError('init', 'the file', outsideText(p.shown), error);
    }
  }
}

/** Runs `jobcheck init`; returns the exit code. */
export async function initCommand(argv: readonly string[], io: CliIO): Promise<number> {
  const flags = readInitFlags(argv);
  if (flags.help === true) {
    io.stdout.write(INIT_USAGE);
    return 0;
  }
  const name: InitKitName =
    flags.starter !== undefined ? `starter:${flags.starter}` : `example:${flags.example ?? 'python'}`;
  const kit: InitKit = INIT_KITS[name];
  const dir = (flags.dir ?? kit.dir).replace(/[\\/]+$/, '') || '.';
  let base: string;
  try {
    base = flags.dir === undefined ? process.cwd() : resolve(dir);
  } catch (error) {
    throw new SetupError(`init: cannot find the working folder: ${messageOf(error)}`, { cause: error });
  }
  try {
    const planned = await plan(kit, packageRoot(), dir, resolve(base, flags.dir === undefined ? dir : '.'));
    const taken = await existing(planned);
    if (taken.length > 0)
      throw new InitError(
        'destination_exists',
        `${taken.map((t) => outsideText(t)).join(', ')} already ${taken.length === 1 ? 'exists' : 'exist'}; nothing was written (init never overwrites a file: move ${taken.length === 1 ? 'it' : 'them'} away, or name another folder with --dir)`,
      );
    await writeAll(planned, base, flags.dir !== undefined);
    io.stdout.write(`jobcheck init: wrote ${kit.title} into ${outsideText(dir)}/\n`);
    for (const p of planned) io.stdout.write(`  ${outsideText(p.shown)}\n`);
    io.stdout.write(`next: ${outsideText(kit.next(dir))}\n`);
    return 0;
  } catch (error) {
    if (error instanceof InitError) throw new SetupError(`init: ${error.message} (${error.code})`, { cause: error });
    throw error;
  }
}
