/**
 * The race section's script, as source text (plain ES2020, no imports, no globals: it runs inside
 * a function once the page is parsed). It lays out the labels so that none is cut or covered,
 * and makes the requests a thing to move through:
 * - hover a bar (or its label) to see its details; leave it and the selected one comes back;
 * - click, Tab to, or press Enter on a bar to select it; the arrow keys move to the request sent
 *   before or after (Home and End to the first and last); a row's id in the list selects too.
 *
 * Layout: a label that fits inside its bar is written there; any other goes under its lane, on
 * the first line where it overlaps no other label, moved left if it would pass the lane's right
 * end. The lane grows to hold its lines. It runs again when the chart's width changes.
 */

/** The script. */
export const RACE_SCRIPT = `(() => {
  const root = document.getElementById(%ID%);
  if (root === null) return;
  const data = JSON.parse(root.querySelector('script.rdata').textContent);
  // In the order the requests were sent (the page lists them lane by lane): the arrows follow it.
  const bars = data.ids.map((id) => root.querySelector('#race-req-' + id)).filter((b) => b !== null);
  const panel = root.querySelector('.rpanel');
  let selected = data.initial === null ? null : String(data.initial);

  const show = (id) => {
    for (const d of root.querySelectorAll('.rdetail')) d.hidden = d.dataset.id !== id;
    for (const b of bars) b.classList.toggle('rshown', b.dataset.id === id);
    for (const row of root.querySelectorAll('tr[data-id]')) row.classList.toggle('rshown', row.dataset.id === id);
    const detail = id === null ? null : root.querySelector('#race-detail-' + id);
    panel.dataset.shown = id === null ? '' : id;
    panel.dataset.place = detail === null ? '' : detail.dataset.place;
  };
  const select = (id) => {
    selected = id;
    for (const b of bars) {
      const on = b.dataset.id === id;
      b.classList.toggle('rselected', on);
      b.setAttribute('aria-pressed', on ? 'true' : 'false');
    }
    show(id);
  };
  const barOf = (id) => bars.find((b) => b.dataset.id === id);

  for (const b of bars) {
    b.addEventListener('mouseenter', () => show(b.dataset.id));
    b.addEventListener('mouseleave', () => show(selected));
    b.addEventListener('focus', () => select(b.dataset.id));
    b.addEventListener('click', () => select(b.dataset.id));
    b.addEventListener('keydown', (e) => {
      const i = bars.indexOf(b);
      const to = { ArrowRight: i + 1, ArrowDown: i + 1, ArrowLeft: i - 1, ArrowUp: i - 1, Home: 0, End: bars.length - 1 }[e.key];
      if (to === undefined) return;
      e.preventDefault();
      const next = bars[Math.max(0, Math.min(bars.length - 1, to))];
      next.focus();
    });
  }
  for (const a of root.querySelectorAll('a[data-select]')) {
    a.addEventListener('click', (e) => {
      e.preventDefault();
      const bar = barOf(a.dataset.select);
      if (bar === undefined) return;
      bar.scrollIntoView({ block: 'nearest' });
      bar.focus();
    });
  }

  const GAP = 10;
  const pack = (items, width, place) => {
    const lines = [];
    for (const { el, left, w } of items) {
      // A pixel to spare: widths are fractional, and a label must end inside its lane.
      const x = Math.max(0, Math.min(left, width - w - 1));
      let line = lines.findIndex((right) => right + GAP <= x);
      if (line < 0) {
        line = lines.length;
        lines.push(0);
      }
      lines[line] = x + w;
      place(el, x, line);
    }
    return lines.length;
  };
  const layout = () => {
    for (const track of root.querySelectorAll('.rlane .rtrack')) {
      const width = track.clientWidth;
      const own = [...track.querySelectorAll('button.rreq')].sort((a, b) => a.offsetLeft - b.offsetLeft);
      const below = [];
      for (const bar of own) {
        const label = bar.querySelector('.rlabel');
        label.classList.remove('rinside');
        label.style.left = '0px';
        label.style.whiteSpace = '';
        label.style.width = '';
        const w = Math.ceil(label.getBoundingClientRect().width);
        const id = bar.querySelector('.rbarid');
        id.classList.remove('rfits');
        if (w + GAP <= bar.clientWidth) {
          label.classList.add('rinside');
          label.style.left = '4px';
          label.style.top = Math.max(0, (bar.clientHeight - label.offsetHeight) / 2) + 'px';
        } else {
          // The id inside the bar when it fits, the whole label under the lane.
          // (Its box is held inside the bar while hidden; scrollWidth is its text's width.)
          if (id.scrollWidth + 8 <= bar.clientWidth) id.classList.add('rfits');
          below.push({ el: label, left: bar.offsetLeft, w, bar });
        }
      }
      const LINE = 21;
      const fits = below.filter((b) => b.w + 1 < width);
      const lines = pack(fits, width, (label, x, line) => {
        const bar = below.find((b) => b.el === label).bar;
        label.style.left = x - bar.offsetLeft - bar.clientLeft + 'px';
        label.style.top = 30 + line * LINE + 'px';
      });
      // A label wider than the lane (a long reply from the implementation) wraps, on lines of its own.
      let extra = 0;
      for (const { el, bar } of below.filter((b) => b.w + 1 >= width)) {
        el.style.whiteSpace = 'normal';
        el.style.overflowWrap = 'anywhere';
        el.style.width = width - 1 + 'px';
        el.style.left = -bar.offsetLeft - bar.clientLeft + 'px';
        el.style.top = 30 + lines * LINE + extra + 'px';
        extra += Math.ceil(el.getBoundingClientRect().height) + 3;
      }
      track.style.height = 6 + 26 + 8 + lines * LINE + extra + 6 + 'px';
    }
    for (const track of root.querySelectorAll('.raxis .rtrack')) {
      const width = track.clientWidth;
      const place = (top) => (el, x, line) => {
        el.style.left = x + 'px';
        el.style.top = top(line) + 'px';
      };
      const items = (selector) =>
        [...track.querySelectorAll(selector)].map((el) => ({
          el,
          left: (parseFloat(el.dataset.at) / 100) * width,
          w: Math.ceil(el.getBoundingClientRect().width),
        }));
      const AXIS_LINE = 22;
      const tickLines = pack(items('.rtick'), width, place((line) => 3 + line * AXIS_LINE));
      const roundLines = pack(items('.rroundlabel'), width, place((line) => 3 + (tickLines + line) * AXIS_LINE));
      track.style.height = 3 + (tickLines + roundLines) * AXIS_LINE + 6 + 'px';
    }
  };
  layout();
  // Again when the width changes (only then: a layout changes the chart's height, not its width).
  const chart = root.querySelector('.rchart');
  let laidOut = chart.clientWidth;
  if (typeof ResizeObserver === 'function')
    new ResizeObserver(() => {
      if (chart.clientWidth === laidOut) return;
      laidOut = chart.clientWidth;
      layout();
    }).observe(chart);
  select(selected);
})();`;

/** The script for the section with this id. Pure. */
export function raceScript(id: string): string {
  return RACE_SCRIPT.replace('%ID%', JSON.stringify(id));
}
