/**
 * The README's "may import" table is the linter's rule set (biome.jsonc): for every room of the
 * table and every other room, an import the table forbids is a lint error and one it allows is
 * not, and two modules that import each other are an error too. Each probe is linted in a folder
 * of its own with the project's configuration, so the tree itself is never written to.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from './tools/quotedCommands.ts';

const BIOME = join(PROJECT_ROOT, 'node_modules', '.bin', 'biome');
const ROOMS = ['contract', 'model', 'impl', 'conformance', 'adapters', 'cli'] as const;
type Room = (typeof ROOMS)[number];

/** The README's table, read as room -> the rooms it may import (`everything` = all of them). */
function mayImport(): Map<Room, ReadonlySet<Room>> {
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
  const table = new Map<Room, ReadonlySet<Room>>();
  for (const line of readme.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const rooms = [...(cells[1] ?? '').matchAll(/`([a-z]+)\/`/g)].map((m) => m[1] as Room);
    const allowed = cells[3] ?? '';
    for (const room of rooms.filter((r) => ROOMS.includes(r))) {
      const targets =
        allowed === 'everything' ? ROOMS : [...allowed.matchAll(/`([a-z]+)\/`/g)].map((m) => m[1] as Room);
      table.set(room, new Set(targets));
    }
  }
  return table;
}

const work = mkdtempSync(join(tmpdir(), 'jobcheck-layout-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let probes = 0;

/** The lint errors of a tree of files (path -> text) under the project's configuration. */
function lint(files: Record<string, string>): { path: string; category: string }[] {
  probes += 1;
  const root = join(work, `probe-${probes}`);
  // The probe folder is no git checkout: the configuration is the project's, minus its use of git.
  const config = readFileSync(join(PROJECT_ROOT, 'biome.jsonc'), 'utf8').replace(
    '"enabled": true, "clientKind"',
    '"enabled": false, "clientKind"',
  );
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'biome.jsonc'), config);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  let out: string;
  try {
    out = execFileSync(BIOME, ['lint', '--reporter=json', '.'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch (error) {
    out = String((error as { stdout?: unknown }).stdout ?? '');
  }
  const report = JSON.parse(out) as { diagnostics: { category: string; location: { path: string } }[] };
  return report.diagnostics.map((d) => ({ path: d.location.path, category: d.category }));
}

/** For one room, a module importing each other room: the lint errors of each, by the room it imports. */
const probes_ = new Map<Room, Map<Room, string[]>>();
function probeRoom(from: Room): Map<Room, string[]> {
  let found = probes_.get(from);
  if (found !== undefined) return found;
  const files: Record<string, string> = {};
  for (const to of ROOMS.filter((r) => r !== from)) {
    files[`${from}/deep/imports-${to}.ts`] =
      `import { value } from '../../${to}/deep/target.ts';\nexport const copy = value;\n`;
    files[`${to}/deep/target.ts`] = 'export const value = 1;\n';
  }
  const errors = lint(files);
  found = new Map(
    ROOMS.filter((r) => r !== from).map((to) => [
      to,
      errors.filter((e) => e.path === `${from}/deep/imports-${to}.ts`).map((e) => e.category),
    ]),
  );
  probes_.set(from, found);
  return found;
}

describe("the README's import table is enforced by the linter", () => {
  const table = mayImport();

  it('reads a rule for every room', () => {
    expect([...table.keys()].sort()).toEqual([...ROOMS].sort());
  });

  for (const from of ROOMS) {
    for (const to of ROOMS.filter((r) => r !== from)) {
      const allowed = table.get(from)?.has(to) ?? false;
      it(`${allowed ? 'lets' : 'refuses'} an import of ${to}/ from ${from}/`, () => {
        expect(probeRoom(from).get(to)).toEqual(allowed ? [] : ['lint/style/noRestrictedImports']);
      });
    }
  }

  it('refuses two modules that import each other', () => {
    const errors = lint({
      'conformance/a.ts': "import { b } from './b.ts';\nexport const a = (): number => b() + 1;\n",
      'conformance/b.ts': "import { a } from './a.ts';\nexport const b = (): number => a() - 1;\n",
    });
    expect(errors.map((e) => e.category)).toContain('lint/suspicious/noImportCycles');
  });
});
