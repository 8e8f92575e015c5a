/**
 * The lab's worksheet, editor, exercises and shared stories in Node, without a browser: an edit
 * checked by the contract's schema (a malformed one refused by name, the story unchanged), the
 * exercises' answers read from the model (the fixtures' numbers held to it), the timeline of
 * effect and acknowledgement, a worksheet file read back (a bad one refused naming the value), the
 * report's parts, and the story a failure page links into the lab.
 */
import { describe, expect, it } from 'vitest';
import { RULES } from '../../../contract/rules.ts';
import { loadFixture } from '../../../model/fixtures.ts';
import { initialState } from '../../../model/step.ts';
import { storyFixtureFailure } from '../../../docs/tools/storyScreens.ts';
import { storySection } from '../story/storySection.ts';
import { failureLabStory } from './failureStory.ts';
import { commandFromFields, editStory } from './labEdit.ts';
import { LAB_EXERCISES, answerOf } from './labExercises.ts';
import { parseSharedStory, sharedStoryHash } from './labSharedStory.ts';
import type { LabStoryStep } from './labStep.ts';
import { playStoryStep } from './labStep.ts';
import { timelineOf } from './labTimeline.ts';
import { WorksheetError, emptyWorksheet, parseWorksheet, worksheetText } from './worksheet.ts';
import { worksheetReport } from './worksheetReport.ts';

/** Every step of `steps` on the contract's model: the worksheet's entries. */
function played(name: string, steps: readonly LabStoryStep[]) {
  const f = loadFixture(name);
  let state = initialState(f.config);
  return steps.map((s, i) => {
    const r = playStoryStep(state, s, i + 1, f.focus.job);
    state = r.state;
    return {
      step: i + 1,
      command: JSON.stringify('do' in s ? s.do : s),
      ...('do' in s ? { do: s.do as Record<string, unknown> } : {}),
      ...(r.reply !== undefined ? { reply: r.reply as unknown as Record<string, unknown> } : {}),
      moves: r.moves.map((m) => ({ job: m.job, from: m.from, to: m.to })),
      points: 0,
      of: 0,
    };
  });
}

/** An exercise's story, put back to the original and changed when `changed`, through the editor. */
function exerciseSteps(id: string, changed: boolean): LabStoryStep[] {
  const x = LAB_EXERCISES.find((e) => e.id === id) ?? expect.fail(id);
  let steps: LabStoryStep[] = loadFixture(x.base).steps as LabStoryStep[];
  for (const e of changed ? [...x.restore, ...x.change] : x.restore) {
    const out = editStory(steps, e);
    if (!out.ok) expect.fail(out.refusal.message);
    steps = out.steps;
  }
  return steps;
}

const replyAt = (id: string, changed: boolean, step: number): unknown => {
  const x = LAB_EXERCISES.find((e) => e.id === id) ?? expect.fail(id);
  return played(x.base, exerciseSteps(id, changed))[step - 1]?.reply;
};

describe('editing a story', () => {
  it('refuses a malformed edit with the contract refusal naming the value, and leaves the story as it was', () => {
    const steps = loadFixture('changed-operation-key').steps as LabStoryStep[];
    const before = JSON.stringify(steps);
    const command = commandFromFields('submit', {
      id: 'J-12-replay',
      account: 'north',
      key: 'J-12:draft:v2',
      amount: 'two',
      deadline: '20',
      now: '3',
    });
    const out = editStory(steps, { op: 'set', at: 4, command });
    expect(out).toEqual({
      ok: false,
      refusal: { ok: false, code: 'invalid_argument', message: expect.stringMatching(/^amount: .*\(got "two"\)$/) },
    });
    expect(JSON.stringify(steps)).toBe(before);
    expect(editStory(steps, { op: 'delete', at: 8 })).toMatchObject({
      ok: false,
      refusal: { code: 'invalid_argument' },
    });
  });

  it('inserts and deletes steps, and drops the original story record', () => {
    const steps = loadFixture('lease-boundary-now4-now5').steps as LabStoryStep[];
    const tick = { type: 'tick', now: 1 };
    const inserted = editStory(steps, { op: 'insert', at: 2, command: tick });
    if (!inserted.ok) expect.fail(inserted.refusal.message);
    expect(inserted.steps).toHaveLength(steps.length + 1);
    expect(inserted.steps[2]).toEqual({ do: tick });
    expect(inserted.steps.every((s) => Object.keys(s).length === 1)).toBe(true);
    const deleted = editStory(inserted.steps, { op: 'delete', at: 2 });
    expect(deleted.ok && deleted.steps.map((s) => ('do' in s ? s.do : s))).toEqual(
      steps.map((s) => ('do' in s ? s.do : s)),
    );
  });
});

describe('the exercises read their answers from the model', () => {
  it('the changed key makes a second effect where the original reused the first', () => {
    expect(answerOf('commit', replyAt('changed-key', false, 7), [])).toBe('reused');
    expect(replyAt('changed-key', true, 7)).toMatchObject({ ok: true, applied: true, balance: 2 });
    expect(answerOf('commit', replyAt('changed-key', true, 7), [])).toBe('applied');
  });

  it('the changed payload under the same key is a conflict', () => {
    expect(replyAt('changed-payload', true, 7)).toMatchObject({ ok: false, code: 'conflict' });
    expect(answerOf('commit', replyAt('changed-payload', true, 7), [])).toBe('conflict');
  });

  it('holds the lease-boundary fixture to the model: nothing at now=4 (lease until 5), a new delivery at now=5', () => {
    const f = loadFixture('lease-boundary-now4-now5');
    const claim = played(f.name, f.steps as LabStoryStep[])[1]?.reply as { job: { leaseUntil: number } };
    expect(claim.job.leaseUntil).toBe(0 + f.config.leaseTicks);
    expect(answerOf('claim', replyAt('lease-boundary', false, 3), [])).toBe('nothing');
    expect(replyAt('lease-boundary', true, 3)).toMatchObject({ ok: true, job: { id: 'J-12', token: 2, attempt: 2 } });
  });

  it('finds the interruption after the effect of a delivery never acknowledged, and draws effect and ack apart', () => {
    const f = loadFixture('lost-ack-safe-replay');
    const t = timelineOf(played(f.name, f.steps as LabStoryStep[]), 'J-12');
    expect(t.interrupted).toEqual([3]);
    expect(t.entries.map((e) => `${e.kind}@${e.step}`)).toEqual([
      'delivery@2',
      'effect@3',
      'interruption@3',
      'expiry@5',
      'delivery@5',
      'refused@6',
      'effect@7',
      'refused@8',
      'ack@9',
    ]);
    const normal = loadFixture('normal');
    expect(timelineOf(played(normal.name, normal.steps as LabStoryStep[]), normal.focus.job).interrupted).toEqual([]);
  });
});

describe('the worksheet file', () => {
  const sheet = () => {
    const s = emptyWorksheet();
    s.learner = 'Ada';
    s.answer = 'The ledger recognises a repeat: the effect record under (account, key) with its amount.';
    const steps = exerciseSteps('changed-key', true);
    s.plays.push({
      story: 'changed-operation-key',
      title: 'edited',
      edited: true,
      focus: { job: 'J-12-replay', account: 'north' },
      // Every step of this story is a command.
      steps: steps.map((st) => ({ do: ('do' in st ? st.do : {}) as Record<string, unknown> })),
      trace: played('changed-operation-key', steps).map((e) => ({
        ...e,
        prediction: { outcome: 'accepted' as const, jobs: { 'J-12': { status: 'ready', token: null } }, balance: '0' },
      })),
    });
    const after = played('lost-ack-safe-replay', loadFixture('lost-ack-safe-replay').steps as LabStoryStep[]);
    s.exercises.interruption = {
      answers: { gap: 'after-3', after: 'reused' },
      reasoning: 'the ledger',
      run: { job: 'J-12', right: { gap: 'after-3', after: 'reused' }, points: 2, of: 2, before: after, after },
    };
    return s;
  };

  it('reads back what it wrote, the same text', () => {
    const text = worksheetText(sheet());
    expect(worksheetText(parseWorksheet(text))).toBe(text);
  });

  it('refuses a bad file with invalid_worksheet naming the field and the value', () => {
    const bad = JSON.parse(worksheetText(sheet()));
    bad.plays[0].trace[0].step = 0;
    expect(() => parseWorksheet(JSON.stringify(bad))).toThrow(WorksheetError);
    expect(() => parseWorksheet(JSON.stringify(bad))).toThrow(/plays\.0\.trace\.0\.step: must be >= 1 \(got 0\)/);
    expect(() => parseWorksheet(JSON.stringify({ ...bad, version: 2 }))).toThrow(/version: .*\(got 2\)/);
    expect(() => parseWorksheet('{')).toThrow(/^worksheet: not JSON/);
  });

  it('exports a report with the answer, the predictions beside the traces, and effect and ack apart', () => {
    const html = worksheetReport(sheet());
    expect(html).toContain('The ledger recognises a repeat: the effect record under (account, key) with its amount.');
    expect(html).toContain('accepted; J-12 ready token –; balance 0');
    expect(html).toContain('&quot;applied&quot;:true');
    expect(html).toMatch(
      /<li class="effect"><b>step 3<\/b>.*<li class="interruption">.*<li class="ack"><b>step 9<\/b>/s,
    );
    const quoted = RULES.find((r) => r.id === 'effect-idempotent')?.sentence.replace(/\*\*/g, '') ?? '';
    expect(html).toContain(quoted);
  });
});

describe('a story shared in a lab address', () => {
  it('reads back the story of its link and refuses a bad one by name', () => {
    const f = loadFixture('normal');
    const story = {
      name: 'failure-x',
      title: 't',
      story: 's',
      config: f.config,
      focus: f.focus,
      steps: [{ restart: true as const }],
    };
    const hash = sharedStoryHash(story);
    expect(parseSharedStory(decodeURIComponent(hash.slice('#story='.length)))).toMatchObject({ name: 'failure-x' });
    expect(() => parseSharedStory(JSON.stringify({ ...story, config: { ...f.config, capacity: 0 } }))).toThrow(
      /^story: config\.capacity: must be >= 1 \(got 0\)$/,
    );
  });

  it("links a failure page's story into the lab: the steps the check ran, the job the story follows", async () => {
    const { failure } = await storyFixtureFailure();
    const fixture = failure.fixture.fixture;
    const story = failureLabStory(failure) ?? expect.fail('no story for the lab');
    expect(story.steps.map((s) => ('do' in s ? s.do : s))).toEqual(
      fixture.steps.map((s) => ('do' in s ? s.do : { restart: true })),
    );
    expect(story.focus).toEqual(fixture.focus);
    const section = await storySection(failure, undefined, 'file:///somewhere/lab/index.html');
    const href = (/<a href="([^"]+)" data-lab>/.exec(section.html)?.[1] ?? expect.fail('no lab link'))
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&');
    const [page, hash] = href.split('#story=');
    expect(page).toBe('file:///somewhere/lab/index.html');
    expect(parseSharedStory(decodeURIComponent(hash ?? ''))).toEqual({ ...story, final: null });
    expect((await storySection(failure)).html).not.toContain('data-lab');
  });
});
