/**
 * The run page's shell (cli/report/page.ts) as docs/images/ shows it: the header of a run that
 * agrees, with the implementation's stderr beside it, and of a run that could not start. The
 * pages are built from fixed inputs, so the pictures change only when the page does; the failure
 * sections have pictures of their own.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { reportPage } from '../../cli/report/page.ts';
import type { ReportPageInput } from '../../cli/report/page.ts';
import { withChromiumPage } from './chromium.ts';

/** The viewport of the pictures. */
export const RUN_PAGE_VIEWPORT = { width: 1280, height: 800 } as const;

const IMPL = 'python3 examples/python/jobstore.py';
const LINKS = [
  { href: 'coverage.html', label: 'the coverage page' },
  { href: 'coverage.md', label: 'its summary' },
  { href: 'run.json', label: 'this run, as jobcheck report --list reads it' },
];

/** The inputs of the pictured pages, by file name under docs/images/. */
export const RUN_PAGE_SAMPLES: Readonly<Record<string, ReportPageInput>> = {
  'run-page-agree.png': {
    verdict: 'agree',
    headline: 'The implementation agrees with the model in everything the check ran (4.2 s).',
    version: '0.1.0',
    time: '2026-12-02T05:30:12.345Z',
    durationMs: 4210,
    command: `jobcheck check --impl '${IMPL}' --seed 1 --runs 300`,
    target: IMPL,
    seed: 1,
    stderr: {
      href: 'stderr.txt',
      lines: 5,
      bytesDropped: 0,
      tail: [
        '[impl 4242] jobstore: listening on stdin (jobcheck/1)',
        '[impl 4243] jobstore: listening on stdin (jobcheck/1)',
        '[impl 4242] warning: snapshot of 3 jobs took 12 ms',
        '[impl 4244] jobstore: listening on stdin (jobcheck/1)',
        '[impl 4243] jobstore: stdin closed, exiting',
      ],
    },
    links: LINKS,
    sections: [],
  },
  'run-page-error.png': {
    verdict: 'error',
    headline: `The check could not run: cannot start the implementation ${IMPL}: the process exited with code 1 before it answered hello.`,
    version: '0.1.0',
    time: '2026-12-02T05:31:40.002Z',
    durationMs: 310,
    command: `jobcheck check --impl '${IMPL}'`,
    target: IMPL,
    seed: -1804289383,
    stderr: {
      href: 'stderr.txt',
      lines: 4,
      bytesDropped: 0,
      tail: [
        '[impl 5150] Traceback (most recent call last):',
        '[impl 5150]   File "examples/python/jobstore.py", line 12, in <module>',
        '[impl 5150]     import jobstore_config',
        "[impl 5150] ModuleNotFoundError: No module named 'jobstore_config'",
      ],
    },
    links: [{ href: 'run.json', label: 'this run, as jobcheck report --list reads it' }],
    sections: [],
  },
};

/** Loads a page's HTML into `page` and takes a picture of the viewport. */
async function picture(page: Page, html: string): Promise<Buffer> {
  await page.setContent(html, { waitUntil: 'load' });
  return page.screenshot({ fullPage: false, animations: 'disabled' });
}

/** Renders each sample page at 1280×800 in one browser session and writes its PNG into `dir`; returns the files written. */
export async function runPageScreenshots(dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const { result } = await withChromiumPage(RUN_PAGE_VIEWPORT, async (page) => {
    const shots = new Map<string, Buffer>();
    for (const [name, input] of Object.entries(RUN_PAGE_SAMPLES))
      shots.set(name, await picture(page, reportPage(input)));
    return shots;
  });
  const written: string[] = [];
  for (const [name, png] of result) {
    await writeFile(join(dir, name), png);
    written.push(join(dir, name));
  }
  return written;
}
