/**
 * Marked regions in Markdown: text between `<!-- generated:NAME -->` and `<!-- /generated -->` is
 * owned by the generator and rewritten from the model and the fixtures; everything outside is
 * prose and is never touched. A region's NAME may carry an argument after a colon
 * (`story-quiz:normal`).
 */

/** A malformed or unknown region; the message names the document and the line. */
export class RegionError extends Error {
  override name = 'RegionError' as const;
  readonly code = 'invalid_region' as const;
}

/** One marked region: its name, its current body, and where the body sits in the text. */
export interface Region {
  readonly name: string;
  readonly body: string;
  /** Offsets of the body (between the two markers, excluding the newlines that follow/precede them). */
  readonly start: number;
  readonly end: number;
  /** 1-based line of the opening marker. */
  readonly line: number;
  /** True when the markers are on consecutive lines (no body at all). */
  readonly empty: boolean;
}

const OPEN = /<!-- generated:([a-z0-9-]+(?::[A-Za-z0-9._-]+)?) -->\n/g;
const CLOSE = '\n<!-- /generated -->';

const lineOf = (text: string, offset: number): number => text.slice(0, offset).split('\n').length;

/** Every marked region of a document, in order. Throws RegionError for an unclosed region. Pure. */
export function findRegions(text: string, doc = 'document'): Region[] {
  const regions: Region[] = [];
  for (const m of text.matchAll(OPEN)) {
    const start = (m.index ?? 0) + m[0].length;
    const end = text.indexOf(CLOSE, start - 1);
    const nextOpen = text.indexOf('<!-- generated:', start);
    if (end < 0 || (nextOpen >= 0 && nextOpen < end)) {
      throw new RegionError(
        `${doc}:${lineOf(text, m.index ?? 0)}: region ${m[1]} is not closed by <!-- /generated -->`,
      );
    }
    const empty = end < start;
    regions.push({
      name: m[1] ?? '',
      body: empty ? '' : text.slice(start, end),
      start,
      end: empty ? start : end,
      line: lineOf(text, m.index ?? 0),
      empty,
    });
  }
  return regions;
}

/**
 * The document with every region's body replaced by `render(name)` (trailing newlines trimmed).
 * When `render` returns undefined for a name it does not know, throws RegionError, or with
 * `strict: false` leaves that region as it is. Pure if `render` is.
 */
export function replaceRegions(
  text: string,
  render: (name: string) => string | undefined,
  doc = 'document',
  strict = true,
): string {
  let out = '';
  let at = 0;
  for (const r of findRegions(text, doc)) {
    const body = render(r.name);
    if (body === undefined && !strict) continue;
    if (body === undefined)
      throw new RegionError(`${doc}:${r.line}: unknown generated region ${JSON.stringify(r.name)}`);
    const rendered = body.replace(/\n+$/, '');
    out += text.slice(at, r.start) + (r.empty && rendered !== '' ? `${rendered}\n` : rendered);
    at = r.end;
  }
  return out + text.slice(at);
}
