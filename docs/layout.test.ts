/**
 * The README's "may import" table is the linter's rule set (biome.jsonc): for every room of the
 * table and every other room, an import the table forbids is a lint error and one it allows is
 * not, and two modules that import each other are an error too. Each probe is linted in a folder
 * of its own with the project's configuration, so the tree itself is never written to.
 * Inside conformance/, docs/engine-rooms.md's floors are held the same way, pair by pair of
 * sub-rooms, with the rules named apart there (lockstep/, the methods, broken/'s one registry).
 *
 * The README's lists are held to the tree: its "Start here" routes the three readers, its Layout
 * table names every folder there is, its documentation links every page of docs/ and every adapter,
 * its commands are those package.json and .ci/run run, and docs/cli.md's table lists every command
 * of cli/cli.ts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMAND_NAMES, MAIN_USAGE } from '../cli/cli.ts';
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

/** docs/engine-rooms.md's table, read as sub-room of conformance/ -> its floor. */
function floors(): Map<string, number> {
  const page = readFileSync(join(PROJECT_ROOT, 'docs', 'engine-rooms.md'), 'utf8');
  const found = new Map<string, number>();
  for (const m of page.matchAll(/^\| (\d+) \| ([^|]+) \|/gm))
    for (const room of (m[2] ?? '').matchAll(/`([a-z]+)\/`/g)) found.set(room[1] ?? '', Number(m[1]));
  return found;
}

/** For one sub-room, a module importing `target.ts` of each other sub-room: the lint errors of each, by the room it imports. */
const subProbes = new Map<string, Map<string, string[]>>();
function probeSubRoom(from: string, rooms: readonly string[]): Map<string, string[]> {
  let found = subProbes.get(from);
  if (found !== undefined) return found;
  const files: Record<string, string> = {};
  for (const to of rooms.filter((r) => r !== from)) {
    files[`conformance/${from}/imports-${to}.ts`] =
      `import { value } from '../${to}/target.ts';\nexport const copy = value;\n`;
    files[`conformance/${to}/target.ts`] = 'export const value = 1;\n';
  }
  const errors = lint(files);
  found = new Map(
    rooms
      .filter((r) => r !== from)
      .map((to) => [
        to,
        errors.filter((e) => e.path === `conformance/${from}/imports-${to}.ts`).map((e) => e.category),
      ]),
  );
  subProbes.set(from, found);
  return found;
}

/**
 * Single imports to probe, all linted in one tree when the first answer is asked for: each a
 * module at `path` (unique) importing `specifier`, beside a target file at `target`.
 */
const single: { path: string; specifier: string; target: string }[] = [];
let singleErrors: { path: string; category: string }[] | undefined;
function probeImport(path: string, specifier: string, target: string): () => string[] {
  single.push({ path, specifier, target });
  return () => {
    if (singleErrors === undefined) {
      const files: Record<string, string> = {};
      for (const c of single) {
        files[c.target] = 'export const value = 1;\n';
        files[c.path] = `import { value } from '${c.specifier}';\nexport const copy = value;\n`;
      }
      singleErrors = lint(files);
    }
    return singleErrors.filter((e) => e.path === path).map((e) => e.category);
  };
}

const REFUSED = ['lint/style/noRestrictedImports'];

describe("docs/engine-rooms.md's floors inside conformance/ are enforced by the linter", () => {
  const floor = floors();
  const rooms = [...floor.keys()].sort();

  it('gives a floor to every sub-room of conformance/, and to nothing else', () => {
    const folders = readdirSync(join(PROJECT_ROOT, 'conformance'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(rooms).toEqual(sorted(folders));
  });

  for (const from of rooms) {
    for (const to of rooms.filter((r) => r !== from)) {
      const allowed = (floor.get(to) ?? 0) < (floor.get(from) ?? 0);
      it(`${allowed ? 'lets' : 'refuses'} an import of ${to}/ (floor ${floor.get(to)}) from ${from}/ (floor ${floor.get(from)})`, () => {
        // A variant is reached through the registry alone, even from a floor above broken/.
        const through = to === 'broken' && allowed ? REFUSED : [];
        expect(probeSubRoom(from, rooms).get(to)).toEqual(allowed ? through : REFUSED);
      });
    }
  }

  const METHODS = ['random', 'paths', 'explore', 'concurrent', 'profile'];
  const methodToRegistry = METHODS.map((m) =>
    probeImport(`conformance/${m}/uses-registry.ts`, '../broken/index.ts', 'conformance/broken/index.ts'),
  );
  it('refuses an import of broken/ from a method, even through its registry', () => {
    for (const [i, probe] of methodToRegistry.entries()) expect(probe(), METHODS[i]).toEqual(REFUSED);
  });

  const lockstepToMethod = METHODS.map((m) =>
    probeImport(`conformance/lockstep/uses-${m}.ts`, `../${m}/target.ts`, `conformance/${m}/target.ts`),
  );
  it('refuses an import of a checking method from lockstep/', () => {
    for (const [i, probe] of lockstepToMethod.entries()) expect(probe(), METHODS[i]).toEqual(REFUSED);
  });

  const registryUsers = (
    [
      ['conformance/check/uses-broken-%.ts', '../broken/'],
      ['conformance/crash/uses-broken-%.ts', '../broken/'],
      ['conformance/random/uses-broken-%.test.ts', '../broken/'],
      ['conformance/lockstep/deeper/uses-broken-%.test.ts', '../../broken/'],
      ['cli/uses-broken-%.ts', '../conformance/broken/'],
      ['scripts/uses-broken-%.ts', '../conformance/broken/'],
      ['bench/uses-broken-%.ts', '../conformance/broken/'],
      ['docs/tools/uses-broken-%.ts', '../../conformance/broken/'],
    ] as const
  ).map(([path, prefix]) => ({
    path,
    registry: probeImport(path.replace('%', 'registry'), `${prefix}index.ts`, 'conformance/broken/index.ts'),
    inside: probeImport(path.replace('%', 'inside'), `${prefix}catalogue.ts`, 'conformance/broken/catalogue.ts'),
  }));
  const adapterToRegistry = probeImport(
    'adapters/a/uses-broken.ts',
    '../../conformance/broken/index.ts',
    'conformance/broken/index.ts',
  );
  it('lets check/, crash/, tests and entry points reach broken/ through its registry, and refuses any other path into it', () => {
    for (const { path, registry, inside } of registryUsers) {
      expect(registry(), path).toEqual([]);
      expect(inside(), path).toEqual(REFUSED);
    }
    expect(adapterToRegistry()).toEqual(REFUSED);
  });

  const deeper = [
    probeImport('conformance/broken/sqlite/uses-check.ts', '../../check/target.ts', 'conformance/check/target.ts'),
    probeImport(
      'conformance/protocol/hostile/surface/uses-isolated.ts',
      '../../../isolated/target.ts',
      'conformance/isolated/target.ts',
    ),
    probeImport('conformance/broken/sqlite/uses-stores.ts', '../../stores/target.ts', 'conformance/stores/target.ts'),
    probeImport('conformance/stores/uses-impl.ts', '../../impl/protocol/target.ts', 'impl/protocol/target.ts'),
  ];
  it("holds the floors from a sub-room's deeper folders too, and never takes a top-level room for a sub-room", () => {
    expect(deeper.map((probe) => probe())).toEqual([REFUSED, REFUSED, [], []]);
  });

  const outward = rooms.map((room) => ({
    room,
    cli: probeImport(`conformance/${room}/uses-cli.ts`, '../../cli/target.ts', 'cli/target.ts'),
    adapters: probeImport(
      `conformance/${room}/uses-adapters.test.ts`,
      '../../adapters/target.ts',
      'adapters/target.ts',
    ),
  }));
  it("keeps conformance/'s own rule inside every sub-room and its tests: no cli/, no adapters/", () => {
    for (const { room, cli, adapters } of outward) {
      expect(cli(), room).toEqual(REFUSED);
      expect(adapters(), room).toEqual(REFUSED);
    }
  });

  const root = [
    probeImport('conformance/budget.ts', './lockstep/target.ts', 'conformance/lockstep/target.ts'),
    probeImport('conformance/index.ts', './check/target.ts', 'conformance/check/target.ts'),
    probeImport('conformance/assert.ts', './random/target.ts', 'conformance/random/target.ts'),
    probeImport('conformance/lockstep/uses-check.test.ts', '../check/target.ts', 'conformance/check/target.ts'),
  ];
  it("keeps the root's shared modules under every sub-room, and lets the face and the tests import them all", () => {
    expect(root.map((probe) => probe())).toEqual([REFUSED, [], [], []]);
  });
});

const README = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
/** The text of the README's section `## title`, up to the next `## ` heading. */
function section(title: string): string {
  const start = README.indexOf(`\n## ${title}\n`);
  expect(start, `README has a section ${title}`).toBeGreaterThan(-1);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end < 0 ? undefined : end);
}
/** The targets of a text's Markdown links. */
const links = (text: string): string[] => [...text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)].map((m) => m[1] ?? '');
const sorted = (xs: Iterable<string>): string[] => [...new Set(xs)].sort();

describe('the README routes each reader and lists the tree as it is', () => {
  it('opens with "Start here": three rows, for a store (chapter 10, a check line), a queue (chapter 11, the profiles) and learning (jobcheck lab)', () => {
    expect(README.match(/^## .*$/m)?.[0]).toBe('## Start here');
    const rows = section('Start here')
      .split('\n')
      .filter((l) => l.startsWith('| ') && !l.startsWith('| ---') && !l.startsWith('| you are'));
    expect(rows).toHaveLength(3);
    const [store, queue, learn] = rows as [string, string, string];
    expect(links(store)).toContain('docs/10-your-first-implementation.md');
    expect(store).toMatch(/`npx --no-install jobcheck check --impl [^`]+`/);
    expect(links(queue)).toEqual(expect.arrayContaining(['docs/11-real-brokers.md', 'docs/profiles/README.md']));
    expect(learn).toContain('`npx --no-install jobcheck lab`');
  });

  it("keeps the contributor's quick start after it, the two lines exactly", () => {
    expect(README.indexOf('## Quick start')).toBeGreaterThan(README.indexOf('## Start here'));
    expect(section('Quick start (contributors)')).toContain('```sh\nnpm ci && npm run demo\nnpm test\n```');
  });

  it('lists every numbered chapter, and no chapter that is not there', () => {
    const chapters = readdirSync(join(PROJECT_ROOT, 'docs')).filter((f) => /^\d\d-.*\.md$/.test(f));
    expect(chapters.length).toBeGreaterThan(10);
    expect(sorted(links(section('Documentation')).filter((l) => /^docs\/\d\d-/.test(l)))).toEqual(
      sorted(chapters.map((f) => `docs/${f}`)),
    );
    for (const l of links(README).filter((x) => /^docs\/\d\d-/.test(x)))
      expect(existsSync(join(PROJECT_ROOT, l)), l).toBe(true);
  });

  it('lists every profile page', () => {
    const pages = readdirSync(join(PROJECT_ROOT, 'docs', 'profiles')).filter((f) => f.endsWith('.md'));
    expect(sorted(links(section('Documentation')).filter((l) => l.startsWith('docs/profiles/')))).toEqual(
      sorted(pages.map((f) => `docs/profiles/${f}`)),
    );
  });

  it('lists every adapter, in the documentation and in the layout table', () => {
    const adapters = readdirSync(join(PROJECT_ROOT, 'adapters'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(adapters).toHaveLength(7);
    expect(sorted(links(section('Documentation')).filter((l) => l.startsWith('adapters/')))).toEqual(
      sorted(adapters.map((a) => `adapters/${a}/README.md`)),
    );
    const row = section('Layout')
      .split('\n')
      .find((l) => l.startsWith('| `adapters/` |'));
    for (const a of adapters) expect(row, a).toContain(`\`${a}/\``);
  });

  /** The Layout table's rows: the folders of the first cell, and the text of the second. */
  const layoutRows = (): { folders: string[]; holds: string }[] =>
    section('Layout')
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .map((l) => {
        const cells = l.split(' | ');
        return {
          folders: [...(cells[0] ?? '').matchAll(/`(\.?[\w-]+)\/`/g)].map((m) => m[1] ?? ''),
          holds: cells[1] ?? '',
        };
      });
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: PROJECT_ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== '');
  /** The folders directly under a folder (the root when ''), that hold a tracked file. */
  const foldersUnder = (folder: string): string[] =>
    sorted(
      tracked
        .filter((f) => f.startsWith(folder === '' ? '' : `${folder}/`))
        .map((f) => f.slice(folder === '' ? 0 : folder.length + 1).split('/'))
        .filter((parts) => parts.length > 1)
        .map((parts) => parts[0] ?? ''),
    );

  it('has a Layout row for every top-level folder of the tree, and for no folder that is not there', () => {
    const named = layoutRows().flatMap((r) => r.folders);
    expect(named.length).toBe(new Set(named).size);
    expect(sorted(named)).toEqual(foldersUnder(''));
  });

  it('names every sub-room of impl/, conformance/ and adapters/ in its row, and only folders that are there', () => {
    for (const room of ['impl', 'conformance', 'adapters']) {
      const row = layoutRows().find((r) => r.folders.includes(room));
      const named = [...(row?.holds ?? '').matchAll(/`([\w-]+)\/`/g)].map((m) => m[1] ?? '');
      const everyFolder = new Set(
        tracked.filter((f) => f.startsWith(`${room}/`)).flatMap((f) => f.split('/').slice(1, -1)),
      );
      expect(sorted(named.filter((n) => !everyFolder.has(n))), `${room}/: named, not there`).toEqual([]);
      expect(
        foldersUnder(room).filter((f) => !named.includes(f)),
        `${room}/: there, not named`,
      ).toEqual([]);
    }
  });

  it('links every page of docs/ and CONTRIBUTING.md from its Documentation', () => {
    const pages = [
      ...readdirSync(join(PROJECT_ROOT, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
      'CONTRIBUTING.md',
    ];
    const linked = new Set(links(section('Documentation')));
    expect(pages.filter((p) => !linked.has(p))).toEqual([]);
  });

  it('says what `npm run profiles` runs, as package.json has it, and how CI starts the brokers, as .ci/run does', () => {
    const { scripts } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const row = section('Other commands')
      .split('\n')
      .find((l) => l.startsWith('| `npm run profiles` |'));
    expect(row).toContain(`\`${scripts['profiles']}\``);
    const ci = readFileSync(join(PROJECT_ROOT, '.ci', 'run'), 'utf8');
    expect(ci).toContain('bash scripts/brokers.sh all -- bash scripts/pg.sh ');
    expect(section('Tests')).toContain('`bash scripts/brokers.sh all -- bash scripts/pg.sh …`');
  });

  it('quotes only npm scripts that package.json has', () => {
    const scripts = Object.keys(
      (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
        .scripts,
    );
    const quoted = [...README.matchAll(/npm run ([a-z][\w:-]*)/g)].map((m) => m[1] ?? '');
    expect(quoted.length).toBeGreaterThan(10);
    expect(quoted.filter((q) => !scripts.includes(q))).toEqual([]);
  });
});

describe("docs/cli.md's command table", () => {
  const page = readFileSync(join(PROJECT_ROOT, 'docs', 'cli.md'), 'utf8');

  it('lists every command jobcheck runs, each linked to a section of its own, and no other', () => {
    const rows = [...page.matchAll(/^\| \[`jobcheck ([a-z]+)`\]\(#([a-z-]+)\) \|/gm)];
    expect(sorted(rows.map((r) => r[1] ?? ''))).toEqual(sorted(COMMAND_NAMES));
    for (const r of rows) {
      expect(r[2]).toBe(`jobcheck-${r[1]}`);
      expect(page, `a section for ${r[1]}`).toContain(`\n## jobcheck ${r[1]}\n`);
    }
  });

  it('and so does jobcheck --help', () => {
    const listed = [...MAIN_USAGE.matchAll(/^ {2}([a-z]+) {2,}/gm)].map((m) => m[1] ?? '');
    expect(sorted(listed)).toEqual(sorted(COMMAND_NAMES));
  });
});

/**
 * The lines of a page that a reader types or reads as prose: `$ ` lines anywhere, and every line
 * outside what a program printed (the output lines of console blocks, ```text and ```json blocks,
 * generated regions). Pure.
 */
function typedLines(text: string): string[] {
  const out: string[] = [];
  let fence: string | undefined;
  let generated = false;
  for (const line of text.split('\n')) {
    if (/^<!-- generated:/.test(line)) generated = true;
    else if (line === '<!-- /generated -->') generated = false;
    const opens = /^```(\S*)/.exec(line);
    if (opens !== null) {
      fence = fence === undefined ? opens[1] || 'plain' : undefined;
      continue;
    }
    const printed = generated || (fence !== undefined && /^(console|text|json|plain)$/.test(fence));
    if (line.startsWith('$ ') || !printed) out.push(line);
  }
  return out;
}

describe('the docs a user reads outside a clone', () => {
  const pages = [
    'README.md',
    ...readdirSync(join(PROJECT_ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      // Generated from the harness's own runs (npm run hostile, npm run bench:protocol), which they quote.
      .filter((f) => !['hostile-peers.md', 'protocol-bench.md'].includes(f))
      .map((f) => `docs/${f}`),
    ...['python', 'javascript', 'go'].map((l) => `starters/${l}/README.md`),
  ];

  it('write `npx --no-install jobcheck` wherever a reader types the command (the name is on no registry)', () => {
    const found: string[] = [];
    for (const page of pages) {
      for (const [i, line] of typedLines(readFileSync(join(PROJECT_ROOT, page), 'utf8')).entries())
        if (/\bnpx jobcheck\b/.test(line)) found.push(`${page} (typed line ${i + 1}): ${line.slice(0, 120)}`);
    }
    expect(found).toEqual([]);
  });

  it('tell a typed command from printed output', () => {
    const page =
      '```console\n$ npx jobcheck x\nreproduce: npx jobcheck y\n```\n`npx jobcheck z`\n```text\n$ npx q\nnpx r\n```';
    expect(typedLines(page)).toEqual(['$ npx jobcheck x', '`npx jobcheck z`', '$ npx q']);
  });
});

describe('the release the docs name', () => {
  const version = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  // docs/releasing.md names no version: it writes X.Y.Z.
  const pages = ['README.md', 'docs/ci.md', 'action.yml'].map((p) => ({
    page: p,
    text: readFileSync(join(PROJECT_ROOT, p), 'utf8'),
  }));

  it("is this package's version: the Action's tag, the tarball's download, the git ref", () => {
    const named: string[] = [];
    for (const { page, text } of pages) {
      for (const m of text.matchAll(/jobcheck\/jobcheck@([\w.-]+)/g)) named.push(`${page}: @${m[1]}`);
      for (const m of text.matchAll(/releases\/download\/([\w.-]+)\/jobcheck-([\w.-]+?)\.tgz/g))
        named.push(`${page}: download ${m[1]} ${m[2]}`);
      for (const m of text.matchAll(/jobcheck\.git#([\w.-]+)/g)) named.push(`${page}: git #${m[1]}`);
    }
    expect(named.length).toBeGreaterThan(4);
    const expected = (n: string): string =>
      n
        .replace(/@\S+$/, `@v${version}`)
        .replace(/download \S+ \S+$/, `download v${version} ${version}`)
        .replace(/#\S+$/, `#v${version}`);
    expect(named).toEqual(named.map(expected));
  });

  it('has its section in the CHANGELOG, and the procedure that makes it exists', () => {
    const changelog = readFileSync(join(PROJECT_ROOT, 'CHANGELOG.md'), 'utf8');
    expect(changelog).toMatch(
      new RegExp(`^## \\[${version.replaceAll('.', '\\.')}\\] - (\\d{4}-\\d{2}-\\d{2}|unreleased)$`, 'm'),
    );
    expect(changelog).toMatch(/^## \[Unreleased\]$/m);
    expect(existsSync(join(PROJECT_ROOT, 'scripts', 'release.sh'))).toBe(true);
  });
});
