/**
 * The documented services in the lab, as a learner steps them in headless Chromium (1280×800):
 * Service Bus Receive-and-Delete loses a job whose worker disappears, step by step (settled at
 * the claim, not delivered again, the balance left at 0), and Peek-Lock redelivers it once its
 * lock expires. The assertions read the DOM after every step: the reply, the job's status in the
 * store's table, the transitions taken, the story check, and the banner that says the story runs a
 * documented model; every reply is held to the same mode's model in Node. A page whose
 * documented model is swapped for the contract's must say that it departs from the story.
 * Chromium is the system's (docs/tools/chromium.ts): without it these tests skip, failing with `CI` set.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Reply, Snapshot } from '../../../contract/index.ts';
import { documentedModel } from '../../../model/documented.ts';
import { toSnapshot } from '../../../model/step.ts';
import { withChromiumPage } from '../../../docs/tools/chromium.ts';
import { describeWithChromium } from '../../../docs/tools/needsChromium.ts';
import { LAB_VIEWPORT, predictAndStep } from '../../../docs/tools/labScreens.ts';
import type { LabGuess } from '../../../docs/tools/labScreens.ts';
import { runCliCaptured } from '../../runCliCaptured.ts';
import { documentedStories } from './documentedStories.ts';

const LOSS = 'servicebus-receive-and-delete-loss';
const REDELIVERY = 'servicebus-peek-lock-redelivery';
const dir = mkdtempSync(join(tmpdir(), 'jobcheck-documented-lab-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A story's replies and snapshots on its mode's model in Node. */
function nodeRun(name: string): { replies: Reply[]; snapshots: Snapshot[] } {
  const story = documentedStories().find((s) => s.name === name) ?? expect.fail(name);
  const model = documentedModel(story.model ?? '') ?? expect.fail(`${name}: no model`);
  let state = model.initialState(story.config);
  const replies: Reply[] = [];
  const snapshots: Snapshot[] = [];
  for (const s of story.steps as { do: unknown }[]) {
    const r = model.step(state, s.do);
    state = r.state;
    replies.push(r.reply);
    snapshots.push(toSnapshot(state));
  }
  return { replies, snapshots };
}

/** The right prediction of a step, from the Node model. */
const rightGuess = (snap: Snapshot, reply: Reply): LabGuess => ({
  outcome: reply.ok ? 'accepted' : 'refused',
  jobs: Object.fromEntries(
    Object.entries(snap.jobs).map(([id, j]) => [id, { status: j.status, token: j.token ?? null }]),
  ),
  balance: snap.balances['x'] ?? 0,
});

/** What the page shows after one step. */
interface Seen {
  readonly reply: unknown;
  readonly status: string;
  readonly moves: string[];
  readonly check: string;
  readonly verdict: string[];
  readonly clock: string;
}

interface Played {
  readonly banner: string;
  readonly loss: Seen[];
  readonly lossFinal: string;
  readonly redelivery: Seen[];
  readonly redeliveryFinal: string;
  readonly swapped: string;
}

/** Plays `name` from its start, each step's prediction from `guess`; returns what each step showed. */
async function play(page: Page, name: string, guess: (i: number) => LabGuess): Promise<Seen[]> {
  await page.locator('#lab-story').selectOption(name);
  const seen: Seen[] = [];
  const steps = nodeRun(name).replies.length;
  for (let i = 0; i < steps; i++) {
    await predictAndStep(page, guess(i));
    seen.push({
      reply: JSON.parse((await page.locator('#lab-reply').textContent()) ?? 'null'),
      status: (await page.locator('#lab-state-body tr[data-job="a"] td').first().textContent()) ?? '',
      moves: await page.locator('#lab-moves li').allInnerTexts(),
      check: (await page.locator('#lab-check').textContent()) ?? '',
      verdict: await page.locator('#lab-verdict li').allInnerTexts(),
      clock: (await page.locator('#lab-clock').textContent()) ?? '',
    });
  }
  return seen;
}

let played: Played | undefined;
let requests: readonly string[] = [];
let setupError: unknown;

describeWithChromium('the lab steps the documented Service Bus modes', () => {
  beforeAll(async () => {
    try {
      const file = join(dir, 'lab.html');
      const written = await runCliCaptured(['lab', '--out', file, '--story', LOSS]);
      if (written.code !== 0) throw new Error(`jobcheck lab failed: ${written.stderr}`);
      const html = readFileSync(file, 'utf8');
      const loss = nodeRun(LOSS);
      const redelivery = nodeRun(REDELIVERY);
      const session = await withChromiumPage({ ...LAB_VIEWPORT, timeoutMs: 60_000 }, async (page) => {
        await page.setContent(html, { waitUntil: 'load' });
        const banner = (await page.locator('#lab-documented:visible').textContent()) ?? '';
        // A learner who expects the contract: at the claim, the job running under w1's lease.
        const lossSeen = await play(page, LOSS, (i) =>
          i === 1
            ? { outcome: 'accepted', jobs: { a: { status: 'running', token: 1 } }, balance: 0 }
            : rightGuess(loss.snapshots[i] as Snapshot, loss.replies[i] as Reply),
        );
        const lossFinal = (await page.locator('#lab-final-check').textContent()) ?? '';
        const redeliverySeen = await play(page, REDELIVERY, (i) =>
          rightGuess(redelivery.snapshots[i] as Snapshot, redelivery.replies[i] as Reply),
        );
        const redeliveryFinal = (await page.locator('#lab-final-check').textContent()) ?? '';
        // The page's check must catch a model that is not the mode's: the contract in its place.
        await page.evaluate('window.JobcheckLab.documentedModel = () => window.JobcheckLab');
        const swappedSeen = await play(page, LOSS, (i) =>
          rightGuess(loss.snapshots[i] as Snapshot, loss.replies[i] as Reply),
        );
        return {
          banner,
          loss: lossSeen,
          lossFinal,
          redelivery: redeliverySeen,
          redeliveryFinal,
          swapped: swappedSeen[1]?.check ?? '',
        };
      });
      played = session.result;
      requests = session.requests;
    } catch (error) {
      setupError = error;
    }
  }, 90_000);

  const result = (): Played => {
    if (setupError !== undefined) throw setupError;
    if (played === undefined) throw new Error('the page was not played');
    return played;
  };

  it('says that the story runs a documented model, not the contract and not the service', () => {
    expect(result().banner).toMatch(
      /^Documented, not measured: this story runs the model of Azure Service Bus, Receive-and-Delete/,
    );
    expect(requests).toEqual([]);
  });

  it('shows Receive-and-Delete losing the job step by step: settled at the claim, not delivered again, no effect', () => {
    const [submit, claim, tick, again] = result().loss;
    expect(submit?.status).toBe('ready');
    expect(claim?.reply).toMatchObject({ ok: true, type: 'claim', job: { id: 'a', token: 1 } });
    expect(claim?.status).toBe('done');
    expect(claim?.moves).toEqual([
      'job a: ready → running (ready --CLAIM--> running)',
      'job a: running → done (running --ACK [isCurrentDelivery]--> done)',
    ]);
    expect(claim?.verdict).toContain('✗ job a status is done, you said running');
    expect(tick?.status).toBe('done');
    expect(tick?.moves).toEqual(['no job changed state']);
    expect(again?.reply).toEqual({ ok: true, type: 'claim', job: null });
    expect(again?.status).toBe('done');
    expect(again?.clock).toMatch(/balances: none yet$/);
    for (const s of result().loss) expect(s.check).toBe('✓ The model in this page did what the story records.');
    expect(result().lossFinal).toBe('✓ The model ends where the story says it ends.');
  });

  it('shows Peek-Lock redelivering it: the lock expires, w2 gets it under a new token and does the work', () => {
    const [, claim, tick, again, commit, ack] = result().redelivery;
    expect(claim?.status).toBe('running');
    expect(tick?.status).toBe('ready');
    expect(tick?.moves).toEqual(['job a: running → ready (running --ADVANCE [leaseExpired]--> ready)']);
    expect(again?.reply).toMatchObject({ ok: true, type: 'claim', job: { id: 'a', token: 2, attempt: 2 } });
    expect(commit?.reply).toMatchObject({ ok: true, type: 'commit', applied: true, balance: 5 });
    expect(ack?.status).toBe('done');
    expect(ack?.clock).toMatch(/balances: x 5$/);
    expect(result().redeliveryFinal).toBe('✓ The model ends where the story says it ends.');
  });

  it("gives the replies of the mode's model in Node, and catches a page that plays the contract instead", () => {
    expect(result().loss.map((s) => s.reply)).toEqual(nodeRun(LOSS).replies);
    expect(result().redelivery.map((s) => s.reply)).toEqual(nodeRun(REDELIVERY).replies);
    expect(result().swapped).toBe('✗ The model in this page departs from what the story records:');
  });
});
