/**
 * Fast feedback from `jobcheck check`: `--fail-fast` stops at the first divergence and says what it
 * did not run, in the text and in the JSON result; `--concurrent first` runs the competing workers
 * before the sequential phases and `--concurrent only` runs nothing else; bad values are usage
 * errors that name them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkResultSchema } from './checkJsonSchema.ts';
import { runCliCaptured } from './runCliCaptured.ts';
import type { CapturedRun } from './runCliCaptured.ts';

const dir = await mkdtemp(join(tmpdir(), 'jobcheck-fail-fast-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Runs `jobcheck <args>` in process, its output kept. */
const cli = (...args: string[]): Promise<CapturedRun> => runCliCaptured(args);

describe('jobcheck check --fail-fast', () => {
  it('stops at the first diverging path: the story is told, the rest is reported not run, in text and JSON', async () => {
    const args = ['check', '--broken', 'capacity-forgets-running', '--seed', '1', '--fail-fast'];
    const text = await cli(...args, '--report', join(dir, 'text'));
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(
      /path suite +\d+\/42 paths agree; first diverging: .*; \d+ not run \(stopped by --fail-fast\)/,
    );
    expect(text.stdout).toMatch(/random campaign .*: not run \(stopped by --fail-fast\)/);
    expect(text.stdout).toMatch(/exploration +not run \(stopped by --fail-fast\)/);
    expect(text.stdout).toMatch(/verdict: DIVERGE .*--fail-fast stopped the check there.*comes from the path "/);
    expect(text.stdout).toMatch(/>> reply differs at/);

    const json = checkResultSchema.parse(
      JSON.parse((await cli(...args, '--report', join(dir, 'json'), '--json')).stdout),
    );
    expect(json.verdict).toBe('diverge');
    expect(json.stoppedByFailFast).toBe(true);
    expect(json.stoppedByTimeLimit).toBe(false);
    expect(json.paths.notRun.length).toBeGreaterThan(0);
    expect(json.paths.failed).toHaveLength(1);
    expect(json.campaign.runs).toBe(0);
    expect(json.exploration).toBeNull();
    expect(json.stops?.map((s) => s.phase)).toEqual(['paths', 'campaign', 'explore']);
    expect(new Set(json.stops?.map((s) => s.reason))).toEqual(new Set(['fail_fast']));
  });

  it('runs every phase without it, as before', async () => {
    const json = checkResultSchema.parse(
      JSON.parse(
        (
          await cli(
            'check',
            '--broken',
            'capacity-forgets-running',
            '--seed',
            '1',
            '--runs',
            '20',
            '--no-explore',
            '--json',
            '--report',
            join(dir, 'all'),
          )
        ).stdout,
      ),
    );
    expect(json.stoppedByFailFast).toBe(false);
    expect(json.stops).toEqual([]);
    expect(json.paths.notRun).toEqual([]);
    expect(json.campaign.runs).toBeGreaterThan(0);
  });
});

describe('jobcheck check --concurrent', () => {
  it('with first, tells a race before any sequential phase runs, and with --fail-fast runs nothing after it', async () => {
    const out = await cli(
      'check',
      '--broken',
      'claim-reads-then-writes',
      '--workers',
      '4',
      '--concurrent',
      'first',
      '--fail-fast',
      '--seed',
      '7',
      '--json',
      '--report',
      join(dir, 'race'),
    );
    expect(out.code).toBe(1);
    const json = checkResultSchema.parse(JSON.parse(out.stdout));
    expect(json.concurrentWhen).toBe('first');
    expect(json.failure?.source).toBe('concurrent');
    expect(json.fixtures.notRun).toHaveLength(json.fixtures.total);
    expect(json.stops?.map((s) => s.phase)).toEqual(['fixtures', 'restore', 'paths', 'campaign', 'explore']);
  });

  it('with only, runs the competing workers alone and says the sequential phases were left out', async () => {
    const out = await cli(
      'check',
      '--builtin',
      '--seed',
      '1',
      '--workers',
      '2',
      '--concurrent',
      'only',
      '--concurrent-runs',
      '5',
      '--report',
      join(dir, 'only'),
    );
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/fixture stories +left out \(--concurrent only\)/);
    expect(out.stdout).toMatch(/random campaign +left out \(--concurrent only\)/);
    expect(out.stdout).toMatch(/concurrent +5 runs of 2 workers.*every history linearizable/);
    expect(out.stdout).toMatch(/verdict: AGREE .*only the competing workers ran/);
  });

  it('refuses a value it does not know, naming it, and --concurrent without --workers', async () => {
    const bad = await cli('check', '--builtin', '--workers', '2', '--concurrent', 'sometimes');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--concurrent must be last, first or only (got "sometimes")');
    const alone = await cli('check', '--builtin', '--concurrent', 'first');
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--concurrent needs --workers 2 or more');
  });
});
