/**
 * `jobcheck init` writes the starters and the Python example into a project: the same bytes as the
 * tree's (links of a README aside, which it points into the package), never over an existing file,
 * and nothing at all when it cannot write everything. Its kits are held to the tree (a file added
 * to a starter must be added to its kit) and to the package's file list (`npm pack --dry-run`),
 * and the chapters' `init` steps print what they show.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chapterSteps } from '../docs/tools/chapterSteps.ts';
import { jobcheckArgs, normalizeOutput, splitWords } from '../docs/tools/quotedCommands.ts';
import { INIT_KITS, relinkMarkdown, shellWord } from './initCommand.ts';
import { runCliCaptured } from './runCliCaptured.ts';

const ROOT = join(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'jobcheck-init-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let folders = 0;
const fresh = (): string => {
  folders += 1;
  const folder = join(work, `project-${folders}`);
  mkdirSync(folder);
  return folder;
};

/** Every file under `dir`, as paths relative to it, sorted. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else out.push(relative(dir, join(d, e.name)));
    }
  };
  walk(dir);
  return out.sort();
}

/** Runs `jobcheck init` as a process in `cwd` (the default destination is relative to it). */
function initIn(cwd: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'jobcheck.js'), 'init', ...args], { cwd, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('jobcheck init', () => {
  it("holds in each kit exactly the files of the tree's starter or example (tests and their helpers aside)", () => {
    for (const lang of ['python', 'javascript', 'go'] as const) {
      const kit = INIT_KITS[`starter:${lang}`];
      const texts = Object.keys((kit as { texts?: Record<string, string> }).texts ?? {});
      expect([...kit.files, ...texts].sort(), lang).toEqual(filesUnder(join(ROOT, kit.from)));
      for (const [file, text] of Object.entries((kit as { texts?: Record<string, string> }).texts ?? {}))
        expect(text, `${lang} ${file}`).toBe(readFileSync(join(ROOT, kit.from, file), 'utf8'));
    }
    const example = INIT_KITS['example:python'];
    expect([...example.files].sort()).toEqual(
      filesUnder(join(ROOT, 'examples')).filter(
        (f) => f.startsWith('sessions/') || /^python\/(broken\/)?[^/]+\.py$/.test(f),
      ),
    );
  });

  it('ships every file of every kit in the package (npm pack --dry-run)', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '--loglevel=error'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    const packed = new Set((JSON.parse(out) as [{ files: { path: string }[] }])[0].files.map((f) => f.path));
    for (const kit of Object.values(INIT_KITS))
      for (const file of kit.files) expect(packed.has(`${kit.from}/${file}`), `${kit.from}/${file}`).toBe(true);
    expect(
      [...packed].filter((p) => /^(starters|examples)\//.test(p) && (p.endsWith('.ts') || p.includes('.test.'))),
    ).toEqual([]);
  });

  it('writes the Python starter into starters/python/ of an empty project, the files as in the tree, and says what to run next', () => {
    const project = fresh();
    const r = initIn(project, '--starter', 'python');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      'jobcheck init: wrote the Python starter into starters/python/\n  starters/python/jobstore.py\n  starters/python/README.md\nnext: npx --no-install jobcheck check --impl "python3 starters/python/jobstore.py" --seed 1 --runs 20 --no-explore\n',
    );
    expect(filesUnder(project)).toEqual(['starters/python/README.md', 'starters/python/jobstore.py']);
    expect(readFileSync(join(project, 'starters/python/jobstore.py'))).toEqual(
      readFileSync(join(ROOT, 'starters/python/jobstore.py')),
    );
  });

  it("points every relative link of a written README at the package's file, which exists", async () => {
    const project = fresh();
    for (const lang of ['python', 'javascript', 'go'])
      expect((await runCliCaptured(['init', '--starter', lang, '--dir', join(project, 'starters', lang)])).code).toBe(
        0,
      );
    for (const lang of ['python', 'javascript', 'go']) {
      const readme = join(project, 'starters', lang, 'README.md');
      const links = [...readFileSync(readme, 'utf8').matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)].map((m) => m[1] ?? '');
      expect(links.length, lang).toBeGreaterThan(3);
      for (const link of links) expect(existsSync(join(dirname(readme), link)), `${lang}: ${link}`).toBe(true);
    }
    expect(readFileSync(join(project, 'starters/go/.gitignore'), 'utf8')).toBe('jobstore\n');
  });

  it('relinks only relative links to files that exist, keeping anchors, addresses and the rest', () => {
    const from = join(ROOT, 'starters', 'python');
    const text = '[a](../../docs/protocol.md#x) [b](https://example.org/y) [c](#z) [d](../../no/such.md)';
    expect(relinkMarkdown(text, from, join(ROOT, 'elsewhere', 'deeper', 'still'))).toBe(
      '[a](../../../docs/protocol.md#x) [b](https://example.org/y) [c](#z) [d](../../no/such.md)',
    );
  });

  it('writes nothing, and says which files are in the way, when one destination exists; the file there is untouched', async () => {
    const project = fresh();
    mkdirSync(join(project, 'examples', 'python', 'broken'), { recursive: true });
    writeFileSync(join(project, 'examples', 'python', 'broken', 'race_capacity.py'), 'mine\n');
    const r = await runCliCaptured(['init', '--example', 'python', '--dir', join(project, 'examples')]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^jobcheck: init: .*examples\/python\/broken\/race_capacity\.py already exists; nothing was written \(init never overwrites a file: .*\(destination_exists\)\n$/,
    );
    expect(filesUnder(project)).toEqual(['examples/python/broken/race_capacity.py']);
    expect(readFileSync(join(project, 'examples', 'python', 'broken', 'race_capacity.py'), 'utf8')).toBe('mine\n');
  });

  it('takes a link where a file would go for a file in the way, even one that points nowhere, and writes nothing through it', async () => {
    const project = fresh();
    mkdirSync(join(project, 'starters', 'python'), { recursive: true });
    symlinkSync(join(project, 'elsewhere.py'), join(project, 'starters', 'python', 'jobstore.py'));
    const r = await runCliCaptured(['init', '--starter', 'python', '--dir', join(project, 'starters', 'python')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/starters\/python\/jobstore\.py already exists; nothing was written/);
    expect(existsSync(join(project, 'elsewhere.py'))).toBe(false);
    expect(filesUnder(project)).toEqual(['starters/python/jobstore.py']);
  });

  it('writes nothing through a folder it chooses below --dir that is a link out of the project', async () => {
    const project = fresh();
    mkdirSync(join(project, 'examples'));
    mkdirSync(join(project, 'elsewhere'));
    symlinkSync(join(project, 'elsewhere'), join(project, 'examples', 'python'));
    const r = await runCliCaptured(['init', '--example', 'python', '--dir', join(project, 'examples')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^jobcheck: init: cannot write the folder .*examples\/python: it is a symbolic link/);
    expect(filesUnder(join(project, 'elsewhere'))).toEqual([]);
    expect(existsSync(join(project, 'examples', 'sessions'))).toBe(false);
  });

  it('says what is wrong with a name the file system cannot take, never that the file exists', async () => {
    const project = fresh();
    const r = await runCliCaptured(['init', '--starter', 'python', '--dir', join(project, 'n'.repeat(300))]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/ENAMETOOLONG/);
    expect(r.stderr).not.toMatch(/already exist/);
    expect(filesUnder(project)).toEqual([]);
  });

  it('removes what it wrote when a write fails midway: a folder it needs is a file', async () => {
    const project = fresh();
    mkdirSync(join(project, 'examples', 'python'), { recursive: true });
    writeFileSync(join(project, 'examples', 'python', 'broken'), 'a file where a folder should be\n');
    const r = await runCliCaptured(['init', '--example', 'python', '--dir', join(project, 'examples')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^jobcheck: init: cannot write the folder .*broken: it is a regular file, not a folder\n$/,
    );
    expect(filesUnder(project)).toEqual(['examples/python/broken']);
    expect(existsSync(join(project, 'examples', 'sessions'))).toBe(false);
  });

  it.each([
    [[], /init: name one thing to write: --starter python\|javascript\|go or --example python/],
    [['--starter', 'python', '--example', 'python'], /init: name one thing to write/],
    [['--starter', 'rust'], /init: --starter must be python, javascript or go \(got "rust"\)/],
    [['--example', 'ruby'], /init: --example must be python .*\(got "ruby"\)/],
    [['--starter', 'go', '--dir', ''], /init: --dir needs a folder name/],
    [['--starter'], /init: Option --starter <value> argument missing/],
    [['--stater', 'go'], /init: Unknown option --stater/],
  ])('refuses %j in one line naming the flag, and writes nothing', async (args, message) => {
    const r = await runCliCaptured(['init', ...(args as string[])]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message as RegExp);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('quotes a folder with a space or a quote in the command it suggests', () => {
    expect(shellWord('starters/python/jobstore.py')).toBe('starters/python/jobstore.py');
    expect(shellWord('python3 my store/jobstore.py')).toBe('"python3 my store/jobstore.py"');
    expect(shellWord(`a"b`)).toBe(`'a"b'`);
    expect(shellWord(`it's "x"`)).toBe(`'it'\\''s "x"'`);
  });

  it("prints what the chapters' init steps show (chapters 4 and 10, run in an empty folder)", () => {
    for (const chapter of ['04-validating-your-implementation.md', '10-your-first-implementation.md']) {
      const steps = chapterSteps(readFileSync(join(ROOT, 'docs', chapter), 'utf8')).filter(
        (s) => s.kind === 'console' && s.tags.includes('in-a-project'),
      );
      expect(steps.length, chapter).toBe(1);
      const step = steps[0];
      if (step?.kind !== 'console') continue;
      const project = fresh();
      const args = jobcheckArgs(splitWords(step.commands[0] ?? '')) ?? [];
      expect(args[0], chapter).toBe('init');
      const r = initIn(project, ...args.slice(1));
      expect(`$ ${step.commands[0]}\n${normalizeOutput(r.stdout + r.stderr, project)}`, chapter).toBe(
        step.body.trimEnd(),
      );
    }
  });
});
