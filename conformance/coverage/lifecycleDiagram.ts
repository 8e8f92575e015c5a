/**
 * The lifecycle diagram of the coverage page: the machine's declared states and transitions
 * (model/lifecycle.ts), laid out and routed by Graphviz (`dot`, compiled to WebAssembly by
 * @viz-js/viz) and drawn as inline SVG, each state and transition coloured by its hit count.
 *
 * Graphviz lays out and routes; this file draws. Graphviz's JSON output gives the spline of every
 * edge, its arrowhead, the position and width of every line of text, and the drawing below turns
 * those into SVG with the classes, colours and hover titles of the report. Each line of text is
 * drawn with the width Graphviz reserved for it (`textLength`), so a browser whose font is a
 * little wider than Graphviz's metrics still cannot push one label into another. Units: one
 * Graphviz point is drawn as one CSS pixel, so the 13-point labels are 13 px at 1:1.
 *
 * The layout is asynchronous only because the WebAssembly module is instantiated asynchronously,
 * once per process; every layout after the first is a synchronous call into it.
 */
import { instance } from '@viz-js/viz';
import type { Viz } from '@viz-js/viz';
import { JOB_STATES, lifecycleTransitions } from '../../model/index.ts';
import type { LifecycleTransition } from '../../model/index.ts';
import type { Coverage } from './coverage.ts';

/** How a transition or state is drawn: hit (coloured by count), never hit by a full run, or not reached by one stopped early. */
export type DiagramMark = 'hit' | 'never' | 'not-reached';

/** Options of the diagram. */
export interface DiagramOptions {
  /**
   * True when the run stopped before it ran in full (time limit, or the first divergence): an
   * item at zero was then not reached, which says less than "a full run never took it".
   */
  readonly stoppedEarly?: boolean;
  /**
   * A diagram without counts, for pages that light states and transitions themselves (the failure
   * story): neutral colours, transition labels without `×n`, and under each state's name an empty
   * `text.jobs` line for the page's script to fill. The coverage page never sets it.
   */
  readonly plain?: boolean;
  /**
   * Edges that are not declared transitions, laid out by Graphviz with the others and drawn as
   * `g.extra-edge[data-extra=<id>]` (hidden until a page's style shows them), e.g. the move an
   * implementation's reply implies. Only drawn in a plain diagram.
   */
  readonly extraEdges?: readonly ExtraEdge[];
}

/** An edge drawn beside the declared transitions (DiagramOptions.extraEdges). */
export interface ExtraEdge {
  /** Unique among the extra edges; becomes `data-extra`. */
  readonly id: string;
  readonly from: (typeof JOB_STATES)[number];
  readonly to: (typeof JOB_STATES)[number];
}

/** Colour of a transition in a plain diagram. */
export const PLAIN_EDGE_COLOUR = '#8a9099';

/** Colour of an item at zero after a full run: never hit. */
export const NEVER_COLOUR = '#d73027';
/** Colour of an item at zero after a run that stopped early: not reached. */
export const NOT_REACHED_COLOUR = '#e08214';
/** Stroke pattern of a transition never taken (dashed). */
export const NEVER_DASH = '8 5';
/** Stroke pattern of a transition not reached (dotted). */
export const NOT_REACHED_DASH = '2 5';

const FONT = 'Helvetica, Arial, "Liberation Sans", sans-serif';
const LABEL_SIZE = 13;
const STATE_SIZE = 15;
const PAD = 8;

/** Colour of a hit count: red for never hit, then pale to deep green on a log scale up to `max`. Pure. */
export function heatColour(count: number, max: number): string {
  if (count <= 0) return NEVER_COLOUR;
  const f = max <= 1 ? 1 : Math.log(count + 1) / Math.log(max + 1);
  const mix = (a: number, b: number): number => Math.round(a + (b - a) * f);
  return `rgb(${mix(199, 26)},${mix(233, 152)},${mix(192, 80)})`;
}

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const dotString = (s: string): string => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
const num = (n: number): string => String(Math.round(n * 10) / 10);

/** The lines of a transition's label: event and count, then the guard, broken at `&&` when long. Pure. */
export function edgeLabelLines(t: Pick<LifecycleTransition, 'event' | 'guard'>, hits: number): string[] {
  const lines = [`${t.event} \u00d7${hits}`];
  if (t.guard === null) return lines;
  const guard = `[${t.guard}]`;
  if (guard.length <= 28) return [...lines, guard];
  const parts = guard.split(' && ');
  return [...lines, ...parts.map((p, i) => (i < parts.length - 1 ? `${p} &&` : p))];
}

let viz: Promise<Viz> | undefined;

/** The Graphviz instance of this process, instantiated on first use. */
function graphviz(): Promise<Viz> {
  viz ??= instance();
  return viz;
}

type Point = readonly [number, number];
type XdotOp =
  | { readonly op: 'b' | 'B' | 'P' | 'p' | 'L'; readonly points: readonly Point[] }
  | {
      readonly op: 'T';
      readonly pt: Point;
      readonly align: 'l' | 'c' | 'r';
      readonly width: number;
      readonly text: string;
    }
  | { readonly op: 't'; readonly fontchar: number }
  | { readonly op: 'F'; readonly size: number }
  | { readonly op: string };
interface GvObject {
  readonly name: string;
  readonly pos: string;
  readonly width: string;
  readonly height: string;
  readonly _ldraw_?: readonly XdotOp[];
}
interface GvEdge {
  readonly id?: string;
  readonly _draw_?: readonly XdotOp[];
  readonly _hdraw_?: readonly XdotOp[];
  readonly _ldraw_?: readonly XdotOp[];
}
interface GvGraph {
  readonly bb: string;
  readonly objects?: readonly GvObject[];
  readonly edges?: readonly GvEdge[];
}

interface TextLine {
  readonly x: number;
  readonly y: number;
  readonly anchor: 'start' | 'middle' | 'end';
  readonly width: number;
  readonly text: string;
  readonly size: number;
  readonly bold: boolean;
}

const ANCHORS = { l: 'start', c: 'middle', r: 'end' } as const;

/** The lines of text of an xdot op list, with their font size, alignment and weight. */
function texts(ops: readonly XdotOp[] | undefined): TextLine[] {
  const out: TextLine[] = [];
  let size = LABEL_SIZE;
  let bold = false;
  for (const op of ops ?? []) {
    if (op.op === 'F' && 'size' in op) size = op.size;
    // Bit 0 of the font characteristics is bold (xdot's `t` operation).
    if (op.op === 't' && 'fontchar' in op) bold = (op.fontchar & 1) === 1;
    if (op.op === 'T' && 'pt' in op)
      out.push({
        x: op.pt[0],
        y: op.pt[1],
        anchor: ANCHORS[op.align] ?? 'middle',
        width: op.width,
        text: op.text,
        size,
        bold,
      });
  }
  return out;
}

const pointsOf = (ops: readonly XdotOp[] | undefined, kinds: readonly string[]): readonly Point[] => {
  const op = (ops ?? []).find((o) => kinds.includes(o.op));
  return op !== undefined && 'points' in op ? op.points : [];
};

/**
 * The DOT source of the diagram: states and transitions, with the sizes Graphviz must reserve;
 * in a plain diagram without counts and with the extra edges. Pure.
 */
export function lifecycleDot(cov: Coverage, maxT: number, options: DiagramOptions = {}): string {
  const plain = options.plain === true;
  const lines = [
    'digraph lifecycle {',
    // Left to right, splines, room between ranks for the labels.
    `graph [rankdir=LR, splines=true, nodesep=0.3, ranksep=0.45, fontname="Helvetica", fontsize=${LABEL_SIZE}];`,
    `node [shape=box, style=rounded, fontname="Helvetica", fontsize=${STATE_SIZE}, width=1.1, height=0.75, margin="0.15,0.08"];`,
    `edge [fontname="Helvetica", fontsize=${LABEL_SIZE}, arrowsize=1.1];`,
  ];
  // A plain diagram keeps the second line free (a no-break space) for the jobs a page writes there.
  for (const s of JOB_STATES)
    lines.push(`${dotString(s)} [label=<<B>${s}</B><BR/>${plain ? '&#160;' : `\u00d7${cov.items.states[s] ?? 0}`}>];`);
  lifecycleTransitions().forEach((t, i) => {
    const n = cov.items.transitions[t.id] ?? 0;
    const label = plain ? [t.event, ...edgeLabelLines(t, n).slice(1)] : edgeLabelLines(t, n);
    lines.push(
      `${dotString(t.from)} -> ${dotString(t.to)} [id="t${i}", label=${dotString(label.join('\n'))}, penwidth=${num(plain ? 2 : strokeWidth(n, maxT))}];`,
    );
  });
  if (plain)
    (options.extraEdges ?? []).forEach((e, i) => {
      lines.push(`${dotString(e.from)} -> ${dotString(e.to)} [id="x${i}", penwidth=2];`);
    });
  lines.push('}');
  return lines.join('\n');
}

/** The SVG path of an edge's spline and the points of its arrowhead. */
function edgeShape(e: GvEdge | undefined): { readonly d: string; readonly head: string } {
  const spline = pointsOf(e?._draw_, ['b', 'B']);
  const d = spline.map((p, k) => `${k === 0 ? 'M' : k % 3 === 1 ? 'C' : ''}${num(p[0])},${num(p[1])}`).join(' ');
  const head = pointsOf(e?._hdraw_, ['P', 'p'])
    .map((p) => `${num(p[0])},${num(p[1])}`)
    .join(' ');
  return { d, head };
}

function strokeWidth(n: number, max: number): number {
  return n === 0 ? 2 : 2 + 3 * (Math.log(n + 1) / Math.log(max + 1));
}

function mark(n: number, stoppedEarly: boolean): DiagramMark {
  return n > 0 ? 'hit' : stoppedEarly ? 'not-reached' : 'never';
}

function textLines(lines: readonly TextLine[], attrs: string): string {
  return lines
    .map(
      (l) =>
        `<text x="${num(l.x)}" y="${num(l.y)}" text-anchor="${l.anchor}" font-size="${num(l.size)}"${l.bold ? ' font-weight="bold"' : ''} textLength="${num(l.width)}" lengthAdjust="spacingAndGlyphs"${attrs}>${esc(l.text)}</text>`,
    )
    .join('');
}

/**
 * The lifecycle diagram as an SVG element at its natural size (one Graphviz point per pixel),
 * laid out by Graphviz and coloured by hit counts. Every state is a `g.state`, every transition a
 * `g.edge` with `data-mark` hit, never or not-reached; label lines are `text.label`. A plain
 * diagram (`options.plain`) has no counts and no marks: every state a white `g.state` with an
 * empty `text.jobs` line, every transition grey, and the extra edges as hidden `g.extra-edge`.
 */
export async function lifecycleSvg(cov: Coverage, options: DiagramOptions = {}): Promise<string> {
  const stoppedEarly = options.stoppedEarly === true;
  const ts = lifecycleTransitions();
  const maxT = Math.max(1, ...ts.map((t) => cov.items.transitions[t.id] ?? 0));
  const maxS = Math.max(1, ...JOB_STATES.map((s) => cov.items.states[s] ?? 0));
  const plain = options.plain === true;
  const layout = (await graphviz()).renderJSON(lifecycleDot(cov, maxT, options), { yInvert: true }) as GvGraph;
  // The bounding box is `x1,y1,x2,y2` (with yInvert its y values come swapped) and leaves out
  // Graphviz's padding: a margin of PAD pixels keeps the outer strokes and halos inside the image.
  const [x1 = 0, y1 = 0, x2 = 800, y2 = 400] = layout.bb.split(',').map(Number);
  const width = Math.ceil(Math.abs(x2 - x1)) + 2 * PAD;
  const height = Math.ceil(Math.abs(y2 - y1)) + 2 * PAD;
  const edges = new Map((layout.edges ?? []).map((e) => [e.id ?? '', e]));
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="lifecycle" width="${width}" height="${height}" viewBox="${-PAD} ${-PAD} ${width} ${height}" font-family='${FONT}' font-size="${LABEL_SIZE}">`,
  );
  // Labels go on top of every edge, so that no edge is drawn across a label.
  const labels: string[] = [];
  ts.forEach((t, i) => {
    const e = edges.get(`t${i}`);
    const n = cov.items.transitions[t.id] ?? 0;
    const m = mark(n, stoppedEarly);
    const colour = plain ? PLAIN_EDGE_COLOUR : m === 'not-reached' ? NOT_REACHED_COLOUR : heatColour(n, maxT);
    const { d, head } = edgeShape(e);
    const dash = plain
      ? ''
      : m === 'never'
        ? ` stroke-dasharray="${NEVER_DASH}"`
        : m === 'not-reached'
          ? ` stroke-dasharray="${NOT_REACHED_DASH}" stroke-linecap="round"`
          : '';
    const title = plain
      ? `<title>${esc(t.id)}</title>`
      : `<title>${esc(t.id)}: ${m === 'not-reached' ? 'not reached, the run stopped early' : m === 'never' ? 'never taken' : `${n} hits`}</title>`;
    parts.push(
      `<g class="edge" data-transition="${esc(t.id)}"${plain ? '' : ` data-mark="${m}"`}>${title}<path d="${d}" fill="none" stroke="${colour}" stroke-width="${num(plain ? 2 : strokeWidth(n, maxT))}"${dash}/><polygon class="arrowhead" points="${head}" fill="${colour}" stroke="${colour}"/></g>`,
    );
    const fill = plain ? '#555' : m === 'hit' ? '#222' : m === 'never' ? '#b2182b' : '#a6530a';
    labels.push(
      `<g class="edge-label" data-transition="${esc(t.id)}">${title}${textLines(texts(e?._ldraw_), ` class="label" fill="${fill}" paint-order="stroke" stroke="#fff" stroke-width="4" stroke-linejoin="round"`)}</g>`,
    );
  });
  if (plain)
    (options.extraEdges ?? []).forEach((x, i) => {
      const { d, head } = edgeShape(edges.get(`x${i}`));
      parts.push(
        `<g class="extra-edge" data-extra="${esc(x.id)}" data-from="${x.from}" data-to="${x.to}"><path d="${d}" fill="none" stroke="${PLAIN_EDGE_COLOUR}" stroke-width="2"/><polygon class="arrowhead" points="${head}" fill="${PLAIN_EDGE_COLOUR}" stroke="${PLAIN_EDGE_COLOUR}"/></g>`,
      );
    });
  parts.push(...labels);
  for (const node of layout.objects ?? []) {
    const s = node.name;
    const n = cov.items.states[s] ?? 0;
    const m = mark(n, stoppedEarly);
    const [cx = 0, cy = 0] = node.pos.split(',').map(Number);
    const w = Number(node.width) * 72;
    const h = Number(node.height) * 72;
    if (plain) {
      const [name, spare] = texts(node._ldraw_);
      parts.push(
        `<g class="state" data-state="${esc(s)}"><title>${esc(s)}</title><rect class="shape" x="${num(cx - w / 2)}" y="${num(cy - h / 2)}" width="${num(w)}" height="${num(h)}" rx="10" fill="#fff" stroke="#333" stroke-width="1.5"/>`,
      );
      parts.push(textLines(name === undefined ? [] : [name], ' class="label"'));
      // The jobs' line: no textLength (its text is written by the page), centred where Graphviz reserved the line.
      const y = spare?.y ?? cy + h / 4;
      parts.push(
        `<text class="jobs" x="${num(cx)}" y="${num(y)}" text-anchor="middle" font-size="${LABEL_SIZE}"></text></g>`,
      );
      continue;
    }
    const fill = m === 'not-reached' ? '#fdd49e' : heatColour(n, maxS);
    const title = `<title>${esc(s)}: ${m === 'hit' ? `entered ${n} times` : m === 'never' ? 'never entered' : 'not reached, the run stopped early'}</title>`;
    const dash = m === 'hit' ? '' : ` stroke-dasharray="${m === 'never' ? NEVER_DASH : NOT_REACHED_DASH}"`;
    parts.push(
      `<g class="state" data-state="${esc(s)}" data-mark="${m}">${title}<rect class="shape" x="${num(cx - w / 2)}" y="${num(cy - h / 2)}" width="${num(w)}" height="${num(h)}" rx="10" fill="${fill}" stroke="#333" stroke-width="1.5"${dash}/>`,
    );
    parts.push(`${textLines(texts(node._ldraw_), ' class="label"')}</g>`);
  }
  parts.push('</svg>');
  return parts.join('\n');
}
