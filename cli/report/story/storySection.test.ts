/**
 * The failure story's data and HTML, without a browser: the rows of the step table, the
 * field-by-field difference of two replies, the move the implementation's answer implies, and
 * the links of the rules. The stories come from real failures: a check of a broken variant (a
 * retry that forgets the deadline) and a fixture that a store resetting its tokens on restart
 * does not follow.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCheck } from '../../../conformance/check/index.ts';
import type { DivergenceFailure, FixtureFailure } from '../../../conformance/check/index.ts';
import { brokenVariant } from '../../../conformance/broken/index.ts';
import { loadFixture, runFixture } from '../../../model/fixtures.ts';
import { RULES } from '../../../contract/rules.ts';
import { impliedMoves, implStatuses, statusesFromReply } from './impliedMoves.ts';
import { compactValue, replyDifferences, replyFields } from './replyFields.ts';
import { fixtureStory, headline, storyData } from './storyData.ts';
import type { StoryData } from './storyData.ts';
import { shippedContract } from '../shippedDocs.ts';
import { JOBCHECK_VERSION } from '../version.ts';
import { impliedEdges, ruleSentenceHtml, storyHtml, storyJson } from './storySection.ts';

let divergence: DivergenceFailure;
let story: StoryData;

beforeAll(async () => {
  const broken = brokenVariant('retry-forgets-deadline');
  if (broken === undefined) throw new Error('no broken variant retry-forgets-deadline');
  const report = await runCheck({ factory: broken.factory }, { runs: 100, seed: 1 });
  if (report.failure?.kind !== 'divergence') throw new Error('expected a sequential divergence');
  divergence = report.failure;
  story = storyData(divergence);
});

/** A fixture failure: `commit-restart-redeliver` replayed against a store that resets its tokens on restart. */
async function fixtureFailure(): Promise<FixtureFailure> {
  const fixture = loadFixture('commit-restart-redeliver');
  const broken = brokenVariant('restart-resets-tokens');
  if (broken === undefined) throw new Error('no broken variant restart-resets-tokens');
  const adapter = await broken.factory(fixture.config);
  try {
    const result = await runFixture(fixture, {
      execute: (c) => adapter.execute(c),
      snapshot: () => adapter.snapshot(),
      restart: () => adapter.restart(),
      restoreFrom: () => adapter.restart(),
    });
    return {
      kind: 'fixture',
      source: 'fixture',
      name: fixture.name,
      steps: fixture.steps.length,
      fixture: { fixture, result, durationMs: 0 },
    };
  } finally {
    await adapter.close();
  }
}

describe('the rows of the step table', () => {
  it('has one row a step, the third marked as diverging, the first two replied the same', () => {
    expect(story.steps.map((s) => [s.index, s.command.split(' ')[0], s.impl, s.diverging])).toEqual([
      [1, 'submit', 'same', false],
      [2, 'claim', 'same', false],
      [3, 'fail', 'differs', true],
    ]);
    expect(story.verdict.step).toBe(3);
  });

  it('names the rules that decided each step and the transitions the model took', () => {
    expect(story.steps[2]?.rules).toEqual(['backoff-capped', 'no-retry-after-deadline', 'last-error-kept']);
    expect(story.steps[1]?.moves).toEqual([
      { job: 'a', from: 'ready', to: 'running', transition: 'ready --CLAIM--> running' },
    ]);
    expect(story.steps[2]?.moves).toEqual([
      { job: 'a', from: 'running', to: 'dead', transition: 'running --FAIL [isCurrentDelivery]--> dead' },
    ]);
    expect(story.steps.map((s) => s.jobs)).toEqual([{ a: 'ready' }, { a: 'running' }, { a: 'dead' }]);
  });

  it('says in one sentence which field of which step differs', () => {
    expect(story.verdict.headline).toBe(
      'Step 3 (fail): the implementation replied status "waiting" where the model replied "dead".',
    );
  });

  it('lists every differing field of the snapshot at the diverging step, with both values', () => {
    expect(story.verdict.snapshotDifferences).toEqual([
      { path: 'jobs.a.status', model: 'dead', impl: 'waiting' },
      { path: 'jobs.a.reason', model: 'no_time_for_retry', impl: undefined },
      { path: 'jobs.a.notBefore', model: undefined, impl: 2 },
    ]);
    expect(story.verdict.snapshotTotal).toBe(3);
  });
});

describe('the difference of two replies, field by field', () => {
  it('finds every differing field, not only the first', () => {
    const step = story.steps[2];
    expect(step?.replyDifferences.map((d) => d.path)).toEqual(['reply.status', 'reply.reason', 'reply.notBefore']);
  });

  it('marks the differing fields on each side and shows a field only the other side has as absent', () => {
    const step = story.steps[2];
    if (step === undefined) throw new Error('no step 3');
    const model = replyFields(step.modelReply, step.replyDifferences, 'model');
    const impl = replyFields(step.implReply, step.replyDifferences, 'impl');
    expect(model.filter((f) => f.differs).map((f) => [f.path, f.value])).toEqual([
      ['status', '"dead"'],
      ['reason', '"no_time_for_retry"'],
      ['notBefore', 'absent'],
    ]);
    expect(impl.filter((f) => f.differs).map((f) => [f.path, f.value])).toEqual([
      ['status', '"waiting"'],
      ['notBefore', '2'],
      ['reason', 'absent'],
    ]);
    expect(model.filter((f) => !f.differs).map((f) => f.path)).toEqual(['ok', 'type', 'id']);
  });

  it('shows a deeper value compactly, with room to wrap between fields and strings left as they are', () => {
    expect(compactValue({ account: 'x', key: 'a,"b": c', amount: 1, tags: [1, 2] })).toBe(
      '{account: "x", key: "a,\\"b\\": c", amount: 1, tags: [1, 2]}',
    );
    expect(compactValue('plain')).toBe('"plain"');
  });

  it('opens a nested delivery one level, and ignores the message of a rejection', () => {
    const model = { ok: true, type: 'claim', job: { id: 'a', token: 1, attempt: 1, leaseUntil: 2, payload: { n: 1 } } };
    const impl = { ok: true, type: 'claim', job: { id: 'a', token: 2, attempt: 1, leaseUntil: 2, payload: { n: 1 } } };
    const diffs = replyDifferences(model, impl);
    expect(diffs.map((d) => d.path)).toEqual(['reply.job.token']);
    expect(replyFields(impl, diffs, 'impl').map((f) => `${f.path}${f.differs ? '*' : ''}`)).toEqual([
      'ok',
      'type',
      'job.id',
      'job.token*',
      'job.attempt',
      'job.leaseUntil',
      'job.payload',
    ]);
    expect(
      replyDifferences(
        { ok: false, code: 'stale_token', message: 'x' },
        { ok: false, code: 'stale_token', message: 'y' },
      ),
    ).toEqual([]);
  });
});

describe('the move the implementation implies', () => {
  it('draws the job from where the model had it before the step to where the implementation has it', () => {
    expect(story.verdict.implJobs).toEqual({ a: 'waiting' });
    expect(story.verdict.implied).toEqual([{ job: 'a', from: 'running', to: 'waiting' }]);
    expect(impliedEdges(story)).toEqual([{ id: 'running->waiting', from: 'running', to: 'waiting' }]);
  });

  it('leaves out jobs the implementation places where the model does, and admits a job it alone has', () => {
    expect(impliedMoves({ a: 'running' }, { a: 'running', b: 'ready' }, { a: 'running', b: 'ready' })).toEqual([]);
    expect(impliedMoves({ a: 'running' }, { a: 'running' }, { a: 'running', b: 'ready' })).toEqual([
      { job: 'b', from: null, to: 'ready' },
    ]);
  });

  it('reads the move off the reply when there is no snapshot to read it from', () => {
    expect(statusesFromReply({ ok: true, type: 'claim', job: { id: 'b', token: 3 } })).toEqual({ b: 'running' });
    expect(statusesFromReply({ ok: true, type: 'ack', id: 'a' })).toEqual({ a: 'done' });
    expect(statusesFromReply({ ok: true, type: 'fail', id: 'a', status: 'waiting', notBefore: 3 })).toEqual({
      a: 'waiting',
    });
    expect(statusesFromReply({ ok: false, code: 'stale_token' })).toEqual({});
    expect(implStatuses(undefined, { ok: true, type: 'ack', id: 'a' })).toEqual({ a: 'done' });
    expect(implStatuses({ jobs: { a: { status: 'dead' }, b: { status: 'nowhere' } } }, undefined)).toEqual({
      a: 'dead',
    });
  });
});

describe('the headline', () => {
  it('says accepted or refused when the replies differ in ok', () => {
    const diffs = replyDifferences({ ok: false, code: 'capacity_exceeded', message: '' }, { ok: true, type: 'submit' });
    expect(
      headline(
        3,
        'submit id=b',
        { model: { ok: false, code: 'capacity_exceeded' }, impl: { ok: true }, differences: diffs },
        undefined,
      ),
    ).toBe('Step 3 (submit): the implementation accepted it where the model refused it with "capacity_exceeded".');
    expect(headline(2, 'tick now=1', { differences: [] }, { path: 'jobs.a.attempts', model: 1, impl: 2 })).toBe(
      "Step 2 (tick): the replies agree, but the implementation's state differs at jobs.a.attempts: 2 where the model has 1.",
    );
  });
});

describe('a run that could not start', () => {
  it('is told by its headline alone, with no table, diagram or data to step through', () => {
    const failure: DivergenceFailure = {
      kind: 'divergence',
      source: 'campaign',
      name: 'random campaign',
      steps: 0,
      run: {
        adapter: 'python3 store.py',
        config: story.config,
        steps: [],
        divergence: { step: 0, kind: 'impl_error', error: 'spawn python3 ENOENT' },
      },
    };
    const data = storyData(failure);
    expect(data.verdict.headline).toBe('python3 store.py could not be started: spawn python3 ENOENT.');
    const html = storyHtml(data, '<svg></svg>');
    expect(html).not.toContain('<table');
    expect(html).not.toContain('<svg');
    expect(html).not.toContain('story-data');
  });
});

describe('a fixture story', () => {
  it('replays the model over the fixture up to the failing step and knows the implementation there only', async () => {
    const data = fixtureStory(await fixtureFailure());
    expect(data.subject).toBe('fixture commit-restart-redeliver');
    expect(data.verdict.step).toBe(7);
    expect(data.steps).toHaveLength(7);
    expect(data.steps.slice(0, 6).map((s) => s.impl)).toEqual(
      data.steps.slice(0, 6).map((s) => (s.command.startsWith('restart') ? 'none' : 'as-expected')),
    );
    expect(data.steps.some((s) => s.command.startsWith('restart'))).toBe(true);
    expect(data.steps[6]?.diverging).toBe(true);
    expect(data.steps[6]?.impl).toBe('differs');
    expect(data.verdict.headline).toMatch(/^Step 7 \(\w+\): the implementation /);
  });
});

describe('the section', () => {
  const section = (): string => storyHtml(story, '<svg></svg>');

  it("links each rule id of the table to its quoted sentence in the page, and each quote to the shipped contract's rule", () => {
    const contract = shippedContract();
    if (contract === undefined) throw new Error('the checkout has no docs/contract.md');
    const html = storyHtml(story, '<svg></svg>', contract);
    const cited = [...new Set(story.steps.flatMap((s) => s.rules))];
    const file = fileURLToPath(contract.url);
    expect(file.endsWith('/docs/contract.md')).toBe(true);
    const text = readFileSync(file, 'utf8');
    for (const id of cited) {
      expect(html).toContain(`href="#story-rule-${id}"`);
      expect(html).toContain(`<li id="story-rule-${id}">`);
      expect(html).toContain(`href="${contract.url}#rule-${id}"`);
      // The anchor is there, in the copy linked.
      expect(text).toContain(`<a id="rule-${id}"></a>`);
    }
    expect(html.match(/<li id="story-rule-/g)).toHaveLength(cited.length);
    expect(html).toContain(`docs/contract.md of jobcheck ${JOBCHECK_VERSION}`);
  });

  it('links nothing outside the page but the shipped contract, and no link at all without it', () => {
    const contract = shippedContract();
    const html = storyHtml(story, '<svg></svg>', contract);
    const outside = [...html.matchAll(/href="([^"#][^"]*)"/g)].map((m) => m[1] as string);
    expect(outside.length).toBeGreaterThan(0);
    for (const href of outside) {
      expect(href.startsWith(`${contract?.url}#rule-`)).toBe(true);
      expect(existsSync(fileURLToPath(href.replace(/#.*$/, '')))).toBe(true);
    }
    expect(html).not.toMatch(/https?:\/\//);
    expect([...section().matchAll(/href="([^"#][^"]*)"/g)]).toEqual([]);
  });

  it('quotes rule sentences with their bold and code marks, everything else escaped', () => {
    expect(ruleSentenceHtml('**A copy**: `x < y` & more')).toBe(
      '<strong>A copy</strong>: <code>x &lt; y</code> &amp; more',
    );
    const rule = RULES.find((r) => r.id === 'no-retry-after-deadline');
    expect(section()).toContain(ruleSentenceHtml(rule?.sentence ?? ''));
  });

  it('marks the diverging row and carries the data its script reads, which no value can close', () => {
    const html = section();
    expect(html).toMatch(/<tr class="step diverging" data-step="3"/);
    expect(html.match(/<tr class="step"/g)).toHaveLength(2);
    const json = JSON.parse(storyJson(story)) as { steps: unknown[]; verdict: { implied: unknown[] } };
    expect(json.steps).toHaveLength(3);
    expect(json.verdict.implied).toEqual([{ job: 'a', from: 'running', to: 'waiting' }]);
    expect(storyJson({ ...story, verdict: { ...story.verdict, implJobs: { '</script>': 'ready' } } })).not.toContain(
      '</',
    );
  });
});
