import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import config, { SLOW_IN_PAIRS, SLOW_TESTS } from './vitest.config.ts';

/**
 * The two parts of the suite (vitest.config.ts) as vitest itself sees them: a name in the slow list
 * that matches no file would leave a renamed slow file in the quick part unnoticed, and a file in
 * no part (or in both) would never run (or run twice in CI).
 */
const root = dirname(fileURLToPath(import.meta.url));

/** Every `*.test.ts` file of the tree, as vitest's include finds them (no dot folders), from the root. */
function testFilesOfTree(dir = root): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules' || entry.name === 'scratch') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...testFilesOfTree(path));
    else if (entry.name.endsWith('.test.ts')) found.push(relative(root, path).split(sep).join('/'));
  }
  return found.sort();
}

/** The test files of each part, from `vitest list --filesOnly --json` run on this checkout. */
function partsAsVitestListsThem(): Map<string, string[]> {
  const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
  // A vitest started from inside a test must not believe it is a worker of this run.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')));
  const out = execFileSync(process.execPath, [vitest, 'list', '--filesOnly', '--json'], {
    cwd: root,
    env,
    encoding: 'utf8',
  });
  const parts = new Map<string, string[]>();
  for (const { file, projectName } of JSON.parse(out) as { file: string; projectName: string }[]) {
    parts.set(projectName, [...(parts.get(projectName) ?? []), relative(root, file).split(sep).join('/')]);
  }
  return parts;
}

describe('the quick and the slow part of the suite', () => {
  it.each(SLOW_TESTS.map((name) => [name]))('the slow list names %s, a test file that exists', (name) => {
    expect(name).toMatch(/\.test\.ts$/);
    expect(existsSync(join(root, name)), `${name} is in the slow list of vitest.config.ts but is not a file`).toBe(
      true,
    );
  });

  it('runs in pairs only files of the slow list', () => {
    expect(SLOW_IN_PAIRS.filter((name) => !SLOW_TESTS.includes(name))).toEqual([]);
  });

  it('runs the parts one after the other in one process, and each slow lane one file at a time', () => {
    // vitest runs projects of the same group order at once; each part is a group of its own.
    // scripts/testSlow.sh runs the two slow lanes at once, each in a vitest process of its own:
    // one worker each keeps every file beside at most one other.
    const projects = (config.test?.projects ?? []) as {
      test?: { name?: string; maxWorkers?: number; sequence?: { groupOrder?: number } };
    }[];
    const orders = new Map(projects.map((p) => [p.test?.name, p.test?.sequence?.groupOrder ?? 0]));
    expect([...orders.keys()].sort()).toEqual(['quick', 'slow', 'slow-pairs']);
    expect(new Set(orders.values()).size).toBe(3);
    const workers = new Map(projects.map((p) => [p.test?.name, p.test?.maxWorkers]));
    expect([workers.get('slow'), workers.get('slow-pairs')]).toEqual([1, 1]);
  });

  it('puts every test file of the tree in exactly one part, the slow part being exactly the slow list', () => {
    const parts = partsAsVitestListsThem();
    const quick = parts.get('quick') ?? [];
    const alone = parts.get('slow') ?? [];
    const paired = parts.get('slow-pairs') ?? [];
    const slow = [...alone, ...paired].sort();
    expect([...parts.keys()].sort()).toEqual(['quick', 'slow', 'slow-pairs']);
    expect(paired.sort()).toEqual([...SLOW_IN_PAIRS].sort());
    expect(alone.filter((file) => paired.includes(file))).toEqual([]);
    // A listed file that does not exist is the test above's to report.
    expect(slow).toEqual(SLOW_TESTS.filter((name) => existsSync(join(root, name))).sort());
    expect(quick.filter((file) => slow.includes(file))).toEqual([]);
    expect([...quick, ...slow].sort()).toEqual(testFilesOfTree());
  });
});
