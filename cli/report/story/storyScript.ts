/**
 * The failure story's script, inline in the page: plain ES2020, no imports, no globals. It reads
 * the story's JSON (`script.story-data`) and moves the diagram with the story: the buttons
 * first/prev/next/last, the keys ←/→, j/k and Home/End (while the focus is in the section, or on
 * no element at all, as when the page has just opened), and a click or Enter on a table row
 * select a step. At each step every job's state is lit and labelled with its ids and the
 * transitions the model took are drawn green; at the diverging step each job the implementation
 * has elsewhere is marked red where it has it, and the moves its answer implies are drawn dashed
 * red beside the model's.
 *
 * It is kept as source text (the project's types describe Node, not the DOM), and is small
 * enough to read here.
 */

/** The section's script, run once the document is parsed; `ID` is replaced by the section's id. */
export const STORY_SCRIPT = `(() => {
  const root = document.getElementById(ID);
  if (root === null || root.querySelector('script.story-data') === null) return;
  const data = JSON.parse(root.querySelector('script.story-data').textContent);
  const steps = data.steps;
  const rows = [...root.querySelectorAll('tr.step')];
  const svgNS = 'http://www.w3.org/2000/svg';
  const where = root.querySelector('.story-where');
  const moves = root.querySelector('.story-moves');
  const command = root.querySelector('.story-command');
  const buttons = {};
  for (const b of root.querySelectorAll('button[data-go]')) buttons[b.dataset.go] = b;
  let current = 0;
  const idsIn = (jobs, state) => Object.keys(jobs).filter((id) => jobs[id] === state);
  const text = (m) => m.job + ': ' + (m.from === null ? '(new)' : m.from) + ' \\u2192 ' + m.to;
  function show(i) {
    current = Math.max(0, Math.min(steps.length - 1, i));
    const s = steps[current];
    const atVerdict = s.diverging;
    const implJobs = atVerdict ? data.verdict.implJobs : {};
    rows.forEach((r, k) => {
      r.classList.toggle('current', k === current);
      if (k === current) r.setAttribute('aria-current', 'step');
      else r.removeAttribute('aria-current');
    });
    for (const g of root.querySelectorAll('g.state')) {
      const state = g.getAttribute('data-state');
      const mine = idsIn(s.jobs, state);
      const theirs = idsIn(implJobs, state).filter((id) => s.jobs[id] !== state);
      g.classList.toggle('lit', mine.length > 0);
      g.classList.toggle('impl-lit', theirs.length > 0);
      const t = g.querySelector('text.jobs');
      t.textContent = '';
      if (mine.length > 0) {
        const m = document.createElementNS(svgNS, 'tspan');
        m.setAttribute('class', 'model-jobs');
        m.textContent = mine.join(' ');
        t.appendChild(m);
      }
      if (theirs.length > 0) {
        const m = document.createElementNS(svgNS, 'tspan');
        m.setAttribute('class', 'impl-jobs');
        m.textContent = (mine.length > 0 ? ' ' : '') + 'impl: ' + theirs.join(' ');
        t.appendChild(m);
      }
      g.setAttribute('data-jobs', mine.join(' '));
      g.setAttribute('data-impl-jobs', theirs.join(' '));
    }
    const taken = new Set(s.moves.map((m) => m.transition));
    for (const g of root.querySelectorAll('g.edge, g.edge-label')) {
      const on = taken.has(g.getAttribute('data-transition'));
      g.classList.toggle('taken', on);
    }
    const implied = new Set(atVerdict ? data.verdict.implied.filter((m) => m.from !== null).map((m) => m.from + '->' + m.to) : []);
    for (const g of root.querySelectorAll('g.extra-edge')) g.classList.toggle('shown', implied.has(g.getAttribute('data-extra')));
    where.textContent = 'Step ' + s.index + ' of ' + steps.length + (atVerdict ? ' \\u2014 diverges' : '');
    const lines = [];
    lines.push(s.moves.length === 0 ? 'The model moved no job.' : 'The model moved ' + s.moves.map(text).join(', ') + '.');
    if (atVerdict && data.verdict.implied.length > 0) lines.push('The implementation\\u2019s answer implies ' + data.verdict.implied.map(text).join(', ') + '.');
    moves.textContent = lines.join(' ');
    command.textContent = s.command;
    buttons.first.disabled = buttons.prev.disabled = current === 0;
    buttons.last.disabled = buttons.next.disabled = current === steps.length - 1;
    root.setAttribute('data-current', String(s.index));
  }
  const go = { first: () => show(0), prev: () => show(current - 1), next: () => show(current + 1), last: () => show(steps.length - 1) };
  for (const name of Object.keys(buttons)) buttons[name].addEventListener('click', () => go[name]());
  rows.forEach((r, k) => {
    r.addEventListener('click', (e) => { if (e.target.closest('a') === null) show(k); });
    r.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); show(k); } });
  });
  const keys = { ArrowRight: go.next, j: go.next, ArrowLeft: go.prev, k: go.prev, Home: go.first, End: go.last };
  // Keys work while the focus is in the section, or nowhere (the page just opened).
  document.addEventListener('keydown', (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || e.defaultPrevented) return;
    const at = document.activeElement;
    if (at !== null && at !== document.body && !root.contains(at)) return;
    const f = keys[e.key];
    if (f === undefined) return;
    e.preventDefault();
    f();
    const row = rows[current];
    if (row !== undefined && root.contains(document.activeElement) && document.activeElement.tagName === 'TR') row.focus();
  });
  show(Math.max(0, steps.findIndex((s) => s.diverging)));
})();`;
