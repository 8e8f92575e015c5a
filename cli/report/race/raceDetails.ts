/**
 * The details panel of one request of a race, as HTML: the request, the reply observed beside the
 * model's in the closest order (and, for a stuck request, right after the longest prefix), what
 * its place means, and the model's state before and after it, the changed values marked.
 *
 * Every panel is written into the page, hidden but one; the section's script shows the one of the
 * request hovered or selected, so that what a person reads is the same text this module wrote
 * (and the pure tests read).
 */
import type { ModelStateView } from '../../../conformance/concurrent/closestOrder.ts';
import { htmlBlock, htmlText, jsonText } from '../../../conformance/outside/outsideText.ts';
import { shortReply } from '../../../conformance/concurrent/story.ts';
import type { RaceRequest, RaceView } from './raceView.ts';

/** The job fields a state table can show, in order, with their column headings. */
const JOB_COLUMNS = [
  ['status', 'status'],
  ['attempts', 'attempts'],
  ['token', 'token'],
  ['owner', 'owner'],
  ['leaseUntil', 'lease until'],
  ['notBefore', 'not before'],
  ['reason', 'reason'],
  ['lastError', 'last error'],
] as const;

const show = (v: unknown): string => (v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** A value, marked when it differs from what it was. */
const cell = (value: unknown, was: unknown, compare: boolean): string => {
  const text = htmlText(show(value));
  return compare && show(value) !== show(was) ? `<mark>${text === '' ? '—' : text}</mark>` : text;
};

/**
 * The model's state as HTML: the clock and counters, a table of the jobs (only the columns some
 * job has), the balances and the effect ledger. With `was`, every value that differs from it is
 * marked. Pure.
 */
export function stateHtml(
  state: ModelStateView,
  was: ModelStateView | null,
  columnsOf: readonly ModelStateView[],
): string {
  const compare = was !== null;
  const counters = [
    ['clock', state.clock, was?.clock],
    ['next token', state.nextToken, was?.nextToken],
    ['next seq', state.nextSeq, was?.nextSeq],
  ]
    .map(([name, v, w]) => `${name} <b>${cell(v, w, compare)}</b>`)
    .join(' · ');
  const jobIds = Object.keys(state.jobs);
  const records = columnsOf.flatMap((s) => Object.values(s.jobs) as unknown as Record<string, unknown>[]);
  const columns = JOB_COLUMNS.filter(([key]) => records.some((r) => r[key] !== undefined));
  const jobs =
    jobIds.length === 0
      ? '<p class="rnone">no jobs</p>'
      : `<table class="rjobs"><thead><tr><th scope="col">job</th>${columns.map(([, h]) => `<th scope="col">${h}</th>`).join('')}</tr></thead><tbody>${jobIds
          .map((id) => {
            const job = state.jobs[id] as unknown as Record<string, unknown>;
            const before = was?.jobs[id] as unknown as Record<string, unknown> | undefined;
            const isNew = compare && before === undefined;
            return `<tr${isNew ? ' class="rnew"' : ''}><th scope="row">${isNew ? `<mark>${htmlText(id)}</mark>` : htmlText(id)}</th>${columns
              .map(([key]) => `<td>${cell(job[key], before?.[key], compare && !isNew)}</td>`)
              .join('')}</tr>`;
          })
          .join('')}</tbody></table>`;
  const balances = Object.entries(state.balances);
  const balanceText =
    balances.length === 0
      ? 'none yet'
      : balances.map(([a, n]) => `${htmlText(a)} = ${cell(n, was?.balances[a], compare)}`).join(' · ');
  const effects = Object.entries(state.effects).flatMap(([account, ledger]) =>
    Object.entries(ledger).map(([key, e]) => {
      const text = `${account}/${key} = ${e.amount} (job ${e.job}, token ${e.token})`;
      return compare && was?.effects[account]?.[key] === undefined ? `<mark>${htmlText(text)}</mark>` : htmlText(text);
    }),
  );
  return `<p class="rcounters">${counters}</p>${jobs}<p class="rmoney">balances: ${balanceText}</p><p class="rmoney">effects applied: ${
    effects.length === 0 ? 'none yet' : effects.join(' · ')
  }</p>`;
}

/** The badge of a place, with its mark (the mark says it without colour). */
export const PLACE_BADGE: Record<RaceRequest['place'], string> = {
  prefix: '✓ in the longest linearizable prefix',
  stuck: '✕ stuck: no order could place it next',
  after: '· after the prefix',
  left_out: '? no reply: left out',
  unchecked: 'not checked',
};

/** What its place means, in a sentence. */
function placeSentence(r: RaceRequest, view: RaceView): string {
  const o = r.ordered;
  const prefix = view.replay?.prefixLength ?? 0;
  switch (r.place) {
    case 'prefix':
      return `The checker placed it at step ${o?.position} of the longest order it found that the model accepts (${prefix} requests): here the model gives the reply observed.`;
    case 'stuck':
      return `After the ${prefix} requests of the longest order found, it could come next in real time, but the model gives another reply there, and no other order got further: this is where the history stops being explainable.`;
    case 'after':
      return `No order the checker tried reached it. The closest order (the longest prefix, then the rest as sent) replays it at step ${o?.position}, from the model's own state: ${
        o?.agrees === true ? 'there the model gives the same reply.' : 'there the model replies otherwise.'
      }`;
    case 'left_out':
      return 'No reply came: it may have taken effect at any point after it was sent, or never, so the closest order leaves it out and it has no model state.';
    case 'unchecked':
      return view.failure.race.kind === 'impl_error'
        ? `The checker did not run: the implementation failed (${view.failure.race.error}).`
        : 'The checker did not decide this run.';
  }
}

/** A JSON value as lines of escaped HTML text. */
const jsonBlock = (value: unknown): string => (value === undefined ? 'undefined' : htmlBlock(jsonText(value, 2)));

/** The details panel of one request, hidden unless `shown`. Pure. */
export function detailHtml(r: RaceRequest, view: RaceView, shown: boolean): string {
  const o = r.ordered;
  const op = r.op;
  const round = view.failure.race.run?.rounds.find((x) => x.index === r.round);
  const when = [
    `lane ${r.lane}`,
    ...(round === undefined ? [] : [`round ${round.index} (now ${round.now})`]),
    `sent at t=${op.invoked}`,
    op.returned === undefined ? 'no reply' : `reply read at t=${op.returned}`,
  ].join(' · ');
  const differs = o?.agrees === false;
  const replies = [
    `<dt>Observed reply</dt><dd class="robserved${differs ? ' rdiffers' : ''}">${htmlText(r.reply)}</dd>`,
    ...(o === null
      ? []
      : [
          `<dt>The model's reply in the closest order (step ${o.position} of ${view.replay?.order.length})</dt><dd class="rmodel${differs ? ' rdiffers' : ''}">${htmlText(
            r.op.returned === undefined && o.modelReply === null ? '—' : shortReply(o.modelReply),
          )}</dd>`,
        ]),
    ...(o?.difference === null || o?.difference === undefined
      ? []
      : [`<dt>First difference</dt><dd class="rdiffers rdifference">${htmlText(o.difference)}</dd>`]),
    // The witness's reply right after the prefix, when the closest order placed the request elsewhere.
    ...(o?.stuckReply === undefined || JSON.stringify(o.stuckReply) === JSON.stringify(o.modelReply)
      ? []
      : [
          `<dt>The model's reply right after the prefix</dt><dd class="rmodel rdiffers">${htmlText(shortReply(o.stuckReply))}</dd>`,
        ]),
  ].join('');
  const states =
    o === null || o.before === null || o.after === null
      ? ''
      : `<div class="rstates"><section aria-label="the model's state before #${r.id}"><h4>Model state before #${r.id}</h4>${stateHtml(o.before, null, [o.before, o.after])}</section><section aria-label="the model's state after #${r.id}"><h4>After #${r.id} <span class="rhint">(${JSON.stringify(o.before) === JSON.stringify(o.after) ? 'unchanged' : 'changes marked'})</span></h4>${stateHtml(o.after, o.before, [o.before, o.after])}</section></div>`;
  return `<article class="rdetail" id="race-detail-${r.id}" data-id="${r.id}" data-place="${r.place}"${shown ? '' : ' hidden'}>
<h3><span class="rid">#${r.id}</span> ${htmlText(r.command)} <span class="rbadge ${r.place}">${PLACE_BADGE[r.place]}</span></h3>
<p class="rwhen">${when}</p>
<dl class="rreplies">${replies}</dl>
<p class="rplace">${htmlText(placeSentence(r, view))}</p>
${states}
<details class="rjson"><summary>The request and the replies as JSON</summary><div class="rjsons"><div><h4>Request</h4><pre>${jsonBlock(op.input)}</pre></div><div><h4>Observed</h4><pre>${op.returned === undefined ? 'no reply' : jsonBlock(op.output)}</pre></div>${
    o === null ? '' : `<div><h4>Model</h4><pre>${jsonBlock(o.modelReply)}</pre></div>`
  }</div></details>
</article>`;
}
