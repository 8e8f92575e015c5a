/**
 * Coverage on disk: writing the three report files and reading coverage JSON back (validated,
 * since it comes from outside), so that runs on several machines can be merged.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { COVERAGE_FORMAT } from './coverage.ts';
import type { Coverage } from './coverage.ts';
import { coverageHtml, coverageMarkdown } from './coverageReport.ts';
import { ConformanceError } from './errors.ts';

const counts = z.record(z.string(), z.int().min(0));
const coverageSchema = z.strictObject({
  format: z.literal(COVERAGE_FORMAT),
  runs: z.int().min(0),
  steps: z.int().min(0),
  sources: z.array(z.string()),
  items: z.strictObject({ states: counts, transitions: counts, pairs: counts, rejections: counts, paths: counts }),
});

/** Validates coverage JSON from outside; throws ConformanceError `invalid_artifact` naming the field. */
export function parseCoverage(input: unknown): Coverage {
  const r = coverageSchema.safeParse(input);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new ConformanceError('invalid_artifact', `invalid coverage file: ${issue?.path.map(String).join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
  }
  return r.data;
}

/** Reads and validates a coverage JSON file. */
export async function readCoverage(file: string): Promise<Coverage> {
  let data: unknown;
  try {
    data = JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    throw new ConformanceError('invalid_artifact', `cannot read coverage file ${file}: ${(e as Error).message}`, { cause: e });
  }
  return parseCoverage(data);
}

/** The files a coverage report consists of. */
export interface CoverageFiles {
  readonly json: string;
  readonly markdown: string;
  readonly html: string;
}

/** Writes `<basename>.json`, `.md` and `.html` (default basename `coverage`) into `dir`, creating it. */
export async function writeCoverageReport(dir: string, cov: Coverage, options: { basename?: string; title?: string } = {}): Promise<CoverageFiles> {
  await mkdir(dir, { recursive: true });
  const base = join(dir, options.basename ?? 'coverage');
  const files = { json: `${base}.json`, markdown: `${base}.md`, html: `${base}.html` };
  await writeFile(files.json, `${JSON.stringify(cov, null, 2)}\n`);
  await writeFile(files.markdown, coverageMarkdown(cov, options.title));
  await writeFile(files.html, coverageHtml(cov, options.title));
  return files;
}
