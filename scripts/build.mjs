// npm run build (and prepack): compiles the package to dist/ (tsconfig.build.json) from a clean
// folder, so that no file of an earlier build is packed, then copies the files the code reads at
// run time beside the code that reads them (model/fixtures.ts reads model/fixtures/*.json).
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
cpSync(new URL('../model/fixtures', import.meta.url), new URL('../dist/model/fixtures', import.meta.url), {
  recursive: true,
});
