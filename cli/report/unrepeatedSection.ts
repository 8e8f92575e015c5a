/**
 * The page section of a failure of kind `unrepeated`: a divergence the exploration saw once and
 * a second run of the same steps did not show again. There is nothing to replay or step through,
 * so the section tells the story as the exploration told it, in a `<pre>` that wraps its long
 * lines instead of clipping them, and says why it cannot be replayed.
 */
import { htmlBlock, htmlText } from '../../conformance/outside/outsideText.ts';
import type { UnrepeatedFailure } from '../../conformance/check/index.ts';
import type { PageSection } from './section.ts';

/** The id of the section in the page. */
export const UNREPEATED_SECTION_ID = 'unrepeated-story';

const CSS = `
#${UNREPEATED_SECTION_ID} h2{font-size:1.3rem;margin:0 0 .6rem;padding-bottom:.3rem;border-bottom:1px solid #d1d9e0}
#${UNREPEATED_SECTION_ID} p{margin:.3rem 0 .6rem;overflow-wrap:anywhere}
#${UNREPEATED_SECTION_ID} pre{margin:0;padding:.75rem 1rem;background:#f6f8fa;border:1px solid #d1d9e0;border-radius:6px;white-space:pre-wrap;overflow-wrap:anywhere;line-height:1.4}
`;

/** The section telling an unrepeated divergence's story. Pure. */
export function unrepeatedSection(failure: UnrepeatedFailure): PageSection {
  const story = htmlBlock(failure.story);
  return {
    id: UNREPEATED_SECTION_ID,
    title: 'The story, seen once',
    html: `<section id="${UNREPEATED_SECTION_ID}"><h2>The story, seen once (${htmlText(failure.name)}, ${failure.steps} steps)</h2>
<p>The exploration saw the implementation depart from the model here, and a second run of the same steps did not: the implementation does not always answer the same steps the same way. It is told as it was seen; there is no failure artifact to replay.</p>
<pre tabindex="0">${story}</pre></section>`,
    css: CSS,
    script: '',
  };
}
