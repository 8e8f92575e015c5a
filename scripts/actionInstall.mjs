// How the GitHub Action (action.yml) installs jobcheck in its own folder: only what a check needs,
// and once per version. Run with node before anything is installed, so it imports node's modules
// and scripts/build.mjs only.
//
//   node scripts/actionInstall.mjs plan              key=... and prebuilt=true|false, for $GITHUB_OUTPUT
//   node scripts/actionInstall.mjs install [--dry-run]   installs (or prints the commands it would run)
//
// A release tag holds dist/ built from its own sources (scripts/release.sh): then the install is
// the runtime dependencies alone (`npm ci --omit=dev --ignore-scripts`), no TypeScript, no build.
// Any other ref (a branch, a commit) has no dist/: the full lockfile is installed without install
// scripts (no native module is compiled), dist/ is built, and the development dependencies are
// pruned away. Either way the folder ends with the runtime dependencies and a current dist/, which
// the Action caches under the key: the platform, node's major version, the lockfile's hash and
// the sources' hash (the same hash dist/ is stamped with). Exits non-zero when an install fails or
// leaves dist/ not current.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { distIsCurrent, sourcesHash } from './build.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const npmFlags = ['--no-audit', '--no-fund', '--loglevel=error'];

/** Whether this folder holds a release's dist/, built from its sources, and the cache key of its install. Reads files. */
export function plan() {
  const prebuilt = distIsCurrent();
  const lock = createHash('sha256')
    .update(readFileSync(join(root, 'package-lock.json')))
    .digest('hex');
  const node = process.versions.node.split('.')[0];
  const key = [
    'jobcheck',
    `${process.platform}-${process.arch}`,
    `node${node}`,
    `lock-${lock.slice(0, 16)}`,
    `${prebuilt ? 'dist' : 'src'}-${sourcesHash().slice(0, 16)}`,
  ].join('-');
  return { key, prebuilt };
}

/** The commands that install what a check needs, for a folder with or without a release's dist/. Pure. */
export function installCommands(prebuilt) {
  if (prebuilt) return [['npm', 'ci', '--omit=dev', '--ignore-scripts', ...npmFlags]];
  return [
    ['npm', 'ci', '--ignore-scripts', ...npmFlags],
    [process.execPath, 'scripts/build.mjs'],
    ['npm', 'prune', '--omit=dev', '--ignore-scripts', ...npmFlags],
  ];
}

function main(argv) {
  const [command, ...flags] = argv;
  if (command === 'plan') {
    const { key, prebuilt } = plan();
    process.stdout.write(`key=${key}\nprebuilt=${prebuilt}\n`);
    return 0;
  }
  if (command !== 'install') {
    process.stderr.write('usage: node scripts/actionInstall.mjs plan | install [--dry-run]\n');
    return 2;
  }
  const { prebuilt } = plan();
  process.stderr.write(
    prebuilt
      ? 'jobcheck: a release with dist/ built: installing the runtime dependencies only\n'
      : 'jobcheck: no built dist/ (not a release tag): installing, building dist/, then removing the development dependencies\n',
  );
  for (const [file, ...args] of installCommands(prebuilt)) {
    process.stderr.write(`$ ${[file === process.execPath ? 'node' : file, ...args].join(' ')}\n`);
    if (flags.includes('--dry-run')) continue;
    const ran = spawnSync(file, args, { cwd: root, stdio: 'inherit' });
    if (ran.status !== 0) {
      process.stderr.write(`jobcheck: the install step failed (exit ${ran.status ?? ran.signal})\n`);
      return 1;
    }
  }
  if (!flags.includes('--dry-run') && !distIsCurrent()) {
    process.stderr.write('jobcheck: dist/ is not current after the install\n');
    return 1;
  }
  return 0;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1])
  process.exitCode = main(process.argv.slice(2));
