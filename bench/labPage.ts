/**
 * `npx tsx bench/labPage.ts [FILE...]`: the lab page's size (bytes, and gzip at level 9) and its
 * time to first interaction in headless Chromium at 1280×800: from navigation start (the page
 * opened from file://) to the first control being usable (the story's first command shown and the
 * Step button enabled, read by polling on every animation frame), median of 5 loads in one browser.
 * Without FILE it writes the page `jobcheck lab` writes and measures that. Prints one line per file.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { labDocument } from '../cli/report/lab/labDocument.ts';
import { writeOutput } from '../cli/outputs.ts';
import { withChromiumPage } from '../docs/tools/chromium.ts';

const LOADS = 5;

/** Milliseconds from navigation start until the lab's first control is usable, as the page itself measures. */
const READY = `new Promise((done) => {
  const usable = () => {
    const step = document.getElementById('lab-step');
    const command = document.getElementById('lab-command');
    return step !== null && !step.disabled && command !== null && command.textContent !== '';
  };
  const poll = () => (usable() ? done(performance.now()) : requestAnimationFrame(poll));
  poll();
})`;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
};

const dir = mkdtempSync(join(tmpdir(), 'jobcheck-lab-bench-'));
try {
  let files = process.argv.slice(2).map((f) => resolve(f));
  if (files.length === 0) {
    const file = join(dir, 'lab.html');
    await writeOutput('bench', 'the page', file, (await labDocument()).html);
    files = [file];
  }
  for (const file of files) {
    const html = readFileSync(file);
    const { result } = await withChromiumPage({ width: 1280, height: 800, timeoutMs: 120_000 }, async (page) => {
      // Opened as a file, as a learner opens it: file URLs pass, anything else is refused.
      await page.context().unroute('**/*');
      await page.context().route(
        (url) => url.protocol !== 'file:',
        (route) => route.abort(),
      );
      const times: number[] = [];
      for (let i = 0; i < LOADS; i++) {
        await page.goto(`${pathToFileURL(file).href}?load=${i}`, { waitUntil: 'commit' });
        times.push((await page.evaluate(READY)) as number);
      }
      return times;
    });
    const t = result.map((x) => x.toFixed(0)).join(', ');
    process.stdout.write(
      `${file}: ${html.length} bytes, gzip ${gzipSync(html, { level: 9 }).length} bytes; first interaction ${median(result).toFixed(0)} ms (median of ${LOADS}: ${t})\n`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
