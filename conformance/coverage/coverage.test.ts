import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobStoreFactory } from '../stores/jobStore.ts';
import { categorySummary, coverageUniverse, emptyCoverage, mergeCoverage, neverHit } from './coverage.ts';
import { parseCoverage, readCoverage, writeCoverageReport } from './coverageFiles.ts';
import { coverageHtml, coverageMarkdown } from './coverageReport.ts';
import { runLockstep } from '../lockstep/index.ts';
import { coverageOf } from './coverage.ts';

const config = { capacity: 2, maxAttempts: 2, leaseTicks: 3, backoffBase: 1, backoffCap: 2 };
const story = [
  { do: { type: 'submit', id: 'a', account: 'x', key: 'k', amount: 5, deadline: 20, now: 0 } },
  { do: { type: 'claim', worker: 'w1', now: 0 } },
  { do: { type: 'fail', worker: 'w1', token: 1, kind: 'transient', error: 'e', now: 1 } },
  { do: { type: 'tick', now: 2 } },
  { do: { type: 'claim', worker: 'w1', now: 2 } },
  { do: { type: 'commit', worker: 'w1', token: 2, now: 2 } },
  { do: { type: 'ack', worker: 'w1', token: 1, now: 2 } },
  { do: { type: 'ack', worker: 'w1', token: 2, now: 2 } },
];

describe('coverage counts', () => {
  it('has one item per state (5), declared transition (13), allowed pair (24), rejection code (7) and path class up to 4 steps (49)', () => {
    // Pairs by hand: into running 2 x out of running 9, into ready 2 x 2, into waiting 1 x 2.
    const u = coverageUniverse();
    expect([u.states, u.transitions, u.pairs, u.rejections, u.paths].map((c) => Object.keys(c).length)).toEqual([
      5, 13, 24, 7, 49,
    ]);
  });

  it('counts states, transitions, the pair sequence, rejections and the path class of one told story', async () => {
    const run = await runLockstep(config, story, jobStoreFactory());
    expect(run.divergence).toBeNull();
    const cov = coverageOf([run]);
    expect(cov.items.states).toEqual({ ready: 2, waiting: 1, running: 2, done: 1, dead: 0 });
    expect(cov.items.rejections.stale_token).toBe(1);
    expect(cov.items.transitions['running --COMMIT [isCurrentDelivery]--> running']).toBe(1);
    expect(cov.items.pairs['running-commit->running >> running-ack->done']).toBe(1);
    expect(
      cov.items.paths[
        'ready-claim->running >> running-fail->waiting >> waiting-advance->ready >> ready-claim->running'
      ],
    ).toBe(1);
    expect(cov.steps).toBe(8);
  });

  it('merges by adding counts, so that two runs count twice', async () => {
    const run = await runLockstep(config, story, jobStoreFactory());
    const one = coverageOf([run], 'one');
    const two = mergeCoverage(one, parseCoverage(JSON.parse(JSON.stringify(one))));
    expect(two.items.states.ready).toBe(4);
    expect(two.runs).toBe(2);
    expect(two.sources).toEqual(['one', 'one']);
    expect(mergeCoverage(one, emptyCoverage()).items).toEqual(one.items);
  });

  it('lists never-hit items in Markdown and draws the lifecycle as SVG with every state and transition', async () => {
    const cov = coverageOf([await runLockstep(config, story, jobStoreFactory())]);
    expect(neverHit(cov, 'states')).toEqual(['dead']);
    const md = coverageMarkdown(cov);
    expect(md).toContain('| Lifecycle states entered | 4 | 5 | 80% |');
    expect(md).toMatch(/Lifecycle states entered \(1\): `dead`/);
    const html = await coverageHtml(cov);
    expect(html.match(/<g class="state"/g)).toHaveLength(5);
    expect(html.match(/<g class="edge"/g)).toHaveLength(13);
    expect(html.match(/<g class="edge" [^>]*data-mark="never"[^>]*>[\s\S]*?stroke-dasharray/g)).toHaveLength(13 - 5); // never-taken transitions are dashed
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/); // self-contained
    expect(categorySummary(cov, 'transitions').hit).toBe(5);
  });

  it('marks the transitions at zero not reached when the check stopped early, and never taken when it ran in full', async () => {
    const cov = coverageOf([await runLockstep(config, story, jobStoreFactory())]);
    const check = {
      kind: 'check',
      verdict: 'diverge',
      story: null,
      runsPlanned: 300,
      runsRun: 2,
      pathsPlanned: 42,
      pathsRun: 42,
    } as const;
    const early = await coverageHtml(cov, { context: { ...check, stoppedEarly: 'divergence' } });
    const full = await coverageHtml(cov, { context: { ...check, stoppedEarly: null } });
    expect(early.match(/<g class="edge" [^>]*data-mark="not-reached"/g)).toHaveLength(13 - 5);
    expect(early).not.toMatch(/<g class="edge" [^>]*data-mark="never"/);
    expect(full.match(/<g class="edge" [^>]*data-mark="never"/g)).toHaveLength(13 - 5);
    expect(early).toContain(
      'Random runs: <span data-runs="run">2</span> of <span data-runs="planned">300</span> planned (the campaign stops at its first divergence)',
    );
  });

  it('shows the verdict and the story of a check, escaped, and no verdict for merged coverage', async () => {
    const cov = emptyCoverage();
    const context = {
      kind: 'check',
      verdict: 'diverge',
      story: 'step 1: <script>alert("x")</script> & more',
      runsPlanned: 10,
      runsRun: 1,
      pathsPlanned: 42,
      pathsRun: 42,
      stoppedEarly: 'divergence',
    } as const;
    const html = await coverageHtml(cov, { title: '<b>t</b>', context });
    expect(html).toContain('Verdict: DIVERGE from the model');
    expect(html).toContain(
      '<pre class="story">step 1: &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more</pre>',
    );
    expect(html).not.toContain('<b>t</b>');
    const merged = await coverageHtml(cov, { context: { kind: 'merged', files: 3 } });
    expect(merged).toMatch(/Merged coverage of <span data-count="files">3<\/span> files/);
    expect(merged).not.toContain('Verdict');
  });

  it('writes JSON, Markdown and HTML files, and the JSON reads back to the same coverage', async () => {
    const cov = coverageOf([await runLockstep(config, story, jobStoreFactory())], 'told story');
    const dir = await mkdtemp(join(tmpdir(), 'jobcheck-coverage-'));
    try {
      const files = await writeCoverageReport(dir, cov);
      expect(await readCoverage(files.json)).toEqual(cov);
      expect(await readFile(files.markdown, 'utf8')).toContain('Sources: told story.');
      expect(await readFile(files.html, 'utf8')).toMatch(/^<!doctype html>/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses coverage JSON with a negative count, naming the field', () => {
    const bad = { ...emptyCoverage(), items: { ...emptyCoverage().items, states: { ready: -1 } } };
    expect(() => parseCoverage(bad)).toThrow(/items\.states\.ready/);
  });
});
