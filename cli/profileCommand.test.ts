import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { profileSchema } from '../conformance/profile/result.ts';
import { UsageError } from './errors.ts';
import { profileCommand } from './profileCommand.ts';

const dir = mkdtempSync(join(tmpdir(), 'jobcheck-profile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(argv: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await profileCommand(argv, {
    stdout: { write: (t: string) => out.push(t) },
    stderr: { write: (t: string) => err.push(t) },
    isTTY: false,
  });
  return { code, out: out.join(''), err: err.join('') };
}

describe('jobcheck profile', () => {
  it('prints its usage with --help', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('Usage: jobcheck profile');
  });

  it('refuses bad input with a usage error naming the value', async () => {
    await expect(run(['--builtin', '--rule', 'no-such-rule'])).rejects.toThrow(/--rule "no-such-rule" is not a rule/);
    await expect(run(['--builtin', '--path', '3:1'])).rejects.toThrow(UsageError);
    await expect(run(['--builtin', '--runs', 'many'])).rejects.toThrow(/--runs must be a whole number \(got "many"\)/);
    await expect(run(['--variant', 'global-fifo'])).rejects.toThrow(/use it with --builtin/);
    await expect(run(['--builtin', '--variant', 'nonesuch'])).rejects.toThrow(/no broken variant named "nonesuch"/);
    await expect(run([])).rejects.toThrow(/say which implementation/);
  });

  it('exits 1 on a departure, prints its story and writes the Markdown page', async () => {
    const markdown = join(dir, 'fifo.md');
    const r = await run([
      '--builtin',
      '--variant',
      'global-fifo',
      '--runs',
      '8',
      '--rule',
      'account-head-only',
      '--markdown',
      markdown,
    ]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/account-head-only\s+departs/);
    expect(r.out).toMatch(
      /reproduce: npx jobcheck profile --builtin --variant global-fifo --rule account-head-only( --path [\d:]+)?\n/,
    );
    const page = readFileSync(markdown, 'utf8');
    expect(page).toContain('## <a id="departure-account-head-only"></a>Departure: `account-head-only`');
  });

  it('exits 0 for the built-in store, and prints the profile as JSON in its schema', async () => {
    const r = await run(['--builtin', '--runs', '2', '--rule', 'backoff-capped', '--json']);
    expect(r.code).toBe(0);
    const profile = profileSchema.parse(JSON.parse(r.out));
    expect(profile.rules.find((x) => x.rule === 'backoff-capped')?.status).toBe('conforms');
  });

  it('takes the declarations of a module that exports a ProfileTarget', async () => {
    const file = join(dir, 'target.ts');
    const factory = pathToFileURL(join(process.cwd(), 'conformance', 'stores', 'jobStore.ts')).href;
    writeFileSync(
      file,
      `import { jobStoreFactory } from ${JSON.stringify(factory)};
export const profileTarget = {
  queue: 'declared', version: '1', factory: jobStoreFactory(),
  declarations: { 'balance-stays-safe': { kind: 'unsupported', why: 'no balances' }, 'backoff-capped': { kind: 'variant', variant: 'jittered-backoff', why: 'jitter' } },
};
`,
    );
    const r = await run(['--module', file, '--runs', '2', '--rule', 'backoff-capped', '--json']);
    expect(r.code).toBe(0);
    const profile = profileSchema.parse(JSON.parse(r.out));
    expect(profile.queue).toBe('declared');
    expect(profile.rules.find((x) => x.rule === 'balance-stays-safe')).toMatchObject({
      status: 'unsupported',
      why: 'no balances',
    });
    expect(profile.rules.find((x) => x.rule === 'backoff-capped')).toMatchObject({
      status: 'variant',
      variant: 'jittered-backoff',
    });
  });

  it('is a setup error when a declared variant does not exist', async () => {
    const file = join(dir, 'bad.ts');
    const factory = pathToFileURL(join(process.cwd(), 'conformance', 'stores', 'jobStore.ts')).href;
    writeFileSync(
      file,
      `import { jobStoreFactory } from ${JSON.stringify(factory)};
export default { queue: 'bad', version: '1', factory: jobStoreFactory(), declarations: { 'backoff-capped': { kind: 'variant', variant: 'gentle-backoff', why: '?' } } };
`,
    );
    await expect(run(['--module', file, '--runs', '1'])).rejects.toThrow(/no model variant named "gentle-backoff"/);
  });

  it('runs competing workers with --workers and prints their verdict beside the rules', async () => {
    const r = await run([
      '--builtin',
      '--rule',
      'ack-settles-done',
      '--runs',
      '2',
      '--workers',
      '3',
      '--concurrent-runs',
      '10',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const profile = profileSchema.parse(JSON.parse(r.out));
    expect(profile.concurrent).toMatchObject({
      verdict: 'linearizable',
      workers: 3,
      runs: 10,
      runsDone: 10,
      avoided: [],
    });
    const text = await run([
      '--builtin',
      '--rule',
      'ack-settles-done',
      '--runs',
      '2',
      '--workers',
      '2',
      '--concurrent-runs',
      '5',
    ]);
    expect(text.out).toContain('Competing workers:');
    expect(text.out).toContain('linearizable: in 5 of 5 scenarios of up to 2 worker lanes');
  });

  it("exits 1 on a race of competing workers, and the story's reproduce line replays only that run", async () => {
    const argv = ['--broken', 'ack-checks-then-settles', '--rule', 'ack-settles-done', '--runs', '1'];
    const r = await run([...argv, '--workers', '4', '--seed', '2', '--concurrent-runs', '150', '--json']);
    expect(r.code).toBe(1);
    const c = profileSchema.parse(JSON.parse(r.out)).concurrent;
    expect(c?.verdict).toBe('not_linearizable');
    expect(c?.replay).toBe(
      `npx jobcheck profile --broken ack-checks-then-settles --workers 4 --seed 2 --concurrent-path ${c?.path}`,
    );
    expect(c?.story).toContain(`reproduce: ${c?.replay}`);
    const again = await run((c?.replay ?? '').split(' ').slice(3));
    expect(again.code).toBe(1);
    expect(again.out).toMatch(/^competing workers: not linearizable/);
  });

  it("finds the stale ack a race (its requests one at a time agree), and the race's reproduce line replays only that run", async () => {
    const argv = ['--broken', 'ack-checks-then-settles', '--rule', 'ack-settles-done', '--runs', '1'];
    const r = await run([...argv, '--workers', '4', '--seed', '2', '--concurrent-runs', '150', '--json']);
    const races = profileSchema.parse(JSON.parse(r.out)).concurrent?.races;
    expect(races?.verdict).toBe('race');
    expect(races?.replay).toBe(
      `npx jobcheck profile --broken ack-checks-then-settles --workers 4 --seed 2 --race-path ${races?.path}`,
    );
    expect(races?.story).toContain(`reproduce: ${races?.replay}`);
    const again = await run((races?.replay ?? '').split(' ').slice(3));
    expect(again.code).toBe(1);
    expect(again.out).toMatch(/^races: a race/);
  });

  it('refuses bad competing-worker flags with a usage error naming the flag and value', async () => {
    await expect(run(['--builtin', '--workers', '1'])).rejects.toThrow(/--workers .*\(got "1"\)/);
    await expect(run(['--builtin', '--workers', '99'])).rejects.toThrow(/--workers .*\(got "99"\)/);
    await expect(run(['--builtin', '--workers', 'four'])).rejects.toThrow(/--workers .*\(got "four"\)/);
    await expect(run(['--builtin', '--concurrent-runs', '5'])).rejects.toThrow(/--concurrent-runs needs --workers/);
    await expect(run(['--builtin', '--concurrent-path', '1:2'])).rejects.toThrow(
      /--concurrent-path needs the --workers/,
    );
    await expect(run(['--builtin', '--workers', '2', '--concurrent-path', 'x'])).rejects.toThrow(
      /--concurrent-path must look like 3:0:1 \(got "x"\)/,
    );
    await expect(run(['--builtin', '--race-path', '1:2'])).rejects.toThrow(/--race-path needs the --workers/);
    await expect(run(['--builtin', '--workers', '2', '--race-path', 'y'])).rejects.toThrow(
      /--race-path must look like 3:0:1 \(got "y"\)/,
    );
    await expect(run(['--builtin', '--workers', '2', '--race-path', '1', '--concurrent-path', '1'])).rejects.toThrow(
      /--race-path replays a run of the search for races only/,
    );
    await expect(run(['--builtin', '--stale-ack'])).rejects.toThrow(/--stale-ack needs --workers/);
    await expect(run(['--builtin', '--workers', '2', '--stale-ack', '--rule', 'ack-settles-done'])).rejects.toThrow(
      /--stale-ack runs the stale-acknowledgement scenario only/,
    );
  });

  it('asks the stale-acknowledgement question with --workers, and --stale-ack asks it alone', async () => {
    const r = await run(['--builtin', '--rule', 'ack-settles-done', '--runs', '1', '--workers', '2', '--json']);
    const c = profileSchema.parse(JSON.parse(r.out)).concurrent;
    expect(c?.staleAck).toEqual({ verdict: 'kept' });
    const alone = await run(['--builtin', '--workers', '4', '--stale-ack']);
    expect(alone.code).toBe(0);
    expect(alone.out).toMatch(/^stale acknowledgement: kept: the old holder's ack after the redelivery is refused/);
  });
});
