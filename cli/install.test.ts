/**
 * jobcheck installed the way a team without a registry installs it: `npm install git+file://…`
 * of a fresh clone, into an empty ESM project, then used through `npx jobcheck`. npm clones the
 * repository, installs its development dependencies there, runs `prepare` (the build,
 * scripts/build.mjs) and packs the result; the project gets the compiled package and its runtime
 * dependencies only, without the optional database drivers. That packed result is what `npm pack`
 * makes, which cli/pack.test.ts installs into ESM and CommonJS projects and uses there.
 *
 * The clone is made from the working tree as it is (tracked files and new ones that git does not
 * ignore, committed in a temporary repository), so that the test holds what is about to be
 * committed, not the last commit. Installs prefer npm's cache (`--prefer-offline`; cli/pack.test.ts
 * says why not `--offline`). Slow (a build and an install of the development dependencies): it
 * runs in the suite's slow part.
 *
 * The clone's development dependencies include better-sqlite3 (this repository's own tests use
 * it). Its install script fetches a prebuilt binary (prebuild-install) and compiles SQLite only
 * when it cannot, which takes minutes. A machine that reaches GitHub downloads it; this test
 * offers the same binary as a local prebuild, made from the one this checkout has, so that it
 * needs no network and compiles nothing. The project that installs jobcheck gets no driver.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const dir = mkdtempSync(join(tmpdir(), 'jobcheck-install-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** Runs `command` in `cwd`, returning its exit code and output; never throws. */
function run(
  cwd: string,
  command: string,
  args: readonly string[],
): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    timeout: 90_000,
    env: { ...process.env, npm_config_update_notifier: 'false', npm_config_offline: 'true' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A git repository holding the working tree's files (tracked, and new ones not ignored) in one commit. */
function cloneOfWorkingTree(): string {
  const repo = join(dir, 'jobcheck');
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  for (const file of new Set(listed.split('\0').filter((f) => f !== ''))) {
    const from = join(ROOT, file);
    if (!existsSync(from) || !lstatSync(from).isFile()) continue; // deleted in the tree, or a link
    mkdirSync(dirname(join(repo, file)), { recursive: true });
    copyFileSync(from, join(repo, file));
  }
  const git = (...args: string[]): void => {
    execFileSync('git', args, { cwd: repo, stdio: 'pipe' });
  };
  git('init', '--quiet');
  git('add', '--all');
  git('-c', 'user.name=jobcheck', '-c', 'user.email=jobcheck@localhost', 'commit', '--quiet', '-m', 'the working tree');
  return repo;
}

/**
 * A folder with better-sqlite3's binary as prebuild-install's download would name it, made from
 * this checkout's, for `npm_config_better_sqlite3_local_prebuilds`.
 */
function localPrebuilds(): string {
  const folder = join(dir, 'prebuilds');
  mkdirSync(folder);
  const driver = join(ROOT, 'node_modules/better-sqlite3');
  const { version } = JSON.parse(readFileSync(join(driver, 'package.json'), 'utf8')) as { version: string };
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  execFileSync('tar', ['-czf', join(folder, name), '-C', driver, 'build/Release/better_sqlite3.node']);
  return folder;
}

/** A fresh project (`"type": "module"` for ESM) with jobcheck installed from `url`. */
function project(name: string, type: 'module' | 'commonjs', url: string): string {
  const path = join(dir, name);
  mkdirSync(path);
  writeFileSync(
    join(path, 'package.json'),
    `${JSON.stringify({ name, version: '1.0.0', private: true, ...(type === 'module' ? { type } : {}) }, null, 2)}\n`,
  );
  execFileSync(NPM, ['install', url, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: path,
    stdio: 'pipe',
    timeout: 420_000,
    env: { ...process.env, npm_config_better_sqlite3_local_prebuilds: prebuilds, npm_config_update_notifier: 'false' },
  });
  return path;
}

let url: string;
let prebuilds: string;
beforeAll(() => {
  url = `git+file://${cloneOfWorkingTree()}`;
  prebuilds = localPrebuilds();
}, 60_000);

describe('installed from a git URL into an empty ESM project', () => {
  let path: string;
  beforeAll(() => {
    path = project('esm', 'module', url);
  }, 450_000);

  it('gets the built package with its runtime dependencies, and neither database driver', () => {
    expect(existsSync(join(path, 'node_modules/jobcheck/dist/cli/main.js'))).toBe(true);
    expect(existsSync(join(path, 'node_modules/jobcheck/LICENSE'))).toBe(true);
    expect(existsSync(join(path, 'node_modules/jobcheck/docs/cli.md'))).toBe(true);
    expect(existsSync(join(path, 'node_modules/better-sqlite3'))).toBe(false);
    expect(existsSync(join(path, 'node_modules/pg'))).toBe(false);
  });

  it('runs npx jobcheck --version', () => {
    const r = run(path, 'npx', ['--offline', 'jobcheck', '--version']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`jobcheck ${VERSION}\n`);
    expect(r.code).toBe(0);
  });

  it('writes the Python example with jobcheck init, and checks it with npx --no-install jobcheck check --impl', () => {
    const init = run(path, 'npx', ['--no-install', 'jobcheck', 'init', '--example', 'python']);
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    const r = run(path, 'npx', [
      '--no-install',
      'jobcheck',
      'check',
      '--impl',
      'python3 examples/python/jobstore.py',
      '--runs',
      '5',
      '--no-explore',
    ]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/verdict: AGREE with the model/);
    expect(r.code).toBe(0);
  });
});
