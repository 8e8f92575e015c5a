/**
 * The lab's page: one self-contained HTML file that works from `file://` and offline. The model
 * bundle (labBundle.ts) and the section's script are inline, the diagram is inline SVG, the
 * stories are a JSON element; nothing is fetched. The bundle is made safe inside `<script>` by
 * escaping every `</script` in it (as `<\/script`, which means the same in a JavaScript string,
 * template or regular expression, the only places it can occur in code).
 */
import type { PageSection } from '../section.ts';

/** What the page is made of. */
export interface LabPageInput {
  readonly section: PageSection;
  /** The model bundle's code (an IIFE defining the global `JobcheckLab`). */
  readonly bundle: string;
  /** The jobcheck version, shown in the footer. */
  readonly version: string;
}

const inlineScript = (code: string): string => code.replace(/<\/(script)/gi, '<\\/$1');

/** The whole page as HTML. Pure. */
export function labPage(input: LabPageInput): string {
  const { section } = input;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>jobcheck lab</title>
<style>
html { background:#f7f8fa; }
body { margin:0; }
footer.lab-foot { max-width:1280px; margin:0 auto; padding:0 24px 24px; color:#5b6472; font:13px/1.4 system-ui, sans-serif; }
${section.css}
</style>
</head>
<body>
${section.html}
<footer class="lab-foot">jobcheck ${input.version}: the reference model runs in this page; nothing is sent anywhere.</footer>
<script>${inlineScript(input.bundle)}</script>
<script>${inlineScript(section.script)}</script>
</body>
</html>
`;
}
