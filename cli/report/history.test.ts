import { execFileSync } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readFile, readdir, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  LATEST_FILE,
  LATEST_LINK,
  RUNNING_FOR_AT_MOST_MS,
  RUNS_DIR,
  endRun,
  latestRun,
  listRuns,
  markLatest,
  pruneRuns,
  startRun,
} from './runHistory.ts';
import { parseRunFolderName, runFolderName } from './runName.ts';
import { RUN_RECORD_FORMAT, RunRecordError, quotedCommand, readRunRecord, writeRunRecord } from './runRecord.ts';
import type { RunRecord } from './runRecord.ts';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'jobcheck-history-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const record = (over: Partial<RunRecord> = {}): RunRecord => ({
  format: RUN_RECORD_FORMAT,
  version: '0.1.0',
  time: '2026-12-02T05:30:12.345Z',
  argv: ['check', '--builtin'],
  command: 'jobcheck check --builtin',
  target: 'impl/JobStore',
  seed: 7,
  verdict: 'agree',
  exitCode: 0,
  durationMs: 1200,
  ...over,
});

/** A finished run folder at `iso` with `verdict`, holding a valid run.json; returns its name. */
async function finishedRun(iso: string, verdict: 'agree' | 'diverge' = 'agree'): Promise<string> {
  const name = await startRun(root, new Date(iso));
  await writeRunRecord(join(root, RUNS_DIR, name, 'run.json'), record({ time: iso, verdict }));
  return endRun(root, name, verdict);
}

describe('run folder names', () => {
  it('sort as the times they were started at, across years, days and milliseconds', () => {
    // Far apart, within a year, and within seconds: each a different part of the name decides the order.
    const between = (min: string, max: string) =>
      fc.date({ min: new Date(min), max: new Date(max), noInvalidDate: true });
    const day = fc.oneof(
      between('2000-01-01T00:00:00Z', '2999-12-31T23:59:59.999Z'),
      between('2026-01-01T00:00:00Z', '2026-12-31T23:59:59.999Z'),
      between('2026-12-02T05:30:00Z', '2026-12-02T05:30:10Z'),
    );
    const verdict = fc.constantFrom('agree', 'diverge', 'incomplete', 'error', 'running' as const);
    fc.assert(
      fc.property(fc.array(fc.tuple(day, verdict), { minLength: 2, maxLength: 20 }), (runs) => {
        const byName = runs
          .map(([at, v]) => ({ at, name: runFolderName(at, v) }))
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        for (let i = 1; i < byName.length; i++)
          expect((byName[i - 1] as { at: Date }).at.getTime()).toBeLessThanOrEqual(
            (byName[i] as { at: Date }).at.getTime(),
          );
      }),
    );
  });

  it('say their start time and verdict back, and nothing else is taken for one', () => {
    expect(runFolderName(new Date('2026-12-02T05:30:12.345Z'), 'diverge')).toBe('2026-12-02T05-30-12.345Z-diverge');
    expect(parseRunFolderName('2026-12-02T05-30-12.345Z-diverge')).toEqual({
      time: '2026-12-02T05:30:12.345Z',
      verdict: 'diverge',
    });
    for (const other of [
      'latest',
      'notes',
      '2026-12-02T05-30-12.345Z',
      '2026-12-02T05-30-12.345Z-maybe',
      '2026-13-45T05-30-12.345Z-agree',
    ])
      expect(parseRunFolderName(other), other).toBeUndefined();
  });

  it('stay unique for two runs started in the same millisecond, in the order they started', async () => {
    const at = new Date('2026-12-02T05:30:12.345Z');
    const first = await startRun(root, at);
    const second = await startRun(root, at);
    expect(first).toBe('2026-12-02T05-30-12.345Z-running');
    expect(second).toBe('2026-12-02T05-30-12.346Z-running');
  });
});

describe('pruning', () => {
  it('keeps the newest N runs and deletes only run folders, never anything else in the report directory', async () => {
    const names = [];
    for (let i = 0; i < 5; i++)
      names.push(await finishedRun(`2026-12-02T05:3${i}:00.000Z`, i % 2 === 0 ? 'agree' : 'diverge'));
    await writeFile(join(root, 'coverage.json'), '{}');
    await writeFile(join(root, RUNS_DIR, 'notes.txt'), 'mine');
    await mkdir(join(root, RUNS_DIR, 'my-folder'));
    await mkdir(join(root, RUNS_DIR, '2026-12-02T05-30-00.000Z-maybe'));
    const deleted = await pruneRuns(root, 2, { now: new Date('2026-12-02T06:00:00Z') });
    expect(deleted).toEqual(names.slice(0, 3));
    expect((await readdir(join(root, RUNS_DIR))).sort()).toEqual(
      ['2026-12-02T05-30-00.000Z-maybe', ...names.slice(3), 'my-folder', 'notes.txt'].sort(),
    );
    expect(await readFile(join(root, 'coverage.json'), 'utf8')).toBe('{}');
  });

  it('leaves a run that may still be going, and deletes one killed longer ago than any check runs', async () => {
    const now = new Date('2026-12-03T12:00:00Z');
    const killed = await startRun(root, new Date(now.getTime() - RUNNING_FOR_AT_MOST_MS - 1000));
    const going = await startRun(root, new Date(now.getTime() - 60_000));
    const done = await finishedRun('2026-12-03T11:00:00.000Z');
    expect(await pruneRuns(root, 1, { now })).toEqual([killed]);
    expect((await readdir(join(root, RUNS_DIR))).sort()).toEqual([done, going].sort());
  });
});

describe('pruning with names it did not write', () => {
  it('never deletes the run just made, and neither deletes nor counts a name that lies in the future', async () => {
    const future = ['2097-01-01T00:00:00.000Z', '2097-01-02T00:00:00.000Z', '2097-01-03T00:00:00.000Z'];
    const ahead = [];
    for (const iso of future) ahead.push(await finishedRun(iso));
    const older = await finishedRun('2026-12-02T05:30:00.000Z');
    const justMade = await finishedRun('2026-12-02T05:31:00.000Z');
    const now = new Date('2026-12-02T05:32:00Z');
    expect(await pruneRuns(root, 3, { now, justMade })).toEqual([]);
    expect(await pruneRuns(root, 1, { now, justMade })).toEqual([older]);
    expect((await readdir(join(root, RUNS_DIR))).sort()).toEqual([justMade, ...ahead].sort());
  });

  it('keeps the run just made even when the clock went back and older-named runs look newer', async () => {
    const newer = await finishedRun('2026-12-02T05:40:00.000Z');
    const justMade = await finishedRun('2026-12-02T05:30:00.000Z');
    expect(await pruneRuns(root, 1, { now: new Date('2026-12-02T06:00:00Z'), justMade })).toEqual([newer]);
  });

  it('takes no name of the right shape that it would not write for a run', async () => {
    for (const name of [
      '2026-02-30T00-00-00.000Z-agree',
      '2026-12-02T24-00-00.000Z-agree',
      '2026-12-02T05-30-60.000Z-agree',
    ])
      expect(parseRunFolderName(name), name).toBeUndefined();
    await mkdir(join(root, RUNS_DIR, '2026-02-30T00-00-00.000Z-agree'), { recursive: true });
    expect(await pruneRuns(root, 1, { now: new Date('2026-12-02T06:00:00Z') })).toEqual([]);
  });
});

describe('the latest run', () => {
  it('is a relative link runs/<name>, replaced by the next run', async () => {
    const a = await finishedRun('2026-12-02T05:30:00.000Z');
    expect(await markLatest(root, a)).toBe(LATEST_LINK);
    expect(await readlink(join(root, LATEST_LINK))).toBe(join(RUNS_DIR, a));
    const b = await finishedRun('2026-12-02T05:31:00.000Z', 'diverge');
    await markLatest(root, b);
    expect(await readlink(join(root, LATEST_LINK))).toBe(join(RUNS_DIR, b));
    expect(await latestRun(root)).toBe(b);
    expect((await readFile(join(root, LATEST_LINK, 'run.json'), 'utf8')).includes('"diverge"')).toBe(true);
  });

  it('is named in latest.txt where no link can be made (a latest that is a folder of its own), which is left alone', async () => {
    await mkdir(join(root, LATEST_LINK));
    await writeFile(join(root, LATEST_LINK, 'keep.txt'), 'mine');
    const a = await finishedRun('2026-12-02T05:30:00.000Z');
    expect(await markLatest(root, a)).toBe(join(RUNS_DIR, a));
    expect(await readFile(join(root, LATEST_FILE), 'utf8')).toBe(`${a}\n`);
    expect(await latestRun(root)).toBe(a);
    expect((await lstat(join(root, LATEST_LINK))).isDirectory()).toBe(true);
    expect(await readFile(join(root, LATEST_LINK, 'keep.txt'), 'utf8')).toBe('mine');
  });
});

describe('listing the runs', () => {
  it('gives every run newest first, a broken run.json as unreadable with its file and field, and goes on', async () => {
    const good = await finishedRun('2026-12-02T05:30:00.000Z');
    const badField = await finishedRun('2026-12-02T05:31:00.000Z');
    await writeFile(join(root, RUNS_DIR, badField, 'run.json'), JSON.stringify({ ...record(), seed: 'seven' }));
    const notJson = await finishedRun('2026-12-02T05:32:00.000Z');
    await writeFile(join(root, RUNS_DIR, notJson, 'run.json'), '{"format": "jobcheck.run/1",');
    const killed = await startRun(root, new Date('2026-12-02T05:33:00.000Z'));
    const newest = await finishedRun('2026-12-02T05:34:00.000Z', 'diverge');
    const runs = await listRuns(root);
    expect(runs.map((r) => r.folder)).toEqual(
      [newest, killed, notJson, badField, good].map((n) => join(root, RUNS_DIR, n)),
    );
    const [first, second, third, fourth, fifth] = runs;
    expect(first && 'record' in first ? first.record.verdict : null).toBe('diverge');
    expect(fifth && 'record' in fifth ? fifth.record.seed : null).toBe(7);
    const errorOf = (r: (typeof runs)[number] | undefined) => (r !== undefined && 'error' in r ? r.error : undefined);
    expect(errorOf(second)).toMatchObject({
      code: 'run_record_missing',
      file: join(root, RUNS_DIR, killed, 'run.json'),
    });
    expect(errorOf(third)).toMatchObject({ code: 'run_record_not_json', field: '(root)' });
    expect(errorOf(fourth)).toMatchObject({
      code: 'run_record_invalid',
      field: 'seed',
      file: join(root, RUNS_DIR, badField, 'run.json'),
    });
    expect(errorOf(fourth)?.message).toContain('seed');
  });

  it('is empty for a report directory without runs', async () => {
    expect(await listRuns(join(root, 'nothing-here'))).toEqual([]);
  });

  it('reads no run.json that is not a regular file: one linked to /dev/zero, or a FIFO, is unreadable', async () => {
    const zero = await finishedRun('2026-12-02T05:30:00.000Z');
    await rm(join(root, RUNS_DIR, zero, 'run.json'));
    await symlink('/dev/zero', join(root, RUNS_DIR, zero, 'run.json'));
    const pipe = await finishedRun('2026-12-02T05:31:00.000Z');
    await rm(join(root, RUNS_DIR, pipe, 'run.json'));
    execFileSync('mkfifo', [join(root, RUNS_DIR, pipe, 'run.json')]);
    const runs = await listRuns(root);
    expect(runs.map((r) => ('error' in r ? r.error.message.replace(/^.*: it is /, '') : 'read'))).toEqual([
      'a FIFO (named pipe), not a regular file (refused without reading it)',
      'a character device, not a regular file (refused without reading it)',
    ]);
  });

  it('refuses a runs that is not a folder and a latest.txt that is a FIFO, naming each', async () => {
    await writeFile(join(root, RUNS_DIR), 'not a folder');
    await expect(listRuns(root)).rejects.toMatchObject({ name: 'WalkError', path: join(root, RUNS_DIR) });
    execFileSync('mkfifo', [join(root, LATEST_FILE)]);
    await expect(latestRun(root)).rejects.toMatchObject({ name: 'InputFileError', code: 'not_a_file' });
  });

  it('refuses to start a run in a runs that is a link out of the report directory', async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'jobcheck-elsewhere-'));
    try {
      await symlink(elsewhere, join(root, RUNS_DIR));
      await expect(startRun(root, new Date())).rejects.toMatchObject({ name: 'OutputFileError', code: 'link' });
      expect(await readdir(elsewhere)).toEqual([]);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });
});

describe('run.json', () => {
  it('reads back what was written, and refuses a record too large to be one', async () => {
    const file = join(root, 'run.json');
    await writeRunRecord(file, record());
    expect(await readRunRecord(file)).toEqual(record());
    await writeFile(file, JSON.stringify({ ...record(), command: 'x'.repeat(300_000) }));
    await expect(readRunRecord(file)).rejects.toBeInstanceOf(RunRecordError);
    await expect(readRunRecord(file)).rejects.toMatchObject({ code: 'run_record_unreadable' });
  });

  it('quotes the command line so that a shell reads the same words back', () => {
    expect(quotedCommand(['check', '--impl', 'python3 my store.py', '--seed', '-3', "it's"])).toBe(
      `jobcheck check --impl 'python3 my store.py' --seed -3 'it'\\''s'`,
    );
  });
});
