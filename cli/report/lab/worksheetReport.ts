/**
 * The worksheet as a one-page report a learner hands in: one self-contained HTML file, printable
 * (a print style, no script), holding the answer in their own words to which component recognises
 * a repeat and what evidence it stores, each exercise's predictions beside the model's answers
 * with the rules quoted from the contract, the changed-key experiment's trace, the timeline of
 * effect before acknowledgement with the interruption between them, and every play's predictions
 * beside the model's replies. Every text of the worksheet is escaped (it is outside data). Pure.
 */
import { htmlText } from '../../../conformance/outside/outsideText.ts';
import { RULES } from '../../../contract/rules.ts';
import { LAB_EXERCISES, answersOf } from './labExercises.ts';
import { timelineOf } from './labTimeline.ts';
import type { Worksheet, WorksheetStep } from './worksheet.ts';

const h = htmlText;

const CSS = `body { font:13px/1.4 system-ui, sans-serif; color:#1d2330; max-width:1000px; margin:16px auto; padding:0 16px; }
h1 { font-size:20px; margin:0 0 4px; } h2 { font-size:16px; margin:16px 0 6px; border-bottom:1px solid #d5dae1; } h3 { font-size:14px; margin:10px 0 4px; }
table { border-collapse:collapse; width:100%; margin:4px 0 8px; } th, td { border:1px solid #d5dae1; padding:2px 5px; text-align:left; vertical-align:top; }
code, .mono { font-family:ui-monospace, "DejaVu Sans Mono", monospace; font-size:12px; overflow-wrap:anywhere; }
.right { color:#1a7f37; } .wrong { color:#c62828; font-weight:600; } blockquote { margin:4px 0; padding:2px 8px; border-left:3px solid #1f6fd1; background:#f4f6f8; }
.answer { white-space:pre-wrap; border:1px solid #d5dae1; padding:6px 8px; border-radius:4px; min-height:2em; }
ol.timeline { list-style:none; padding:0; display:flex; flex-wrap:wrap; gap:4px 0; align-items:center; }
ol.timeline li { border:2px solid #5b6472; border-radius:6px; padding:3px 6px; margin-right:18px; position:relative; max-width:220px; }
ol.timeline li::after { content:"→"; position:absolute; right:-16px; top:30%; } ol.timeline li:last-child::after { content:""; }
ol.timeline li.effect { border-color:#1a7f37; background:#e6f4ea; } ol.timeline li.ack { border-color:#1f6fd1; background:#e3eefc; }
ol.timeline li.interruption { border:2px dashed #c62828; background:#fdecea; } ol.timeline li.refused, ol.timeline li.expiry { border-color:#8a5a00; background:#fff4d6; }
@media print { body { margin:0; max-width:none; font-size:11px; } h2 { break-after:avoid; } table, ol.timeline { break-inside:avoid; } }`;

const replyText = (s: WorksheetStep): string => (s.reply !== undefined ? JSON.stringify(s.reply) : (s.outcome ?? ''));

const predictionText = (s: WorksheetStep): string => {
  const p = s.prediction;
  if (p === undefined) return '–';
  const jobs = Object.entries(p.jobs)
    .map(([id, j]) => `${id} ${j.status ?? '–'} token ${j.token ?? '–'}`)
    .join('; ');
  return `${p.outcome ? `${p.outcome}; ` : ''}${jobs}${jobs ? '; ' : ''}balance ${p.balance || '–'}`;
};

const traceTable = (trace: readonly WorksheetStep[], withPredictions: boolean): string =>
  `<table><thead><tr><th>step</th><th>command</th>${withPredictions ? '<th>your prediction</th><th>points</th>' : ''}<th>the model's reply</th></tr></thead><tbody>${trace
    .map(
      (s) =>
        `<tr><td>${s.step}</td><td><code>${h(s.command)}</code></td>${withPredictions ? `<td>${h(predictionText(s))}</td><td>${s.of === 0 ? '–' : `${s.points}/${s.of}`}</td>` : ''}<td><code>${h(replyText(s))}</code></td></tr>`,
    )
    .join('')}</tbody></table>`;

const timelineHtml = (trace: readonly WorksheetStep[], job: string): string => {
  const { entries } = timelineOf(trace, job);
  return `<ol class="timeline" aria-label="job ${h(job)}: effect and acknowledgement as separate steps">${entries
    .map((e) => `<li class="${e.kind}"><b>${e.kind === 'interruption' ? '⚡' : `step ${e.step}`}</b> ${h(e.text)}</li>`)
    .join('')}</ol>`;
};

const quote = (ids: readonly string[]): string =>
  RULES.filter((r) => ids.includes(r.id))
    .map((r) => `<blockquote><code>[${r.id}]</code> ${h(r.sentence.replace(/\*\*/g, ''))}</blockquote>`)
    .join('');

function exercisesHtml(sheet: Worksheet): string {
  return LAB_EXERCISES.map((x) => {
    const done = sheet.exercises[x.id];
    const run = done?.run;
    const rows = x.questions
      .map((q) => {
        const label = (v: string | undefined): string =>
          v === undefined || v === '' ? '–' : (answersOf(q.kind, 99).find(([value]) => value === v)?.[1] ?? v);
        const said = done?.answers[q.id];
        const right = run?.right[q.id];
        const cls = run === undefined ? '' : said === right ? 'right' : 'wrong';
        return `<tr><td>${h(q.text)}</td><td class="${cls}">${h(label(said))}</td><td>${h(run === undefined ? 'not run yet' : label(right))}</td></tr>`;
      })
      .join('');
    return `<section><h3>${h(x.title)}</h3><p>${h(x.task)}</p>
<table><thead><tr><th>question</th><th>your prediction</th><th>the model</th></tr></thead><tbody>${rows}</tbody></table>
<p><b>${h(x.explain)}</b></p><div class="answer">${h(done?.reasoning ?? '')}</div>
${run === undefined ? '' : `${x.id === 'changed-key' ? `<h3>The changed-key experiment: the story after the change</h3>${traceTable(run.after, false)}` : ''}${x.id === 'interruption' ? `<h3>Effect before acknowledgement</h3>${timelineHtml(run.after, run.job)}` : ''}`}
${quote(x.rules)}</section>`;
  }).join('\n');
}

/** The worksheet as a printable HTML page. Pure. */
export function worksheetReport(sheet: Worksheet): string {
  const plays = sheet.plays
    .filter((p) => p.trace.length > 0)
    .map(
      (p) =>
        `<h3>${h(p.story)}${p.edited ? ' (edited)' : ''}: ${h(p.title)}</h3>${traceTable(p.trace, true)}${timelineHtml(p.trace, p.focus.job)}`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>jobcheck lab worksheet${sheet.learner ? `: ${h(sheet.learner)}` : ''}</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<style>${CSS}</style></head><body>
<h1>jobcheck lab worksheet${sheet.learner ? `: ${h(sheet.learner)}` : ''}</h1>
<p>Score: ${sheet.score.points} of ${sheet.score.asked} predictions right. The model is the contract's reference model; it proves nothing about a real queue or a remote effect.</p>
<h2>Which component recognises a repeat, and what evidence it stores</h2>
<div class="answer" id="ws-answer">${h(sheet.answer)}</div>
<h2>The experiments</h2>
${exercisesHtml(sheet)}
<h2>Predictions beside the traces</h2>
${plays || '<p>No story played yet.</p>'}
</body></html>
`;
}
