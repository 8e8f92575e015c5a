/**
 * The command line against careless and hostile input, each case one that once ended wrongly:
 * edited artifacts blamed on a correct implementation, coverage files with made-up items added to
 * the totals, output paths found unwritable only after the whole check, a `--timeout` that
 * overflowed Node's timers, a stale failure.json taken for the latest, a module whose promise never
 * settles, and a time limit that must never be reported as agreement.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './cli.ts';

const dir = await mkdtemp(join(tmpdir(), 'jobcheck-untrusted-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  let stdout = '';
  let stderr = '';
  const started = performance.now();
  const code = await runCli(args, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    isTTY: false,
  });
  return { code, stdout, stderr, ms: performance.now() - started };
}

/** A module file in the temporary folder, exporting the factory written in `body`. */
async function moduleFile(name: string, body: string): Promise<string> {
  const file = join(dir, `${name}.mjs`);
  await writeFile(file, body);
  return file;
}

/** A real failure artifact, from the broken variant that forgets token numbers on restart. */
async function artifact(): Promise<{ file: string; data: Record<string, unknown> }> {
  const report = join(dir, `found-${Math.random().toString(36).slice(2)}`);
  const out = await cli(
    'check',
    '--broken',
    'restart-resets-tokens',
    '--seed',
    '1',
    '--runs',
    '50',
    '--report',
    report,
  );
  expect(out.code).toBe(1);
  const file = join(report, 'failure.json');
  return { file, data: JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown> };
}

describe('replay refuses an artifact the model does not stand behind', () => {
  it('replays an untouched artifact: the broken variant diverges (exit 1), the built-in store agrees (exit 0)', async () => {
    const { file } = await artifact();
    expect((await cli('replay', file, '--broken', 'restart-resets-tokens')).code).toBe(1);
    expect((await cli('replay', file, '--builtin')).code).toBe(0);
  });

  it('refuses an artifact whose command was edited (exit 2, naming the step), instead of blaming a correct implementation', async () => {
    const { data } = await artifact();
    const steps = data['steps'] as { do?: { now?: number } }[];
    const edited = steps.findIndex((s) => s.do !== undefined);
    (steps[edited]?.do as { now: number }).now += 1;
    const file = join(dir, 'edited.json');
    await writeFile(file, JSON.stringify(data));
    const out = await cli('replay', file, '--builtin');
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(new RegExp(`does not match the reference model at step ${edited + 1} of`));
    expect(out.stdout).toBe('');
  });

  it('refuses an artifact whose expected reply was edited, and one without steps', async () => {
    const { data } = await artifact();
    const steps = data['steps'] as { expect?: Record<string, unknown> }[];
    const last = steps.filter((s) => s.expect !== undefined).at(-1) as { expect: Record<string, unknown> };
    last.expect['ok'] = !last.expect['ok'];
    const file = join(dir, 'edited-reply.json');
    await writeFile(file, JSON.stringify(data));
    expect((await cli('replay', file, '--builtin')).code).toBe(2);
    await writeFile(file, JSON.stringify({ ...data, steps: [] }));
    const empty = await cli('replay', file, '--builtin');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/at least one step/);
  });
});

describe('coverage refuses items the lifecycle does not have', () => {
  it('refuses a file that counts an unknown state, transition or __proto__ key (exit 2), instead of adding it to the totals', async () => {
    const report = join(dir, 'cov-run');
    expect((await cli('check', '--builtin', '--seed', '2', '--runs', '5', '--report', report)).code).toBe(0);
    const good = JSON.parse(await readFile(join(report, 'coverage.json'), 'utf8')) as {
      items: Record<string, Record<string, number>>;
    };
    for (const [category, item] of [
      ['states', 'lost'],
      ['transitions', 'ready --TELEPORT--> done'],
      ['states', '__proto__'],
    ] as const) {
      const bad = structuredClone(good);
      Object.defineProperty(bad.items[category], item, { value: 3, enumerable: true });
      const file = join(dir, `bad-${category}.json`);
      await writeFile(file, JSON.stringify(bad));
      const out = await cli('coverage', file, '--report', join(dir, 'merged'));
      expect(out.code).toBe(2);
      expect(out.stderr).toContain(`is not a ${category.replace(/s$/, '')} of the lifecycle`);
    }
    const merged = await cli('coverage', join(report, 'coverage.json'), '--report', join(dir, 'merged'));
    expect(merged.stdout).toMatch(/states \d\/5/);
  });
});

describe('output destinations are checked before any work', () => {
  it.each([
    ['--report', '/proc/jobcheck-report'],
    ['--report', '/dev/null/report'],
    ['--junit', '/proc/jobcheck.xml'],
    ['--junit', '/'],
  ])('refuses %s %s at once (exit 2) without running the check', async (flag, path) => {
    const out = await cli('check', '--builtin', '--runs', '2000', flag, path);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/^jobcheck: check: cannot/);
    expect(out.stdout).toBe('');
    // 2000 runs take seconds; a refusal before the check takes a moment.
    expect(out.ms).toBeLessThan(3_000);
  });

  it('removes a failure.json left by an earlier run when the next run in the same folder agrees', async () => {
    const report = join(dir, 'reused');
    expect(
      (await cli('check', '--broken', 'global-fifo', '--seed', '1', '--runs', '100', '--report', report)).code,
    ).toBe(1);
    expect((await stat(join(report, 'failure.json'))).isFile()).toBe(true);
    expect((await cli('check', '--builtin', '--seed', '1', '--runs', '5', '--report', report)).code).toBe(0);
    await expect(stat(join(report, 'failure.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it.each([
    ['--timeout', String(2 ** 31)],
    ['--timeout', '0'],
    ['--time-limit', '0'],
    ['--time-limit', '10years'],
    ['--time-limit', '100000h'],
  ])('bounds %s %s (exit 2)', async (flag, value) => {
    const out = await cli('check', '--builtin', flag, value);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(new RegExp(`--${flag.slice(2)} must`));
  });
});

describe('a module nobody trusts yet', () => {
  it('whose execute never settles: a timeout divergence with a story (exit 1), not a silent exit', async () => {
    const file = await moduleFile(
      'never',
      `export default async () => ({ name: 'never', execute: () => new Promise(() => {}), snapshot: async () => ({}), restart: async () => {}, close: async () => {} });\n`,
    );
    const out = await cli(
      'check',
      '--module',
      file,
      '--timeout',
      '50',
      '--runs',
      '3',
      '--seed',
      '1',
      '--no-explore',
      '--time-limit',
      '6',
      '--report',
      join(dir, 'never'),
    );
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/timeout: execute did not settle within 50\b/);
  });

  // Each path of this module costs seconds (a 100,000-deep snapshot), so the check runs to its time
  // limit: a short one, since the divergence comes in the first second.
  it('whose values are not JSON (a cycle, a BigInt, a 100,000-deep value): a typed divergence (exit 1)', async () => {
    const file = await moduleFile(
      'odd',
      `
      let deep = 0; for (let i = 0; i < 100000; i++) deep = [deep];
      const cyclic = { ok: true, type: 'tick' }; cyclic.clock = cyclic;
      export default async () => ({ name: 'odd', execute: async (c) => (c.type === 'tick' ? cyclic : { ok: true, type: 'claim', job: null, n: 1n }), snapshot: async () => ({ deep }), restart: async () => {}, close: async () => {} });
    `,
    );
    const out = await cli(
      'check',
      '--module',
      file,
      '--runs',
      '3',
      '--seed',
      '1',
      '--no-explore',
      '--time-limit',
      '6',
      '--report',
      join(dir, 'odd'),
    );
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(
      /invalid_value: the (reply|snapshot): .*(cycle|bigint|deeper than the limit of 64 levels)/,
    );
    expect(out.stdout.length).toBeLessThan(20_000);
  });

  it('that is slow: the time limit stops the check, reported as INCOMPLETE with exit 3, never as agreement', async () => {
    const file = await moduleFile(
      'slow',
      `
      import { JobStore } from ${JSON.stringify(new URL('../impl/index.ts', import.meta.url).href)};
      const pause = () => new Promise((r) => setTimeout(r, 20));
      export default async (config) => { let s = new JobStore(config); return { name: 'slow', execute: async (c) => { await pause(); return s.execute(c); }, snapshot: async () => s.snapshot(), restart: async () => { s = JobStore.restore(JSON.parse(JSON.stringify(s.snapshot()))); }, close: async () => {} }; };
    `,
    );
    const report = join(dir, 'slow');
    const out = await cli(
      'check',
      '--module',
      file,
      '--time-limit',
      '2',
      '--seed',
      '1',
      '--report',
      report,
      '--json',
      '--junit',
      join(dir, 'slow.xml'),
    );
    expect(out.code).toBe(3);
    const json = JSON.parse(out.stdout) as {
      verdict: string;
      stoppedByTimeLimit: boolean;
      campaign: { verdict: string; runs: number; runsPlanned: number };
    };
    expect(json).toMatchObject({ verdict: 'incomplete', stoppedByTimeLimit: true });
    expect(json.campaign.runs).toBeLessThan(json.campaign.runsPlanned);
    const junit = await readFile(join(dir, 'slow.xml'), 'utf8');
    expect(junit).toMatch(/<(skipped|error) message="(not run|stopped by the time limit)/);
    // The module runs in a process of its own: its start (node with tsx) comes on top of the 2 s.
    expect(out.ms).toBeLessThan(30_000);
  });
});
