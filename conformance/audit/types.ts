/**
 * The audit's words: an operation of a recorded history once its lines are paired (`AuditOp`),
 * a finding (a violation, a verdict that hangs on the declared clock uncertainty, or a gap: an
 * operation the history needs and lacks), and the typed error of a file that is no history.
 *
 * Glossary: a part is the operations of one job; a gap is named, never skipped; an operation whose
 * outcome is `unknown` is indefinite (it may have taken effect at any instant after its invoke, or
 * never). Times are the file's own; `lines` are the 1-based line numbers that recorded the operation.
 */
import { CodedError } from '../../contract/CodedError.ts';
import type { BrokerEvent, HistoryOp } from '../../contract/history.ts';

/** One operation of a recorded history, its invoke and return paired (or one broker transition). */
export interface AuditOp {
  readonly kind: HistoryOp | BrokerEvent;
  /** The file that recorded it. */
  readonly file: string;
  /** The `id` of its lines (a broker line gets `broker@<line>`). */
  readonly id: string;
  readonly job: string | undefined;
  readonly token: string | undefined;
  readonly account: string | undefined;
  readonly key: string | undefined;
  readonly payloadHash: string | undefined;
  readonly attempt: number | undefined;
  readonly leaseUntil: number | undefined;
  readonly deadline: number | undefined;
  readonly applied: boolean | undefined;
  readonly next: 'retry' | 'dead' | undefined;
  readonly worker: string | undefined;
  readonly host: string | undefined;
  /** `ok`, `unknown` or a refusal code. */
  readonly outcome: string;
  readonly invokedAt: number;
  /** Undefined exactly when the outcome is `unknown`. */
  readonly returnedAt: number | undefined;
  /** The line numbers that recorded it: the invoke's and the return's, or the one line. */
  readonly lines: readonly number[];
}

/** The rules a finding names (docs/history-format.md, "What the audit checks"). */
export type AuditRule =
  | 'stale-ack-landed'
  | 'double-delivery'
  | 'run-past-lease'
  | 'past-deadline'
  | 'delivered-before-submit'
  | 'resolved-job-changed'
  | 'current-delivery-refused'
  | 'payload-conflict-accepted'
  | 'double-effect'
  | 'account-order'
  | 'capacity';

/** What a gap lacks. */
export type GapKind =
  | 'submit_missing'
  | 'token_never_handed_out'
  | 'late_line'
  | 'truncated'
  | 'checker_budget'
  | 'memory_budget'
  | 'not_attributable'
  | 'fields_missing';

/** A finding of an audit: each names the job (or account) and the lines that establish it. */
export type Finding =
  | {
      readonly kind: 'violation';
      readonly rule: AuditRule;
      readonly subject: string;
      readonly summary: string;
      /** The story: the operations that prove it, each with its lines (story.ts). */
      readonly story: string;
      readonly lines: readonly number[];
    }
  | {
      readonly kind: 'inconclusive';
      readonly rule: AuditRule | 'linearizability';
      readonly subject: string;
      readonly summary: string;
      readonly story: string;
      readonly lines: readonly number[];
    }
  | {
      readonly kind: 'gap';
      readonly gap: GapKind;
      readonly subject: string;
      readonly summary: string;
      readonly lines: readonly number[];
    };

/** Stable codes of a file that is no jobcheck-history/1 or Jepsen history. */
export type HistoryFileErrorCode =
  | 'not_json'
  | 'bad_line'
  | 'line_too_long'
  | 'no_header'
  | 'header_twice'
  | 'duplicate_id'
  | 'return_without_invoke'
  | 'returned_before_invoked'
  | 'after_end'
  | 'end_count'
  | 'too_many_pending'
  | 'not_edn'
  | 'not_otlp'
  | 'too_many_spans'
  | 'unreadable';

/** A history file that cannot be read as one: the code, and a message naming the file, line and bad value. */
export class HistoryFileError extends CodedError<HistoryFileErrorCode> {
  override name = 'HistoryFileError' as const;
  constructor(
    code: HistoryFileErrorCode,
    message: string,
    /** The 1-based line the error is on (0: the file as a whole). */
    readonly line: number,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}
