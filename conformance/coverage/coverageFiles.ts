/**
 * Coverage on disk: writing the three report files and reading coverage JSON back (validated,
 * since it comes from outside), so that runs on several machines can be merged.
 */
import { readInputFile } from '../outside/inputFile.ts';
import { makeOutputFolder, writeOutputFile } from '../outside/outputFile.ts';
import { join } from 'node:path';
import { z } from 'zod';
import { describeValue, messageOf } from '../../contract/index.ts';
import { MAX_ARTIFACT_BYTES } from '../lockstep/artifact.ts';
import { COVERAGE_CATEGORIES, COVERAGE_FORMAT, coverageUniverse } from './coverage.ts';
import type { Coverage, CoverageCategory } from './coverage.ts';
import { coverageHtml, coverageMarkdown } from './coverageReport.ts';
import type { ReportContext } from './coverageReport.ts';
import { ConformanceError } from '../errors.ts';
import { jsonText, outsideText } from '../outside/outsideText.ts';

const count = z.int().min(0);

/**
 * The counts of one category: an object whose every key is an item of the coverage universe (an
 * unknown state or transition would otherwise be added to the totals, as if the lifecycle had
 * grown) and every value a count. Checked key by key, so that no key, not even `__proto__`, is
 * skipped.
 */
const counts = (category: CoverageCategory) =>
  z.custom<Record<string, number>>().superRefine((value, ctx) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      ctx.addIssue({ code: 'custom', message: 'must be an object of counts' });
      return;
    }
    const known = coverageUniverse()[category];
    for (const [item, n] of Object.entries(value)) {
      if (!Object.hasOwn(known, item))
        ctx.addIssue({
          code: 'custom',
          path: [item],
          message: `is not a ${category.replace(/s$/, '')} of the lifecycle`,
        });
      else if (!count.safeParse(n).success)
        ctx.addIssue({
          code: 'custom',
          path: [item],
          message: `must be a count (a whole number >= 0), got ${describeValue(n)}`,
        });
    }
  });

const coverageSchema = z.strictObject({
  format: z.literal(COVERAGE_FORMAT),
  runs: count,
  steps: count,
  sources: z.array(z.string()),
  items: z.strictObject({
    states: counts('states'),
    transitions: counts('transitions'),
    pairs: counts('pairs'),
    rejections: counts('rejections'),
    paths: counts('paths'),
    rules: counts('rules'),
  }),
});

/** Validates coverage JSON from outside; throws ConformanceError `invalid_artifact` naming the field. Returns a fresh copy. */
export function parseCoverage(input: unknown): Coverage {
  const r = coverageSchema.safeParse(input);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new ConformanceError(
      'invalid_artifact',
      `invalid coverage file: ${outsideText(issue?.path.map(String).join('.') || '(root)')}: ${outsideText(issue?.message ?? 'invalid')}`,
    );
  }
  const items = Object.fromEntries(COVERAGE_CATEGORIES.map((c) => [c, { ...r.data.items[c] }])) as Coverage['items'];
  return { format: COVERAGE_FORMAT, runs: r.data.runs, steps: r.data.steps, sources: [...r.data.sources], items };
}

/** Reads and validates a coverage JSON file. */
export async function readCoverage(file: string): Promise<Coverage> {
  let data: unknown;
  try {
    data = JSON.parse(await readInputFile(file, MAX_ARTIFACT_BYTES));
  } catch (e) {
    throw new ConformanceError('invalid_artifact', `cannot read coverage file ${file}: ${messageOf(e)}`, {
      cause: e,
    });
  }
  return parseCoverage(data);
}

/** The files a coverage report consists of. */
export interface CoverageFiles {
  readonly json: string;
  readonly markdown: string;
  readonly html: string;
}

/** Options of a coverage report: its file names, its title, and what the page says about the run. */
export interface CoverageReportOptions {
  /** Base name of the files (default `coverage`). */
  readonly basename?: string;
  readonly title?: string;
  /** The verdict and runs of the check, or the number of merged files, for the HTML page. */
  readonly context?: ReportContext;
}

/**
 * Writes `<basename>.json`, `.md` and `.html` (default basename `coverage`) into `dir`, creating it;
 * each a regular file or nothing before, never written through a link or a FIFO (OutputFileError).
 */
export async function writeCoverageReport(
  dir: string,
  cov: Coverage,
  options: CoverageReportOptions = {},
): Promise<CoverageFiles> {
  // The page is rendered first: its layout is the only step that can fail, and then nothing is half written.
  const html = await coverageHtml(cov, {
    ...(options.title === undefined ? {} : { title: options.title }),
    ...(options.context === undefined ? {} : { context: options.context }),
  });
  await makeOutputFolder(dir);
  const base = join(dir, options.basename ?? 'coverage');
  const files = { json: `${base}.json`, markdown: `${base}.md`, html: `${base}.html` };
  await writeOutputFile(files.json, `${jsonText(cov, 2)}\n`);
  await writeOutputFile(files.markdown, coverageMarkdown(cov, options.title, options.context));
  await writeOutputFile(files.html, html);
  return files;
}
