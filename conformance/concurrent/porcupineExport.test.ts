/**
 * The Porcupine export read by Go, as an importer reads it: porcupine-check/main.go declares a
 * struct with exactly the fields of Porcupine's Operation and decodes the file into a slice of it,
 * unknown and misspelt keys refused, then checks Call <= Return. It compiles a Go program (plain
 * standard library, no module download), so it is in the slow part of the suite.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concurrentBrokenVariant } from '../broken/index.ts';
import { runConcurrentCampaign } from './campaign.ts';
import { toPorcupine } from './export.ts';
import type { History } from './history.ts';
import { jobStoreRoundHistory } from './jobModel.ts';

const here = dirname(fileURLToPath(import.meta.url));
let work = '';
let binary = '';

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'jobcheck-porcupine-'));
  binary = join(work, 'porcupine-check');
  const built = spawnSync('go', ['build', '-o', binary, 'main.go'], {
    cwd: join(here, 'porcupine-check'),
    encoding: 'utf8',
    env: { ...process.env, GOCACHE: join(work, 'gocache'), GOFLAGS: '', GO111MODULE: 'off' },
  });
  if (built.status !== 0) throw new Error(`go build failed (is Go installed?): ${built.stderr}${built.stdout}`);
}, 120_000);

afterAll(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

/** Runs the Go check on a file's text: its exit status and its one line. */
function goCheck(name: string, text: string): { status: number | null; out: string } {
  const file = join(work, name);
  writeFileSync(file, text);
  const r = spawnSync(binary, [file], { encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}${r.stderr}`.trim() };
}

describe("the Porcupine export, decoded by Go into porcupine's Operation fields", () => {
  it('decodes the history of a racy store caught by the campaign, with Call <= Return for every operation', async () => {
    const variant = concurrentBrokenVariant('claim-reads-then-writes');
    if (variant === undefined) throw new Error('no variant claim-reads-then-writes');
    const caught = await runConcurrentCampaign({ factory: variant.factory, workers: 3, numRuns: 500, seed: 1 });
    const history = caught.failure?.run?.history as History<unknown, unknown>;
    expect(history.operations.length).toBeGreaterThan(2);
    const r = goCheck('racy.json', toPorcupine(history));
    expect(r).toEqual({
      status: 0,
      out: `ok ${history.operations.length} operations, ${new Set(history.operations.map((o) => o.lane)).size} clients`,
    });
  }, 60_000);

  it('decodes a history with requests that got no reply', () => {
    const history = jobStoreRoundHistory({
      config: { capacity: 3, maxAttempts: 2, leaseTicks: 2, backoffBase: 1, backoffCap: 4 },
      workers: 4,
      requests: 80,
      seed: 5,
      indefinite: 0.2,
    });
    expect(history.operations.some((o) => o.returned === undefined)).toBe(true);
    expect(goCheck('indefinite.json', toPorcupine(history))).toEqual({
      status: 0,
      out: `ok ${history.operations.length} operations, 4 clients`,
    });
  });

  it('refuses what an importer would: a misspelt field, a fractional time, a return before its call', () => {
    const good = { ClientId: 0, Input: { type: 'tick', now: 0 }, Call: 1, Output: null, Return: 2, Metadata: null };
    expect(goCheck('ok.json', JSON.stringify([good])).status).toBe(0);
    const { ClientId: _, ...rest } = good;
    expect(goCheck('case.json', JSON.stringify([{ ...rest, clientId: 0 }])).out).toContain('"clientId" is not a field');
    expect(goCheck('extra.json', JSON.stringify([{ ...good, Lane: 0 }])).out).toContain('"Lane" is not a field');
    expect(goCheck('fraction.json', JSON.stringify([{ ...good, Call: 1.5 }])).out).toContain('int64');
    expect(goCheck('order.json', JSON.stringify([{ ...good, Call: 3 }])).out).toContain('Call 3 is after Return 2');
  });
});
