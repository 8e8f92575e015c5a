/**
 * How the Action decides what to install (scripts/actionInstall.mjs), in a copy of the sources:
 * a folder whose dist/ was built from its sources (a release tag) installs the runtime
 * dependencies only; one without dist/, or with a dist/ of other sources, installs everything,
 * builds and prunes. The cache key follows the lockfile and the sources. cli/github.test.ts runs
 * the real install from a release.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const copy = mkdtempSync(join(tmpdir(), 'jobcheck-action-install-'));
afterAll(() => rmSync(copy, { recursive: true, force: true }));
for (const path of [
  'contract',
  'model',
  'impl',
  'conformance',
  'cli',
  'scripts',
  'tsconfig.json',
  'tsconfig.build.json',
  'package-lock.json',
])
  cpSync(join(ROOT, path), join(copy, path), { recursive: true });

/** Runs `node scripts/actionInstall.mjs <args>` in the copy. */
function run(...args: string[]) {
  const r = spawnSync(process.execPath, ['scripts/actionInstall.mjs', ...args], { cwd: copy, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The plan's outputs, as `key=value` lines become. */
function plan(): Record<string, string> {
  const r = run('plan');
  expect(r.code).toBe(0);
  return Object.fromEntries(
    r.stdout
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

const hash = (): string =>
  execFileSync(
    process.execPath,
    ['--input-type=module', '-e', "console.log((await import('./scripts/build.mjs')).sourcesHash())"],
    {
      cwd: copy,
      encoding: 'utf8',
    },
  ).trim();

describe('the install the Action plans', () => {
  it('without dist/: everything from the lockfile without install scripts, the build, then the development dependencies pruned', () => {
    const p = plan();
    expect(p['prebuilt']).toBe('false');
    expect(p['key']).toMatch(
      new RegExp(
        `^jobcheck-${process.platform}-${process.arch}-node\\d+-lock-[0-9a-f]{16}-src-${hash().slice(0, 16)}$`,
      ),
    );
    const r = run('install', '--dry-run');
    expect(r.code).toBe(0);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('$ '))).toEqual([
      '$ npm ci --ignore-scripts --no-audit --no-fund --loglevel=error',
      '$ node scripts/build.mjs',
      '$ npm prune --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error',
    ]);
  });

  it('with a dist/ built from these sources (a release): the runtime dependencies only', () => {
    mkdirSync(join(copy, 'dist'), { recursive: true });
    writeFileSync(join(copy, 'dist', '.sources-hash'), hash());
    const p = plan();
    expect(p['prebuilt']).toBe('true');
    expect(p['key']).toContain(`-dist-${hash().slice(0, 16)}`);
    expect(
      run('install', '--dry-run')
        .stderr.split('\n')
        .filter((l) => l.startsWith('$ ')),
    ).toEqual(['$ npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error']);
  });

  it('with a dist/ of other sources: builds again, under another key; and a new lockfile changes the key', () => {
    const before = plan()['key'] ?? '';
    writeFileSync(join(copy, 'cli', 'added.ts'), 'export const added = 1;\n');
    const after = plan();
    expect(after['prebuilt']).toBe('false');
    expect(after['key']).not.toBe(before);
    writeFileSync(join(copy, 'package-lock.json'), '{}\n');
    expect(plan()['key']?.replace(/-src-.*/, '')).not.toBe(after['key']?.replace(/-src-.*/, ''));
  });

  it('refuses an unknown command', () => {
    expect(run('deploy')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'usage: node scripts/actionInstall.mjs plan | install [--dry-run]\n',
    });
  });
});
