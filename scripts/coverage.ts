/**
 * `npm run coverage`: the coverage report for the built-in implementation (impl/JobStore). Runs
 * the path suite and a random campaign (JOBCHECK_RUNS runs, default 500; JOBCHECK_SEED, default 1)
 * and writes reports/coverage.json, reports/coverage.md and reports/coverage.html
 * (JOBCHECK_REPORT_DIR changes the folder). Exits 1 if the implementation diverges.
 */
import { jobStoreFactory } from '../conformance/stores/jobStore.ts';
import { runCheck } from '../conformance/check/index.ts';
import { categorySummary, COVERAGE_CATEGORIES } from '../conformance/coverage/coverage.ts';
import { writeCoverageReport } from '../conformance/coverage/coverageFiles.ts';
import type { CheckReportContext } from '../conformance/coverage/coverageReport.ts';
import { renderStory } from '../conformance/lockstep/story.ts';

const runs = Number(process.env['JOBCHECK_RUNS'] ?? 500);
const seed = Number(process.env['JOBCHECK_SEED'] ?? 1);
const dir = process.env['JOBCHECK_REPORT_DIR'] ?? 'reports';

// The report covers the path suite and the campaign, as it always has: the exploration is left out.
const result = await runCheck({ factory: jobStoreFactory() }, { runs, seed, noExplore: true });
const failing = result.paths.failures[0]?.result ?? result.campaign.counterexample ?? undefined;
const story = failing === undefined ? null : renderStory(failing, { seed });
const runsRun = result.campaign.runs;
const context: CheckReportContext = {
  kind: 'check',
  verdict: result.verdict,
  story,
  runsPlanned: runs,
  runsRun,
  pathsPlanned: result.paths.outcomes.length + result.paths.notRun.length,
  pathsRun: result.paths.outcomes.length,
  stoppedEarly: result.verdict === 'diverge' && runsRun < runs ? 'divergence' : null,
};
const files = await writeCoverageReport(dir, result.coverage, {
  title: `Coverage of ${result.campaign.adapter}: path suite + ${runs} random runs (seed ${seed})`,
  context,
});
for (const c of COVERAGE_CATEGORIES) {
  const { hit, total } = categorySummary(result.coverage, c);
  console.log(`${c.padEnd(12)} ${String(hit).padStart(4)} / ${total}`);
}
console.log(`wrote ${files.json}, ${files.markdown}, ${files.html}`);
if (result.verdict !== 'agree') {
  if (story !== null) console.log(story);
  process.exitCode = 1;
}
