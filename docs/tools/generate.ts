/**
 * Regenerates the generated parts of the docs: the marked regions (diagram, tables, story list,
 * story quizzes, chapter index) and the outputs of the commands quoted in ```console blocks.
 *
 *   npm run docs             rewrite docs/*.md in place
 *   npm run docs -- --check  change nothing; exit 1 and name the stale files
 *
 * The docs test calls `regenerateDoc` in memory and compares, so stale docs fail `npm test`.
 *
 * The screenshots of the coverage page (docs/images/coverage-*.png) and of the report pages (the
 * run page's header, a failure story's and a race's first screens, a race's chart, a lab step:
 * docs/images/run-page-*.png, report-failure.png, report-race.png, report-race-chart.png,
 * lab-step.png) are taken in headless Chromium on every run
 * that writes. A browser's PNG bytes are not stable across versions, so neither
 * `--check` nor the docs test compares them; the page's layout is tested from its DOM instead
 * (docs/coveragePage.test.ts, and each report page's browser test under cli/report/). The
 * pictures named *-before.png show pages as they were before a change and are not regenerated.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { lifecycleMermaid, lifecycleStatesTable, lifecycleTransitionsTable } from './lifecycleDocs.ts';
import { protocolLimitsTable } from './protocolLimits.ts';
import { PROJECT_ROOT, refreshConsoleBlocks, withoutMachineFigures } from './quotedCommands.ts';
import { findRegions, replaceRegions } from './regions.ts';
import { refreshUsageBlocks } from './usageBlocks.ts';
import { predictTranscript, storiesTable, storyQuiz } from './storyDocs.ts';
import { ChromiumUnavailableError } from './chromium.ts';
import { coverageScreenshots } from './coveragePages.ts';
import { labScreens } from './labScreens.ts';
import { raceScreens } from './raceScreens.ts';
import { runPageScreenshots } from './runPages.ts';
import { storyScreens } from './storyScreens.ts';
import { storyCoverageSvg, storyCoverageTable } from './storyCoverage.ts';
import { checkResultFieldsTable, checkResultSchemaFile } from '../../cli/checkJsonSchema.ts';

/** The report pages' screenshot takers: each writes its PNGs into the folder it is given and returns their paths. */
const REPORT_PAGE_SHOTS: readonly ((outDir: string) => Promise<string[]>)[] = [
  runPageScreenshots,
  storyScreens,
  raceScreens,
  labScreens,
];

/** Every screenshot of docs/images/ that the generator takes, by path relative to docs/. */
async function screenshots(): Promise<Map<string, Buffer>> {
  const shots = await coverageScreenshots();
  const dir = mkdtempSync(join(tmpdir(), 'jobcheck-shots-'));
  try {
    for (const take of REPORT_PAGE_SHOTS)
      for (const file of await take(dir)) shots.set(`images/${basename(file)}`, readFileSync(file));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return shots;
}

/** The docs folder. */
export const DOCS_DIR = join(PROJECT_ROOT, 'docs');

/** The Markdown files the generator owns regions in: every `docs/*.md`, sorted. */
export function docFiles(dir: string = DOCS_DIR): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.md'))
    .sort();
}

/** The numbered chapters (`NN-name.md`) with their first heading, for the index. */
export function chapterIndex(dir: string = DOCS_DIR): string {
  const lines: string[] = [];
  for (const file of docFiles(dir).filter((f) => /^\d\d-/.test(f))) {
    const heading = readFileSync(join(dir, file), 'utf8').match(/^# (.+)$/m)?.[1] ?? file;
    lines.push(`${lines.length + 1}. [${heading}](${file})`);
  }
  return lines.join('\n');
}

/** The body of one generated region, or undefined for a name the generator does not know. */
export function renderRegion(name: string, dir: string = DOCS_DIR): string | undefined {
  const [kind, arg] = name.split(':') as [string, string | undefined];
  switch (kind) {
    case 'lifecycle-diagram':
      return lifecycleMermaid();
    case 'lifecycle-states':
      return lifecycleStatesTable();
    case 'lifecycle-transitions':
      return lifecycleTransitionsTable();
    case 'stories':
      return storiesTable();
    case 'story-quiz':
      return arg === undefined ? undefined : storyQuiz(arg);
    case 'fixture-json':
      return arg === undefined
        ? undefined
        : [
            '```json',
            readFileSync(join(PROJECT_ROOT, 'model', 'fixtures', `${arg}.json`), 'utf8').trimEnd(),
            '```',
          ].join('\n');
    case 'story-coverage':
      return storyCoverageTable();
    case 'chapters':
      return chapterIndex(dir);
    case 'protocol-limits':
      return protocolLimitsTable();
    case 'check-json-fields':
      return checkResultFieldsTable();
    default:
      return undefined;
  }
}

/** Whole text files the generator owns under docs/ (images), by path relative to docs/, with their renderers. */
export const GENERATED_FILES: ReadonlyArray<{ readonly path: string; readonly render: () => Promise<string> }> = [
  { path: 'images/stories-coverage.svg', render: storyCoverageSvg },
  { path: 'check-result.schema.json', render: async () => checkResultSchemaFile() },
];

/** The marker by which a reference page asks for its ```console blocks to be run too. */
export const RUN_CONSOLE_MARKER = '<!-- jobcheck:run-console-blocks -->';

/**
 * Whether a page's ```console blocks are executed: always in the numbered chapters and the index,
 * in other pages only when they carry RUN_CONSOLE_MARKER (their examples may be illustrative).
 */
export function runsConsoleBlocks(file: string, text: string): boolean {
  const name = file.split('/').pop() ?? file;
  return /^\d\d-/.test(name) || name === 'README.md' || text.includes(RUN_CONSOLE_MARKER);
}

/**
 * A document with its regions and quoted command outputs regenerated. Runs the quoted commands
 * (the ```console slow ones only when `runSlow` is not false).
 */
export async function regenerateDoc(
  text: string,
  doc: string,
  options: { dir?: string; runSlow?: boolean } = {},
): Promise<string> {
  // Transcripts run the interactive demo, which is asynchronous: render them first, then fill in.
  const transcripts = new Map<string, string | undefined>();
  for (const r of findRegions(text, doc)) {
    if (r.name.startsWith('predict-transcript:'))
      transcripts.set(r.name, await predictTranscript(r.name.slice('predict-transcript:'.length)));
  }
  // The chapters and the index are this generator's own pages: an unknown region there is a mistake.
  // Reference pages may mark regions for other tools, which are left alone.
  const own = runsConsoleBlocks(doc, '');
  const render = (name: string): string | undefined =>
    transcripts.has(name) ? transcripts.get(name) : renderRegion(name, options.dir ?? DOCS_DIR);
  const withRegions = await refreshUsageBlocks(replaceRegions(text, render, doc, own));
  if (!runsConsoleBlocks(doc, text)) return withRegions;
  return refreshConsoleBlocks(withRegions, doc, options.runSlow === undefined ? {} : { runSlow: options.runSlow });
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
  const stale: string[] = [];
  for (const file of docFiles()) {
    const path = join(DOCS_DIR, file);
    const before = readFileSync(path, 'utf8');
    const after = await regenerateDoc(before, `docs/${file}`);
    // A rerun that differs only in measured durations is not a change worth a diff.
    if (withoutMachineFigures(after) === withoutMachineFigures(before)) continue;
    stale.push(`docs/${file}`);
    if (!values.check) writeFileSync(path, after);
  }
  for (const { path, render } of GENERATED_FILES) {
    const full = join(DOCS_DIR, path);
    const want = await render();
    if (existsSync(full) && readFileSync(full, 'utf8') === want) continue;
    stale.push(`docs/${path}`);
    if (!values.check) {
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, want);
    }
  }
  let screenshotsTaken = true;
  if (!values.check) {
    try {
      for (const [path, png] of await screenshots()) {
        const full = join(DOCS_DIR, path);
        if (existsSync(full) && readFileSync(full).equals(png)) continue;
        mkdirSync(dirname(full), { recursive: true });
        writeFileSync(full, png);
        stale.push(`docs/${path}`);
      }
    } catch (error) {
      if (!(error instanceof ChromiumUnavailableError)) throw error;
      process.stderr.write(`the screenshots of the pages were not taken: ${error.message}\n`);
      screenshotsTaken = false;
    }
  }
  if (values.check) {
    for (const f of stale) process.stdout.write(`stale: ${f}\n`);
    return stale.length === 0 ? 0 : 1;
  }
  for (const f of stale) process.stdout.write(`updated ${f}\n`);
  if (stale.length === 0) process.stdout.write('docs are up to date\n');
  return screenshotsTaken ? 0 : 1;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main();
}
