#!/usr/bin/env node
// The `jobcheck` command. Which code it runs depends on where it sits:
// - in the installed package, which ships the compiled dist/ and no TypeScript sources
//   (package.json "files"), it runs dist/cli/main.js on plain node: no tsx, a quick start;
// - in the source checkout (cli/main.ts beside this folder) it registers tsx and runs the sources
//   as they are. Tests and the docs' console blocks start this file; running the sources means no
//   stale dist/ can ever answer for a change not yet built. The compiled path is held by
//   cli/pack.test.ts, which packs the package and runs it installed.
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The parent the command started under, read before the slow part of the start (tsx, the
// sources): cli/main.ts follows it (cli/followParent.ts), and a parent that is gone by the time
// main.ts runs must still count as gone.
globalThis[Symbol.for('jobcheck.parent')] = process.ppid;
// The processes above it, for the same reason (Linux /proc; none elsewhere): the wrappers among
// them, npm and its `sh -c`, are followed too. As cli/ancestry.ts's readAncestry reads them.
const ancestry = [];
for (let pid = process.ppid; pid > 1 && ancestry.length < 8; ) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    ancestry.push({ pid, stat, cmdline: readFileSync(`/proc/${pid}/cmdline`, 'latin1') });
    pid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    break;
  }
}
globalThis[Symbol.for('jobcheck.ancestry')] = ancestry;

// JOBCHECK_COMPILED_ROOT names a checkout whose dist/ was built from its sources in the same run
// (.ci/run sets it to its own checkout after `npm run prepare`): there the compiled code runs, as
// installed, without tsx's second of start-up; a copy anywhere else still runs its sources.
const realRoot = (path) => {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
};
const compiledRoot = process.env.JOBCHECK_COMPILED_ROOT;
const compiled =
  compiledRoot !== undefined &&
  realRoot(compiledRoot) === realRoot(fileURLToPath(new URL('..', import.meta.url))) &&
  existsSync(new URL('../dist/cli/main.js', import.meta.url));

if (!compiled && existsSync(new URL('../cli/main.ts', import.meta.url))) {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../cli/main.ts');
} else {
  await import('../dist/cli/main.js');
}
