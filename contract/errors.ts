import { CodedError } from './CodedError.ts';

/**
 * Codes of errors thrown for misuse at the API boundary (as opposed to command rejections, which are replies);
 * `storage_unavailable`: a durable store cannot reach or use the storage it was given (a protocol server refuses
 * `hello` or `restore` with it and stays up).
 */
export type JobcheckErrorCode = 'invalid_config' | 'invalid_snapshot' | 'storage_unavailable';

/**
 * A typed error for input from outside that cannot be used: a malformed config or snapshot.
 * `code` is stable; `path` names the bad field (dotted, e.g. `jobs.a.leaseUntil`); the message names
 * the field and the bad value. Nothing is changed or half-built when it is thrown.
 */
export class JobcheckError extends CodedError<JobcheckErrorCode> {
  override name = 'JobcheckError' as const;
  readonly path: string;
  constructor(code: JobcheckErrorCode, path: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.path = path;
  }
}

/** Whether a thrown value is a JobcheckError, with one of the given codes when any are given. Pure. */
export const isJobcheckError = (error: unknown, ...codes: readonly JobcheckErrorCode[]): error is JobcheckError =>
  error instanceof JobcheckError && (codes.length === 0 || codes.includes(error.code));
