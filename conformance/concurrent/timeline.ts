/**
 * A history drawn as lanes, in the manner of Porcupine's visualiser: one row per lane, each
 * operation a bar from its invoke to its return, labelled with its request and reply. When a
 * check outcome is given, the bars carry their place in the linearization found (or, for a
 * history that is not linearizable, in the longest prefix found), and the operations the search
 * was stuck on are highlighted with the reply the model would have given.
 *
 * The output is one standalone HTML fragment (a `<figure>` holding an inline SVG and its own
 * style), safe to paste into a report: every text is escaped, nothing is loaded from elsewhere.
 * An indefinite operation (no reply) has no end: its bar runs open-ended, dashed, up to the next
 * request of its lane (or the end of the history) and is marked "no reply".
 *
 * Horizontal position follows the order of instants, not their values (instants are positions in
 * one event sequence, so only their order means anything): each distinct instant is one column.
 * A fault of the history's nemesis is a shaded window behind the lanes it hit, from its start to
 * its end (to the end of the drawing when it never ended), titled with the fault.
 */
import type { CheckOutcome, History, Operation } from './history.ts';
import { htmlText } from '../outside/outsideText.ts';
import { codeOf } from '../../contract/index.ts';
import { describeFault, type Fault, lanesHit, type NemesisEvent } from '../nemesis/fault.ts';

/** A fault's window: the instants of its start and its end (undefined: it never ended in the history). */
export interface FaultWindow {
  readonly fault: Fault;
  readonly from: number;
  readonly to: number | undefined;
  readonly notes: readonly string[];
}

/** The windows of a history's faults, in start order: each start paired with the next end of an equal fault. Pure. */
export function faultWindows(events: readonly NemesisEvent[]): FaultWindow[] {
  const open = new Map<string, { fault: Fault; from: number; notes: string[] }[]>();
  const windows: { fault: Fault; from: number; to: number | undefined; notes: string[] }[] = [];
  for (const event of [...events].sort((a, b) => a.at - b.at)) {
    const key = JSON.stringify(event.fault);
    const note = event.note === undefined ? [] : [event.note];
    if (event.phase === 'start') {
      const w = { fault: event.fault, from: event.at, to: undefined, notes: note };
      windows.push(w);
      open.set(key, [...(open.get(key) ?? []), w]);
    } else {
      const w = open.get(key)?.shift();
      if (w === undefined) windows.push({ fault: event.fault, from: event.at, to: event.at, notes: note });
      else Object.assign(w, { to: event.at, notes: [...w.notes, ...note] });
    }
  }
  return windows.sort((a, b) => a.from - b.from);
}

/** How to draw a timeline. */
export interface TimelineOptions<I, O> {
  /** The text of an operation's bar; default: the request and reply, compact. */
  readonly label?: (op: Operation<I, O>) => string;
  /** Width of one column (one distinct instant), in pixels. Default 22. */
  readonly column?: number;
  /** Most characters of a label shown on its bar (the whole text is in its tooltip). Default 40. */
  readonly labelChars?: number;
  /** A title above the drawing. */
  readonly title?: string;
}

const ROW = 30;
const BAR = 20;
const LEFT = 70;
const TOP = 30;

/** A compact, one-line rendering of a request or reply: `claim worker=w1 now=3`, or JSON. Pure. */
export function compactValue(value: unknown): string {
  if (value === undefined) return 'no reply';
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>).filter(([k]) => k !== 'message');
    const type = (value as { type?: unknown }).type;
    const head = typeof type === 'string' ? [type] : [];
    const ok = (value as { ok?: unknown }).ok;
    if (ok === false) return `refused ${String(codeOf(value))}`;
    const rest = entries
      .filter(([k]) => k !== 'type' && k !== 'ok')
      .map(([k, v]) => `${k}=${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`);
    return [...head, ...rest].join(' ');
  }
  return JSON.stringify(value) ?? String(value);
}

/**
 * A shorter form for a bar: the type and the scalar values, without field names
 * (`claim w1 3 → claim j4 7 ...`); a nested object shows its first two scalar values. Pure.
 */
export function shortValue(value: unknown): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return compactValue(value);
  const v = value as Record<string, unknown>;
  if (v.ok === false) return `refused ${String(v.code)}`;
  const scalars = (o: Record<string, unknown>, limit: number): string[] =>
    Object.entries(o)
      .filter(
        ([k, x]) =>
          k !== 'ok' &&
          k !== 'message' &&
          (typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean' || x === null),
      )
      .slice(0, limit)
      .map(([, x]) => String(x));
  const parts = [...scalars(v, 8)];
  for (const x of Object.values(v))
    if (typeof x === 'object' && x !== null && !Array.isArray(x))
      parts.push(
        scalars(x as Record<string, unknown>, 3)
          .slice(0, 2)
          .join('#'),
      );
  return parts.join(' ');
}

const clip = (text: string, chars: number): string =>
  text.length <= chars ? text : `${text.slice(0, Math.max(1, chars - 1))}…`;

/**
 * Renders a history (and, when given, the outcome of checking it) as an HTML fragment with an
 * inline SVG: one row per lane, one bar per operation. Pure.
 */
export function renderTimeline<I, O>(
  history: History<I, O>,
  outcome?: CheckOutcome<O>,
  options: TimelineOptions<I, O> = {},
): string {
  const ops = [...history.operations].sort((a, b) => a.invoked - b.invoked || a.id - b.id);
  const label =
    options.label ??
    ((op: Operation<I, O>) =>
      `${shortValue(op.input)} → ${op.returned === undefined ? 'no reply' : shortValue(op.output)}`);
  const detail = (op: Operation<I, O>): string =>
    `${compactValue(op.input)} → ${op.returned === undefined ? 'no reply' : compactValue(op.output)}`;
  const column = options.column ?? 22;
  const labelChars = options.labelChars ?? 40;

  // Columns: one per distinct instant, in order (a fault's start and end take theirs).
  const events = history.nemesis ?? [];
  const instants = [
    ...new Set([
      ...ops.flatMap((op) => (op.returned === undefined ? [op.invoked] : [op.invoked, op.returned])),
      ...events.map((e) => e.at),
    ]),
  ].sort((a, b) => a - b);
  const columnOf = new Map(instants.map((t, k) => [t, k]));
  const lastColumn = Math.max(0, instants.length - 1) + 1;
  const x = (k: number): number => LEFT + k * column;

  // Where each indefinite bar stops: the next invoke on its lane, or the end.
  const byLane = new Map<number, Operation<I, O>[]>();
  for (const op of ops) byLane.set(op.lane, [...(byLane.get(op.lane) ?? []), op]);
  const endColumn = (op: Operation<I, O>): number => {
    if (op.returned !== undefined) return columnOf.get(op.returned) ?? 0;
    const later = (byLane.get(op.lane) ?? []).find((o) => o.invoked > op.invoked);
    // Stop short of the next bar so that the two share a row.
    return later === undefined ? lastColumn : (columnOf.get(later.invoked) ?? lastColumn) - 0.4;
  };

  // Rows: each lane gets as many rows as its overlapping bars need (usually one).
  const lanes = [...byLane.keys()].sort((a, b) => a - b);
  const placed = new Map<number, { row: number; from: number; to: number }>();
  let rows = 0;
  const laneRows: { lane: number; first: number; count: number }[] = [];
  for (const lane of lanes) {
    const ends: number[] = [];
    for (const op of byLane.get(lane) ?? []) {
      const from = columnOf.get(op.invoked) ?? 0;
      const to = Math.max(from, endColumn(op));
      let r = ends.findIndex((e) => e < from);
      if (r < 0) {
        r = ends.length;
        ends.push(to);
      } else ends[r] = to;
      placed.set(op.id, { row: rows + r, from, to });
    }
    laneRows.push({ lane, first: rows, count: Math.max(1, ends.length) });
    rows += Math.max(1, ends.length);
  }

  // What the outcome says of each operation.
  const position = new Map<number, number>();
  const stuck = new Map<number, { expected: O; observed: O | undefined }>();
  let verdict = 'not checked';
  if (outcome !== undefined) {
    verdict = outcome.verdict;
    const order =
      outcome.verdict === 'linearizable'
        ? outcome.order
        : outcome.verdict === 'not_linearizable'
          ? outcome.witness.longestOrder
          : [];
    order.forEach((id, k) => {
      position.set(id, k + 1);
    });
    if (outcome.verdict === 'not_linearizable')
      for (const s of outcome.witness.stuck) stuck.set(s.id, { expected: s.expected, observed: s.observed });
  }

  const width = x(lastColumn) + 20;
  const height = TOP + rows * ROW + 10;
  const out: string[] = [];
  const caption =
    outcome === undefined
      ? 'history, not checked'
      : outcome.verdict === 'linearizable'
        ? `linearizable: numbers give the order found (${position.size} of ${ops.length} operations; indefinite ones left out never took effect)`
        : outcome.verdict === 'not_linearizable'
          ? `not linearizable: numbers give the longest prefix found (${position.size} of ${ops.length}); highlighted operations could come next but the model gives another reply`
          : `unknown: the check's budget ran out (${outcome.reason}) after ${outcome.steps} steps`;
  out.push(`<figure class="jobcheck-timeline" data-verdict="${htmlText(verdict)}">`);
  out.push(
    '<style>.jobcheck-timeline svg{font:11px ui-monospace,monospace}.jobcheck-timeline .bar{fill:#dbe8f7;stroke:#4a78b0}.jobcheck-timeline .linearized .bar{fill:#cdebd3;stroke:#3c8d50}' +
      '.jobcheck-timeline .indefinite .bar{fill:#f4f4f4;stroke:#888;stroke-dasharray:4 3}.jobcheck-timeline .stuck .bar{fill:#f8d0cf;stroke:#c0392b;stroke-width:2}' +
      '.jobcheck-timeline .order{font-weight:bold;fill:#1d5e2c}.jobcheck-timeline .lane-label{fill:#555}.jobcheck-timeline .mark{fill:#888}' +
      '.jobcheck-timeline .fault rect{fill:#f3e3b5;fill-opacity:.6;stroke:#c9a227;stroke-dasharray:2 2}.jobcheck-timeline .fault text{fill:#7a5c00;font-size:10px}</style>',
  );
  if (options.title !== undefined) out.push(`<figcaption class="title">${htmlText(options.title)}</figcaption>`);
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${htmlText(caption)}">`,
  );
  out.push(...faultShades(faultWindows(events), laneRows, { x, columnOf, lastColumn, width }));
  for (const { lane, first, count } of laneRows) {
    const y0 = TOP + first * ROW;
    out.push(`<g class="lane" data-lane="${lane}">`);
    out.push(
      `<line x1="${LEFT - 4}" y1="${y0 + count * ROW - 4}" x2="${width - 10}" y2="${y0 + count * ROW - 4}" stroke="#eee"/>`,
    );
    out.push(`<text class="lane-label" x="6" y="${y0 + BAR / 2 + 4}">lane ${lane}</text>`);
    for (const op of byLane.get(lane) ?? []) {
      const p = placed.get(op.id) as { row: number; from: number; to: number };
      const y = TOP + p.row * ROW;
      const left = x(p.from);
      const right = p.to === p.from ? left + column * 0.8 : x(p.to);
      const k = position.get(op.id);
      const s = stuck.get(op.id);
      const classes = [
        'op',
        op.returned === undefined ? 'indefinite' : 'returned',
        ...(k === undefined ? [] : ['linearized']),
        ...(s === undefined ? [] : ['stuck']),
      ];
      const text = label(op);
      const tip = [
        `#${op.id} lane ${op.lane}, invoked ${op.invoked}${op.returned === undefined ? ', no reply' : `, returned ${op.returned}`}`,
        options.label === undefined ? detail(op) : text,
        ...(k === undefined
          ? []
          : [`linearized ${k}${outcome?.verdict === 'not_linearizable' ? ' (longest prefix)' : ''}`]),
        ...(s === undefined
          ? []
          : [`stuck: the model replies ${compactValue(s.expected)}, observed ${compactValue(s.observed)}`]),
      ].join('\n');
      out.push(
        `<g class="${classes.join(' ')}" data-id="${op.id}" data-lane="${op.lane}"${k === undefined ? '' : ` data-order="${k}"`}>`,
      );
      out.push(`<title>${htmlText(tip)}</title>`);
      out.push(`<rect class="bar" x="${left}" y="${y}" width="${Math.max(4, right - left)}" height="${BAR}" rx="3"/>`);
      if (op.returned === undefined)
        out.push(`<text class="mark" x="${Math.max(left + 4, right - 10)}" y="${y + BAR / 2 + 4}">?</text>`);
      // About 6.6 pixels a character at 11px monospace; a label that does not fit is left to the tooltip.
      const fits = Math.min(labelChars, Math.floor((right - left - 8) / 6.6));
      if (fits >= 4)
        out.push(`<text class="label" x="${left + 4}" y="${y + BAR / 2 + 4}">${htmlText(clip(text, fits))}</text>`);
      if (k !== undefined) out.push(`<text class="order" x="${left + 2}" y="${y - 2}">${k}</text>`);
      out.push('</g>');
    }
    out.push('</g>');
  }
  out.push('</svg>');
  out.push(`<figcaption>${htmlText(caption)}</figcaption>`);
  out.push('</figure>');
  return out.join('\n');
}

/** Where the drawing's columns are, for the fault shades. */
interface Columns {
  readonly x: (k: number) => number;
  readonly columnOf: ReadonlyMap<number, number>;
  readonly lastColumn: number;
  readonly width: number;
}

/** Each fault window as a shade behind the rows of every lane it hit, titled with the fault. Pure. */
function faultShades(
  windows: readonly FaultWindow[],
  laneRows: readonly { lane: number; first: number; count: number }[],
  columns: Columns,
): string[] {
  const out: string[] = [];
  const lanes = Math.max(-1, ...laneRows.map((r) => r.lane)) + 1;
  for (const w of windows) {
    const hit = new Set(lanesHit(w.fault, lanes));
    const left = columns.x(columns.columnOf.get(w.from) ?? 0);
    const right =
      w.to === undefined
        ? columns.width - 10
        : Math.max(left + 4, columns.x(columns.columnOf.get(w.to) ?? columns.lastColumn));
    const what = describeFault(w.fault);
    const tip = [
      `${what}: from instant ${w.from}${w.to === undefined ? ', never healed in this history' : ` to ${w.to}`}`,
      ...w.notes,
    ]
      .map(htmlText)
      .join('\n');
    out.push(`<g class="fault" data-kind="${htmlText(w.fault.kind)}"><title>${tip}</title>`);
    for (const { lane, first, count } of laneRows.filter((r) => hit.has(r.lane))) {
      const y = TOP + first * ROW - 4;
      out.push(`<rect x="${left}" y="${y}" width="${right - left}" height="${count * ROW}" data-lane="${lane}"/>`);
      out.push(`<text x="${left + 2}" y="${y + count * ROW - 2}">${htmlText(what)}</text>`);
    }
    out.push('</g>');
  }
  return out;
}
