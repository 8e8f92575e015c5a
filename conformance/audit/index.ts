/**
 * Auditing a recorded history of a real queue (`jobcheck audit`): the `jobcheck-history/1` reader,
 * the Jepsen reader, the writer of the project's own contract histories, and the audit itself.
 */
export type { AuditOptions, AuditResult } from './audit.ts';
export {
  DEFAULT_MAX_HELD,
  DEFAULT_MAX_RELEASED,
  DEFAULT_WINDOW_MS,
  MAX_LISTED,
  auditHistory,
  checkPart,
} from './audit.ts';
export type { JobSummary } from './accounts.ts';
export type { ContractHeader } from './fromContract.ts';
export { contractHistoryLines } from './fromContract.ts';
export type { AbsentField } from './absent.ts';
export { RULED_OUT, ruledOut } from './absent.ts';
export { jepsenHistory, readEdn, readJepsen } from './jepsen.ts';
export { MAX_OTLP_LINE_BYTES, MAX_SPANS, otlpTraceRequestSchema, readOtlp } from './otlp.ts';
export type { ReadEvent, ReadOptions } from './read.ts';
export { MAX_LINE_BYTES, MAX_PENDING, boundedLines, parseHistoryLine, readHistory } from './read.ts';
export type { AuditOp, AuditRule, Finding, GapKind, HistoryFileErrorCode } from './types.ts';
export { HistoryFileError } from './types.ts';
