/**
 * The page of one run, `index.html` in its run folder: what a person opening a red CI job's
 * artifact sees first. A header says the verdict in a word, a symbol and a colour (the word
 * carries it; the colour only repeats it), then the commands that repeat a failure (reproduce,
 * replay), then which jobcheck ran what, when, on which target with which seed, and links to the
 * coverage page and the files beside it; then the sections of the failure (the story, the race),
 * which lead with what differed; then what each phase of the check ran, as the terminal summary
 * says it (a phase that exercised nothing marked NOT EXERCISED); then the implementation's last
 * stderr lines with a link to all of it. A table of contents beside them links each part.
 *
 * The page is one self-contained file that works from `file://`: no network, no CDN, every style
 * and script inline. Each section brings its own scoped styles and script (cli/report/section.ts);
 * the page only puts them in order. Everything that comes from outside (the command line, the
 * target, stderr) is escaped, and a section's script or style cannot end its element early.
 */
import { htmlText } from '../../conformance/outside/outsideText.ts';
import type { PageSection } from './section.ts';

/**
 * The verdicts a run page shows: a check's three, `error` (a check that could not run) and
 * `interrupted` (ended from outside before it had a verdict).
 */
export type PageVerdict = 'agree' | 'diverge' | 'incomplete' | 'error' | 'interrupted';

/** A file of the run folder the page links to. */
export interface PageLink {
  /** The file's path relative to the page (`coverage.html`). */
  readonly href: string;
  /** What it is, in a few words (`coverage page: the lifecycle diagram by hits`). */
  readonly label: string;
}

/** The implementation's stderr as the page shows it. */
export interface PageStderr {
  /** The file holding it, relative to the page (`stderr.txt`). */
  readonly href: string;
  /** Its last lines, oldest first. */
  readonly tail: readonly string[];
  /** Lines in all. */
  readonly lines: number;
  /** Bytes the file left out past its cap. */
  readonly bytesDropped: number;
}

/**
 * The commands that repeat a failure, as the check's outcome gives them (cli/output/reproduce.ts):
 * never read back out of a story's text.
 */
export interface PageRepeat {
  /** The command that repeats the shrunk run (`--path`, `--concurrent-path`). */
  readonly reproduce?: string;
  /** The command that replays the failure artifact. */
  readonly replay?: string;
  /** Where neither is known (a fixture story, a path): the same check again, with its seed. */
  readonly again?: string;
}

/** What a run page shows. */
export interface ReportPageInput {
  readonly verdict: PageVerdict;
  /** One sentence after the verdict: how long the check took, where the story comes from, why it stopped. */
  readonly headline: string;
  /** The jobcheck version (package.json). */
  readonly version: string;
  /** When the run started, ISO 8601. */
  readonly time: string;
  readonly durationMs: number;
  /** The command line, quoted. */
  readonly command: string;
  readonly target: string;
  readonly seed: number;
  /** The commands that repeat the failure, shown first under the verdict. */
  readonly repeat?: PageRepeat;
  /** The implementation's stderr, when it ran in processes of its own and wrote any. */
  readonly stderr?: PageStderr;
  /** The files beside the page, in the order shown. */
  readonly links: readonly PageLink[];
  /** The sections of the failure, in order. */
  readonly sections: readonly PageSection[];
  /** Each phase of the check and what it ran and found, as [name, words] (the terminal summary's lines); none for a run that could not start. */
  readonly phases?: readonly (readonly [string, string])[];
}

const VERDICTS: Record<PageVerdict, { readonly word: string; readonly symbol: string }> = {
  agree: { word: 'AGREE', symbol: '✓' },
  diverge: { word: 'DIVERGE', symbol: '✗' },
  incomplete: { word: 'INCOMPLETE', symbol: '◔' },
  error: { word: 'ERROR', symbol: '!' },
  interrupted: { word: 'INTERRUPTED', symbol: '■' },
};

/**
 * A command line escaped for HTML, each word of up to 40 characters kept on one line (a browser
 * would break `--report` after its first hyphen), longer ones left to break anywhere. Pure.
 */
const words = (text: string): string =>
  htmlText(text)
    .split(/( +)/)
    .map((w) => (w.trim() !== '' && w.length <= 40 ? `<span class="w">${w}</span>` : w))
    .join('');

/** A script or style body that cannot close its element early. Pure. */
const inert = (text: string, tag: 'script' | 'style'): string => text.replace(new RegExp(`</(${tag})`, 'gi'), '<\\/$1');

/** `1.2 s`, `3 min 5 s`. Pure. */
export function durationText(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** `2026-12-02 05:30:12 UTC`. Pure. */
const timeText = (iso: string): string => iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC');

const PAGE_CSS = `
:root{--ink:#1f2328;--muted:#59636e;--line:#d1d9e0;--soft:#f6f8fa;--agree:#1a7f37;--agree-bg:#dafbe1;--diverge:#cf222e;--diverge-bg:#ffebe9;--incomplete:#9a6700;--incomplete-bg:#fff8c5;--error:#8250df;--error-bg:#fbefff;--interrupted:#59636e;--interrupted-bg:#eaeef2;--link:#0969da}
*{box-sizing:border-box}
html{font-size:16px}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);line-height:1.5;background:#fff}
a{color:var(--link)}
a:focus-visible,button:focus-visible,[tabindex]:focus-visible{outline:3px solid var(--link);outline-offset:2px;border-radius:3px}
.skip{position:absolute;left:-9999px}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.3rem .6rem;z-index:10}
.layout{display:grid;grid-template-columns:15rem minmax(0,1fr);gap:2rem;max-width:1400px;margin:0 auto;padding:1rem 2rem 3rem}
nav.toc{position:sticky;top:1rem;align-self:start;font-size:.9rem;min-width:0}
nav.toc h2{font-size:.8rem;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:0 0 .5rem}
nav.toc ol{list-style:none;margin:0;padding:0;border-left:2px solid var(--line)}
nav.toc li a{display:block;padding:.25rem .75rem;text-decoration:none;color:var(--ink);overflow-wrap:anywhere}
nav.toc li a:hover{background:var(--soft)}
main{min-width:0}
header.run{border:1px solid var(--line);border-radius:8px;overflow:hidden}
.verdict{display:flex;align-items:center;gap:1rem;padding:.6rem 1.25rem;border-left:10px solid}
.verdict .symbol{font-size:2.1rem;line-height:1;font-weight:700}
.verdict .word{font-size:1.6rem;font-weight:800;letter-spacing:.04em;margin:0;line-height:1.1}
.verdict .meaning{margin:.2rem 0 0;color:var(--ink);overflow-wrap:anywhere}
.verdict.agree{border-color:var(--agree);background:var(--agree-bg)}.verdict.agree .symbol,.verdict.agree .word{color:var(--agree)}
.verdict.diverge{border-color:var(--diverge);background:var(--diverge-bg)}.verdict.diverge .symbol,.verdict.diverge .word{color:var(--diverge)}
.verdict.incomplete{border-color:var(--incomplete);background:var(--incomplete-bg)}.verdict.incomplete .symbol,.verdict.incomplete .word{color:var(--incomplete)}
.verdict.error{border-color:var(--error);background:var(--error-bg)}.verdict.error .symbol,.verdict.error .word{color:var(--error)}
.verdict.interrupted{border-color:var(--interrupted);background:var(--interrupted-bg)}.verdict.interrupted .symbol,.verdict.interrupted .word{color:var(--interrupted)}
dl.repeat{display:grid;grid-template-columns:max-content minmax(0,1fr);align-items:baseline;gap:.3rem 1rem;margin:0;padding:.5rem 1.25rem;border-bottom:1px solid var(--line);background:var(--soft)}
dl.repeat dt{font-weight:700}
dl.repeat dd{margin:0;min-width:0}
dl.repeat dd code{display:block;background:#fff;border:1px solid var(--line);padding:.1rem .45rem;font-size:.85rem}
dl.facts{display:grid;grid-template-columns:max-content minmax(0,1fr) max-content minmax(0,1fr);gap:.1rem 1.25rem;margin:0;padding:.5rem 1.25rem;font-size:.875rem}
dl.facts dt{color:var(--muted);font-weight:600}
dl.facts dt.wide{grid-column:1}
dl.facts dd{margin:0;min-width:0;overflow-wrap:anywhere}
dl.facts dd.wide{grid-column:2/-1}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.875rem}
dd code{background:var(--soft);padding:.1rem .35rem;border-radius:4px;white-space:pre-wrap;overflow-wrap:anywhere}
dd code .w{white-space:nowrap}
main>*+*{margin-top:1.5rem}
ul.files{display:flex;flex-wrap:wrap;gap:.2rem 1.25rem;margin:0;padding:0;list-style:none}ul.files li{overflow-wrap:anywhere}
ul.files .what,.note{color:var(--muted)}
section.stderr{min-width:0}section.stderr h2{font-size:1.1rem;margin:0}
pre.stderr{margin:.5rem 0 0;max-height:18rem;overflow-y:auto;padding:.75rem 1rem;background:#0d1117;color:#e6edf3;border-radius:6px;white-space:pre-wrap;overflow-wrap:anywhere;max-width:100%}
p.note{color:var(--muted);margin:.3rem 0;overflow-wrap:anywhere}
footer{margin-top:3rem;color:var(--muted);font-size:.85rem}
section.phases h2{font-size:1.3rem;margin:0 0 .6rem;padding-bottom:.3rem;border-bottom:1px solid var(--line)}
section.phases dl{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.3rem 1.25rem;margin:0;font-size:.95rem}
section.phases dt{color:var(--muted);font-weight:600}section.phases dd{margin:0;min-width:0;overflow-wrap:anywhere}
section.phases dd.not-exercised{font-weight:600;color:var(--incomplete)}
@media (max-width:900px){.layout{grid-template-columns:minmax(0,1fr)}nav.toc{position:static}dl.facts{grid-template-columns:max-content minmax(0,1fr)}dl.facts dd.wide{grid-column:auto}}
`;

function headerHtml(input: ReportPageInput): string {
  const v = VERDICTS[input.verdict];
  return `<header class="run" id="summary">
<div class="verdict ${input.verdict}" role="status" data-verdict="${input.verdict}">
<span class="symbol" aria-hidden="true">${v.symbol}</span>
<div><p class="word">${v.word}</p><p class="meaning">${htmlText(input.headline)}</p></div>
</div>
${repeatHtml(input.repeat)}<dl class="facts">
<dt>Started</dt><dd data-fact="time"><time datetime="${htmlText(input.time)}">${htmlText(timeText(input.time))}</time>, took ${htmlText(durationText(input.durationMs))}</dd>
<dt>Seed</dt><dd data-fact="seed"><code>${input.seed}</code></dd>
<dt>Target</dt><dd data-fact="target"><code>${words(input.target)}</code></dd>
<dt>jobcheck</dt><dd data-fact="version">${htmlText(input.version)}</dd>
<dt class="wide">Command</dt><dd class="wide" data-fact="command"><code>${words(input.command)}</code></dd>
<dt class="wide">Files</dt><dd class="wide" data-fact="files">${filesHtml(input.links)}</dd>
<dt class="wide">stderr</dt><dd class="wide" data-fact="stderr">${stderrFact(input.stderr)}</dd>
</dl>
</header>`;
}

/** The commands that repeat the failure, one a line, each as the check's outcome gave it. */
function repeatHtml(repeat: PageRepeat | undefined): string {
  if (repeat === undefined) return '';
  const lines: Array<[string, string, string | undefined]> = [
    ['reproduce', 'Reproduce', repeat.reproduce],
    ['replay', 'Replay', repeat.replay],
    ['again', 'Run again', repeat.reproduce === undefined ? repeat.again : undefined],
  ];
  const shown = lines.filter((l): l is [string, string, string] => l[2] !== undefined);
  if (shown.length === 0) return '';
  return `<dl class="repeat" aria-label="the commands that repeat it">
${shown
  .map(([key, label, command]) => `<dt>${label}</dt><dd data-repeat="${key}"><code>${words(command)}</code></dd>`)
  .join('\n')}
</dl>
`;
}

function stderrFact(stderr: PageStderr | undefined): string {
  if (stderr === undefined)
    return '<span class="note">none: the implementation ran inside jobcheck, or its processes wrote nothing on stderr</span>';
  const dropped = stderr.bytesDropped > 0 ? `, and ${stderr.bytesDropped} bytes dropped past the file's cap` : '';
  return `${stderr.lines} line${stderr.lines === 1 ? '' : 's'} in <a href="${htmlText(stderr.href)}">${htmlText(stderr.href)}</a>${dropped}; <a href="#stderr">the last ones below</a>`;
}

function stderrHtml(stderr: PageStderr | undefined): string {
  if (stderr === undefined) return '';
  const shown = stderr.tail.length;
  const of =
    stderr.lines > shown
      ? `The last ${shown} of ${stderr.lines} lines`
      : `All ${stderr.lines} line${stderr.lines === 1 ? '' : 's'}`;
  return `<section class="stderr" id="stderr" aria-labelledby="stderr-title"><h2 id="stderr-title">The implementation's stderr</h2>
<p class="note">${of}, each after the process that wrote it: <code>impl &lt;pid&gt;</code> a process of the sequential phases, <code>workers &lt;pid&gt;</code> the competing workers', <code>module</code> a module's.</p>
<pre class="stderr" tabindex="0" aria-label="the last lines of the implementation's stderr">${stderr.tail.map((line) => htmlText(line)).join('\n')}</pre></section>`;
}

function filesHtml(links: readonly PageLink[]): string {
  const items = links.map(
    (l) =>
      `<li><a href="${htmlText(l.href)}">${htmlText(l.href)}</a> <span class="what">(${htmlText(l.label)})</span></li>`,
  );
  return `<ul class="files">${items.join('\n')}</ul>`;
}

/** What each phase ran, after the failure's sections; empty without phases. Pure. */
function phasesHtml(phases: ReportPageInput['phases']): string {
  if (phases === undefined || phases.length === 0) return '';
  const rows = phases.map(([name, words]) => {
    const idle = words.includes('NOT EXERCISED') ? ' class="not-exercised"' : '';
    return `<dt>${htmlText(name.trim())}</dt><dd${idle}>${htmlText(words)}</dd>`;
  });
  return `<section class="phases" id="phases"><h2>What the check ran</h2>
<dl>
${rows.join('\n')}
</dl>
<p class="note">Each phase as the terminal summary says it. A phase marked NOT EXERCISED ran but could not have failed: it is not a pass, and the verdict says so.</p></section>`;
}

/**
 * The whole page of a run: the header (verdict, the commands that repeat it, facts, files), the
 * failure's sections in order, the implementation's stderr, and a table of contents linking each.
 * Pure: it reads and writes nothing.
 */
export function reportPage(input: ReportPageInput): string {
  const v = VERDICTS[input.verdict];
  const toc: Array<{ id: string; title: string }> = [
    { id: 'summary', title: `Verdict: ${v.word}` },
    ...input.sections.map((s) => ({ id: s.id, title: s.title })),
    ...(input.phases === undefined || input.phases.length === 0 ? [] : [{ id: 'phases', title: 'What the check ran' }]),
    ...(input.stderr === undefined ? [] : [{ id: 'stderr', title: "The implementation's stderr" }]),
  ];
  const nav = toc.map((t) => `<li><a href="#${htmlText(t.id)}">${htmlText(t.title)}</a></li>`).join('\n');
  const css = inert([PAGE_CSS, ...input.sections.map((s) => s.css)].join('\n'), 'style');
  const scripts = input.sections
    .filter((s) => s.script !== '')
    .map((s) => `<script data-section="${htmlText(s.id)}">\n${inert(s.script, 'script')}\n</script>`)
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${v.symbol} ${v.word}: ${htmlText(input.target)} (jobcheck, ${htmlText(timeText(input.time))})</title>
<style>${css}</style></head><body>
<a class="skip" href="#main">Skip to the report</a>
<div class="layout">
<nav class="toc" aria-label="Contents"><h2>Contents</h2><ol>
${nav}
</ol></nav>
<main id="main" tabindex="-1">
${headerHtml(input)}
${input.sections.map((s) => s.html).join('\n')}
${phasesHtml(input.phases)}
${stderrHtml(input.stderr)}
<footer>Written by jobcheck ${htmlText(input.version)}: one file, no network; open it from the run's folder so that its links reach the files beside it.</footer>
</main>
</div>
${scripts}
</body></html>
`;
}
