/**
 * The lab as a learner uses it: the page `jobcheck lab` writes, in headless Chromium at 1280×800,
 * a story played to the end by keyboard with right and wrong predictions. The assertions read the
 * DOM: the score, the answer to a wrong guess (in view after every step), the replies of the model
 * running in the page (against the replies of the same model in Node), the accepted-or-refused
 * prediction of a late commit, the contract's inline code shown as code, the rule links into the
 * shipped contract, the story check, and that nothing overflows. Then `--serve`: the page on
 * 127.0.0.1 from a process of its own, which serves the contract its links point at and which
 * Ctrl-C ends.
 * Chromium is the system's (docs/tools/chromium.ts): without it the page's tests skip, failing instead with `CI` set.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Reply, Snapshot } from '../../../contract/index.ts';
import { loadFixture } from '../../../model/fixtures.ts';
import { fromSnapshot, initialState, step, toSnapshot } from '../../../model/step.ts';
import type { ModelState } from '../../../model/step.ts';
import { withChromiumPage } from '../../../docs/tools/chromium.ts';
import { describeWithChromium } from '../../../docs/tools/needsChromium.ts';
import { LAB_VIEWPORT, predictAndStep } from '../../../docs/tools/labScreens.ts';
import type { LabGuess } from '../../../docs/tools/labScreens.ts';
import { runCliCaptured } from '../../runCliCaptured.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const STORY = 'lease-boundary-now4-now5';
const fixture = loadFixture(STORY);
/** The story whose step 4, a commit after the ack, the store refuses: the prediction a learner gets wrong. */
const LATE_COMMIT = 'ack-before-commit';
const dir = mkdtempSync(join(tmpdir(), 'jobcheck-lab-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The replies and snapshots of a story on the Node model, step by step (every step of these stories is a command). */
function nodeRun(story = fixture): { replies: Reply[]; snapshots: Snapshot[] } {
  let state: ModelState = initialState(story.config);
  const replies: Reply[] = [];
  const snapshots: Snapshot[] = [];
  for (const s of story.steps) {
    if (!('do' in s)) {
      state = fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(state))));
      continue;
    }
    const r = step(state, s.do);
    state = r.state;
    replies.push(r.reply);
    snapshots.push(toSnapshot(r.state));
  }
  return { replies, snapshots };
}

/** The right prediction of a step, from the Node model's reply and snapshot. */
const rightGuess = (snap: Snapshot, reply?: Reply): LabGuess => ({
  ...(reply === undefined ? {} : { outcome: reply.ok ? 'accepted' : 'refused' }),
  jobs: Object.fromEntries(
    Object.entries(snap.jobs).map(([id, j]) => [id, { status: j.status, token: j.token ?? null }]),
  ),
  balance: snap.balances[fixture.focus.account] ?? 0,
});

/** Elements of the lab wider than their box, or reaching past the viewport's right edge (1280 px). */
const OVERFLOW = `(() => {
  const out = [];
  const width = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > width) out.push('the page scrolls sideways: ' + document.documentElement.scrollWidth);
  for (const el of document.querySelectorAll('#lab *')) {
    if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const name = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ')[0] : '');
    if (r.right > width + 0.5) out.push(name + ' reaches x=' + Math.round(r.right));
    if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) out.push(name + ' overflows: ' + el.scrollWidth + ' > ' + el.clientWidth);
    const parent = el.parentElement;
    if (parent && parent.id !== 'lab' && !el.closest('svg')) {
      const p = parent.getBoundingClientRect();
      if (r.right > p.right + 1 && getComputedStyle(parent).overflowX === 'visible') out.push(name + ' sticks out of its container by ' + Math.round(r.right - p.right));
    }
  }
  return out;
})()`;

/** Whether the answer to the step just played is in the window: its heading and every verdict line. */
const IN_VIEW = `(() => {
  const result = document.getElementById('lab-result');
  const head = document.getElementById('lab-result-head').getBoundingClientRect();
  const verdict = document.getElementById('lab-verdict').getBoundingClientRect();
  return !result.hidden && head.top >= 0 && verdict.bottom <= window.innerHeight;
})()`;

interface Played {
  readonly scores: string[];
  /** After each step, whether its answer was in view. */
  readonly inView: boolean[];
  /** The same, on a page whose script lets the focus scroll the answer away (as it did). */
  readonly inViewBroken: boolean[];
  /** At step 5: the rules' code elements, the text of the rules, and the links' targets. */
  readonly codeInRules: number;
  readonly ruleLinks: string[];
  /** ack-before-commit, step 4 (the commit after the ack) predicted accepted: the verdict and why. */
  readonly lateCommit: { readonly verdict: string[]; readonly why: string[]; readonly points: string };
  readonly whyAtStep3: string[];
  readonly whyShownAtStep2: boolean;
  readonly verdictAtStep3: string[];
  readonly rulesAtStep5: string[];
  readonly checks: string[];
  readonly historyReplies: unknown[];
  readonly final: string;
  readonly finalCheck: string;
  readonly overflow: string[];
  readonly overflowAtEnd: string[];
  readonly brokenOverflow: string[];
  readonly sabotagedCheck: string;
  readonly litAtStep3: string | null;
  readonly takenAtStep5: string[];
}

let played: Played | undefined;
let requests: readonly string[] = [];
let setupError: unknown;
const node = nodeRun();
/** Steps 3 and 5 (1-based) are guessed wrong: the lease at now=4, the stale token at now=5. */
const WRONG = new Set([3, 5]);

/** The prediction played at step i (0-based): right but for steps 3 and 5. */
function guessAt(i: number): LabGuess {
  const right = rightGuess(node.snapshots[i] as Snapshot, node.replies[i]);
  // A wrong guess at step 3 thinks the lease ran out: the job is in fact still running.
  if (i + 1 === 3) return { ...right, jobs: { 'J-12': { status: 'ready', token: null } } };
  return WRONG.has(i + 1) ? { ...right, jobs: { 'J-12': { status: 'running', token: 1 } } } : right;
}

/** Renders the page and plays it once; what it saw is read by every test (Chromium needed). */
async function setUp(): Promise<void> {
  try {
    const written = await runCliCaptured(['lab', '--out', join(dir, 'lab.html'), '--story', STORY]);
    if (written.code !== 0) throw new Error(`jobcheck lab failed: ${written.stderr}`);
    const html = readFileSync(join(dir, 'lab.html'), 'utf8');
    const session = await withChromiumPage({ ...LAB_VIEWPORT, timeoutMs: 90_000 }, async (page: Page) => {
      // The file as `jobcheck lab` wrote it. Loaded with setContent: the session refuses every
      // request, a file:// navigation included, and counts it.
      await page.setContent(html, { waitUntil: 'load' });
      const text = async (sel: string): Promise<string> => (await page.locator(sel).textContent()) ?? '';
      const all = (sel: string): Promise<string[]> => page.locator(sel).allInnerTexts();
      const scores: string[] = [];
      const inView: boolean[] = [];
      let codeInRules = 0;
      let ruleLinks: string[] = [];
      const checks: string[] = [];
      let whyAtStep3: string[] = [];
      let verdictAtStep3: string[] = [];
      let whyShownAtStep2 = true;
      let rulesAtStep5: string[] = [];
      let overflow: string[] = [];
      let litAtStep3: string | null = null;
      let takenAtStep5: string[] = [];
      for (let i = 0; i < node.snapshots.length; i++) {
        const g = guessAt(i);
        await predictAndStep(page, g);
        inView.push((await page.evaluate(IN_VIEW)) as boolean);
        scores.push(await text('#lab-score'));
        checks.push(await text('#lab-check'));
        if (i + 1 === 2) whyShownAtStep2 = await page.locator('#lab-why-box').isVisible();
        if (i + 1 === 3) {
          whyAtStep3 = await all('#lab-why li');
          verdictAtStep3 = await all('#lab-verdict li');
          overflow = (await page.evaluate(OVERFLOW)) as string[];
          litAtStep3 = await page.locator('svg.lifecycle g.state.lit').getAttribute('data-state');
        }
        if (i + 1 === 5) {
          rulesAtStep5 = await all('#lab-rules li');
          codeInRules = await page.locator('#lab-rules li code').count();
          ruleLinks = await page
            .locator('#lab-rules a')
            .evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
          takenAtStep5 = await page
            .locator('svg.lifecycle g.edge.taken')
            .evaluateAll((gs) => gs.map((g) => g.getAttribute('data-transition') ?? ''));
        }
      }
      const historyReplies = await page
        .locator('#lab-history li')
        .evaluateAll((lis) => lis.map((li) => JSON.parse(li.getAttribute('data-reply') ?? 'null')));
      const final = await text('#lab-final');
      const finalCheck = await text('#lab-final-check');
      const overflowAtEnd = (await page.evaluate(OVERFLOW)) as string[];
      // A broken layout the check must refuse: a command line that will not wrap.
      await page.addStyleTag({
        content: '#lab #lab-command, #lab .lab-h-cmd { white-space: pre; overflow-wrap: normal; }',
      });
      await page.locator('#lab-again').press('Enter');
      await page.evaluate("document.querySelector('#lab-command').textContent = 'submit ' + 'x'.repeat(300)");
      const brokenOverflow = (await page.evaluate(OVERFLOW)) as string[];
      // A model that departs from the story (leases of 9 ticks, not 5): the page must say so at the claim.
      await page.evaluate(`(() => {
        const init = window.JobcheckLab.initialState;
        window.JobcheckLab.initialState = (config) => init({ ...config, leaseTicks: 9 });
      })()`);
      await page.locator('#lab-restart').press('Enter');
      await predictAndStep(page, rightGuess(node.snapshots[0] as Snapshot));
      await predictAndStep(page, rightGuess(node.snapshots[1] as Snapshot));
      const sabotagedCheck = `${await text('#lab-check')} ${(await all('#lab-mismatches li')).join(' ')}`;
      // ack-before-commit: every step right but the fourth, a late commit predicted accepted.
      await page.setContent(html, { waitUntil: 'load' });
      await page.locator('#lab-story').selectOption(LATE_COMMIT);
      const late = nodeRun(loadFixture(LATE_COMMIT));
      for (let i = 0; i < 4; i++) {
        const guess = rightGuess(late.snapshots[i] as Snapshot, late.replies[i]);
        await predictAndStep(page, i === 3 ? { ...guess, outcome: 'accepted' } : guess);
      }
      const lateCommit = {
        verdict: await all('#lab-verdict li'),
        why: await all('#lab-why li'),
        points: await text('#lab-points'),
      };
      // The page as it was: the focus scrolls the next form into view, and nothing brings the answer back.
      await page.setContent(
        html
          .replaceAll("keepInView($('lab-result'));", '')
          .replace('first.focus({ preventScroll: true });', 'first.focus();'),
        { waitUntil: 'load' },
      );
      const inViewBroken: boolean[] = [];
      for (let i = 0; i < node.snapshots.length; i++) {
        await predictAndStep(page, guessAt(i));
        inViewBroken.push((await page.evaluate(IN_VIEW)) as boolean);
      }
      return {
        scores,
        inView,
        inViewBroken,
        codeInRules,
        ruleLinks,
        lateCommit,
        whyAtStep3,
        whyShownAtStep2,
        verdictAtStep3,
        rulesAtStep5,
        checks,
        historyReplies,
        final,
        finalCheck,
        overflow,
        overflowAtEnd,
        brokenOverflow,
        sabotagedCheck,
        litAtStep3,
        takenAtStep5,
      };
    });
    played = session.result;
    requests = session.requests;
  } catch (error) {
    setupError = error;
  }
}

const result = (): Played => {
  if (setupError !== undefined) throw setupError;
  if (played === undefined) throw new Error('the page was not played');
  return played;
};

describeWithChromium('the lab page in Chromium at 1280×800', () => {
  beforeAll(setUp, 150_000);

  it('plays the story to the end by keyboard and keeps score: 4 points a step (the reply, the status, the token, the balance), 2 of 4 on each wrong step', () => {
    const p = result();
    expect(p.scores).toEqual([
      'Score: 4 of 4',
      'Score: 8 of 8',
      'Score: 10 of 12',
      'Score: 14 of 16',
      // Step 5 guesses "running, token 1" after the lease ran out: status and token wrong, the reply and balance right.
      'Score: 16 of 20',
      'Score: 20 of 24',
      'Score: 24 of 28',
      'Score: 28 of 32',
    ]);
    expect(p.final).toBe('The story is over: 28 of 32 predictions right.');
  });

  it('answers the wrong guess at now=4 with why: the lease runs until 5; now is 4', () => {
    const p = result();
    expect(p.verdictAtStep3).toEqual([
      '✓ the store accepts it',
      '✗ job J-12 status is running, you said ready',
      '✗ job J-12 token is 1, you said –',
      '✓ north balance 0',
    ]);
    expect(p.whyAtStep3).toContain('job J-12 is running under token 1: the lease runs until 5; now is 4');
    expect(p.whyShownAtStep2).toBe(false);
    expect(p.litAtStep3).toBe('running');
  });

  it('shows the rule that refused the stale token at now=5, and lights the expiry it took', () => {
    const p = result();
    expect(p.rulesAtStep5.some((r) => r.startsWith('stale-token-refused: '))).toBe(true);
    expect(p.rulesAtStep5.some((r) => r.startsWith('lease-equality-expires: '))).toBe(true);
    expect(p.takenAtStep5).toEqual(['running --ADVANCE [leaseExpired]--> ready']);
  });

  it("replies in the browser exactly as the Node model does, and says at every step that the story's record holds", () => {
    const p = result();
    expect(p.historyReplies).toEqual(node.replies);
    expect(p.checks).toEqual(node.replies.map(() => '✓ The model in this page did what the story records.'));
    expect(p.finalCheck).toBe('✓ The model ends where the story says it ends.');
  });

  it('shows a model that departs from the story, never hides it', () => {
    expect(result().sabotagedCheck).toMatch(
      /^✗ The model in this page departs from what the story records: step 2: the story expects the reply .*"leaseUntil":5.*, the model replied .*"leaseUntil":9/,
    );
  });

  it('lets nothing overflow at 1280 px, and would see a line that does', () => {
    const p = result();
    expect(p.overflow).toEqual([]);
    expect(p.overflowAtEnd).toEqual([]);
    expect(p.brokenOverflow.some((o) => o.startsWith('code#lab-command'))).toBe(true);
  });

  it('asks whether the store accepts or refuses each command, and answers a late commit predicted accepted', () => {
    const { lateCommit } = result();
    expect(lateCommit.verdict[0]).toBe('✗ the store refuses it (stale_token), you said it accepts it');
    expect(lateCommit.verdict.slice(1).every((line) => line.startsWith('✓ '))).toBe(true);
    expect(lateCommit.points).toBe('+3 of 4');
    expect(lateCommit.why.length).toBeGreaterThan(0);
    expect(lateCommit.why).toContain('the token is 1; job b has no current delivery (it is done)');
  });

  it("keeps each step's answer in view, and would see one the focus scrolls away", () => {
    const p = result();
    expect(p.inView).toEqual(p.scores.map(() => true));
    expect(p.inViewBroken).toContain(false);
  });

  it("shows the contract's inline code as code, never as backticks", () => {
    const p = result();
    expect(p.codeInRules).toBeGreaterThan(0);
    for (const rule of p.rulesAtStep5) expect(rule).not.toContain('`');
  });

  it('links each rule to the contract shipped with this jobcheck, which has its anchor', () => {
    const p = result();
    const contract = readFileSync(join(ROOT, 'docs/contract.md'), 'utf8');
    expect(p.ruleLinks.length).toBeGreaterThan(0);
    for (const href of p.ruleLinks) {
      const [file, anchor] = href.split('#');
      expect(file).toBe(pathToFileURL(join(ROOT, 'docs/contract.md')).href);
      expect(contract).toContain(`<a id="${anchor}"></a>`);
    }
  });

  it('asks the network for nothing', () => {
    result();
    expect(requests).toEqual([]);
  });
});

describe('jobcheck lab --serve', () => {
  it('serves the page on 127.0.0.1 only, and Ctrl-C ends the process', async () => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/jobcheck.js'), 'lab', '--serve'], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let stdout = '';
    let url = '';
    try {
      url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no URL printed: ${stdout}`)), 60_000);
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          const m = /serving the lab at (http:\/\/[^/ ]+\/) \(Ctrl-C stops\)/.exec(stdout);
          if (m?.[1] !== undefined) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        });
        child.once('exit', () => reject(new Error(`the server ended early: ${stdout}`)));
      });
      // Bound to the loopback interface only: the printed URL is the bound address.
      expect(new URL(url).hostname).toBe('127.0.0.1');
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await page.text()).toContain('<title>jobcheck lab</title>');
      expect((await fetch(new URL('/elsewhere', url))).status).toBe(404);
      // The rule links of a served page point at the contract the server serves beside it.
      expect(await (await fetch(url)).text()).toContain('"contractUrl":"/contract.md"');
      const contract = await fetch(new URL('/contract.md', url));
      expect(contract.status).toBe(200);
      expect(await contract.text()).toBe(readFileSync(join(ROOT, 'docs/contract.md'), 'utf8'));
    } finally {
      // Whatever happened above, the server does not outlive the test.
      child.kill('SIGINT');
    }
    // main.ts ends the command on SIGINT with 130, as a shell reports it.
    expect(await exited).toBe(130);
    await expect(fetch(url)).rejects.toThrow();
  }, 90_000);
});
