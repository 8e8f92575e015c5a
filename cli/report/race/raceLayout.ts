/**
 * The layout check of the race section, run in a browser on a rendered page: what a person would
 * see cut, covered or pushed out at the page's width. The browser test asserts it on every
 * request's details, and the screenshot refuses a page it finds a problem on.
 */

/**
 * What is wrong with the section's layout, one sentence a problem: the page wider than the
 * viewport, a label, tick or bar outside its lane or on top of another text, or any other element
 * of the section whose content is wider than its box. Kept as source text: the project's types
 * describe Node, not the DOM.
 */
export const RACE_LAYOUT_PROBLEMS = `(() => {
  const root = document.getElementById('race');
  const problems = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > doc.clientWidth) problems.push('the page is ' + doc.scrollWidth + ' px wide, the viewport ' + doc.clientWidth);
  const name = (e) => e.tagName.toLowerCase() + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\\s+/).join('.') : '') + (e.dataset.id ? '#' + e.dataset.id : '') + ' "' + (e.textContent || '').slice(0, 40) + '"';
  const box = (e) => e.getBoundingClientRect();
  const overlap = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
  for (const track of root.querySelectorAll('.rtrack')) {
    const t = box(track);
    const texts = [...track.querySelectorAll('.rlabel, .rtick, .rroundlabel, .rbarid.rfits')];
    for (const e of [...texts, ...track.querySelectorAll('button.rreq')]) {
      const b = box(e);
      if (b.left < t.left - 0.5 || b.right > t.right + 0.5 || b.bottom > t.bottom + 0.5 || b.top < t.top - 0.5)
        problems.push(name(e) + ' is outside its lane: ' + Math.round(b.left) + '..' + Math.round(b.right) + ' x ' + Math.round(b.top) + '..' + Math.round(b.bottom) + ' of ' + Math.round(t.left) + '..' + Math.round(t.right) + ' x ' + Math.round(t.top) + '..' + Math.round(t.bottom));
      if (e.scrollWidth > e.clientWidth + 1 && !e.matches('button')) problems.push(name(e) + ' is cut: ' + e.scrollWidth + ' > ' + e.clientWidth);
    }
    texts.forEach((a, i) => {
      for (const b of texts.slice(i + 1)) if (overlap(box(a), box(b))) problems.push(name(a) + ' overlaps ' + name(b));
      for (const bar of track.querySelectorAll('button.rreq'))
        if (!bar.contains(a) && overlap(box(a), box(bar))) problems.push(name(a) + ' covers the bar ' + name(bar));
    });
  }
  for (const e of root.querySelectorAll('*')) {
    if (e.closest('.rtrack') !== null) continue;
    const style = getComputedStyle(e);
    if (style.display === 'inline' || style.display === 'none') continue;
    if (e.scrollWidth > e.clientWidth + 1) problems.push(name(e) + ' is cut: its content is ' + e.scrollWidth + ' px wide in ' + e.clientWidth);
    if (box(e).right > doc.clientWidth + 0.5) problems.push(name(e) + ' passes the viewport: ' + Math.round(box(e).right));
  }
  return problems;
})()`;
