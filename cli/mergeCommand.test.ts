/**
 * Merging the parts of a sharded check: the merged verdict is never kinder than a part, a part
 * missing or twice is an error naming it, the merged JUnit file keeps every shard's cases under
 * names of their own, and coverage.md opens with the verdict. The parts here are built by hand:
 * docs/ci.test.ts runs real shards and the merge end to end.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCheck } from '../conformance/check/index.ts';
import { sequentialFactory } from '../conformance/concurrent/inProcess.ts';
import { jobStoreFactory } from '../conformance/stores/jobStore.ts';
import { checkJson } from './output/index.ts';
import { runCliCaptured } from './runCliCaptured.ts';
import { emptyCoverage } from '../conformance/coverage/coverage.ts';
import { coverageMarkdown } from '../conformance/coverage/coverageReport.ts';
import type { CheckResultJson } from './checkJsonSchema.ts';
import { exitCodeOfVerdict } from './checkCommand.ts';
import { coverageShard, joinsParts, mergeVerdicts, partsOf, shortestStory } from './mergeCommand.ts';
import { checkResultVerdict, mergeFileVerdict, mergeResultSchema } from './mergeJsonSchema.ts';
import type { MergeResultJson } from './mergeJsonSchema.ts';
import { caseFailure, junitShard, mergeJunit, parseJunit } from './mergeJunit.ts';

/** A result of shard `index` of `count`, with only the fields the merge reads filled in. */
const part = (
  index: number,
  count: number,
  verdict: CheckResultJson['verdict'],
  more: Partial<CheckResultJson> = {},
) => ({
  file: `shards/${index}/result.json`,
  result: {
    verdict,
    seed: 1,
    runs: 10,
    target: 'python3 jobstore.py',
    shard: { index, count },
    stoppedByTimeLimit: verdict === 'incomplete',
    failure: null,
    ...more,
  } as CheckResultJson,
});

const junit = (shard: string, cases: string): string =>
  [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<testsuites name="jobcheck x" tests="1" failures="0" errors="0" skipped="0" time="0.000" timestamp="2025-01-31T12:00:00Z">',
    '  <testsuite name="jobcheck.campaign" tests="1" failures="0" errors="0" skipped="0" time="0.000" timestamp="2025-01-31T12:00:00Z">',
    '    <properties>',
    '      <property name="seed" value="1"/>',
    `      <property name="shard" value="${shard}"/>`,
    '    </properties>',
    `    ${cases}`,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');

describe('jobcheck merge', () => {
  it('calls the merge red when a part is red, incomplete when a part was stopped, and green only when every part agrees', () => {
    expect(mergeVerdicts(['agree', 'diverge', 'incomplete'])).toBe('diverge');
    expect(mergeVerdicts(['agree', 'incomplete'])).toBe('incomplete');
    expect(mergeVerdicts(['agree', 'agree'])).toBe('agree');
    expect(mergeVerdicts([])).toBe('incomplete');
    expect([0, 1, 3]).toEqual((['agree', 'diverge', 'incomplete'] as const).map(exitCodeOfVerdict));
  });

  it('orders the parts by shard and names a missing part, a part twice, or a part of another check', () => {
    expect(partsOf([part(2, 2, 'agree'), part(1, 2, 'diverge')]).map((p) => p.label)).toEqual([
      'shard 1/2',
      'shard 2/2',
    ]);
    expect(() => partsOf([part(1, 3, 'agree'), part(3, 3, 'agree')])).toThrow(/shard 2\/3 is missing/);
    expect(() => partsOf([part(1, 2, 'agree')], 3)).toThrow(/split in 2, not 3/);
    expect(() => partsOf([part(1, 2, 'agree'), part(1, 2, 'agree')])).toThrow(/shard 1\/2 is there twice/);
    expect(() => partsOf([part(1, 2, 'agree'), part(2, 2, 'agree', { seed: 2 })])).toThrow(/seed 2, not 1/);
    expect(() => partsOf([])).toThrow(/no check result/);
  });

  it('tells the shortest story among the parts', () => {
    const story = (steps: number) =>
      ({ source: 'campaign', name: 'random campaign', steps, story: `${steps} steps` }) as const;
    const parts = partsOf([part(1, 2, 'diverge', { failure: story(7) }), part(2, 2, 'diverge', { failure: story(3) })]);
    expect(shortestStory(parts)).toMatchObject({ part: { label: 'shard 2/2' }, story: '3 steps' });
  });

  it("knows a coverage file's shard by its campaign source", () => {
    expect(coverageShard({ ...emptyCoverage(), sources: ['path suite x', 'campaign seed=1 shard=2/3'] })).toBe('2/3');
    expect(coverageShard({ ...emptyCoverage(), sources: ['campaign seed=1'] })).toBeUndefined();
  });

  it("joins the JUnit files: every shard's campaign case under a name of its own, counts counted again", () => {
    const one = parseJunit(
      junit('1/2', '<testcase classname="jobcheck.campaign" name="random campaign" time="1.000"/>'),
    );
    const two = parseJunit(
      junit(
        '2/2',
        '<testcase classname="jobcheck.campaign" name="random campaign" time="2.000">\n      <failure message="m" type="divergence">story</failure>\n    </testcase>',
      ),
    );
    expect(junitShard(one)).toBe('1/2');
    const xml = mergeJunit(
      [
        { label: 'shard 1/2', file: one },
        { label: 'shard 2/2', file: two },
      ],
      '2025-01-31T12:00:00Z',
    );
    expect(xml).toContain('name="random campaign (shard 1/2)" time="1.000"/>');
    expect(xml).toContain('name="random campaign (shard 2/2)" time="2.000">');
    expect(xml).toMatch(/<testsuites name="jobcheck x" tests="2" failures="1" errors="0" skipped="0" time="3.000"/);
    expect(xml).toContain('<property name="seed" value="1"/>');
    expect(xml).toContain('<property name="shard (shard 2/2)" value="2/2"/>');
    expect(() => parseJunit('<html/>')).toThrow(/not a JUnit file/);
  });

  it('reads a JUnit file in one pass: 200,000 <testsuite> elements never closed are refused at once', () => {
    // The regular expression it replaced looked for each one's end from every start: a minute for this file.
    const open = `<testsuites name="x">\n${'<testsuite>'.repeat(200_000)}\n</testsuites>\n`;
    expect(() => parseJunit(open)).toThrow('a <testsuite> element is not closed');
    const cases = junit('1/2', `${'<testcase name="a">'.repeat(100_000)}`);
    expect(() => parseJunit(cases)).toThrow('a <testcase> element is not closed');
    const failures = junit('1/2', `<testcase name="a">${'<failure message="m" type="t">'.repeat(100_000)}</testcase>`);
    expect(() => parseJunit(failures)).toThrow('a <failure> element is not closed');
  });

  it("reads a case's failure or error as written, and nothing from a case that has none", () => {
    const failed =
      '<testcase name="p" time="0.1">\n<failure message="a &amp; b" type="divergence">the story</failure>\n</testcase>';
    expect(caseFailure(failed)).toEqual({
      tag: 'failure',
      message: 'a &amp; b',
      type: 'divergence',
      text: 'the story',
    });
    expect(
      caseFailure('<testcase name="p"><error message="m" type="setup_error">why</error></testcase>'),
    ).toMatchObject({
      tag: 'error',
      type: 'setup_error',
    });
    expect(caseFailure('<testcase name="p" time="0.1"/>')).toBeUndefined();
  });

  it('joins 20,000 properties two parts share, each once', () => {
    const many = Array.from({ length: 20_000 }, (_, i) => `<property name="p${i}" value="v"/>`).join('');
    const file = parseJunit(junit('1/2', many));
    const xml = mergeJunit(
      [
        { label: 'shard 1/2', file },
        { label: 'shard 2/2', file },
      ],
      '2025-01-31T12:00:00Z',
    );
    expect(xml.match(/<property name="p\d+" value="v"\/>/g)?.length).toBe(20_000);
  });
});

describe('verdicts read back from a file', () => {
  /** A whole check's result as checkJson writes one, agreeing; `more` changes fields. */
  const result = (more: Partial<CheckResultJson> = {}): CheckResultJson =>
    ({
      verdict: 'agree',
      stoppedByTimeLimit: false,
      seed: 1,
      runs: 10,
      target: 'python3 jobstore.py',
      shard: null,
      fixtures: { total: 13, failed: [], notRun: [] },
      paths: { total: 42, failed: [], notRun: [] },
      exploration: null,
      campaign: { verdict: 'agree', stoppedByTimeLimit: false },
      concurrent: null,
      failure: null,
      ...more,
    }) as CheckResultJson;
  const story = { source: 'path', name: 'p', steps: 3, story: 's' } as const;

  it("works a result's verdict out from what it says happened, never kinder than the one it states", () => {
    expect(checkResultVerdict(result())).toBe('agree');
    expect(checkResultVerdict(result({ failure: story }))).toBe('diverge');
    expect(checkResultVerdict(result({ paths: { total: 42, failed: ['p'], notRun: [] } }))).toBe('diverge');
    expect(checkResultVerdict(result({ stoppedByTimeLimit: true }))).toBe('incomplete');
    expect(checkResultVerdict(result({ fixtures: { total: 13, failed: [], notRun: ['f'] } }))).toBe('incomplete');
    expect(checkResultVerdict(result({ verdict: 'incomplete' }))).toBe('incomplete');
    expect(checkResultVerdict(result({ verdict: 'diverge' }))).toBe('diverge');
  });

  it("works a merge file's verdict out from its results alone, whatever it and its parts state", () => {
    const merge = {
      verdict: 'agree',
      parts: [{ label: 'a', file: 'a', verdict: 'agree', stoppedByTimeLimit: false }],
      results: [result({ failure: story })],
    } as unknown as MergeResultJson;
    expect(mergeFileVerdict(merge)).toBe('diverge');
    expect(mergeFileVerdict({ ...merge, results: [result()] })).toBe('agree');
  });

  it('refuses a merge file of the wrong shape, naming the field', () => {
    const issue = (data: unknown): string | undefined => {
      const r = mergeResultSchema.safeParse(data);
      return r.success ? undefined : r.error.issues[0]?.path.join('.');
    };
    expect(issue({ format: 'jobcheck.merge/1', verdict: 'agree' })).toBe('target');
    const hitTotal = { hit: 1, total: 2 };
    const coverage = Object.fromEntries(
      ['states', 'transitions', 'pairs', 'rejections', 'paths', 'rules'].map((c) => [c, hitTotal]),
    );
    const report = { dir: 'd', coverageMd: 'd/coverage.md' };
    const valid = {
      format: 'jobcheck.merge/1',
      verdict: 'agree',
      target: 't',
      seed: 1,
      runs: 1,
      parts: [],
      coverage,
      report,
    };
    expect(issue({ ...valid, results: 'all agree' })).toBe('results');
    expect(issue({ ...valid, results: [], parts: [1] })).toBe('parts.0');
  });

  it('refuses a shard that cannot be a part, as it is read: a count past the most shards, an index past its count', () => {
    const shard = (index: number, count: number) => ({
      file: `${index}.json`,
      result: result({ shard: { index, count } }),
    });
    expect(() => joinsParts([], shard(1, 1_000_000_000))).toThrow(/not a part of a check split in at most 1000/);
    expect(() => joinsParts([], shard(3, 2))).toThrow(/shard 3\/2, a part past the last/);
    expect(() => joinsParts([shard(1, 2)], shard(1, 2))).toThrow(/shard 1\/2 is there twice/);
    expect(() => joinsParts([shard(1, 2)], { file: 'w.json', result: result() })).toThrow(/w\.json is a whole check/);
  });
});

describe('coverage.md', () => {
  const check = {
    kind: 'check',
    verdict: 'diverge',
    story: 'step 1 ``` differs',
    runsPlanned: 10,
    runsRun: 2,
    pathsPlanned: 42,
    pathsRun: 42,
    stoppedEarly: 'divergence',
  } as const;

  it("opens with the check's verdict line and carries the story, so that it can be a job summary", () => {
    const md = coverageMarkdown(emptyCoverage(), 'T', check);
    expect(md.split('\n')[0]).toBe(
      '**Verdict: DIVERGE from the model.** Random runs: 2 of 10 planned (the campaign stops at its first divergence); path suite: 42 of 42 paths.',
    );
    expect(md).toContain('## The shortest story\n\n````text\nstep 1 ``` differs\n````');
  });

  it('opens merged coverage with the merged verdict and the parts it names, or says there is none', () => {
    const merged = {
      kind: 'merged',
      files: 2,
      mergedVerdict: 'incomplete',
      merged: ['shard 1/2 (a)', 'shard 2/2 (b)'],
    } as const;
    expect(coverageMarkdown(emptyCoverage(), 'T', merged).split('\n')[0]).toMatch(
      /^\*\*Verdict: INCOMPLETE: .*\*\* \(merged from 2 files: shard 1\/2 \(a\); shard 2\/2 \(b\)\)\.$/,
    );
    expect(coverageMarkdown(emptyCoverage(), 'T', { kind: 'merged', files: 1 }).split('\n')[0]).toMatch(
      /^\*\*No verdict\*\*/,
    );
    expect(coverageMarkdown(emptyCoverage(), 'T').split('\n')[0]).toBe('# T');
  });

  it('calls a check whose competing workers exercised nothing incomplete (exit 3), and says why', async () => {
    const report = await runCheck(
      { factory: jobStoreFactory(), concurrentFactory: sequentialFactory(jobStoreFactory()) },
      { runs: 5, seed: 1, noExplore: true, concurrent: { workers: 4, runs: 5 } },
    );
    const dir = await mkdtemp(join(tmpdir(), 'jobcheck-merge-idle-'));
    try {
      const ctx = { target: 'impl/JobStore', flags: '--builtin', seed: 1, runs: 5, workers: 4 };
      await writeFile(join(dir, 'result.json'), JSON.stringify(checkJson(report, ctx)));
      await writeFile(join(dir, 'coverage.json'), JSON.stringify(report.coverage));
      const out = await runCliCaptured(['merge', dir, '--report', join(dir, 'merged')]);
      expect(out.code, out.stderr).toBe(3);
      expect(out.stdout).toMatch(/^verdict: INCOMPLETE \(1 part merged: .* incomplete\)\n/);
      expect(out.stdout).toMatch(
        /: the competing workers exercised nothing: the implementation takes one request at a time .*; not a pass\n/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
