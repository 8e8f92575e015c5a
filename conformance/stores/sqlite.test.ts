/**
 * impl/sqlite's SqliteStore against the reference model: every fixture story, the path suite and
 * the default campaign in process (restarts through a snapshot into a new file, and reopening the
 * same file), then the whole check over the protocol (`jobcheck serve --store sqlite:<file>`),
 * where the harness also crash-restarts it: SIGKILL, a new process resuming the file.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCheck } from '../check/index.ts';
import type { CheckFailure } from '../check/index.ts';
import { answerLine, memoryStoreMaker, sqliteStoreMaker } from '../../impl/protocol/index.ts';
import type { Session } from '../../impl/protocol/index.ts';
import { holdFolder, sqliteFactory } from './sqlite.ts';
import { processAdapterFactory } from '../protocol/index.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'jobcheck-sqlite-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What went wrong, for a failing test's message: a run's divergence, or a fixture's result. */
const detailOf = (f: CheckFailure): unknown =>
  f.kind === 'divergence' ? f.run.divergence : f.kind === 'fixture' ? f.fixture.result : undefined;
const failureOf = (report: Awaited<ReturnType<typeof runCheck>>): string | null =>
  report.failure === null
    ? null
    : `${report.failure.source} ${report.failure.name}: ${JSON.stringify(detailOf(report.failure))}`;

const CONFIG = { capacity: 2, maxAttempts: 2, leaseTicks: 3, backoffBase: 1, backoffCap: 4 };

describe('the scratch folder', () => {
  it('lives while a store holds it and is removed when the last store closes', async () => {
    const probe = holdFolder(undefined);
    const folder = probe.dir;
    probe.release();
    expect(existsSync(folder)).toBe(false);
    const factory = sqliteFactory();
    const a = await factory(CONFIG);
    const b = await factory(CONFIG);
    const shared = holdFolder(undefined);
    expect(existsSync(shared.dir)).toBe(true);
    shared.release();
    await a.close();
    await a.close();
    expect(existsSync(shared.dir)).toBe(true);
    await b.close();
    expect(existsSync(shared.dir)).toBe(false);
  });
});

describe('SqliteStore in process', () => {
  // Seed 1 finds every bug of the broken catalogue by its 16th run (bench/firstFound.ts): 150 runs
  // keep a margin of nine times that.
  it('passes every fixture, the path suite and a 150-run campaign, restarting through a snapshot into a new file', async () => {
    const report = await runCheck({ factory: sqliteFactory({ dir }) }, { runs: 150, seed: 1 });
    expect(failureOf(report)).toBeNull();
    expect(report.verdict).toBe('agree');
    expect(report.fixtures.length).toBeGreaterThan(0);
    expect(readdirSync(dir)).toEqual([]); // every store's file is removed when its adapter closes
  }, 240_000);

  // Seed 2 finds the catalogue's restart bugs (restart-resets-tokens, restart-forgets-ledger) by its
  // 10th run: 50 runs keep a margin of five times that.
  it('passes them reopening the same file at every restart (the durable restart)', async () => {
    const report = await runCheck(
      { factory: sqliteFactory({ dir, restart: 'reopen' }) },
      { runs: 50, seed: 2, noExplore: true },
    );
    expect(failureOf(report)).toBeNull();
    expect(report.verdict).toBe('agree');
  });
});

describe('the durable hello', () => {
  const config = { capacity: 2, maxAttempts: 2, leaseTicks: 3, backoffBase: 2, backoffCap: 4 };
  const hello = (extra: object = {}): string =>
    JSON.stringify({ type: 'hello', protocol: 'jobcheck/1', config, ...extra });

  it('names a new file per store, and a later process resumes exactly that store without a snapshot', async () => {
    const family = join(dir, 'resume.db');
    const first: Session = {};
    const maker = sqliteStoreMaker(family);
    const a = (await answerLine(first, hello(), maker)) as { durable?: { storage: string } };
    const b = (await answerLine(first, hello(), maker)) as { durable?: { storage: string } };
    expect(a.durable?.storage).toMatch(/resume-\d+-1\.db$/);
    expect(b.durable?.storage).not.toBe(a.durable?.storage);
    expect(existsSync(a.durable?.storage as string)).toBe(false); // replaced by the second hello, removed
    await answerLine(
      first,
      '{"type":"submit","id":"a","account":"acme","key":"k","amount":5,"deadline":20,"now":1}',
      maker,
    );
    const before = await answerLine(first, '{"type":"snapshot"}', maker);
    // A second session stands for the new process: nothing of the first crosses but the file.
    const second: Session = {};
    const resumed = await answerLine(second, hello({ resume: b.durable?.storage }), sqliteStoreMaker(family));
    expect(resumed).toMatchObject({ ok: true, type: 'hello', durable: { storage: b.durable?.storage } });
    expect(await answerLine(second, '{"type":"snapshot"}', sqliteStoreMaker(family))).toEqual(before);
    await second.store?.close?.();
    await first.store?.close?.();
    expect(existsSync(b.durable?.storage as string)).toBe(false); // a store's file goes with it
  });

  it('refuses a resume of a file outside the family, of a missing one, and towards a store in memory', async () => {
    const family = join(dir, 'other.db');
    expect(await answerLine({}, hello({ resume: join(dir, 'elsewhere.db') }), sqliteStoreMaker(family))).toMatchObject({
      ok: false,
      code: 'invalid_argument',
    });
    expect(await answerLine({}, hello({ resume: join(dir, 'other-1-1.db') }), sqliteStoreMaker(family))).toMatchObject({
      ok: false,
      code: 'invalid_argument',
    });
    expect(await answerLine({}, hello({ resume: 'x.db' }), memoryStoreMaker)).toMatchObject({
      ok: false,
      code: 'invalid_argument',
    });
    expect(await answerLine({}, hello({ resume: 7 }), sqliteStoreMaker(family))).toMatchObject({
      ok: false,
      code: 'invalid_argument',
    });
    expect(await answerLine({}, hello(), memoryStoreMaker)).not.toHaveProperty('durable');
  });
});

describe('SqliteStore over the protocol', () => {
  it('agrees with the model through `jobcheck serve --store sqlite:<file>`, with crash restarts in the campaign', async () => {
    const command = `"${process.execPath}" bin/jobcheck.js serve --store sqlite:${join(dir, 'jobs.db')}`;
    const factory = processAdapterFactory(command, { spares: 1, cwd: ROOT });
    try {
      const report = await runCheck(
        {
          factory,
          warmFactory: factory.warm,
          campaignFactory: factory.crash,
          parallel: 2,
          restarts: () => factory.restarts,
        },
        { runs: 12, seed: 3, noExplore: true },
      );
      expect(failureOf(report)).toBeNull();
      expect(report.verdict).toBe('agree');
      expect(report.phases.restarts?.crash ?? 0).toBeGreaterThan(0);
    } finally {
      await factory.close();
    }
    // Killed processes leave their files for a resume; every other file is gone.
    expect(existsSync(dir)).toBe(true);
  }, 60_000);
});
