// The last lines of a CI run (.ci/run): each failed test and each test file that failed to load,
// named with its part, then one line `N passed, N failed[, N skipped]` counted from the parts' vitest
// JSON reports. A part that wrote no readable report counts as one failure; a part whose files
// failed to load with no test failing counts its failed files. Exit code 1 when anything failed.
//
//   node scripts/ciSummary.mjs <part> <report.json> <exit status> [<part> <report.json> <exit status>...]
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A failure's message cut to its first line and 300 characters. Pure. */
const firstLine = (text) =>
  String(text ?? '')
    .split('\n')[0]
    .slice(0, 300);

/**
 * The summary of the parts' reports, each `{ part, report, status }` with `report` the parsed
 * JSON or undefined when none could be read, paths shown relative to `cwd`. Pure.
 * @returns {{ lines: string[], failed: number }}
 */
export function summarize(parts, cwd) {
  const lines = [];
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const { part, report, status } of parts) {
    if (report === undefined) {
      lines.push(`the ${part} part wrote no readable report (exit ${status})`);
      failed += 1;
      continue;
    }
    // Each failed test and each file that failed to load is named above the count, so that the end
    // of the run says what failed even where only its last lines are kept.
    for (const file of report.testResults ?? []) {
      const where = String(file.name ?? '').replace(`${cwd}/`, '');
      const failedHere = (file.assertionResults ?? []).filter((t) => t.status === 'failed');
      for (const t of failedHere)
        lines.push(`failed (${part}): ${where} > ${t.fullName ?? t.title}: ${firstLine((t.failureMessages ?? [])[0])}`);
      if (failedHere.length === 0 && file.status === 'failed')
        lines.push(`failed (${part}): ${where}: ${firstLine(file.message)}`);
    }
    passed += report.numPassedTests ?? 0;
    const failedTests = report.numFailedTests ?? 0;
    failed += failedTests + (failedTests === 0 ? (report.numFailedTestSuites ?? 0) : 0);
    skipped += report.numPendingTests ?? 0;
  }
  lines.push(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
  return { lines, failed };
}

/** The report at `file`, or undefined when it is missing or no JSON. */
function readReport(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const args = process.argv.slice(2);
  if (args.length === 0 || args.length % 3 !== 0) {
    process.stderr.write('usage: node scripts/ciSummary.mjs <part> <report.json> <exit status> [...]\n');
    process.exit(2);
  }
  const parts = [];
  for (let i = 0; i < args.length; i += 3)
    parts.push({ part: args[i], report: readReport(args[i + 1]), status: args[i + 2] });
  const { lines, failed } = summarize(parts, process.cwd());
  for (const line of lines) console.log(line);
  process.exitCode = failed > 0 ? 1 : 0;
}
