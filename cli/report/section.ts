/**
 * A part of a report page: an HTML fragment with the styles and the small script that belong to
 * it. The page (cli/report/page.ts) puts the sections of a run one after the other into one
 * self-contained file: no network, no CDN, every script inline, so that it works from `file://`
 * and as a CI artifact.
 *
 * A section scopes its styles under its own id, and its script (plain ES2020, no imports, no
 * globals but its own) runs once the document is parsed; it finds its data in a
 * `<script type="application/json">` element of its fragment, never by reading the page's text.
 */
export interface PageSection {
  /** The id of the section's outer element, unique in the page; its styles are scoped under `#id`. */
  readonly id: string;
  /** The heading the page's table of contents shows for it. */
  readonly title: string;
  /** The fragment: one outer element with `id`. */
  readonly html: string;
  /** Style rules, each under `#id`. */
  readonly css: string;
  /** The section's script, or '' when it has none. */
  readonly script: string;
}
