/** Codes of errors thrown for misuse at the API boundary (as opposed to command rejections, which are replies). */
export type JobcheckErrorCode = 'invalid_config' | 'invalid_snapshot';

/**
 * A typed error for input from outside that cannot be used: a malformed config or snapshot.
 * `code` is stable; `path` names the bad field (dotted, e.g. `jobs.a.leaseUntil`); the message names
 * the field and the bad value. Nothing is changed or half-built when it is thrown.
 */
export class JobcheckError extends Error {
  override name = 'JobcheckError' as const;
  readonly code: JobcheckErrorCode;
  readonly path: string;
  constructor(code: JobcheckErrorCode, path: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.path = path;
  }
}
