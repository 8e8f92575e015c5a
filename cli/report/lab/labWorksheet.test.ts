/**
 * The lab as the source's worksheet, in headless Chromium at 1280×800 (one browser for the file):
 * a step's key edited by hand makes a second effect, a malformed edit shows the contract's refusal
 * and changes nothing; the four experiments (changed key, changed payload, the lease boundary,
 * the interruption between effect and acknowledgement) each take predictions first and then show
 * the model's answer and the rule quoted word for word from the contract (contract/rules.ts); the
 * worksheet saved, loaded into a fresh page and saved again is the same file, a bad file is
 * refused by name and changes nothing, and the exported report holds the predictions, the traces
 * and effect and acknowledgement apart; a failure page's story opens in the lab and is edited there.
 * Chromium is the system's (docs/tools/chromium.ts): without it these tests skip, failing with `CI` set.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RULES } from '../../../contract/rules.ts';
import { withChromiumPage } from '../../../docs/tools/chromium.ts';
import { LAB_VIEWPORT, predictAndStep } from '../../../docs/tools/labScreens.ts';
import { describeWithChromium } from '../../../docs/tools/needsChromium.ts';
import { storyFixtureFailure, storyPageHtml } from '../../../docs/tools/storyScreens.ts';
import { runCliCaptured } from '../../runCliCaptured.ts';
import { failureLabStory } from './failureStory.ts';
import { parseWorksheet } from './worksheet.ts';

const dir = mkdtempSync(join(tmpdir(), 'jobcheck-lab-worksheet-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A rule's sentence as the page shows it: bold marks and inline-code backticks gone. */
const ruleText = (id: string): string =>
  (RULES.find((r) => r.id === id)?.sentence ?? expect.fail(id)).replace(/\*\*/g, '').replace(/`/g, '');

/** What an exercise showed once run. */
interface Ran {
  readonly verdict: string[];
  readonly replies: Record<string, unknown>;
  readonly quoted: Record<string, string>;
  readonly timeline: string[];
}

async function runExercise(page: Page, id: string, answers: Record<string, string>): Promise<Ran> {
  const card = page.locator(`#lab-x-${id}`);
  const run = card.locator('[data-x-run]');
  const lockedBefore = await run.isDisabled();
  for (const [q, v] of Object.entries(answers)) await card.locator(`select[name="${q}"]`).selectOption(v);
  await card.locator('textarea').fill(`my reasoning for ${id}`);
  await run.click();
  if (!lockedBefore) throw new Error(`${id}: could run before every prediction was made`);
  const replies: Record<string, unknown> = {};
  for (const r of await card.locator('.lab-x-reply').all())
    replies[(await r.getAttribute('data-run')) ?? ''] = JSON.parse((await r.textContent()) ?? 'null');
  const quoted: Record<string, string> = {};
  for (const li of await card.locator('.lab-x-rules li').all())
    quoted[(await li.getAttribute('data-rule')) ?? ''] = (await li.locator('q').textContent()) ?? '';
  return {
    verdict: await card.locator('.lab-x-verdict li').allInnerTexts(),
    replies,
    quoted,
    timeline: await card
      .locator('ol.lab-timeline li')
      .evaluateAll((lis) => lis.map((li) => li.getAttribute('data-kind') ?? '')),
  };
}

/** Clicks `selector` and returns the text of the file it downloads. */
async function downloaded(page: Page, selector: string): Promise<string> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator(selector).click()]);
  return readFileSync((await download.path()) ?? expect.fail('no download'), 'utf8');
}

interface Seen {
  readonly byHand: { sameKey: unknown; reply7: unknown; clock: string; title: string };
  readonly malformed: { error: string; stepsBefore: string[]; stepsAfter: string[] };
  readonly exercises: Record<string, Ran>;
  readonly saved: string;
  readonly savedAgain: string;
  readonly badStatus: string;
  readonly savedAfterBad: string;
  readonly report: string;
  readonly failure: { title: string; steps: number; expectedSteps: number; editedReply: unknown; editedStep: string };
  readonly errors: string[];
}

let seen: Seen | undefined;
let setupError: unknown;

describeWithChromium('the lab as a worksheet', () => {
  beforeAll(async () => {
    try {
      const lab = join(dir, 'lab', 'index.html');
      const written = await runCliCaptured(['lab', '--out', lab]);
      if (written.code !== 0) throw new Error(`jobcheck lab failed: ${written.stderr}`);
      const example = await storyFixtureFailure();
      const failurePage = join(dir, 'run', 'index.html');
      mkdirSync(join(dir, 'run'), { recursive: true });
      writeFileSync(failurePage, await storyPageHtml(example, pathToFileURL(lab).href));
      const expectedSteps = failureLabStory(example.failure)?.steps.length ?? -1;
      const session = await withChromiumPage({ ...LAB_VIEWPORT, timeoutMs: 90_000 }, async (page) => {
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(String(e)));
        // The pages are opened as files, as a learner opens them: file URLs pass, anything else is refused and kept.
        await page.context().unroute('**/*');
        await page.context().route(
          (url) => url.protocol !== 'file:',
          async (route) => {
            errors.push(`request: ${route.request().url()}`);
            await route.abort();
          },
        );
        await page.goto(pathToFileURL(lab).href);
        const steps = () => page.locator('#lab-edit-steps li .lab-e-cmd').allInnerTexts();
        const edit = async (step: number, fields: Record<string, string>): Promise<void> => {
          await page.locator(`#lab-edit-steps li[data-step="${step}"] button[data-edit="set"]`).click();
          for (const [k, v] of Object.entries(fields)) await page.locator(`#lab-edit-${k}`).fill(v);
          await page.locator('#lab-edit-apply').click();
        };

        // The replay's key (step 5) changed by hand: to the saved draft's key, then to another one.
        await page.locator('#lab-story').selectOption('changed-operation-key');
        const any = { outcome: 'accepted' as const, jobs: {}, balance: 0 };
        const commitAfterKey = async (key: string): Promise<unknown> => {
          await edit(5, { key });
          await predictAndStep(page, any);
          await predictAndStep(page, any);
          return JSON.parse((await page.locator('#lab-reply').textContent()) ?? 'null');
        };
        const sameKey = await commitAfterKey('J-12:draft:v1');
        const byHand = {
          sameKey,
          reply7: await commitAfterKey('J-12:draft:v2'),
          clock: (await page.locator('#lab-clock').textContent()) ?? '',
          title: (await page.locator('#lab-title').textContent()) ?? '',
        };
        const stepsBefore = await steps();
        await edit(5, { amount: 'two' });
        const malformed = {
          error: (await page.locator('#lab-edit-error:visible').textContent()) ?? '',
          stepsBefore,
          stepsAfter: await steps(),
        };
        await page.locator('#lab-edit-cancel').click();

        const exercises = {
          'changed-key': await runExercise(page, 'changed-key', { before: 'reused', after: 'applied' }),
          'changed-payload': await runExercise(page, 'changed-payload', { after: 'applied' }),
          'lease-boundary': await runExercise(page, 'lease-boundary', { before: 'nothing', after: 'delivered' }),
          interruption: await runExercise(page, 'interruption', { gap: 'after-3', after: 'reused' }),
        };

        await page.locator('#lab-learner').fill('Ada');
        await page
          .locator('#lab-answer')
          .fill('The ledger of effects recognises a repeat: it stores (account, key) and the amount.');
        const saved = await downloaded(page, '#lab-save');
        const report = await downloaded(page, '#lab-export');
        const file = join(dir, 'worksheet.json');
        writeFileSync(file, saved);
        const bad = JSON.parse(saved);
        bad.plays[0].trace[0].step = 0;
        writeFileSync(join(dir, 'bad.json'), JSON.stringify(bad));

        // A fresh page: the saved worksheet loaded and saved again; then a bad file refused.
        await page.goto(`${pathToFileURL(lab).href}?fresh`);
        await page.locator('#lab-load').setInputFiles(file);
        await page.locator('#lab-ws-status', { hasText: 'Loaded' }).waitFor();
        const savedAgain = await downloaded(page, '#lab-save');
        await page.locator('#lab-load').setInputFiles(join(dir, 'bad.json'));
        const badStatus = (await page.locator('#lab-ws-status', { hasText: 'Not loaded' }).textContent()) ?? '';
        const savedAfterBad = await downloaded(page, '#lab-save');

        // A failure page's story, opened in the lab from its link, then edited there.
        await page.goto(pathToFileURL(failurePage).href);
        await page.locator('#story a[data-lab]').click();
        await page.locator('#lab-edit-steps li').first().waitFor();
        const title = (await page.locator('#lab-title').textContent()) ?? '';
        const count = await page.locator('#lab-edit-steps li').count();
        await edit(2, { now: '3' });
        const failure = {
          title,
          steps: count,
          expectedSteps,
          editedReply: JSON.parse((await page.locator('#lab-reply').textContent()) ?? 'null'),
          editedStep: (await page.locator('#lab-edit-steps li[data-step="2"] .lab-e-cmd').textContent()) ?? '',
        };
        return { byHand, malformed, exercises, saved, savedAgain, badStatus, savedAfterBad, report, failure, errors };
      });
      seen = session.result;
    } catch (error) {
      setupError = error;
    }
  }, 120_000);

  const result = (): Seen => {
    if (setupError !== undefined) throw setupError;
    if (seen === undefined) throw new Error('the page was not played');
    return seen;
  };

  it('makes a second effect when a step key is edited, and refuses a malformed edit by name, changing nothing', () => {
    const { byHand, malformed, errors } = result();
    expect(byHand.title).toMatch(/\(edited\)/);
    expect(byHand.sameKey).toEqual({ ok: true, type: 'commit', id: 'J-12-replay', applied: false, balance: 1 });
    expect(byHand.reply7).toEqual({ ok: true, type: 'commit', id: 'J-12-replay', applied: true, balance: 2 });
    expect(byHand.clock).toMatch(/balances: north 2$/);
    expect(malformed.error).toMatch(/^refused: invalid_argument amount: .*\(got "two"\)$/);
    expect(malformed.stepsAfter).toEqual(malformed.stepsBefore);
    expect(errors).toEqual([]);
  });

  it('runs the changed key after the prediction: a second effect, the idempotency rule quoted', () => {
    const x = result().exercises['changed-key'];
    expect(x?.replies['before']).toMatchObject({ ok: true, type: 'commit', applied: false, balance: 1 });
    expect(x?.replies['after']).toMatchObject({ ok: true, type: 'commit', applied: true, balance: 2 });
    expect(x?.verdict.every((v) => v.startsWith('✓'))).toBe(true);
    expect(x?.quoted['effect-idempotent']).toBe(ruleText('effect-idempotent'));
  });

  it('runs the changed payload: a conflict where the learner predicted a second effect, the rule quoted', () => {
    const x = result().exercises['changed-payload'];
    expect(x?.replies['after']).toMatchObject({ ok: false, code: 'conflict' });
    expect(x?.verdict).toEqual([expect.stringMatching(/^✗ .*is refused as a conflict \(you said: is applied/)]);
    expect(x?.quoted['changed-amount-conflicts']).toBe(ruleText('changed-amount-conflicts'));
  });

  it('moves now across the lease boundary: nothing at now=4, J-12 under a new token at now=5, equality quoted', () => {
    const x = result().exercises['lease-boundary'];
    expect(x?.replies['before']).toEqual({ ok: true, type: 'claim', job: null });
    expect(x?.replies['after']).toMatchObject({
      ok: true,
      type: 'claim',
      job: { id: 'J-12', token: 2, leaseUntil: 10 },
    });
    expect(x?.quoted['lease-equality-expires']).toBe(ruleText('lease-equality-expires'));
  });

  it('shows the interruption between effect and acknowledgement, and the evidence the next worker reads', () => {
    const x = result().exercises['interruption'];
    expect(x?.verdict.every((v) => v.startsWith('✓'))).toBe(true);
    expect(x?.replies['after']).toMatchObject({ ok: true, type: 'commit', applied: false, balance: 1 });
    const t = x?.timeline ?? [];
    expect(t.indexOf('effect')).toBeLessThan(t.indexOf('interruption'));
    expect(t.indexOf('interruption')).toBeLessThan(t.lastIndexOf('effect'));
    expect(t.lastIndexOf('effect')).toBeLessThan(t.indexOf('ack'));
    expect(x?.quoted['effect-idempotent']).toBe(ruleText('effect-idempotent'));
  });

  it('saves the worksheet, loads it into a fresh page identical, and refuses a bad file by name', () => {
    const r = result();
    const sheet = parseWorksheet(r.saved);
    expect(sheet.learner).toBe('Ada');
    expect(Object.keys(sheet.exercises).sort()).toEqual([
      'changed-key',
      'changed-payload',
      'interruption',
      'lease-boundary',
    ]);
    expect(sheet.plays.some((p) => p.edited && p.trace.some((s) => s.prediction !== undefined))).toBe(true);
    expect(r.savedAgain).toBe(r.saved);
    expect(r.badStatus).toMatch(/invalid_worksheet: worksheet: plays\.0\.trace\.0\.step: must be >= 1 \(got 0\)/);
    expect(r.savedAfterBad).toBe(r.saved);
  });

  it('exports a report with the answer, the predictions beside the traces, the changed key and effect before ack', () => {
    const html = result().report;
    expect(html).toContain('The ledger of effects recognises a repeat: it stores (account, key) and the amount.');
    expect(html).toContain('<th>your prediction</th>');
    expect(html).toMatch(/The changed-key experiment.*J-12:draft:v2/s);
    expect(html).toMatch(/<li class="effect">.*<li class="interruption">.*<li class="ack">/s);
  });

  it("opens a failure page's story in the lab as an edited story and lets the model answer an edit", () => {
    const f = result().failure;
    expect(f.title).toMatch(/^failure-commit-restart-redeliver \(edited\)/);
    expect(f.steps).toBe(f.expectedSteps);
    expect(f.editedStep).toBe('claim worker="w1" now=3');
    expect(f.editedReply).toMatchObject({ ok: true, type: 'claim', job: { id: 'a', token: 1, leaseUntil: 8 } });
  });
});
