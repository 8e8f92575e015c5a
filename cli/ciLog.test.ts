/**
 * A check without a terminal (a CI log, a pipe) is never silent for its length: the summary's
 * header is written at once and each phase's line as the phase ends, in the summary's order, and
 * the summary at the end goes on from them, so that the whole output is the summary a terminal
 * gets. With --json, stdout stays the JSON alone and the same lines go to stderr.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CheckPhaseEnd } from '../conformance/check/index.ts';
import { checkResultSchema } from './checkJsonSchema.ts';
import { runCli } from './cli.ts';
import { PhaseLog } from './progress.ts';

const dir = await mkdtemp(join(tmpdir(), 'jobcheck-cilog-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A phase's end that the summary words as left out (the words do not matter here, only when they come). */
const leftOut = (phase: CheckPhaseEnd['phase']): CheckPhaseEnd =>
  ({ phase, ms: 0, stop: undefined, leftOut: 'shard' }) as CheckPhaseEnd;

describe('PhaseLog', () => {
  it('writes the header at once, and each line only once every phase before it in the summary has ended', () => {
    const written: string[] = [];
    const log = new PhaseLog((t) => written.push(t));
    log.start(['jobcheck check: x']);
    expect(written).toEqual(['jobcheck check: x\n']);
    log.end(leftOut('restore'));
    expect(written).toHaveLength(1);
    log.end(leftOut('fixtures'));
    expect(written.slice(1)).toEqual(['  fixture stories  in shard 1\n', '  restore          in shard 1\n']);
    // Competing workers that ran first wait for their place, after the exploration.
    log.end({
      phase: 'concurrent',
      concurrent: null,
      ms: 0,
      stop: { phase: 'concurrent', reason: 'fail_fast', note: '' },
      leftOut: null,
    });
    for (const phase of ['paths', 'campaign'] as const) log.end(leftOut(phase));
    expect(written.at(-1)).toBe('  random campaign  in shard 1\n');
    log.end(leftOut('explore'));
    expect(written.slice(-2)).toEqual([
      '  exploration      in shard 1\n',
      '  concurrent       not run (stopped by --fail-fast)\n',
    ]);
  });

  it('gives the summary without the lines already written, and all of it when it does not begin with them', () => {
    const log = new PhaseLog(() => undefined);
    log.start(['a', 'b']);
    expect(log.rest('a\nb\nc\n')).toBe('c\n');
    expect(log.rest('a\nx\nc\n')).toBe('a\nx\nc\n');
  });
});

/** Runs `jobcheck <args>` in process without a terminal, keeping every write apart, in order. */
async function written(args: readonly string[]) {
  const writes: { stream: 'stdout' | 'stderr'; text: string }[] = [];
  const keep = (stream: 'stdout' | 'stderr') => ({
    write: (text: string) => writes.push({ stream, text }),
  });
  const code = await runCli(args, { stdout: keep('stdout'), stderr: keep('stderr'), isTTY: false });
  const text = (stream: 'stdout' | 'stderr'): string =>
    writes
      .filter((w) => w.stream === stream)
      .map((w) => w.text)
      .join('');
  return { code, writes, stdout: text('stdout'), stderr: text('stderr') };
}

const LABELS = ['fixture stories', 'restore', 'path suite', 'random campaign', 'exploration'];

describe('jobcheck check without a terminal', () => {
  it('writes the header at once and a line as each phase ends, then the rest of the summary', async () => {
    const r = await written(['check', '--builtin', '--runs', '20', '--seed', '3', '--report', join(dir, 'text')]);
    expect(r.code).toBe(0);
    const out = r.writes.filter((w) => w.stream === 'stdout');
    expect(out[0]?.text).toBe('jobcheck check: impl/JobStore\n');
    // One write per phase as it ended, in the summary's order, then the rest of the summary in one.
    for (const [i, label] of LABELS.entries()) expect(out[i + 1]?.text.startsWith(`  ${label} `), label).toBe(true);
    expect(out).toHaveLength(LABELS.length + 2);
    expect(out.at(-1)?.text.startsWith('  time ')).toBe(true);
    // Each phase is told once: the summary goes on from the lines already written.
    for (const label of LABELS) expect(r.stdout.split(`\n  ${label} `).length - 1, label).toBe(1);
    expect(r.stdout).toMatch(/\nverdict: AGREE with the model/);
    expect(r.stderr).toBe('');
  }, 60_000);

  it('with --json, keeps stdout the JSON alone and writes the same lines on stderr', async () => {
    const r = await written([
      'check',
      '--builtin',
      '--runs',
      '20',
      '--seed',
      '3',
      '--no-explore',
      '--json',
      '--report',
      join(dir, 'json'),
    ]);
    expect(r.code).toBe(0);
    expect(checkResultSchema.parse(JSON.parse(r.stdout)).verdict).toBe('agree');
    const lines = r.stderr.split('\n');
    expect(lines[0]).toBe('jobcheck check: impl/JobStore');
    expect(lines.slice(1, 6).map((l) => l.slice(2, 17).trim())).toEqual(LABELS);
    expect(lines[5]).toBe('  exploration      left out (--no-explore)');
  }, 60_000);
});
