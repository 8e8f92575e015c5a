/**
 * npm run bench:startup: how long `jobcheck --help` takes to start, compiled (as installed: bin/
 * beside dist/ and no sources, so bin/jobcheck.js takes dist/cli/main.js) against node itself
 * (`node -e 0`) and against the sources through tsx (bin/jobcheck.js in the checkout). Median
 * wall time of 15 runs each, written to docs/startup-bench.md. Needs `npm run build` first.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = 15;
if (!existsSync(join(ROOT, 'dist/cli/main.js'))) throw new Error('no dist/: run npm run build first');

// The installed layout: bin/jobcheck.js with dist/ beside it and no cli/main.ts.
const installed = mkdtempSync(join(tmpdir(), 'jobcheck-startup-'));
mkdirSync(join(installed, 'bin'));
copyFileSync(join(ROOT, 'bin/jobcheck.js'), join(installed, 'bin/jobcheck.js'));
copyFileSync(join(ROOT, 'package.json'), join(installed, 'package.json'));
symlinkSync(join(ROOT, 'dist'), join(installed, 'dist'));

/** Median wall time of `node ...args`, in ms, after one run to warm the file cache. */
function median(args: readonly string[]): number {
  const times: number[] = [];
  for (let i = 0; i <= RUNS; i++) {
    const started = performance.now();
    const r = spawnSync(process.execPath, args, { stdio: 'ignore' });
    if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited with ${r.status}`);
    if (i > 0) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? NaN;
}

const node = median(['-e', '0']);
const compiled = median([join(installed, 'bin/jobcheck.js'), '--help']);
const source = median([join(ROOT, 'bin/jobcheck.js'), '--help']);
rmSync(installed, { recursive: true, force: true });

const ms = (t: number): string => `${t.toFixed(0)} ms`;
const page = `# Startup of \`jobcheck --help\`

Made by \`npm run build && npm run bench:startup\` (bench/startup.ts): median wall time of ${RUNS} runs
each, node ${process.version}, on ${process.platform}/${process.arch}.

| command | median | against \`node -e 0\` |
| --- | --- | --- |
| \`node -e 0\` | ${ms(node)} | 1.00× |
| \`jobcheck --help\`, installed (dist/, compiled) | ${ms(compiled)} | ${(compiled / node).toFixed(2)}× |
| \`jobcheck --help\`, source checkout (tsx) | ${ms(source)} | ${(source / node).toFixed(2)}× |

The compiled command loads only cli/cli.ts, cli/errors.ts and the process table of
conformance/protocol/peer.ts before printing its usage: every command is imported when it is
run (cli/cli.ts), so \`--help\` and \`--version\` load neither the engine nor zod, fast-check or xstate.
In the source checkout bin/jobcheck.js runs the sources through tsx (see the comment there),
which pays for tsx's loader and for compiling each file on its first load.
`;
writeFileSync(join(ROOT, 'docs/startup-bench.md'), page);
process.stdout.write(page);
