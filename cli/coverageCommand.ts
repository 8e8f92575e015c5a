/**
 * `jobcheck coverage <file.json>...`: reads coverage JSON files (written by `jobcheck check` into
 * its report directory, possibly on several machines), adds them up, and writes the merged JSON,
 * the Markdown summary and the HTML page with the coloured lifecycle diagram. There is no verdict
 * here (the files may come from different checks); `jobcheck merge` joins the parts of one check,
 * verdict included.
 */
import { mergeCoverage, neverHit } from '../conformance/coverage/coverage.ts';
import type { Coverage } from '../conformance/coverage/coverage.ts';
import { readCoverage, writeCoverageReport } from '../conformance/coverage/coverageFiles.ts';
import type { CliIO } from './args.ts';
import { SetupError, UsageError, parseCommandArgs } from './args.ts';
import { coverageSummary, neverHitLine } from './output/index.ts';
import { outputError, prepareCoverageDir } from './outputs.ts';
import { jsonText, outsideText } from '../conformance/outside/outsideText.ts';
import { messageOf } from '../contract/index.ts';

/** Default output directory of `jobcheck coverage`. */
export const DEFAULT_COVERAGE_DIR = '.jobcheck/coverage';

/** Usage text of `jobcheck coverage`. */
export const COVERAGE_USAGE = `Usage: jobcheck coverage <coverage.json>... [--report <dir>] [--title <text>] [--json]

Adds up coverage files (jobcheck check writes coverage.json into its report directory) and
writes the merged coverage.json, coverage.md and coverage.html (the lifecycle diagram coloured by
hit counts) into the report directory.
  --report <dir>   output directory (default ${DEFAULT_COVERAGE_DIR})
  --title <text>   title of the Markdown and HTML reports
  --json           print the merged coverage JSON instead of a summary
  -h, --help       show this text
`;

async function readCoverageFile(file: string): Promise<Coverage> {
  try {
    return await readCoverage(file);
  } catch (error) {
    throw new SetupError(`coverage: ${messageOf(error)}`);
  }
}

/** Runs `jobcheck coverage`; returns the exit code. */
export async function coverageCommand(argv: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    'coverage',
    argv,
    {
      report: { type: 'string' },
      title: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    true,
  );
  if (values.help === true) {
    io.stdout.write(COVERAGE_USAGE);
    return 0;
  }
  if (positionals.length === 0)
    throw new UsageError('coverage: give at least one coverage JSON file (see jobcheck coverage --help)');
  const dir = values.report ?? DEFAULT_COVERAGE_DIR;
  await prepareCoverageDir('coverage', dir);
  const files = await Promise.all(positionals.map(readCoverageFile));
  let merged: Coverage;
  try {
    merged = mergeCoverage(...files);
  } catch (error) {
    throw new SetupError(`coverage: ${messageOf(error)}`);
  }
  const title =
    values.title ?? `Conformance coverage (${positionals.length} file${positionals.length === 1 ? '' : 's'})`;
  // The page and coverage.md name the files merged: the sources inside them say only what each counted.
  await writeCoverageReport(dir, merged, {
    title,
    context: { kind: 'merged', files: positionals.length, merged: positionals },
  }).catch((error: unknown) => {
    throw outputError('coverage', 'the report', dir, error);
  });
  if (values.json === true) {
    io.stdout.write(`${jsonText(merged, 2)}\n`);
    return 0;
  }
  const missing = neverHit(merged, 'transitions');
  io.stdout.write(
    [
      `jobcheck coverage: ${positionals.length} file(s), ${merged.runs} runs, ${merged.steps} steps`,
      `coverage: ${coverageSummary(merged)}`,
      `  transitions never hit: ${neverHitLine(missing)}`,
      `report: ${outsideText(dir)} (coverage.json, coverage.md, coverage.html)`,
      '',
    ].join('\n'),
  );
  return 0;
}
