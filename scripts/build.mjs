// npm run build: compiles the package to dist/ (tsconfig.build.json) from a clean folder, so that
// no file of an earlier build is packed, then copies the files the code reads at run time beside
// the code that reads them (model/fixtures.ts reads model/fixtures/*.json), and lists what it
// wrote (dist/.files: each file's path and size).
//
// `--reuse` (the `prepack` script) keeps dist/ when it is such a build of exactly the sources there
// are now and holds exactly the files that build listed, same sizes; anything else is built again
// from a clean folder. npm packs a git install right after its `prepare` built dist/, so the
// package is compiled once, not twice, and `npm pack` in a built checkout does not remove the dist/
// that a running `jobcheck` may be loading.
//
// `--if-changed` (the `prepare` script) skips the build when dist/ was built from exactly the
// sources there are now. npm runs `prepare` when it installs the package from git (twice: once
// in the clone's own `npm install`, once before packing it) and on `npm ci` / `npm install` in a
// checkout; the first builds, the others find dist/ current and return at once. In a checkout
// nothing needs dist/ (bin/jobcheck.js runs the sources through tsx); building it there costs one
// compile on the first install and writes only the git-ignored dist/. `--is-current` builds
// nothing and says whether dist/ is current (exit 0, else 1); scripts/actionInstall.mjs imports
// the same test to tell a release's committed dist/ from none.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stamp = join(root, 'dist', '.sources-hash');

/** A hash of everything the build reads: the compiled folders (tests aside), the tsconfigs, this script. */
export function sourcesHash() {
  const hash = createHash('sha256');
  const add = (path) =>
    hash
      .update(path)
      .update('\0')
      .update(readFileSync(join(root, path)))
      .update('\0');
  const walk = (dir) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (!entry.name.includes('.test.')) add(path);
    }
  };
  for (const dir of ['contract', 'model', 'impl', 'conformance', 'cli']) walk(dir);
  for (const file of ['tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs']) add(file);
  return hash.digest('hex');
}

/** What `dist` holds: each file's path from it and size, a line each, sorted; the listing itself aside. */
export function distListing(dist) {
  const lines = [];
  const walk = (dir) => {
    for (const entry of readdirSync(join(dist, dir), { withFileTypes: true })) {
      const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (path !== '.files') lines.push(`${path} ${statSync(join(dist, path)).size}`);
    }
  };
  walk('');
  return `${lines.sort().join('\n')}\n`;
}

/** Whether `dist` is a build of the sources hashed `hash` as that build left it (its stamp and its listing). */
export function reusable(dist, hash) {
  const at = (name) => join(dist, name);
  return (
    existsSync(at('.sources-hash')) &&
    readFileSync(at('.sources-hash'), 'utf8') === hash &&
    existsSync(at('.files')) &&
    readFileSync(at('.files'), 'utf8') === distListing(dist)
  );
}

/** Whether dist/ was built from exactly the sources there are now. */
export const distIsCurrent = () => existsSync(stamp) && readFileSync(stamp, 'utf8') === sourcesHash();

// Run as a script (not imported by scripts/actionInstall.mjs): build, or answer --is-current.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) build();

function build() {
  if (process.argv.includes('--is-current')) {
    const current = distIsCurrent();
    console.log(current ? 'dist/ is current' : 'dist/ is missing or was built from other sources');
    process.exit(current ? 0 : 1);
  }
  const hash = sourcesHash();
  if (process.argv.includes('--if-changed') && existsSync(stamp) && readFileSync(stamp, 'utf8') === hash) {
    console.log('dist/ is current: not rebuilt');
    process.exit(0);
  }
  if (process.argv.includes('--reuse') && reusable(join(root, 'dist'), hash)) {
    console.log('dist/ is current and as its build left it: not rebuilt');
    process.exit(0);
  }
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
  cpSync(join(root, 'model/fixtures'), join(root, 'dist/model/fixtures'), { recursive: true });
  // The lab's page runs the model in the browser: bundle it here with vite (a devDependency), so an
  // installed package, which has no vite, can still write the page (cli/report/lab/labBundle.ts).
  const labOut = 'dist/cli/report/lab/lab-model.js';
  const lab = spawnSync(process.execPath, ['--import', 'tsx', 'cli/report/lab/buildLabBundle.ts', labOut], {
    cwd: root,
    stdio: 'inherit',
  });
  if (lab.status !== 0) process.exit(lab.status ?? 1);
  writeFileSync(stamp, hash);
  writeFileSync(join(root, 'dist', '.files'), distListing(join(root, 'dist')));
}
