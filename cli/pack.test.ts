/**
 * The package as its users get it: `npm pack` (which builds dist/ through prepack), installed into
 * fresh projects, one ESM and one CommonJS, and used there the way the README says. This is the
 * only test of the compiled code: everything else runs the sources (bin/jobcheck.js runs them in
 * the checkout).
 *
 * Installs prefer npm's cache (`--prefer-offline`): `npm ci` has put every dependency's tarball
 * there, but not the registry metadata that `npm install` of a tarball resolves its dependencies
 * with, so an offline install fails on a machine whose cache started empty. Install scripts are
 * not run (`--ignore-scripts`): nothing here opens an SQLite store, and compiling better-sqlite3's
 * native module twice would take most of the test's time.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

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
): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Installs `packages` into `project`, from npm's cache where it has them, else from the registry. */
function install(project: string, packages: readonly string[]): void {
  execFileSync(
    NPM,
    ['install', ...packages, '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'],
    { cwd: project, stdio: 'pipe', timeout: 400_000 },
  );
}

/** A fresh project (`npm init -y`'s package.json, with "type": "module" for ESM) with the tarball installed. */
function project(name: string, type: 'module' | 'commonjs'): string {
  const path = join(dir, name);
  mkdirSync(path);
  writeFileSync(
    join(path, 'package.json'),
    `${JSON.stringify({ name, version: '1.0.0', private: true, ...(type === 'module' ? { type } : {}) }, null, 2)}\n`,
  );
  install(path, [join(dir, packed.filename)]);
  return path;
}

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
    expect(paths.filter((p) => /(^|\/)(bench|docs|scripts)\//.test(p) || p.includes('.test.'))).toEqual([]);
  });

  describe('installed into an ESM project', () => {
    let esm: string;
    beforeAll(() => {
      esm = project('esm', 'module');
    }, 420_000);

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
