import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CHECK_EXPLORATION } from '../conformance/explore/index.ts';
import { REFUSAL_KINDS } from '../conformance/restore/index.ts';
import { lifecyclePaths } from '../conformance/paths/lifecyclePaths.ts';
import { listFixtures } from '../model/fixtures.ts';
import { VERSION } from './cli.ts';
import { checkResultSchema } from './checkJsonSchema.ts';
import { xmlText } from '../conformance/outside/outsideText.ts';
import { runCliCaptured } from './runCliCaptured.ts';
import type { CapturedRun } from './runCliCaptured.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dir = await mkdtemp(join(tmpdir(), 'jobcheck-cli-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Runs `jobcheck <args>` in process, its output kept. */
const cli = (...args: string[]): Promise<CapturedRun> => runCliCaptured(args);

/** One line on stderr, starting with `jobcheck:`, and nothing that looks like a stack trace. */
function expectOneLineError(stderr: string, mentions: RegExp): void {
  expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(stderr).toMatch(/^jobcheck: /);
  expect(stderr).toMatch(mentions);
  expect(stderr).not.toMatch(/\n\s+at /);
}

describe('bad invocations: one line on stderr, exit code 2', () => {
  it('prints the usage on stderr and exits 2 without a command', async () => {
    const out = await cli();
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('Usage: jobcheck <command>');
  });

  it.each([
    [['frobnicate'], /unknown command "frobnicate"/],
    [['check', '--builtin', '--frobnicate'], /Unknown option --frobnicate/],
    [['check'], /say which implementation to check/],
    [['check', '--builtin', '--broken', 'global-fifo'], /choose one implementation, not --builtin and --broken/],
    [['check', '--builtin', '--runs', 'many'], /--runs must be a whole number \(got "many"\)/],
    [['check', '--builtin', '--runs', '0'], /--runs must be at least 1/],
    [['check', '--broken', 'no-such-bug'], /no broken variant named "no-such-bug"/],
    [['check', '--module', 'no/such/file.ts'], /no such file/],
    [['check', '--module', 'conformance/stores/jobStore.ts'], /exports no AdapterFactory/],
    [['replay', '--builtin'], /give exactly one artifact file/],
    [['replay', join(ROOT, 'package.json'), '--builtin'], /invalid artifact/],
    [['coverage'], /at least one coverage JSON file/],
    [['coverage', join(ROOT, 'package.json')], /invalid coverage file/],
    [['paths', 'extra'], /Unexpected argument extra/],
    [['check', '--builtin', '--path', '1:2'], /--path needs the --seed/],
    [['check', '--builtin', '--seed', '1', '--path', 'a:b'], /--path must look like 3:0:1/],
  ] as const)('%j', async (args, mentions) => {
    const out = await cli(...args);
    expect(out.code).toBe(2);
    expectOneLineError(out.stderr, mentions);
  });

  it("reports a command that cannot start through the real `jobcheck` as one line and exit 2, naming spawn_failed and the shell's complaint", () => {
    const r = spawnSync(process.execPath, ['bin/jobcheck.js', 'check', '--impl', 'no-such-jobstore-binary --serve'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expectOneLineError(r.stderr, /cannot start the implementation .*spawn_failed.*not found/);
  });
});

describe('help', () => {
  it.each(['check', 'explore', 'replay', 'coverage', 'paths', 'demo'])(
    'jobcheck %s --help prints the usage of the command and exits 0',
    async (command) => {
      const out = await cli(command, '--help');
      expect(out.code).toBe(0);
      expect(out.stdout).toContain(`Usage: jobcheck ${command}`);
    },
  );
});

describe('check, replay and coverage work together', () => {
  it('writes a failure artifact that replay repeats against the broken variant (exit 1) and that the built-in implementation passes (exit 0)', async () => {
    const report = join(dir, 'fifo');
    const check = await cli('check', '--broken', 'global-fifo', '--seed', '1', '--runs', '100', '--report', report);
    expect(check.code).toBe(1);
    expect((await readdir(report)).sort()).toEqual([
      'coverage.html',
      'coverage.json',
      'coverage.md',
      'failure.json',
      'latest',
      'runs',
    ]);
    const artifact = join(report, 'failure.json');
    expect(check.stdout).toContain(`replay: npx jobcheck replay ${artifact} --broken global-fifo`);
    const again = await cli('replay', artifact, '--broken', 'global-fifo');
    expect(again.code).toBe(1);
    expect(again.stdout).toMatch(/disagrees with the model at step \d+/);
    const fixed = await cli('replay', artifact, '--builtin', '--json');
    expect(fixed.code).toBe(0);
    expect(JSON.parse(fixed.stdout)).toMatchObject({ verdict: 'agree', divergence: null });
  });

  it('repeats just the shrunk counterexample with the seed and path it reported', async () => {
    const first = await cli(
      'check',
      '--broken',
      'dead-job-blocks',
      '--seed',
      '3',
      '--runs',
      '100',
      '--report',
      join(dir, 'again'),
      '--json',
    );
    const { campaign } = JSON.parse(first.stdout) as { campaign: { path: string; storyLength: number } };
    expect(campaign.path).toMatch(/^\d+(:\d+)*$/);
    const again = await cli(
      'check',
      '--broken',
      'dead-job-blocks',
      '--seed',
      '3',
      '--path',
      campaign.path,
      '--report',
      join(dir, 'again'),
      '--json',
    );
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toMatchObject({
      campaign: { verdict: 'diverge', runs: 1, storyLength: campaign.storyLength },
    });
  });

  it("heads the run's page with the JSON result's reproduce command and the replay of its artifact", async () => {
    const report = join(dir, 'page-repeat');
    const check = await cli(
      'check',
      '--broken',
      'global-fifo',
      '--seed',
      '3',
      '--runs',
      '100',
      '--report',
      report,
      '--json',
    );
    expect(check.code).toBe(1);
    const result = JSON.parse(check.stdout) as {
      failure: { reproduce?: string; artifact?: string };
      report: { page: string };
    };
    expect(result.failure.reproduce).toMatch(/^npx jobcheck check --broken global-fifo --seed 3 --path \d/);
    const html = await readFile(result.report.page, 'utf8');
    // The header's command lines, their words back together (each is wrapped to keep it on one line).
    const line = (key: string): string | undefined =>
      new RegExp(`<dd data-repeat="${key}"><code>(.*?)</code></dd>`).exec(html)?.[1]?.replace(/<[^>]*>/g, '');
    expect(line('reproduce')).toBe(result.failure.reproduce);
    expect(line('replay')).toBe(`npx jobcheck replay ${result.failure.artifact} --broken global-fifo`);
    expect(html.indexOf('data-repeat="reproduce"')).toBeLessThan(html.indexOf('story-diff"'));
    expect(html.indexOf('story-diff"')).toBeLessThan(html.indexOf('class="story-panel"'));
  });

  it('adds up coverage files: merged counts are the sums of the inputs', async () => {
    const a = join(dir, 'cov-a');
    const b = join(dir, 'cov-b');
    await cli('check', '--builtin', '--seed', '1', '--runs', '20', '--report', a);
    await cli('check', '--builtin', '--seed', '2', '--runs', '30', '--report', b);
    const merged = join(dir, 'cov-merged');
    const out = await cli('coverage', join(a, 'coverage.json'), join(b, 'coverage.json'), '--report', merged);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('2 file(s)');
    type Cov = { runs: number; steps: number; items: { transitions: Record<string, number> } };
    const read = async (d: string): Promise<Cov> => JSON.parse(await readFile(join(d, 'coverage.json'), 'utf8')) as Cov;
    const [ca, cb, cm] = [await read(a), await read(b), await read(merged)];
    expect(cm.runs).toBe(ca.runs + cb.runs);
    expect(cm.steps).toBe(ca.steps + cb.steps);
    for (const [t, n] of Object.entries(cm.items.transitions))
      expect(n).toBe((ca.items.transitions[t] ?? 0) + (cb.items.transitions[t] ?? 0));
    expect(await readFile(join(merged, 'coverage.html'), 'utf8')).toContain('<svg');
  });

  it('checks a module that exports an AdapterFactory', async () => {
    const out = await cli(
      'check',
      '--module',
      'examples/typescript/jobStoreModule.ts',
      '--seed',
      '1',
      '--runs',
      '20',
      '--report',
      join(dir, 'module'),
      '--json',
    );
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ verdict: 'agree', target: 'examples/typescript/jobStoreModule.ts' });
  });

  it('writes JUnit XML with one test case per fixture story, per kind of refusal of the restore phase (and its valid snapshot), per path, for the campaign and per explored config, the failing ones carrying their story', async () => {
    const file = join(dir, 'junit.xml');
    const out = await cli(
      'check',
      '--broken',
      'dead-job-blocks',
      '--seed',
      '1',
      '--runs',
      '50',
      '--report',
      join(dir, 'junit'),
      '--junit',
      file,
    );
    expect(out.code).toBe(1);
    const xml = await readFile(file, 'utf8');
    const cases = xml.match(/<testcase /g)?.length ?? 0;
    const restore = 1 + REFUSAL_KINDS.length;
    expect(cases).toBe(
      listFixtures().length + restore + lifecyclePaths().length + 1 + CHECK_EXPLORATION[0]!.configs.length,
    );
    expect(xml).toMatch(/<testsuites [^>]*timestamp="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"/);
    expect(xml.match(/<testsuite [^>]*timestamp="/g)).toHaveLength(5);
    expect(xml).toContain('<property name="seed" value="1"/>');
    expect(xml).toContain('<property name="runs" value="50"/>');
    expect(xml).toMatch(/<property name="path" value="\d+(:\d+)*"\/>/);
    expect(xml).toContain('reproduce: npx jobcheck check --broken dead-job-blocks --seed 1 --path ');
    expect(xml).toContain('classname="jobcheck.exploration" name="exploration one-job/basic"');
    const failures = xml.match(/<failure /g)?.length ?? 0;
    expect(xml).toMatch(new RegExp(`<testsuites [^>]*tests="${cases}" failures="${failures}"`));
    expect(failures).toBeGreaterThan(1);
    expect(xml).toContain('classname="jobcheck.campaign"');
    const inside = [...xml.matchAll(/<failure [^>]*>([\s\S]*?)<\/failure>/g)].map((m) => m[1] ?? '');
    for (const text of inside) expect(text).not.toMatch(/[<>]/);
  });

  it('names the JUnit test cases the same from seed to seed: the seed is a property, not part of a name', async () => {
    const names = async (seed: string): Promise<string[]> => {
      const file = join(dir, `junit-${seed}.xml`);
      await cli(
        'check',
        '--builtin',
        '--seed',
        seed,
        '--runs',
        '10',
        '--report',
        join(dir, `junit-${seed}`),
        '--junit',
        file,
      );
      return [...(await readFile(file, 'utf8')).matchAll(/<testcase classname="([^"]*)" name="([^"]*)"/g)].map(
        (m) => `${m[1]} ${m[2]}`,
      );
    };
    const [a, b] = [await names('1'), await names('2')];
    expect(a).toEqual(b);
    expect(a).toContain('jobcheck.campaign random campaign');
  });

  it('writes a JUnit file with one error case naming the problem when the implementation cannot start (exit 2)', async () => {
    const file = join(dir, 'junit-setup.xml');
    const out = await cli(
      'check',
      '--impl',
      'no-such-jobstore-binary --serve',
      '--report',
      join(dir, 'setup'),
      '--junit',
      file,
    );
    expect(out.code).toBe(2);
    const xml = await readFile(file, 'utf8');
    expect(xml).toMatch(/<testsuites [^>]*tests="1" failures="0" errors="1" skipped="0" [^>]*timestamp="/);
    expect(xml).toMatch(
      /<testcase classname="jobcheck.setup" name="setup"[^>]*>\s*<error message="cannot start the implementation no-such-jobstore-binary --serve: spawn_failed[^"]*" type="setup_error">/,
    );
  });

  it('escapes what XML cannot hold as it is', () => {
    expect(xmlText(`a<b>&"c'\u0001\uFFFF`)).toBe('a&lt;b&gt;&amp;&quot;c&apos;\\x01');
  });
});

describe('--json', () => {
  it('prints results that the published schema parses, field for field: agree, diverge and incomplete', async () => {
    const outs = [
      await cli('check', '--builtin', '--seed', '1', '--runs', '10', '--report', join(dir, 'json-agree'), '--json'),
      await cli(
        'check',
        '--broken',
        'dead-job-blocks',
        '--seed',
        '1',
        '--runs',
        '50',
        '--report',
        join(dir, 'json-diverge'),
        '--json',
      ),
      await cli(
        'check',
        '--builtin',
        '--seed',
        '1',
        '--runs',
        '100000',
        '--time-limit',
        '1',
        '--no-explore',
        '--report',
        join(dir, 'json-incomplete'),
        '--json',
      ),
    ];
    expect(outs.map((o) => o.code)).toEqual([0, 1, 3]);
    for (const out of outs) {
      const raw = JSON.parse(out.stdout) as unknown;
      const parsed = checkResultSchema.parse(raw);
      // Nothing the schema leaves out (it would strip an undocumented field).
      expect(parsed).toEqual(raw);
      expect(parsed.format).toBe('jobcheck.check/1');
    }
    const diverge = checkResultSchema.parse(JSON.parse(outs[1]!.stdout));
    expect(diverge.failure?.reproduce).toBe(
      `npx jobcheck check --broken dead-job-blocks --seed 1 --path ${diverge.campaign.path}`,
    );
  });
});

describe('--shard', () => {
  type Cov = { runs: number; steps: number; sources: string[]; items: Record<string, Record<string, number>> };
  const read = async (d: string): Promise<Cov> => JSON.parse(await readFile(join(d, 'coverage.json'), 'utf8')) as Cov;

  it('splits one campaign into disjoint parts whose merged coverage equals that of one unsharded check of the same runs', async () => {
    const parts = [];
    for (const i of [1, 2, 3]) {
      const out = await cli(
        'check',
        '--builtin',
        '--seed',
        '7',
        '--runs',
        '25',
        '--shard',
        `${i}/3`,
        '--report',
        join(dir, `shard-${i}`),
        '--json',
      );
      expect(out.code).toBe(0);
      parts.push(
        JSON.parse(out.stdout) as { campaign: { runs: number }; fixtures: { total: number }; paths: { total: number } },
      );
    }
    expect(parts.map((p) => p.campaign.runs)).toEqual([9, 8, 8]);
    expect(parts.map((p) => p.fixtures.total > 0 && p.paths.total > 0)).toEqual([true, false, false]);
    await cli('check', '--builtin', '--seed', '7', '--runs', '25', '--report', join(dir, 'shard-all'));
    const merged = join(dir, 'shard-merged');
    expect(
      (await cli('coverage', ...[1, 2, 3].map((i) => join(dir, `shard-${i}`, 'coverage.json')), '--report', merged))
        .code,
    ).toBe(0);
    const [whole, sum] = [await read(join(dir, 'shard-all')), await read(merged)];
    expect({ ...sum, sources: [] }).toEqual({ ...whole, sources: [] });
  });

  it("reports a shard's failure with a reproduce line without the shard, which repeats it", async () => {
    const out = await cli(
      'check',
      '--broken',
      'dead-job-blocks',
      '--seed',
      '3',
      '--runs',
      '60',
      '--shard',
      '2/2',
      '--report',
      join(dir, 'shard-fail'),
      '--json',
    );
    expect(out.code).toBe(1);
    const { failure, campaign } = JSON.parse(out.stdout) as {
      failure: { reproduce: string };
      campaign: { path: string; storyLength: number };
    };
    expect(failure.reproduce).toBe(`npx jobcheck check --broken dead-job-blocks --seed 3 --path ${campaign.path}`);
    expect(Number(campaign.path.split(':')[0]) % 2).toBe(1);
    const again = await cli(
      'check',
      '--broken',
      'dead-job-blocks',
      '--seed',
      '3',
      '--path',
      campaign.path,
      '--report',
      join(dir, 'shard-again'),
      '--json',
    );
    expect(JSON.parse(again.stdout)).toMatchObject({
      campaign: { verdict: 'diverge', runs: 1, path: campaign.path, storyLength: campaign.storyLength },
    });
  });

  it('says, in a shard after the first, that the fixture stories, paths and exploration run in shard 1, not "0/0"', async () => {
    const out = await cli(
      'check',
      '--builtin',
      '--seed',
      '7',
      '--runs',
      '4',
      '--shard',
      '2/2',
      '--report',
      join(dir, 'shard-text'),
    );
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^ {2}fixture stories {2}in shard 1$/m);
    expect(out.stdout).toMatch(/^ {2}path suite {7}in shard 1$/m);
    expect(out.stdout).toMatch(/^ {2}exploration {6}in shard 1$/m);
    expect(out.stdout).not.toContain('0/0');
  });

  it.each([['0/3'], ['4/3'], ['1/0'], ['two']])('refuses --shard %s', async (value) => {
    const out = await cli('check', '--builtin', '--shard', value);
    expect(out.code).toBe(2);
    expectOneLineError(out.stderr, /--shard must be i\/n/);
  });
});

describe('--version and closed pipes', () => {
  it('prints the version of the package', async () => {
    const out = await cli('--version');
    expect(out).toEqual({ code: 0, stdout: `jobcheck ${VERSION}\n`, stderr: '' });
    expect(VERSION).toBe(
      (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version,
    );
  });

  it('ends quietly when the reader of its output goes away early (jobcheck demo --all | head)', async () => {
    const child = spawn(process.execPath, ['bin/jobcheck.js', 'demo', '--all'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});

describe('paths and demo', () => {
  it('lists every path of the suite', async () => {
    const out = await cli('paths');
    expect(out.code).toBe(0);
    expect(out.stdout.match(/^\s+\d+\. /gm)).toHaveLength(lifecyclePaths().length);
  });

  it('lists the fixture stories', async () => {
    const out = await cli('demo');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('snapshot-aliasing');
  });
});

describe('docs/cli.md', () => {
  const page = readFile(join(ROOT, 'docs', 'cli.md'), 'utf8');
  it.each(['check', 'profile', 'explore', 'replay', 'coverage', 'paths'])(
    'shows the --help text of jobcheck %s as the command prints it',
    async (command) => {
      const blocks = [...(await page).matchAll(/^```text\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
      const shown = blocks.find(
        (b) => b.startsWith(`Usage: jobcheck ${command} `) || b.startsWith(`Usage: jobcheck ${command}\n`),
      );
      expect(shown).toBe((await cli(command, '--help')).stdout);
    },
  );
});

describe('the summary of a check', () => {
  it('names the rejection codes, transitions and rules never hit, and colours the verdict only when asked to', async () => {
    const plain = await cli(
      'check',
      '--builtin',
      '--seed',
      '5',
      '--runs',
      '3',
      '--no-explore',
      '--report',
      join(dir, 'summary-plain'),
    );
    expect(plain.code).toBe(0);
    // Three short runs cannot reach the counters' edge: no generated run gets near TIME_MAX.
    expect(plain.stdout).toMatch(/^ {2}rejection codes never hit: .+$/m);
    expect(plain.stdout).toMatch(/^ {2}transitions never hit: .+$/m);
    const json = JSON.parse(
      (
        await cli(
          'check',
          '--builtin',
          '--seed',
          '5',
          '--runs',
          '3',
          '--no-explore',
          '--report',
          join(dir, 'summary-json'),
          '--json',
        )
      ).stdout,
    ) as { coverage: { rules: { hit: number; total: number } } };
    const missing = json.coverage.rules.total - json.coverage.rules.hit;
    expect(missing).toBeGreaterThan(0);
    expect(plain.stdout).toMatch(
      missing <= 4
        ? /^ {2}rules never hit: .*counters-stay-safe/m
        : new RegExp(`^ {2}rules never hit: ${missing}, e\\.g\\. .+ and ${missing - 3} more$`, 'm'),
    );
    // The tests' stdout is no terminal: no colour, unless FORCE_COLOR asks for it.
    expect(plain.stdout).toContain('verdict: AGREE with the model');
    expect(plain.stdout).not.toContain('\u001b[');
    const saved = { FORCE_COLOR: process.env['FORCE_COLOR'], NO_COLOR: process.env['NO_COLOR'] };
    try {
      delete process.env['NO_COLOR'];
      process.env['FORCE_COLOR'] = '1';
      const forced = await cli(
        'check',
        '--builtin',
        '--seed',
        '5',
        '--runs',
        '3',
        '--no-explore',
        '--report',
        join(dir, 'summary-forced'),
      );
      expect(forced.stdout).toContain('verdict: \u001b[1m\u001b[32mAGREE');
      process.env['NO_COLOR'] = '1';
      const none = await cli(
        'check',
        '--builtin',
        '--seed',
        '5',
        '--runs',
        '3',
        '--no-explore',
        '--report',
        join(dir, 'summary-none'),
      );
      expect(none.stdout).toContain('verdict: AGREE with the model');
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
});
