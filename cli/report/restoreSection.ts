/**
 * The page section of a failure of kind `restore`: a snapshot no store could have written that the
 * implementation took (or refused with another code, or refused while changing its store), or the
 * valid snapshot the restore phase starts from, which it did not restore as it is. The story is
 * told as the terminal tells it, in a `<pre>` that wraps its long lines, with the request that
 * repeats it by hand.
 */
import { htmlText, terminalBlock } from '../../conformance/outside/outsideText.ts';
import { renderCheckFailure } from '../../conformance/check/index.ts';
import type { RestoreFailure } from '../../conformance/check/index.ts';
import type { PageSection } from './section.ts';

/** The id of the section in the page. */
export const RESTORE_SECTION_ID = 'restore-story';

const CSS = `
#${RESTORE_SECTION_ID} h2{font-size:1.3rem;margin:0 0 .6rem;padding-bottom:.3rem;border-bottom:1px solid #d1d9e0}
#${RESTORE_SECTION_ID} p{margin:.3rem 0 .6rem;overflow-wrap:anywhere}
#${RESTORE_SECTION_ID} pre{margin:0;padding:.75rem 1rem;background:#f6f8fa;border:1px solid #d1d9e0;border-radius:6px;white-space:pre-wrap;overflow-wrap:anywhere;line-height:1.4}
`;

/** The section telling the restore phase's story. Pure. */
export function restoreSection(failure: RestoreFailure): PageSection {
  const story = terminalBlock(renderCheckFailure(failure))
    .split('\n')
    .map((line) => htmlText(line))
    .join('\n');
  const offered = failure.restore.outcomes.length;
  const wrong = failure.restore.outcomes.filter((o) => !o.ok).length;
  const tally =
    failure.outcome === null
      ? 'The valid snapshot the phase starts from was not restored as it is, so no invalid one was offered.'
      : `Of the ${offered} invalid snapshots offered, ${wrong} ${wrong === 1 ? 'was' : 'were'} not refused as the contract says (each must be refused with <code>invalid_snapshot</code>, the store left as it was); the first is told here.`;
  return {
    id: RESTORE_SECTION_ID,
    title: 'The restore story',
    html: `<section id="${RESTORE_SECTION_ID}"><h2>The restore story (${htmlText(failure.name)}, ${failure.steps} steps)</h2>
<p>${tally} Section 10 of the contract (<code>docs/contract.md</code>, “Restore and restart”) lists what a restore refuses.</p>
<pre tabindex="0">${story}</pre></section>`,
    css: CSS,
    script: '',
  };
}
