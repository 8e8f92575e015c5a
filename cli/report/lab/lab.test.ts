import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.ts';
import { LAB_DEFAULT_OUT, readLabFlags } from '../../labCommand.ts';
import { runCliCaptured } from '../../runCliCaptured.ts';
import { findStory, listStories } from '../../demo/story.ts';
import { traceStory } from '../../demo/trace.ts';
import { initialState, toSnapshot } from '../../../model/step.ts';
import { finalMismatches, playStoryStep } from './labStep.ts';
import type { LabStoryStep } from './labStep.ts';
import { scriptJson } from '../../../conformance/outside/outsideText.ts';
import { DOCUMENTED_MODES, documentedModel } from '../../../model/documented.ts';
import { buildModel } from '../../../model/step.ts';
import type { Model } from '../../../model/step.ts';
import { documentedStories } from './documentedStories.ts';
import { labStories } from './labDocument.ts';
import type { LabStory } from './labSection.ts';

/** Every mismatch of `story` played to its end on `model`: its steps' and its final state's. */
function mismatchesOn(story: LabStory, model: Model): string[] {
  let state = model.initialState(story.config);
  const out: string[] = [];
  story.steps.forEach((s, i) => {
    const r = playStoryStep(state, s as LabStoryStep, i + 1, story.focus.job, model);
    out.push(...r.mismatches);
    state = r.state;
  });
  return [...out, ...finalMismatches(toSnapshot(state), story.final as Parameters<typeof finalMismatches>[1])];
}

/** The UsageError readLabFlags throws for `argv`, or undefined when it throws none. */
function usageError(argv: string[]): UsageError | undefined {
  try {
    readLabFlags(argv);
    return undefined;
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
}

describe('jobcheck lab flags', () => {
  it('writes to .jobcheck/lab/index.html by default and takes --out, --serve, --port and --story', () => {
    expect(LAB_DEFAULT_OUT).toBe('.jobcheck/lab/index.html');
    expect(readLabFlags([])).toEqual({});
    expect(readLabFlags(['--out', 'x/lab.html', '--story', 'normal'])).toEqual({ out: 'x/lab.html', story: 'normal' });
    expect(readLabFlags(['--serve', '--port', '8123'])).toEqual({ serve: true, port: 8123 });
    expect(readLabFlags(['--serve', '--port', '0'])).toEqual({ serve: true, port: 0 });
  });

  it('refuses a bad port, --port without --serve, --out with --serve, and an unknown story, each a usage error naming it', () => {
    expect(usageError(['--serve', '--port', '70000'])?.message).toMatch(/--port: must be at most 65535/);
    expect(usageError(['--serve', '--port', 'eighty'])?.message).toMatch(/--port: must be a whole number/);
    expect(usageError(['--port', '8080'])?.message).toMatch(/--port needs --serve/);
    expect(usageError(['--serve', '--out', 'a.html'])?.message).toMatch(/--out and --serve exclude each other/);
    const unknown = usageError(['--story', 'no-such-story']);
    expect(unknown?.code).toBe('usage');
    expect(unknown?.message).toMatch(/"no-such-story" is not a story \(stories: .*lease-boundary-now4-now5/);
    expect(usageError(['--colour'])?.message).toMatch(/Unknown option --colour/);
    expect(usageError(['stray'])?.message).toMatch(/stray/);
  });

  it('answers a bad flag through the command line with one line on stderr and exit code 2', async () => {
    const run = await runCliCaptured(['lab', '--port', '80']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('jobcheck: lab: --port needs --serve (see jobcheck lab --help)\n');
    const help = await runCliCaptured(['lab', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: jobcheck lab \[--out FILE \| --serve \[--port N\]\] \[--story NAME\]/);
    const page = readFileSync(new URL('../../../docs/cli.md', import.meta.url), 'utf8');
    const shown = [...page.matchAll(/^```text\n([\s\S]*?)^```$/gm)].find((m) =>
      m[1]?.startsWith('Usage: jobcheck lab '),
    );
    expect(shown?.[1]).toBe(help.stdout);
  });
});

describe('the lab step, which the page runs', () => {
  it('plays every fixture story as the demo traces it: the same replies, the same explanations, no mismatch', () => {
    for (const story of listStories()) {
      const trace = traceStory(findStory(story.name));
      let state = initialState(story.config);
      story.steps.forEach((s, i) => {
        const r = playStoryStep(state, s as LabStoryStep, i + 1, story.focus.job);
        const traced = trace.steps[i];
        expect(r.reply, `${story.name} step ${i + 1}`).toEqual(traced?.reply);
        expect(r.explanations, `${story.name} step ${i + 1}`).toEqual(traced?.explanations);
        expect(
          r.rules.map((x) => x.id),
          `${story.name} step ${i + 1}`,
        ).toEqual(traced?.rules);
        expect(r.mismatches, `${story.name} step ${i + 1}`).toEqual([]);
        state = r.state;
      });
      expect(finalMismatches(toSnapshot(state), story.final), story.name).toEqual([]);
    }
  });

  it('shows a story expectation the model does not meet, never hides it', () => {
    const story = findStory('normal');
    const first = story.steps[0] as LabStoryStep & { do: object };
    const wrong = { ...first, expect: { ok: false } };
    const r = playStoryStep(initialState(story.config), wrong, 1, story.focus.job);
    expect(r.mismatches).toEqual([expect.stringMatching(/^step 1: the story expects the reply \{"ok":false\}/)]);
    expect(finalMismatches(toSnapshot(r.state), { balances: { north: 5 }, jobs: {} })).toEqual([
      'final: the story expects balances {"north":5}, the model has {}',
    ]);
  });

  it("plays each documented mode's story on that mode's model as the story records it, and offers it in the lab", () => {
    const stories = documentedStories();
    expect(stories.map((s) => s.model).sort()).toEqual(DOCUMENTED_MODES.map((m) => m.id).sort());
    for (const story of stories) {
      const model = documentedModel(story.model ?? '') ?? expect.fail(`${story.name}: no model`);
      expect(mismatchesOn(story, model), story.name).toEqual([]);
      expect(story.modelLabel, story.name).toMatch(/^(Amazon SQS|Google Pub\/Sub|Azure Service Bus), /);
    }
    expect(labStories().map((s) => s.name)).toEqual(expect.arrayContaining(stories.map((s) => s.name)));
  });

  it("tells a documented story that only its mode's model plays: on the contract's, Receive-and-Delete's loss is not there", () => {
    const loss =
      documentedStories().find((s) => s.name === 'servicebus-receive-and-delete-loss') ?? expect.fail('no story');
    expect(mismatchesOn(loss, buildModel())).toEqual([
      expect.stringMatching(/^step 2: the story expects job a \{"status":"done"\}, the model has .*"status":"running"/),
      expect.stringMatching(/^step 3: the story expects job a \{"status":"done"\}, the model has .*"status":"ready"/),
      expect.stringMatching(/^step 4: the story expects the reply \{"ok":true,"type":"claim","job":null\}/),
      expect.stringMatching(/^step 4: the story expects job a \{"status":"done"\}/),
      expect.stringMatching(/^final: the story expects job a/),
    ]);
  });

  it('puts the page data into a script element safely: no "<" survives', () => {
    expect(scriptJson({ s: '</script><script>alert(1)</script>' })).not.toContain('<');
    expect(JSON.parse(scriptJson({ s: '</script>\u2028' }))).toEqual({ s: '</script>\u2028' });
  });
});
