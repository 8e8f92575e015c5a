/**
 * What real checks write, for the cases that feed it back to `merge` and `github`: the `--json`
 * result, coverage.json and the JUnit file of one check, made once per process by the real command
 * (in a folder removed when the process exits) and copied into each case's folder. A hand-made
 * result would test the schema against itself; these are the tool's own output.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const made = new Map<string, Promise<string>>();
let cache: string | undefined;

/** The checks made: the built-in store (agrees), a broken variant (diverges), and the peer calling itself by a 1 MB name. */
export type MadeCheck = 'builtin' | 'broken' | 'huge-name';

const targets = (python: string): Record<MadeCheck, readonly string[]> => ({
  builtin: ['--builtin'],
  broken: ['--broken', 'lease-one-tick-late'],
  'huge-name': ['--impl', `'${python}' -S conformance/hostile/peers/peer.py huge-name`],
});

/** The folder holding result.json, coverage.json and junit.xml of the check `which`, made at the first call. */
function madeCheck(which: MadeCheck, python: string): Promise<string> {
  const known = made.get(which);
  if (known !== undefined) return known;
  if (cache === undefined) {
    const folder = mkdtempSync(join(tmpdir(), 'jobcheck-hostile-made-'));
    cache = folder;
    process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
  }
  const dir = join(cache, which);
  const args = ['check', ...targets(python)[which], '--runs', '5', '--seed', '1', '--no-explore'];
  const report = ['--report', dir, '--junit', join(dir, 'junit.xml'), '--json'];
  // Made without blocking: the runner measures another run meanwhile. A diverging check exits 1 and still writes its result.
  const making = new Promise<string>((resolve) => {
    execFile(
      process.execPath,
      ['bin/jobcheck.js', ...args, ...report],
      { cwd: ROOT, maxBuffer: 64 << 20 },
      (_, stdout) => {
        writeFileSync(join(dir, 'result.json'), stdout);
        resolve(dir);
      },
    );
  });
  made.set(which, making);
  return making;
}

/** Copies the result, coverage and JUnit file of the check `which` into `to`, made if missing. */
export async function copyCheck(which: MadeCheck, python: string, to: string): Promise<void> {
  const from = await madeCheck(which, python);
  mkdirSync(to, { recursive: true });
  for (const file of ['result.json', 'coverage.json', 'junit.xml']) copyFileSync(join(from, file), join(to, file));
}
