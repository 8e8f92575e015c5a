/**
 * The failure story's styles, every rule under the section's id. Colours carry one meaning each
 * and the legend names them: amber is where the model has a job, green the transition the model
 * took, red (dashed) what the implementation says instead, a yellow mark a differing field.
 */

/** Where the model has a job (a lit state). */
export const LIT_FILL = '#ffe9a8';
/** The transition the model took. */
export const MODEL_GREEN = '#1a7f37';
/** What the implementation's answer implies, and its differing values. */
export const IMPL_RED = '#c62828';

/** The section's style rules, scoped under `#id`. Pure. */
export function storyStyles(id: string): string {
  const s = `#${id}`;
  return `
${s} { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, "Liberation Sans", sans-serif; color: #1f2328; max-width: 100%; }
${s} h2.story-headline { font-size: 19px; line-height: 1.35; margin: 0 0 4px; color: #1f2328; overflow-wrap: anywhere; }
${s} h2.story-headline .badge { display: inline-block; font-size: 13px; font-weight: 600; color: #fff; background: ${IMPL_RED}; border-radius: 4px; padding: 1px 7px; margin-right: 8px; vertical-align: 3px; }
${s} h3 { font-size: 17px; margin: 22px 0 8px; }
${s} .story-sub { color: #57606a; margin: 0 0 8px; overflow-wrap: anywhere; }
${s} code, ${s} .mono { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 13px; }
${s} .story-panel { border: 1px solid #d0d7de; border-radius: 8px; padding: 10px 12px; margin: 12px 0; background: #fafbfc; }
${s} .story-controls { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; }
${s} .story-controls button { font: inherit; font-size: 14px; padding: 4px 12px; border: 1px solid #8c959f; border-radius: 6px; background: #fff; color: #1f2328; cursor: pointer; }
${s} .story-controls button:disabled { color: #8c959f; border-color: #d0d7de; cursor: default; }
${s} .story-controls button:focus-visible, ${s} tr.step:focus-visible, ${s} a:focus-visible { outline: 3px solid #0969da; outline-offset: 1px; }
${s} .story-where { font-weight: 600; min-width: 12em; }
${s} .story-keys { color: #57606a; font-size: 13px; }
${s} .story-now { margin: 8px 0 4px; overflow-wrap: anywhere; }
${s} .story-command { background: #eef1f4; border-radius: 4px; padding: 1px 6px; }
${s} .story-legend { display: flex; flex-wrap: wrap; gap: 6px 18px; margin: 6px 0 8px; font-size: 13px; color: #3d444d; padding: 0; list-style: none; }
${s} .story-legend li { display: flex; align-items: center; gap: 6px; }
${s} .story-legend svg { flex: none; }
${s} .story-svg { overflow-x: auto; max-width: 100%; }
${s} .story-svg svg { display: block; margin: 0 auto; max-width: 100%; height: auto; }
${s} g.state.lit rect.shape { fill: ${LIT_FILL}; stroke: #9a6700; stroke-width: 3; }
${s} g.state.impl-lit rect.shape { stroke: ${IMPL_RED}; stroke-width: 3; stroke-dasharray: 7 4; }
${s} text.jobs { font-weight: 600; fill: #6b4400; }
${s} text.jobs tspan.impl-jobs { fill: ${IMPL_RED}; }
${s} g.edge.taken path { stroke: ${MODEL_GREEN}; stroke-width: 5; }
${s} g.edge.taken polygon { fill: ${MODEL_GREEN}; stroke: ${MODEL_GREEN}; }
${s} g.edge-label.taken text { fill: ${MODEL_GREEN}; font-weight: bold; }
${s} g.extra-edge { display: none; }
${s} g.extra-edge.shown { display: inline; }
${s} g.extra-edge path { stroke: ${IMPL_RED}; stroke-width: 4; stroke-dasharray: 9 6; }
${s} g.extra-edge polygon { fill: ${IMPL_RED}; stroke: ${IMPL_RED}; }
${s} table.story-steps { width: 100%; border-collapse: collapse; table-layout: fixed; font-size: 14px; }
${s} table.story-steps th { text-align: left; font-weight: 600; color: #3d444d; border-bottom: 2px solid #d0d7de; padding: 6px 8px; }
${s} table.story-steps td { vertical-align: top; padding: 7px 8px; border-bottom: 1px solid #e4e8ec; overflow-wrap: anywhere; }
${s} table.story-steps col.n { width: 7em; }
${s} table.story-steps col.cmd { width: 27%; }
${s} table.story-steps col.rules { width: 19%; }
${s} tr.step { cursor: pointer; }
${s} tr.step:hover td { background: #f3f6f9; }
${s} tr.step.current td { background: #ddf4ff; }
${s} tr.step.current td:first-child { box-shadow: inset 4px 0 0 #0969da; }
${s} tr.step.diverging td { background: #fff0ee; }
${s} tr.step.diverging.current td { background: #ffe3df; }
${s} tr.step.diverging td:first-child { box-shadow: inset 4px 0 0 ${IMPL_RED}; }
${s} table.story-diff { margin: 4px 0 8px; border: 1px solid #f0c8c2; }
${s} tr.diff td { background: #fff0ee; }
${s} tr.diff td:first-child { box-shadow: inset 4px 0 0 ${IMPL_RED}; }
${s} .marker { display: block; font-size: 12px; font-weight: 700; color: ${IMPL_RED}; white-space: nowrap; }
${s} .cmd { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 13px; }
${s} .cmd .verb { font-weight: 700; }
${s} ul.fields { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 3px 10px; font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 13px; }
${s} ul.fields li { max-width: 100%; }
${s} ul.fields .k { color: #57606a; }
${s} ul.fields li.differs { background: #fff1a8; border-radius: 3px; padding: 0 3px; outline: 1px solid #d4a72c; }
${s} ul.fields li.differs .v { font-weight: 700; color: #1f2328; }
${s} ul.fields li.absent { font-style: italic; }
${s} .msg { color: #57606a; font-size: 13px; margin-top: 2px; }
${s} .same { color: #1a7f37; }
${s} .unknown { color: #57606a; font-style: italic; }
${s} .error { color: ${IMPL_RED}; font-weight: 600; }
${s} a.rule { display: inline-block; margin: 0 6px 2px 0; color: #0969da; font-size: 13px; }
${s} tr.snapdiff td { background: #fff8f6; padding: 6px 8px 10px 7em; }
${s} table.snap { border-collapse: collapse; font-size: 13px; width: 100%; table-layout: fixed; }
${s} table.snap th, ${s} table.snap td { text-align: left; padding: 2px 8px; border-bottom: 1px solid #f0d6d0; overflow-wrap: anywhere; background: transparent; }
${s} table.snap td.impl { color: ${IMPL_RED}; font-weight: 600; }
${s} table.snap td.model { color: ${MODEL_GREEN}; font-weight: 600; }
${s} ol.story-rules { padding-left: 0; list-style: none; }
${s} ol.story-rules li { margin: 0 0 10px; padding: 6px 10px; border-left: 3px solid #d0d7de; overflow-wrap: anywhere; }
${s} ol.story-rules li:target { border-left-color: #0969da; background: #ddf4ff; }
${s} ol.story-rules .where { display: block; color: #57606a; font-size: 13px; }
`;
}
