/**
 * The lab as a page part (cli/report/section.ts): the story picker, the prediction form, the
 * answer (reply, verdict per field, why, the transitions, the rules, the story check), the
 * lifecycle diagram with each job in its state, the jobs table, the story's steps with their
 * editor, the history of steps; below them the four experiments and the worksheet. Its data
 * (the stories, which to start with, where the contract lives) is a JSON element of the fragment;
 * its script (labScript.ts) needs the model bundle (the global `JobcheckLab`) loaded before it.
 *
 * Design: two columns at 1280 px, the question and its answer on the left, the picture of the
 * store on the right. Each command's prediction starts with whether the store accepts or refuses
 * it (the lesson of a late commit refused), and after a step the answer is scrolled into view,
 * never out of it. Markdown's inline code in the contract's sentences is shown as code. Colours carry meaning and the legend says which: blue is the job the story
 * follows, orange a transition just taken, green a right field, red a wrong one; every colour also
 * has a mark (✓, ✗, a thicker line) for readers who do not see it.
 */
import { htmlText, scriptJson } from '../../../conformance/outside/outsideText.ts';
import type { PageSection } from '../section.ts';
import { LAB_SCRIPT } from './labScript.ts';

/** A story as the page needs it: a fixture's data. */
export interface LabStory {
  readonly name: string;
  readonly title: string;
  readonly story: string;
  readonly config: Readonly<Record<string, number>>;
  readonly focus: { readonly job: string; readonly account: string };
  readonly steps: readonly unknown[];
  readonly final: unknown;
  /** A documented mode's id (model/documented.ts): the story runs on that mode's model, not the contract's. */
  readonly model?: string;
  /** That mode as the page names it (`Azure Service Bus, Receive-and-Delete`). */
  readonly modelLabel?: string;
}

/** What the lab section shows. */
export interface LabSectionInput {
  readonly stories: readonly LabStory[];
  /** The story to start with (default: the first). */
  readonly initial?: string;
  /** The lifecycle diagram, plain (conformance/coverage/lifecycleDiagram.ts with `plain: true`). */
  readonly diagramSvg: string;
  /** The contract page rule links point into (`#rule-<id>` is appended): the copy shipped with this jobcheck; '' for none. */
  readonly contractUrl: string;
  /** What the link is, for its title (`docs/contract.md of jobcheck 0.1.0`). */
  readonly contractLabel?: string;
}

const CSS = `
#lab { --ink:#1d2330; --muted:#5b6472; --line:#d5dae1; --focus:#1f6fd1; --focus-bg:#e3eefc; --taken:#e8710a; --good:#1a7f37; --good-bg:#e6f4ea; --bad:#c62828; --bad-bg:#fdecea; --refused:#8a5a00; --refused-bg:#fff4d6;
  color:var(--ink); font:15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Liberation Sans", Arial, sans-serif; max-width:1280px; margin:0 auto; padding:16px 24px 32px; box-sizing:border-box; }
#lab *, #lab *::before, #lab *::after { box-sizing:border-box; }
#lab h1 { font-size:22px; margin:0; }
#lab h2 { font-size:18px; margin:0 0 4px; }
#lab h3 { font-size:16px; margin:0 0 8px; }
#lab .lab-head { display:flex; flex-wrap:wrap; align-items:center; gap:12px 24px; padding-bottom:10px; border-bottom:1px solid var(--line); }
#lab .lab-sub { margin:0; color:var(--muted); flex:1 1 100%; order:3; min-width:0; }
#lab .lab-pick { display:flex; align-items:center; gap:8px; flex:1 1 auto; min-width:0; max-width:100%; }
#lab select, #lab input, #lab button { font:inherit; }
#lab #lab-story { max-width:100%; min-width:0; }
#lab button { padding:6px 14px; border:1px solid #9aa3af; border-radius:6px; background:#fff; cursor:pointer; }
#lab button.primary { background:var(--focus); border-color:var(--focus); color:#fff; font-weight:600; }
#lab button:focus-visible, #lab select:focus-visible, #lab input:focus-visible, #lab a:focus-visible { outline:3px solid #f3b300; outline-offset:2px; }
#lab #lab-score { font-size:18px; font-weight:700; white-space:nowrap; }
#lab .lab-story { margin:12px 0; }
#lab .lab-story p { margin:2px 0; overflow-wrap:anywhere; }
#lab #lab-config { color:var(--muted); font-size:14px; }
#lab .lab-documented { border-left:4px solid var(--refused); background:var(--refused-bg); padding:6px 10px; border-radius:0 6px 6px 0; }
#lab .lab-grid { display:grid; grid-template-columns:minmax(0, 500px) minmax(0, 1fr); gap:24px; align-items:start; }
#lab .card { border:1px solid var(--line); border-radius:8px; padding:12px 14px; margin-bottom:14px; background:#fff; }
#lab code, #lab .mono { font-family:ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size:13.5px; }
#lab #lab-command { display:block; padding:6px 8px; background:#f4f6f8; border-radius:4px; overflow-wrap:anywhere; }
#lab table { border-collapse:collapse; width:100%; }
#lab th, #lab td { text-align:left; padding:4px 6px; border-bottom:1px solid var(--line); vertical-align:middle; }
#lab thead th { font-size:13px; color:var(--muted); font-weight:600; }
#lab .lab-fields-table input { width:100%; max-width:120px; padding:3px 6px; }
#lab .lab-fields-table select { max-width:190px; }
#lab .lab-focus-tag { font-size:12px; color:var(--focus); font-weight:600; }
#lab .lab-balance, #lab .lab-outcome { display:flex; align-items:center; gap:8px; margin:10px 0; flex-wrap:wrap; }
#lab #lab-outcome { max-width:190px; }
#lab #lab-balance { width:110px; padding:3px 6px; }
#lab .lab-hint { color:var(--muted); font-size:13px; margin:6px 0 0; }
#lab .lab-reply { display:block; padding:6px 8px; border-radius:4px; overflow-wrap:anywhere; }
#lab .lab-reply.ok { background:var(--good-bg); }
#lab .lab-reply.refused { background:var(--refused-bg); color:var(--refused); }
#lab .lab-label { font-size:13px; color:var(--muted); margin:8px 0 2px; font-weight:600; }
#lab ul, #lab ol { margin:0; padding-left:20px; }
#lab li { overflow-wrap:anywhere; }
#lab #lab-verdict { list-style:none; padding-left:0; }
#lab #lab-verdict li.right { color:var(--good); }
#lab #lab-verdict li.wrong { color:var(--bad); font-weight:600; }
#lab .lab-points { font-weight:700; }
#lab .lab-points.all-right, #lab .lab-h-pts.all-right { color:var(--good); }
#lab .lab-points.some-wrong, #lab .lab-h-pts.some-wrong { color:var(--bad); }
#lab #lab-why-box { border-left:4px solid var(--taken); background:#fff6ec; padding:8px 10px; margin-top:8px; border-radius:0 6px 6px 0; }
#lab #lab-why li { margin:2px 0; }
#lab .lab-rule-id { font-family:ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size:13px; color:var(--focus); }
#lab li code, #lab p code { background:#eef1f4; border-radius:3px; padding:0 3px; }
#lab .lab-check { padding:6px 8px; border-radius:4px; margin-top:8px; font-weight:600; }
#lab .lab-check.good { background:var(--good-bg); color:var(--good); }
#lab .lab-check.bad { background:var(--bad-bg); color:var(--bad); }
#lab #lab-mismatches { color:var(--bad); }
#lab #lab-result-note { color:var(--muted); font-style:italic; margin:6px 0 0; overflow-wrap:anywhere; }
#lab .lab-diagram { margin:0 0 14px; }
#lab .lab-diagram svg { display:block; width:100%; height:auto; }
#lab svg.lifecycle g.state .shape { fill:#fff; }
#lab svg.lifecycle g.state.has-jobs .shape { fill:#f1f3f5; stroke-width:2; }
#lab svg.lifecycle g.state.lit .shape { fill:var(--focus-bg); stroke:var(--focus); stroke-width:3.5; }
#lab svg.lifecycle g.state text.jobs { fill:var(--focus); font-weight:700; }
#lab svg.lifecycle g.edge.taken path { stroke:var(--taken); stroke-width:5; }
#lab svg.lifecycle g.edge.taken polygon { fill:var(--taken); stroke:var(--taken); }
#lab svg.lifecycle g.edge-label.taken text { fill:#a04a00; font-weight:700; }
#lab .lab-legend { display:flex; flex-wrap:wrap; gap:6px 18px; font-size:13px; color:var(--muted); margin:6px 0 10px; padding:0; list-style:none; }
#lab .lab-legend li { display:flex; align-items:center; gap:6px; }
#lab .swatch { display:inline-block; width:22px; height:14px; border-radius:3px; border:1px solid #333; }
#lab .swatch.lit { background:var(--focus-bg); border:3px solid var(--focus); }
#lab .swatch.jobs { background:#f1f3f5; border:2px solid #333; }
#lab .swatch.taken { height:0; border:0; border-top:5px solid var(--taken); border-radius:0; }
#lab .swatch.right { background:var(--good-bg); border-color:var(--good); }
#lab .swatch.wrong { background:var(--bad-bg); border-color:var(--bad); }
#lab #lab-state-table tr.focus th { color:var(--focus); }
#lab .st-running { color:#1f6fd1; font-weight:600; }
#lab .st-done { color:var(--good); font-weight:600; }
#lab .st-dead { color:var(--bad); font-weight:600; }
#lab .st-waiting { color:#8a5a00; font-weight:600; }
#lab #lab-clock { margin:6px 0 0; color:var(--muted); overflow-wrap:anywhere; }
#lab #lab-history li { display:flex; gap:8px; justify-content:space-between; font-size:14px; }
#lab .lab-h-cmd { font-family:ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size:13px; min-width:0; overflow-wrap:anywhere; }
#lab .lab-h-pts { white-space:nowrap; font-weight:600; }
#lab .lab-empty { color:var(--muted); }
#lab #lab-edit-steps li { display:flex; gap:6px; align-items:center; font-size:14px; padding:2px 0; }
#lab #lab-edit-steps li.next .lab-e-cmd { font-weight:700; color:var(--focus); }
#lab .lab-e-cmd { flex:1 1 auto; min-width:0; overflow-wrap:anywhere; font-size:12.5px; }
#lab #lab-edit-steps button, #lab #lab-editor button { padding:2px 8px; font-size:13px; flex:0 0 auto; white-space:nowrap; }
#lab button:disabled { opacity:.55; cursor:default; }
#lab #lab-editor { border-top:1px solid var(--line); margin-top:8px; padding-top:8px; }
#lab #lab-edit-fields { display:grid; grid-template-columns:repeat(3, minmax(0, 1fr)); gap:6px 10px; margin:6px 0; }
#lab #lab-edit-fields label, #lab .lab-x-q { display:flex; flex-direction:column; font-size:13px; color:var(--muted); min-width:0; }
#lab #lab-edit-fields input { width:100%; padding:2px 5px; }
#lab h4 { font-size:15px; margin:0 0 6px; }
#lab .lab-wide { margin-top:18px; }
#lab .lab-wide > h2 { margin-bottom:8px; }
#lab .lab-x-grid { display:grid; grid-template-columns:repeat(2, minmax(0, 1fr)); gap:0 16px; align-items:start; }
#lab .lab-x p { margin:4px 0 8px; overflow-wrap:anywhere; }
#lab .lab-x-q { margin:6px 0; gap:2px; }
#lab .lab-x-q select, #lab .lab-x-q textarea, #lab #lab-answer { max-width:100%; width:100%; font:inherit; }
#lab .lab-x > button { margin:6px 8px 0 0; }
#lab .lab-x-verdict, #lab .lab-x-rules { list-style:none; padding-left:0; }
#lab .lab-x-verdict li.right { color:var(--good); }
#lab .lab-x-verdict li.wrong { color:var(--bad); font-weight:600; }
#lab .lab-x-rules li { margin:4px 0; }
#lab q.lab-quote { quotes:"“" "”"; }
#lab .lab-x-named { color:var(--muted); font-size:13px; }
#lab ol.lab-timeline { list-style:none; padding:0; display:flex; flex-wrap:wrap; gap:6px 22px; }
#lab ol.lab-timeline li { border:2px solid var(--muted); border-radius:6px; padding:3px 6px; font-size:13px; max-width:100%; position:relative; }
#lab ol.lab-timeline li + li::before { content:"→"; position:absolute; left:-18px; top:20%; color:var(--muted); }
#lab ol.lab-timeline li.effect { border-color:var(--good); background:var(--good-bg); }
#lab ol.lab-timeline li.ack { border-color:var(--focus); background:var(--focus-bg); }
#lab ol.lab-timeline li.interruption { border-style:dashed; border-color:var(--bad); background:var(--bad-bg); font-weight:600; }
#lab ol.lab-timeline li.refused, #lab ol.lab-timeline li.expiry { border-color:var(--refused); background:var(--refused-bg); }
#lab #lab-worksheet .lab-ws-row { display:flex; flex-wrap:wrap; gap:8px 16px; align-items:center; margin:8px 0; }
#lab #lab-worksheet label { font-weight:600; }
#lab [hidden] { display:none !important; }
`;

/** The lab as a page section. Pure. */
export function labSection(input: LabSectionInput): PageSection {
  const initial = input.initial ?? input.stories[0]?.name ?? '';
  const options = input.stories
    .map(
      (s) =>
        `<option value="${htmlText(s.name)}"${s.name === initial ? ' selected' : ''}>${htmlText(s.name)}: ${htmlText(s.title)}</option>`,
    )
    .join('');
  const html = `<main id="lab">
<script type="application/json" id="lab-data">${scriptJson({ stories: input.stories, initial, contractUrl: input.contractUrl, contractLabel: input.contractLabel ?? 'docs/contract.md' })}</script>
<header class="lab-head">
  <h1>jobcheck lab</h1>
  <p class="lab-sub">Before each step, predict whether the store accepts or refuses the command, every job's status and token, and the account's balance. Then step: the reference model, running in this page, answers.</p>
  <div class="lab-pick"><label for="lab-story">Story</label><select id="lab-story">${options}</select><button type="button" id="lab-restart">Start over</button></div>
  <div id="lab-score" role="status" aria-live="polite">Score: 0 of 0</div>
</header>
<p id="lab-shared-error" class="lab-check bad" role="alert" hidden></p>
<section class="lab-story" aria-labelledby="lab-title"><h2 id="lab-title"></h2><p id="lab-documented" class="lab-documented" hidden></p><p id="lab-text"></p><p id="lab-config"></p></section>
<div class="lab-grid">
  <div class="lab-left">
    <section id="lab-result" class="card" hidden aria-live="polite">
      <h3 id="lab-result-head"></h3>
      <p class="lab-label" id="lab-reply-label">reply</p>
      <code id="lab-reply" class="lab-reply"></code>
      <p class="lab-label">your prediction <span id="lab-points" class="lab-points"></span></p>
      <ul id="lab-verdict"></ul>
      <div id="lab-why-box" hidden><p class="lab-label">why</p><ul id="lab-why"></ul></div>
      <p class="lab-label">transitions</p>
      <ul id="lab-moves"></ul>
      <p class="lab-label">the rules that decided it</p>
      <ul id="lab-rules"></ul>
      <p id="lab-result-note"></p>
      <p id="lab-check" class="lab-check" role="status"></p>
      <ul id="lab-mismatches"></ul>
    </section>
    <section id="lab-end" class="card" hidden aria-live="polite">
      <h3 id="lab-final"></h3>
      <p id="lab-final-check" class="lab-check"></p>
      <button type="button" id="lab-again" class="primary">Play this story again</button>
    </section>
    <form id="lab-predict" class="card" autocomplete="off">
      <h3 id="lab-step-head">Step</h3>
      <code id="lab-command"></code>
      <div class="lab-outcome" id="lab-outcome-row"><label for="lab-outcome">The store</label><select id="lab-outcome" name="outcome"><option value="">– choose</option><option value="accepted">accepts it</option><option value="refused">refuses it</option></select></div>
      <p class="lab-label">After this step…</p>
      <table class="lab-fields-table"><thead><tr><th scope="col">job</th><th scope="col">status</th><th scope="col">token</th></tr></thead><tbody id="lab-fields"></tbody></table>
      <div class="lab-balance"><label for="lab-balance">balance of <b id="lab-account"></b></label><input id="lab-balance" inputmode="numeric"></div>
      <button type="submit" id="lab-step" class="primary">Step</button>
      <p class="lab-hint">Tab moves between fields, Enter steps. The fields start at the store's values before the step: change what you expect to change.</p>
    </form>
  </div>
  <div class="lab-right">
    <figure class="lab-diagram card" aria-label="The job lifecycle: each job in its state, the transitions just taken lit">
      <ul class="lab-legend">
        <li><span class="swatch lit"></span>state of the focus job</li>
        <li><span class="swatch jobs"></span>a state other jobs are in (their ids inside)</li>
        <li><span class="swatch taken"></span>transition just taken</li>
        <li><span class="swatch right"></span>✓ right</li>
        <li><span class="swatch wrong"></span>✗ wrong</li>
      </ul>
      ${input.diagramSvg}
    </figure>
    <section class="card" aria-labelledby="lab-state-head">
      <h3 id="lab-state-head">The store now</h3>
      <table id="lab-state-table"><thead><tr><th scope="col">job</th><th scope="col">status</th><th scope="col">token</th><th scope="col">attempts</th><th scope="col">lease until</th><th scope="col">due at</th><th scope="col">deadline</th></tr></thead><tbody id="lab-state-body"></tbody></table>
      <p id="lab-clock"></p>
    </section>
    <section id="lab-edit" class="card" aria-labelledby="lab-edit-title">
      <h3 id="lab-edit-title">Edit the story</h3>
      <p class="lab-hint">Change a step's command, insert a step or delete one: the story starts over and the model plays it through the step you changed, at once. The contract's schema checks every edit.</p>
      <ol id="lab-edit-steps"></ol>
      <div id="lab-editor" hidden>
        <h4 id="lab-edit-head"></h4>
        <label for="lab-edit-type">command</label> <select id="lab-edit-type"><option value="submit">submit</option><option value="claim">claim</option><option value="commit">commit</option><option value="ack">ack</option><option value="fail">fail</option><option value="tick">tick</option></select>
        <div id="lab-edit-fields"></div>
        <button type="button" id="lab-edit-apply" class="primary">Apply</button> <button type="button" id="lab-edit-cancel">Cancel</button>
        <p id="lab-edit-error" class="lab-check bad" role="alert" hidden></p>
      </div>
    </section>
    <section class="card" aria-labelledby="lab-history-head">
      <h3 id="lab-history-head">Steps so far</h3>
      <ol id="lab-history"></ol>
    </section>
  </div>
</div>
<section id="lab-exercises" class="lab-wide" aria-labelledby="lab-exercises-head">
  <h2 id="lab-exercises-head">The four experiments</h2>
  <p class="lab-hint">Each asks for your predictions first; running it locks them, makes the change and shows what the model does, why, and the rule it follows, quoted from the contract. The changed story opens above, where you can step it or edit it further.</p>
  <div id="lab-exercises-list" class="lab-x-grid"></div>
</section>
<section id="lab-worksheet" class="card lab-wide" aria-labelledby="lab-worksheet-head">
  <h2 id="lab-worksheet-head">Your worksheet</h2>
  <p class="lab-hint">Everything you predict and the model answers here is kept: save it as a file, load it again later, or export the one-page report to hand in.</p>
  <div class="lab-ws-row"><label for="lab-learner">Your name</label><input id="lab-learner" maxlength="200" autocomplete="off"></div>
  <label for="lab-answer">Which component recognises a repeat, and what evidence does it store? In your own words:</label>
  <textarea id="lab-answer" rows="3" maxlength="20000"></textarea>
  <p id="lab-ws-summary"></p>
  <div class="lab-ws-row"><button type="button" id="lab-save">Save the worksheet</button><label for="lab-load">Load a worksheet</label><input type="file" id="lab-load" accept=".json,application/json"><button type="button" id="lab-export">Export the report</button></div>
  <p id="lab-ws-status" role="status"></p>
</section>
</main>`;
  return { id: 'lab', title: 'The lab', html, css: CSS, script: LAB_SCRIPT };
}
