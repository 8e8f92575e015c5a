/**
 * Coverage reports for people: a Markdown summary and a self-contained HTML page whose centre is
 * the lifecycle diagram, laid out by @dagrejs/dagre from the machine's declared transitions
 * (model/lifecycle.ts) and drawn as inline SVG with every state and transition coloured by its
 * hit count. Nothing in the diagram is drawn by hand. The format is described in docs/coverage-format.md.
 */
import dagre from '@dagrejs/dagre';
import { JOB_STATES, lifecycleTransitions } from '../model/index.ts';
import type { LifecycleTransition } from '../model/index.ts';
import { COVERAGE_CATEGORIES, categorySummary, neverHit, shortName } from './coverage.ts';
import type { Coverage, CoverageCategory } from './coverage.ts';

const TITLES: Record<CoverageCategory, string> = {
  states: 'Lifecycle states entered',
  transitions: 'Transitions (source, event, guard outcome, target)',
  pairs: 'Consecutive transition pairs of one job',
  rejections: 'Rejection codes',
  paths: 'Path classes (job transition sequences, first 4)',
};
const pct = (hit: number, total: number): string => (total === 0 ? '-' : `${Math.round((100 * hit) / total)}%`);
const LIST_LIMIT = 25;

/** The Markdown summary of a coverage value: totals per category, transition counts, items never hit. Pure. */
export function coverageMarkdown(cov: Coverage, title = 'Conformance coverage'): string {
  const out: string[] = [`# ${title}`, ''];
  out.push(`Runs: ${cov.runs}, steps: ${cov.steps}. Sources: ${cov.sources.length === 0 ? '-' : cov.sources.join('; ')}.`, '');
  out.push('| Category | Hit | Total | Coverage |', '|---|---:|---:|---:|');
  for (const c of COVERAGE_CATEGORIES) {
    const { hit, total } = categorySummary(cov, c);
    out.push(`| ${TITLES[c]} | ${hit} | ${total} | ${pct(hit, total)} |`);
  }
  out.push('', '## Transitions', '', '| Transition | Hits |', '|---|---:|');
  for (const t of lifecycleTransitions()) out.push(`| \`${t.id}\` | ${cov.items.transitions[t.id] ?? 0} |`);
  out.push('', '## States and rejection codes', '', '| Item | Hits |', '|---|---:|');
  for (const s of JOB_STATES) out.push(`| state \`${s}\` | ${cov.items.states[s] ?? 0} |`);
  for (const [code, n] of Object.entries(cov.items.rejections)) out.push(`| rejection \`${code}\` | ${n} |`);
  out.push('', '## Never hit', '');
  for (const c of COVERAGE_CATEGORIES) {
    const missing = neverHit(cov, c);
    if (missing.length === 0) {
      out.push(`- ${TITLES[c]}: none`);
      continue;
    }
    const shown = missing.slice(0, LIST_LIMIT).map((m) => `\`${m}\``).join(', ');
    out.push(`- ${TITLES[c]} (${missing.length}): ${shown}${missing.length > LIST_LIMIT ? `, ... and ${missing.length - LIST_LIMIT} more` : ''}`);
  }
  return `${out.join('\n')}\n`;
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Colour of a hit count: red for never hit, then pale to deep green on a log scale up to `max`. Pure. */
export function heatColour(count: number, max: number): string {
  if (count <= 0) return '#d73027';
  const f = max <= 1 ? 1 : Math.log(count + 1) / Math.log(max + 1);
  const mix = (a: number, b: number): number => Math.round(a + (b - a) * f);
  return `rgb(${mix(199, 26)},${mix(233, 152)},${mix(192, 80)})`;
}

function edgeLabel(t: LifecycleTransition, n: number): string {
  return `${t.event}${t.guard === null ? '' : ` [${t.guard}]`} \u00d7${n}`;
}

/** The lifecycle diagram as an SVG element, laid out by dagre and coloured by hit counts. Pure. */
export function lifecycleSvg(cov: Coverage): string {
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: 'LR', nodesep: 40, ranksep: 120, edgesep: 20, marginx: 20, marginy: 20 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const s of JOB_STATES) g.setNode(s, { width: 110, height: 48 });
  const ts = lifecycleTransitions();
  for (const t of ts) {
    const label = edgeLabel(t, cov.items.transitions[t.id] ?? 0);
    g.setEdge({ v: t.from, w: t.to, name: t.id }, { width: label.length * 6.2, height: 14, labelpos: 'c' });
  }
  dagre.layout(g);
  const maxT = Math.max(1, ...ts.map((t) => cov.items.transitions[t.id] ?? 0));
  const maxS = Math.max(1, ...JOB_STATES.map((s) => cov.items.states[s] ?? 0));
  const graph = g.graph();
  const width = Math.ceil(Number(graph.width ?? 800));
  const height = Math.ceil(Number(graph.height ?? 400));
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="11">`);
  parts.push('<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#444"/></marker></defs>');
  // Labels go on top of every edge, so no later edge is drawn across an earlier label.
  const labels: string[] = [];
  for (const t of ts) {
    const e = g.edge({ v: t.from, w: t.to, name: t.id });
    const n = cov.items.transitions[t.id] ?? 0;
    const pts: { x: number; y: number }[] = e.points ?? [];
    const d = pts.map((p, i) => `${i === 0 ? 'M' : 'L'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ');
    const colour = heatColour(n, maxT);
    parts.push(`<g class="edge"><title>${esc(t.id)}: ${n} hits</title><path d="${d}" fill="none" stroke="${colour}" stroke-width="${n === 0 ? 2 : 2 + 3 * (Math.log(n + 1) / Math.log(maxT + 1))}" marker-end="url(#arrow)"${n === 0 ? ' stroke-dasharray="6 4"' : ''}/>`);
    if (e.x !== undefined && e.y !== undefined) {
      labels.push(`<text x="${e.x.toFixed(1)}" y="${(e.y + 4).toFixed(1)}" text-anchor="middle" fill="${n === 0 ? '#b2182b' : '#222'}" paint-order="stroke" stroke="#fff" stroke-width="7" stroke-linejoin="round"><title>${esc(t.id)}: ${n} hits</title>${esc(edgeLabel(t, n))}</text>`);
    }
    parts.push('</g>');
  }
  parts.push(...labels);
  for (const s of JOB_STATES) {
    const node = g.node(s);
    const n = cov.items.states[s] ?? 0;
    const x = (node.x ?? 0) - node.width / 2;
    const y = (node.y ?? 0) - node.height / 2;
    parts.push(`<g class="state"><title>${s}: entered ${n} times</title><rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${node.width}" height="${node.height}" rx="10" fill="${heatColour(n, maxS)}" stroke="#333"/>`);
    parts.push(`<text x="${(node.x ?? 0).toFixed(1)}" y="${((node.y ?? 0) - 2).toFixed(1)}" text-anchor="middle" font-size="13" font-weight="bold">${s}</text>`);
    parts.push(`<text x="${(node.x ?? 0).toFixed(1)}" y="${((node.y ?? 0) + 14).toFixed(1)}" text-anchor="middle">\u00d7${n}</text></g>`);
  }
  parts.push('</svg>');
  return parts.join('\n');
}

function table(cov: Coverage, c: CoverageCategory): string {
  const entries = Object.entries(cov.items[c]);
  const max = Math.max(1, ...entries.map(([, n]) => n));
  const rows = entries
    .map(([k, n]) => `<tr class="${n === 0 ? 'miss' : ''}"><td><code>${esc(k)}</code></td><td class="n">${n}</td><td><span class="bar" style="width:${n === 0 ? 0 : Math.max(2, Math.round((120 * Math.log(n + 1)) / Math.log(max + 1)))}px;background:${heatColour(n, max)}"></span></td></tr>`)
    .join('\n');
  const { hit, total } = categorySummary(cov, c);
  return `<details${c === 'paths' || c === 'pairs' ? '' : ' open'}><summary><h2>${esc(TITLES[c])}: ${hit} / ${total} (${pct(hit, total)})</h2></summary><table><tr><th>Item</th><th>Hits</th><th></th></tr>\n${rows}\n</table></details>`;
}

/** The self-contained HTML report: summary, coloured lifecycle diagram, and every item with its count. Pure. */
export function coverageHtml(cov: Coverage, title = 'Conformance coverage'): string {
  const summary = COVERAGE_CATEGORIES.map((c) => {
    const { hit, total } = categorySummary(cov, c);
    return `<tr><td>${esc(TITLES[c])}</td><td class="n">${hit}</td><td class="n">${total}</td><td class="n">${pct(hit, total)}</td></tr>`;
  }).join('\n');
  const legend = [0, 1, 10, 100].map((n) => `<span class="key" style="background:${heatColour(n, 100)}"></span> ${n === 0 ? 'never hit' : `${n}`}`).join(' &nbsp; ');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2rem;color:#222;max-width:1200px}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}td,th{padding:2px 10px;border-bottom:1px solid #eee;text-align:left;font-size:13px}
td.n{text-align:right;font-variant-numeric:tabular-nums}tr.miss td{color:#b2182b}
.bar{display:inline-block;height:10px}.key{display:inline-block;width:14px;height:10px;border:1px solid #999}
summary h2{display:inline;font-size:1.05rem}details{margin:.6rem 0}.diagram{overflow-x:auto;border:1px solid #ddd;padding:8px}.diagram svg{max-width:100%;height:auto}
</style></head><body>
<h1>${esc(title)}</h1>
<p>Runs: ${cov.runs}, steps: ${cov.steps}. Sources: ${esc(cov.sources.join('; ') || '-')}.</p>
<table><tr><th>Category</th><th>Hit</th><th>Total</th><th>Coverage</th></tr>
${summary}
</table>
<h2>Lifecycle (generated from the machine; colour and width by hit count)</h2>
<p>${legend}. Dashed red: never taken.</p>
<div class="diagram">
${lifecycleSvg(cov)}
</div>
${COVERAGE_CATEGORIES.map((c) => table(cov, c)).join('\n')}
<p>Transition names in pairs and paths: ${lifecycleTransitions().map((t) => `<code>${esc(shortName(t))}</code>`).join(', ')}.</p>
</body></html>
`;
}
