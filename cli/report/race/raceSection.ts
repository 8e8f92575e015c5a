/**
 * Competing workers no order of the model explains, as a section of the report page: first what
 * happened in one sentence in the store's words (raceSentence.ts), how many requests on how many
 * lanes (the same count as the page's headline: the requests of the rounds, the final snapshot
 * named apart) and what they were shrunk from, what the campaign tried before (its histories and
 * overlapping pairs by kind), and the requests no order could place with the
 * reply observed beside the model's; then the lanes side by side across the page's width on the history's time axis, each request a bar labelled
 * with its id, its command and its reply; the longest linearizable prefix the checker found in
 * green, the requests it was stuck on in red with a ✕, requests with no reply striped; a legend
 * for each. Hovering, clicking or moving with the keyboard to a request shows its details: the
 * reply observed beside the model's in the closest order, and the model's state before and after
 * it there (jobs, tokens, balances), the changes marked. Under the chart, every request in a list
 * linked by id, and links to the history in Porcupine's and Jepsen's formats, which the report
 * writer puts beside the page (conformance/concurrent/export.ts).
 *
 * Why HTML bars rather than one SVG: the chart takes the width of the page at any size with
 * percentages, its text is the page's text (selectable, zoomable, never scaled down), and every
 * request is a button, so the keyboard reaches it without extra work.
 */
import type { RaceFailure } from '../../../conformance/check/failure.ts';
import { htmlText, scriptJson } from '../../../conformance/outside/outsideText.ts';
import { describeConfig } from '../../../conformance/lockstep/story.ts';
import { shortReply } from '../../../conformance/concurrent/story.ts';
import type { PageSection } from '../section.ts';
import { OVERLAP_KINDS, OVERLAP_KIND_TEXT } from '../../../conformance/concurrent/overlap.ts';
import { PLACE_BADGE, detailHtml } from './raceDetails.ts';
import { raceScript } from './raceScript.ts';
import { raceSentence } from './raceSentence.ts';
import { raceStyles } from './raceStyles.ts';
import { raceView } from './raceView.ts';
import type { RaceRequest, RaceView } from './raceView.ts';

/** The section's id in the page. */
export const RACE_ID = 'race';

/** The files the report writer puts beside the page, as the section links them. */
export const RACE_EXPORTS = { porcupine: 'history.porcupine.json', jepsen: 'history.jepsen.edn' } as const;

const pct = (x: number): string => `${(x * 100).toFixed(3)}%`;

/** The mark a place adds before a label (so that it reads without colour). */
const MARK: Record<RaceRequest['place'], string> = { prefix: '✓', stuck: '✕', after: '', left_out: '?', unchecked: '' };

function barHtml(r: RaceRequest): string {
  const noReply = r.op.returned === undefined;
  const mark = `${MARK[r.place]}${noReply && r.place !== 'left_out' ? '?' : ''}`;
  const position = r.ordered?.position;
  const aria = `${r.label}; ${PLACE_BADGE[r.place]}${r.place === 'prefix' && position !== undefined ? ` (step ${position})` : ''}`;
  return `<button type="button" class="rreq ${r.place}${noReply ? ' noreply' : ''}" id="race-req-${r.id}" data-id="${r.id}" data-lane="${r.lane}" style="left:calc(${pct(r.from)} + 1px);width:calc(${pct(r.to - r.from)} - 2px)" aria-pressed="false" aria-label="${htmlText(aria)}"><span class="rbarid" aria-hidden="true">#${r.id}</span><span class="rlabel">${
    mark === '' ? '' : `<span class="rmark" aria-hidden="true">${mark}</span> `
  }${htmlText(r.label)}</span></button>`;
}

/** The windows of the faults that hit `lane`, behind its bars, each named in its own words. */
function faultsHtml(view: RaceView, lane: number): string {
  return view.faults
    .filter((f) => f.lanes.includes(lane))
    .map(
      (f) =>
        `<span class="rfault" style="left:${pct(f.from)};width:${pct(f.to - f.from)}" title="${htmlText(`${f.label}: ${f.detail}`)}"><span class="rfaultlabel">${htmlText(f.label)}</span></span>`,
    )
    .join('');
}

function chartHtml(view: RaceView): string {
  const roundLines = view.rounds
    .map((m) => `<span class="rroundline" style="left:${pct(m.at)}" aria-hidden="true"></span>`)
    .join('');
  const axis = `<div class="rrow raxis" aria-hidden="true"><div class="rname">t<small>event order</small></div><div class="rtrack">${view.ticks
    .map(
      (t) => `<span class="rtick" data-at="${(t.at * 100).toFixed(3)}" style="left:${pct(t.at)}">t=${t.instant}</span>`,
    )
    .join('')}${view.rounds
    .map(
      (m) =>
        `<span class="rroundlabel" data-at="${(m.at * 100).toFixed(3)}" style="left:${pct(m.at)}">round ${m.round} · now ${m.now}</span>`,
    )
    .join('')}</div></div>`;
  const lanes = view.lanes
    .map(
      (lane) =>
        `<div class="rrow rlane" data-lane="${lane}" role="group" aria-label="lane ${lane}"><div class="rname">lane ${lane}</div><div class="rtrack">${roundLines}${faultsHtml(view, lane)}${view.requests
          .filter((r) => r.lane === lane)
          .map(barHtml)
          .join('')}</div></div>`,
    )
    .join('\n');
  return `<div class="rchart" role="group" aria-label="The requests of ${view.lanes.length} lanes over time">
${axis}
${lanes}
</div>`;
}

function legendHtml(view: RaceView): string {
  const items: string[] = [];
  const has = (place: RaceRequest['place']): boolean => view.requests.some((r) => r.place === place);
  const swatch = (place: string, mark: string): string =>
    `<span class="rswatch rreq ${place}" aria-hidden="true">${mark}</span>`;
  if (view.replay !== null) {
    items.push(
      `<li data-legend="prefix">${swatch('prefix', '✓')} <span>the longest linearizable prefix: an order the model accepts, as far as any order got</span></li>`,
    );
    items.push(
      `<li data-legend="stuck">${swatch('stuck', '✕')} <span>stuck: could come next after that prefix, but the model replies otherwise</span></li>`,
    );
    items.push(
      `<li data-legend="after">${swatch('after', '')} <span>after the prefix: never reached by an order the model accepts</span></li>`,
    );
  }
  if (view.requests.some((r) => r.op.returned === undefined))
    items.push(
      `<li data-legend="noreply">${swatch('noreply', '?')} <span>no reply (dashed, ?): it may have taken effect any time after it was sent, or never${
        has('left_out') ? '; striped when no order needs it, so the closest order leaves it out' : ''
      }</span></li>`,
    );
  items.push(
    '<li data-legend="selected"><span class="rswatch" style="border-color:#0969da;box-shadow:0 0 0 2px #fff,0 0 0 4px #0969da" aria-hidden="true"></span> <span>the request whose details are shown</span></li>',
  );
  items.push(
    '<li data-legend="axis"><span class="rswatch" style="border:0;border-left:2px dotted #8c959f;border-radius:0" aria-hidden="true"></span> <span>t: the order of events (a request sent, a reply read), not wall time; a dotted line starts a round, whose requests carry the job clock <code>now</code></span></li>',
  );
  return `<ul class="rlegend" aria-label="Legend">${items.join('')}</ul>`;
}

function listHtml(view: RaceView): string {
  const rows = view.requests.map((r) => {
    const o = r.ordered;
    const differs = o?.agrees === false;
    const model = o === null || o.position === null ? '—' : shortModel(r);
    return `<tr data-id="${r.id}"><td><a href="#race-req-${r.id}" data-select="${r.id}">#${r.id}</a></td><td>${r.lane}</td><td>${r.op.invoked}→${
      r.op.returned ?? '?'
    }</td><td>${htmlText(r.command)}</td><td${differs ? ' class="rdiffers"' : ''}>${htmlText(r.reply)}</td><td${
      differs ? ' class="rdiffers"' : ''
    }>${htmlText(model)}</td><td>${htmlText(PLACE_BADGE[r.place])}</td></tr>`;
  });
  return `<h3 class="rlisthead" id="race-list">Every request, in the order sent</h3>
<table class="rlist"><colgroup><col class="c-id"><col class="c-lane"><col class="c-t"><col><col><col><col class="c-place"></colgroup>
<thead><tr><th scope="col">id</th><th scope="col">lane</th><th scope="col">t</th><th scope="col">request</th><th scope="col">observed reply</th><th scope="col">model, closest order</th><th scope="col">where</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>`;
}

/** The model's reply in the closest order, in one line as the bars tell replies. */
function shortModel(r: RaceRequest): string {
  if (r.ordered === null) return '—';
  const text = shortReply(r.ordered.modelReply);
  // Two replies told alike that still differ (two snapshots): say where.
  return text === r.reply && r.ordered.difference !== null ? `${text} (${r.ordered.difference})` : text;
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/**
 * How many requests, on how many lanes, in how many rounds: the requests are the failure's own
 * count (the rounds', as the page's headline says), the final snapshot named apart; and what the
 * campaign shrank them from.
 */
function summaryHtml(view: RaceView): string {
  const failure = view.failure;
  const race = failure.race;
  const requests = plural(failure.steps, 'request');
  const lanes = plural(race.scenario.workers, 'worker lane');
  const first = failure.concurrent.firstFailureRequests;
  const shrunk = first !== null && first > failure.steps ? ` (shrunk from ${plural(first, 'request')})` : '';
  const config = `<code>${htmlText(describeConfig(race.scenario.config))}</code>`;
  if (race.kind === 'impl_error')
    return `<p class="rsummary">The implementation failed while ${lanes} sent ${requests}${shrunk}: ${htmlText(race.error)}. Config: ${config}.</p>`;
  const prefix = view.replay?.prefixLength ?? 0;
  const stuck = view.requests.filter((r) => r.place === 'stuck').map((r) => `#${r.id}`);
  const rounds = race.run.rounds.length;
  const snapshot = race.run.history.operations.some((o) => o.id === race.run.snapshotId);
  const total = failure.steps + (snapshot ? 1 : 0);
  return `<p class="rsummary">${lanes} sent ${requests}${shrunk} in ${plural(rounds, 'round')}, each round's requests at once${
    snapshot ? `, then jobcheck read the store's snapshot (#${race.run.snapshotId})` : ''
  } (config ${config}). The checker found an order the model accepts for ${prefix} of these ${total}${
    snapshot ? ' (the snapshot among them)' : ''
  }; after those, ${
    stuck.length === 1 ? `${stuck[0]} could come next` : `${stuck.join(', ')} could each come next`
  }, but the model replies otherwise there. Select a request to see the model's state before and after it.</p>`;
}

/**
 * What the campaign tried up to this failure: its scenarios and histories, and the overlapping
 * pairs of each kind (conformance/concurrent/overlap.ts), a kind at 0 named too; and the run's
 * send-time perturbation, when it had one.
 */
function triedHtml(view: RaceView): string {
  const c = view.failure.concurrent;
  const o = c.overlap;
  const kinds = OVERLAP_KINDS.map((k) => `${OVERLAP_KIND_TEXT[k]}: ${o.kinds?.[k] ?? 0}`).join('; ');
  const perturbation = view.failure.race.run?.perturbation;
  const sent =
    perturbation === undefined
      ? 'This run was the scenario as generated.'
      : `This run was the scenario rerun with send-time perturbation ${perturbation} (each request written after a delay it chooses).`;
  return `<p class="rtried">Up to this failure the campaign ran ${plural(c.runs, 'scenario')} (${plural(c.histories ?? c.runs, 'history', 'histories')} checked, send-time perturbations included), with ${plural(o.pairs, 'overlapping pair')} of requests; by kind: ${htmlText(kinds)}. ${sent}</p>`;
}

/** The requests no order could place, each reply observed beside the model's right after the longest order found: the race's diff. */
function stuckHtml(view: RaceView): string {
  const witness = view.failure.race.witness;
  if (witness === null || witness.stuck.length === 0) return '';
  const rows = witness.stuck.map((s) => {
    const r = view.requests.find((x) => x.id === s.id);
    const what = r === undefined ? '' : ` ${htmlText(r.command)} <span class="rwhere">(lane ${r.lane})</span>`;
    const observed = s.observed === undefined ? 'no reply' : shortReply(s.observed);
    return `<tr data-stuck="${s.id}"><td><a href="#race-req-${s.id}" data-select="${s.id}">#${s.id}</a>${what}</td><td class="rdiffers">${htmlText(observed)}</td><td class="rmodel">${htmlText(shortReply(s.expected))}</td></tr>`;
  });
  return `<table class="rstuck" aria-label="the requests no order could place next"><colgroup><col class="c-req"><col><col></colgroup>
<thead><tr><th scope="col">could come next after the ${plural(witness.longestOrder.length, 'request')} placed</th><th scope="col">observed reply</th><th scope="col">the model's reply there</th></tr></thead>
<tbody>${rows.join('')}</tbody></table>`;
}

function exportsHtml(): string {
  return `<p class="rexports">The same history for other checkers: <a href="${RACE_EXPORTS.porcupine}" download>${RACE_EXPORTS.porcupine}</a> (Porcupine's operations) and <a href="${RACE_EXPORTS.jepsen}" download>${RACE_EXPORTS.jepsen}</a> (a Jepsen history, one operation a line). To open them, decode the JSON into <code>[]porcupine.Operation</code> and pass it to <code>porcupine.CheckOperationsVerbose</code> and <code>porcupine.Visualize</code> with a model of the job store, or read the EDN with <code>clojure.edn</code> into Knossos or Elle; times are event numbers, and a request with no reply is an <code>:info</code> (a <code>null</code> Output returning at the end for Porcupine).</p>`;
}

/**
 * The race section of a failure's page: the interactive history of competing workers (see the
 * file's header). Pure: it replays the closest order on the model and writes text.
 */
export function raceSection(failure: RaceFailure): PageSection {
  const view = raceView(failure);
  const title =
    failure.race.kind === 'impl_error'
      ? 'Competing workers: the implementation failed'
      : 'Competing workers: no order explains the replies';
  const details = view.requests.map((r) => detailHtml(r, view, r.id === view.initial)).join('\n');
  const data = scriptJson({ initial: view.initial, ids: view.requests.map((r) => r.id) });
  const html = `<section id="${RACE_ID}" aria-labelledby="race-title">
<h2 id="race-title">${htmlText(title)}</h2>
<p class="rwhat">${htmlText(raceSentence(failure))}</p>
${summaryHtml(view)}
${triedHtml(view)}
${stuckHtml(view)}
${legendHtml(view)}
${chartHtml(view)}
<p class="rhelp">Hover a request, or select it with a click, <kbd>Tab</kbd> or the arrow keys (<kbd>←</kbd> <kbd>→</kbd> the request sent before or after, <kbd>Home</kbd> <kbd>End</kbd>); its details stay until another is selected.</p>
<div class="rpanel" aria-live="polite" data-shown="${view.initial ?? ''}" data-place="${view.requests.find((r) => r.id === view.initial)?.place ?? ''}">
${details}
</div>
${listHtml(view)}
${exportsHtml()}
<script type="application/json" class="rdata">${data}</script>
</section>`;
  return { id: RACE_ID, title, html, css: raceStyles(RACE_ID), script: raceScript(RACE_ID) };
}
