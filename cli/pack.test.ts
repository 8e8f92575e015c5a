/**
 * The package as its users get it: `npm pack` (which builds dist/ through prepack), installed into
 * fresh projects, one ESM and one CommonJS, and used there the way the README says. This is the
 * only test of the compiled code: everything else runs the sources (bin/jobcheck.js runs them in
 * the checkout).
 *
 * The tarball is installed once, each project a copy of that install. The install prefers npm's
 * cache (`--prefer-offline`): `npm ci` has put every dependency's tarball there, but not the
 * registry metadata that `npm install` of a tarball resolves its dependencies with, so an offline
 * install fails on a machine whose cache started empty. Install scripts run,
 * as they do for a user: the install is protocol-only (the database drivers are optional peer
 * dependencies), and the test shows that it compiles nothing and that a store which needs a
 * missing driver says how to install it. The consumer's type-check runs with `skipLibCheck: false`
 * and without @types/pg or @types/better-sqlite3: the shipped declarations stand alone.
 *
 * The docs are followed there as a new user follows them: every command of the README's "Start
 * here" and of chapters 4 and 10, as written (`npx --no-install jobcheck`, through npm), each
 * page in a fresh copy of an empty project that installed the tarball, the chapters' outputs
 * compared with the pages' (docs/tools/chapterSteps.ts).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { differingOutputs, followChapter } from '../docs/tools/chapterSteps.ts';
import type { Ran } from '../docs/tools/chapterSteps.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const dir = mkdtempSync(join(tmpdir(), 'jobcheck-pack-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Packed {
  readonly filename: string;
  readonly entryCount: number;
  readonly size: number;
  readonly files: readonly { readonly path: string }[];
}
let packed: Packed;

/** Runs `command` in `cwd`, returning its exit code and output; never throws. */
function run(
  cwd: string,
  command: string,
  args: readonly string[],
  timeout = 60_000,
): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    timeout,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Installs `packages` into `project`, from npm's cache where it has them, else from the registry. */
function install(project: string, packages: readonly string[]): void {
  execFileSync(NPM, ['install', ...packages, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: project,
    stdio: 'pipe',
    timeout: 400_000,
  });
}

/** The project the tarball was installed into, once: every project of the file is a copy of it. */
let installed: string | undefined;

/**
 * A fresh project (`npm init -y`'s package.json, with "type": "module" for ESM) with the tarball
 * installed: a copy of one install into an empty project, renamed and typed. What npm installs
 * does not depend on the project's type, so one install serves the ESM and the CommonJS ones.
 */
function project(name: string, type: 'module' | 'commonjs'): string {
  if (installed === undefined) {
    const path = join(dir, 'installed');
    mkdirSync(path);
    writeFileSync(
      join(path, 'package.json'),
      `${JSON.stringify({ name: 'installed', version: '1.0.0', private: true }, null, 2)}\n`,
    );
    install(path, [join(dir, packed.filename)]);
    installed = path;
  }
  const path = join(dir, name);
  cpSync(installed, path, { recursive: true, verbatimSymlinks: true });
  const manifest = JSON.parse(readFileSync(join(path, 'package.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(
    join(path, 'package.json'),
    `${JSON.stringify({ ...manifest, name, ...(type === 'module' ? { type } : {}) }, null, 2)}\n`,
  );
  return path;
}

/**
 * What the installed project holds of the database drivers and of native code: the driver
 * packages, and every folder under node_modules with a `binding.gyp` (a native module's source)
 * or a `build/` beside a package.json (what node-gyp leaves).
 */
function nativeTrace(project: string): string[] {
  const found: string[] = [];
  for (const driver of ['better-sqlite3', 'pg', '@types/better-sqlite3', '@types/pg']) {
    if (existsSync(join(project, 'node_modules', driver))) found.push(`node_modules/${driver}`);
  }
  const walk = (folder: string): void => {
    const names = readdirSync(folder);
    if (names.includes('binding.gyp') || (names.includes('build') && names.includes('package.json')))
      found.push(folder.slice(project.length + 1));
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.isDirectory() && !entry.isSymbolicLink()) walk(join(folder, entry.name));
    }
  };
  walk(join(project, 'node_modules'));
  return found;
}

/**
 * Type-checks `source` in `project` with `skipLibCheck: false`: node's types are linked from this
 * checkout (as `npm install --save-dev @types/node` would place them), the drivers' are absent.
 */
function typeCheckStrict(project: string, source: string): { code: number | null; output: string } {
  const types = join(project, 'node_modules/@types');
  mkdirSync(types, { recursive: true });
  if (!existsSync(join(types, 'node'))) symlinkSync(join(ROOT, 'node_modules/@types/node'), join(types, 'node'));
  writeFileSync(join(project, 'strict.ts'), source);
  writeFileSync(
    join(project, 'tsconfig.strict.json'),
    `${JSON.stringify({
      compilerOptions: {
        strict: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        types: ['node'],
        skipLibCheck: false,
        noEmit: true,
      },
      files: ['strict.ts'],
    })}\n`,
  );
  // Every declaration file is checked: slower than the default config's check on a loaded machine.
  const r = run(project, process.execPath, [TSC, '-p', 'tsconfig.strict.json'], 240_000);
  return { code: r.code, output: r.stdout + r.stderr };
}

/** A valid store config, for opening a store. */
const CONFIG = { capacity: 4, maxAttempts: 3, leaseTicks: 5, backoffBase: 2, backoffCap: 8 };

beforeAll(() => {
  const out = execFileSync(NPM, ['pack', '--json', '--pack-destination', dir, '--loglevel=error'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 120_000,
  });
  // prepack's build writes its own lines before the JSON.
  packed = (JSON.parse(out.slice(out.indexOf('[\n'))) as Packed[])[0] as Packed;
}, 150_000);

describe('the packed package', () => {
  it('holds the compiled code and its declarations, and no TypeScript sources, tests or benches', () => {
    const paths = packed.files.map((f) => f.path);
    expect(paths).toContain('dist/conformance/index.js');
    expect(paths).toContain('dist/conformance/index.d.ts');
    expect(paths).toContain('dist/cli/main.js');
    expect(paths).toContain('bin/jobcheck.js');
    expect(paths.filter((p) => /\.ts$/.test(p) && !p.endsWith('.d.ts'))).toEqual([]);
    expect(paths.filter((p) => /(^|\/)(bench|scripts)\//.test(p) || p.includes('.test.'))).toEqual([]);
  });

  it('holds the LICENSE and the docs a user reads (the reference pages, the chapters, their images), not the docs tools', () => {
    const paths = packed.files.map((f) => f.path);
    expect(paths).toContain('LICENSE');
    for (const page of ['docs/cli.md', 'docs/protocol.md', 'docs/contract.md', 'docs/ci.md', 'docs/01-lifecycle.md']) {
      expect(paths).toContain(page);
    }
    expect(paths.filter((p) => p.startsWith('docs/images/')).length).toBeGreaterThan(0);
    expect(paths.filter((p) => p.startsWith('docs/') && !/\.(md|json|png|svg)$/.test(p))).toEqual([]);
    expect(paths.filter((p) => p.startsWith('docs/tools/') || p.startsWith('docs/sessions/'))).toEqual([]);
  });

  it('holds the README, the CHANGELOG, the starters and the Python example that jobcheck init writes, without their tests', () => {
    const paths = packed.files.map((f) => f.path);
    for (const file of [
      'README.md',
      'CHANGELOG.md',
      'starters/python/jobstore.py',
      'starters/javascript/jobstore.mjs',
      'starters/go/main.go',
      'examples/python/jobstore.py',
      'examples/python/broken/commit_not_idempotent.py',
      'examples/sessions/lost-ack.jsonl',
    ])
      expect(paths).toContain(file);
    expect(paths.filter((p) => /^(starters|examples)\//.test(p) && /\.ts$/.test(p))).toEqual([]);
  });

  describe('installed into an empty project, followed as the docs say', () => {
    let empty: string;
    beforeAll(() => {
      empty = project('docs', 'commonjs');
    }, 420_000);

    /** A new user's shell in `folder`: the command line as written, through the shell (npx and all). */
    const shell =
      (folder: string) =>
      (command: string): Ran => {
        const { PYTHONUNBUFFERED: _unbuffered, ...env } = process.env;
        const r = spawnSync(command, {
          cwd: folder,
          shell: true,
          encoding: 'utf8',
          timeout: 120_000,
          // Offline: a command that would fetch a package fails here instead of reaching a registry.
          env: {
            ...env,
            NO_COLOR: '1',
            FORCE_COLOR: '0',
            npm_config_update_notifier: 'false',
            npm_config_offline: 'true',
          },
        });
        return { output: `${r.stdout}${r.stderr}`, code: r.status };
      };

    /** A copy of the empty project, for one page. */
    const copyOf = (name: string): string => {
      const folder = join(dir, name);
      cpSync(empty, folder, { recursive: true, verbatimSymlinks: true });
      return folder;
    };

    it.each(['04-validating-your-implementation.md', '10-your-first-implementation.md'])(
      'runs every command of docs/%s, with the outputs the chapter shows',
      (chapter) => {
        const folder = copyOf(chapter.slice(0, 2));
        const followed = followChapter(readFileSync(join(ROOT, 'docs', chapter), 'utf8'), folder, shell(folder));
        expect(followed.commands.length).toBeGreaterThan(3);
        expect(followed.commands[0]?.command).toMatch(/^npx --no-install jobcheck init /);
        expect(differingOutputs(followed).map((c) => `$ ${c.command}\n${c.output}`)).toEqual([]);
        for (const c of followed.commands) expect([0, 1], `${c.command}\n${c.output}`).toContain(c.code);
        expect(readFileSync(join(folder, '.gitignore'), 'utf8')).toBe('.jobcheck/\n');
      },
      300_000,
    );

    it('runs every command of the README\'s "Start here": each ends in a pass, or in a story of what to build next', () => {
      const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
      const start = readme.slice(
        readme.indexOf('## Start here'),
        readme.indexOf('\n## ', readme.indexOf('## Start here') + 1),
      );
      const table = start
        .split('\n')
        .filter((l) => l.startsWith('| '))
        .join('\n');
      const commands = [...table.matchAll(/`(npx [^`]+)`/g)].map((m) => m[1] ?? '');
      expect(commands).toEqual([
        'npx --no-install jobcheck init --starter python',
        'npx --no-install jobcheck check --impl "python3 starters/python/jobstore.py"',
        'npx --no-install jobcheck lab',
      ]);
      const folder = copyOf('readme');
      for (const command of commands) {
        const r = shell(folder)(command);
        if (r.code !== 0) expect(r.output, command).toMatch(/^verdict: DIVERGE from the model/m);
        expect([0, 1], `${command}\n${r.output}`).toContain(r.code);
      }
      expect(existsSync(join(folder, '.jobcheck', 'lab', 'index.html'))).toBe(true);
    }, 300_000);

    it('stops, installing nothing, when npx --no-install jobcheck runs in a folder without jobcheck (offline here)', () => {
      const outside = join(dir, 'outside');
      mkdirSync(outside);
      const r = shell(outside)('npx --no-install jobcheck --version');
      expect(r.code).not.toBe(0);
      expect(r.output).not.toMatch(/^jobcheck \d/m);
      expect(existsSync(join(outside, 'node_modules'))).toBe(false);
    });
  });

  describe('installed into an ESM project', () => {
    let esm: string;
    beforeAll(() => {
      esm = project('esm', 'module');
    }, 420_000);

    it('installs for a protocol check only: no database driver, no native module, nothing compiled', () => {
      expect(nativeTrace(esm)).toEqual([]);
    });

    it('type-checks every entry point with skipLibCheck false and without the drivers or their types', () => {
      const r = typeCheckStrict(
        esm,
        `import { runCheck, sqliteFactory, type CheckResult } from 'jobcheck';
import type { AdapterFactory } from 'jobcheck/adapter';
import type { Reply } from 'jobcheck/contract';
import * as protocol from 'jobcheck/protocol';
import * as concurrent from 'jobcheck/concurrent';
import * as model from 'jobcheck/model';
import * as impl from 'jobcheck/impl';
import { DriverMissingError, openSqliteStore, type SqliteStore } from 'jobcheck/impl/sqlite';
import * as crash from 'jobcheck/crash';
import * as cli from 'jobcheck/cli';

export const check: (factory: AdapterFactory) => Promise<CheckResult> = (factory) => runCheck({ factory });
export const open = (path: string): SqliteStore => openSqliteStore(path, ${JSON.stringify(CONFIG)});
export const missing = (e: unknown): string | undefined => (e instanceof DriverMissingError ? e.driver : undefined);
export type AnyReply = Reply;
export const all = [sqliteFactory, protocol, concurrent, model, impl, crash, cli];
`,
      );
      expect(r.output).toBe('');
      expect(r.code).toBe(0);
    }, 300_000);

    it('opening a SQLite store without better-sqlite3 is DriverMissingError with the install command', () => {
      writeFileSync(
        join(esm, 'open.js'),
        `import { DriverMissingError, openSqliteStore } from 'jobcheck/impl/sqlite';
try {
  openSqliteStore('jobs.db', ${JSON.stringify(CONFIG)});
  console.log('opened');
} catch (e) {
  console.log(JSON.stringify({ typed: e instanceof DriverMissingError, name: e.name, code: e.code, message: e.message }));
}
`,
      );
      const r = run(esm, process.execPath, ['open.js']);
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toEqual({
        typed: true,
        name: 'DriverMissingError',
        code: 'driver_missing',
        message:
          'the SQLite store needs the package better-sqlite3, which is not installed: npm install better-sqlite3@12.11.1',
      });
      const served = run(esm, 'npx', ['--offline', 'jobcheck', 'serve', '--store', 'sqlite:jobs.db']);
      expect(served.stderr).toBe(
        'jobcheck: jobcheck serve --store sqlite:<file> needs the package better-sqlite3, which is not installed: npm install better-sqlite3@12.11.1\n',
      );
      expect(served.code).toBe(2);
      expect(existsSync(join(esm, 'jobs.db'))).toBe(false);
    });

    it('type-checks an import of runCheck from "jobcheck" under the strict tsconfig of tsc --init', () => {
      execFileSync(process.execPath, [TSC, '--init'], { cwd: esm, stdio: 'pipe' });
      writeFileSync(
        join(esm, 'index.ts'),
        `import { runCheck } from 'jobcheck';
import type { CheckResult } from 'jobcheck';
import type { AdapterFactory } from 'jobcheck/adapter';
import type { Reply } from 'jobcheck/contract';

export const check: (factory: AdapterFactory) => Promise<CheckResult> = (factory) => runCheck({ factory });
export type AnyReply = Reply;
// @ts-expect-error runCheck takes options, not a number: the declarations are real, not any
void runCheck(42);
`,
      );
      const r = run(esm, process.execPath, [TSC, '--noEmit', '-p', '.']);
      expect(r.stdout + r.stderr).toBe('');
      expect(r.code).toBe(0);
    });

    it('checks the Python example with npx jobcheck check --impl', () => {
      copyFileSync(join(ROOT, 'examples/python/jobstore.py'), join(esm, 'jobstore.py'));
      const r = run(esm, 'npx', [
        '--offline',
        'jobcheck',
        'check',
        '--impl',
        'python3 jobstore.py',
        '--runs',
        '20',
        '--no-explore',
      ]);
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(/verdict: AGREE with the model/);
      expect(r.code).toBe(0);
    });

    it('loads a .js --module adapter, and refuses a .ts one in one line that names tsx as the fix', () => {
      writeFileSync(
        join(esm, 'adapter.js'),
        `import { jobStoreFactory } from 'jobcheck';\nexport default jobStoreFactory();\n`,
      );
      writeFileSync(
        join(esm, 'adapter.ts'),
        `import { jobStoreFactory } from 'jobcheck';\nexport default jobStoreFactory();\n`,
      );
      const js = run(esm, 'npx', [
        '--offline',
        'jobcheck',
        'check',
        '--module',
        'adapter.js',
        '--runs',
        '20',
        '--no-explore',
      ]);
      expect(js.stdout).toMatch(/verdict: AGREE with the model/);
      expect(js.code).toBe(0);
      const ts = run(esm, 'npx', [
        '--offline',
        'jobcheck',
        'check',
        '--module',
        'adapter.ts',
        '--runs',
        '20',
        '--no-explore',
      ]);
      expect(ts.stderr).toMatch(
        /^jobcheck: check: cannot load module adapter\.ts: .*install tsx in its project \(npm install --save-dev tsx\) or compile the module to JavaScript\n$/,
      );
      expect(ts.code).toBe(2);
    });
  });

  describe('installed into a CommonJS project', () => {
    let cjs: string;
    beforeAll(() => {
      cjs = project('cjs', 'commonjs');
    }, 420_000);

    it('installs for a protocol check only, and type-checks with skipLibCheck false without the drivers', () => {
      expect(nativeTrace(cjs)).toEqual([]);
      const r = typeCheckStrict(
        cjs,
        `import type { AdapterFactory, CheckResult } from 'jobcheck';
import type { SqliteStore } from 'jobcheck/impl/sqlite';

export async function check(factory: AdapterFactory): Promise<CheckResult> {
  const { runCheck } = await import('jobcheck');
  return runCheck({ factory });
}
export type Store = SqliteStore;
`,
      );
      expect(r.output).toBe('');
      expect(r.code).toBe(0);
    }, 300_000);

    it('loads a .js --module adapter, and refuses a .ts one until tsx is installed, then loads it with tsx', () => {
      writeFileSync(
        join(cjs, 'adapter.js'),
        `module.exports = async (config) => (await import('jobcheck')).jobStoreFactory()(config);\n`,
      );
      writeFileSync(
        join(cjs, 'adapter.ts'),
        // Compiled to CommonJS by tsx: the import becomes require() of the ESM package, which node
        // 20.19 and later do.
        `import { jobStoreFactory } from 'jobcheck';\nimport type { AdapterFactory } from 'jobcheck/adapter';\nconst factory: AdapterFactory = jobStoreFactory();\nexport default factory;\n`,
      );
      const js = run(cjs, 'npx', [
        '--offline',
        'jobcheck',
        'check',
        '--module',
        'adapter.js',
        '--runs',
        '20',
        '--no-explore',
      ]);
      expect(js.stdout).toMatch(/verdict: AGREE with the model/);
      expect(js.code).toBe(0);
      const refused = run(cjs, 'npx', [
        '--offline',
        'jobcheck',
        'check',
        '--module',
        'adapter.ts',
        '--runs',
        '20',
        '--no-explore',
      ]);
      expect(refused.stderr).toMatch(/^jobcheck: check: cannot load module adapter\.ts: .*install tsx in its project/);
      expect(refused.code).toBe(2);
      // The project's own tsx, as `npm install --save-dev tsx` would place it (linked from this
      // checkout's, so that the test downloads nothing more).
      symlinkSync(join(ROOT, 'node_modules/tsx'), join(cjs, 'node_modules/tsx'));
      const ts = run(cjs, 'npx', [
        '--offline',
        'jobcheck',
        'check',
        '--module',
        'adapter.ts',
        '--runs',
        '20',
        '--no-explore',
      ]);
      expect(ts.stderr).toBe('');
      expect(ts.stdout).toMatch(/verdict: AGREE with the model/);
      expect(ts.code).toBe(0);
    }, 90_000);
  });
});
