/**
 * `npm run bench` entry point. The measurement needs `--expose-gc` (heap bytes per job, a clean
 * heap before each timed section) and a larger old space (a million-job store, its snapshot and
 * its JSON text are alive at once), which are Node flags, so this relaunches bench/main.ts under
 * them and passes the arguments through (`--quick` for a small run, `--write` to write the
 * report from a quick run too).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('./main.ts', import.meta.url));
const result = spawnSync(
  process.execPath,
  ['--expose-gc', '--max-old-space-size=8192', '--import', 'tsx', main, ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
