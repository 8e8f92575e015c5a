/**
 * What the commands print and write: the check's terminal summary (text.ts), its JSON result
 * (json.ts), its report directory (files.ts), the colour policy (colour.ts), and the lines that
 * `check`, `explore` and `coverage` share (coverageLines.ts, phaseLines.ts). Rendering is pure;
 * only writeReportFiles touches the file system.
 */
export type { Colors } from './colour.ts';
export { colorEnabled, colourStory, terminalColors, verdictWord } from './colour.ts';
export type { CheckContext } from './context.ts';
export { coverageSummary, neverHitLine, neverHitLines, rulesNeverHit } from './coverageLines.ts';
export type { ArtifactFile } from './failure.ts';
export { renderFailure } from './failure.ts';
export type { ReportFiles } from './files.ts';
export { reportContext, reportTitle, writeReportFiles } from './files.ts';
export { checkJson } from './json.ts';
export {
  concurrentLine,
  explorationLine,
  implementationName,
  overlapText,
  phasesLine,
  requestsOf,
  restoreLine,
} from './phaseLines.ts';
export type { RepeatCommands } from './reproduce.ts';
export {
  checkAgainCommand,
  concurrentReproduceCommand,
  repeatCommands,
  replayCommand,
  reproduceCommand,
} from './reproduce.ts';
export { checkHeader, failureOrigin, notRunWhy, phaseSummary, renderCheckText } from './text.ts';
export {
  PHASE_LABELS,
  SUMMARY_ORDER,
  campaignText,
  explorationText,
  fixturesText,
  pathsText,
  phaseEndText,
  phaseEndsOf,
  restoreKinds,
  restoreText,
  whyNotRun,
} from './phaseText.ts';
export { count, seconds } from './units.ts';
// renderFixtureStory moved to the engine (conformance/check/failureStory.ts): it needs no command line.
