/**
 * The SQS adapters' typed errors, each with a stable code: `emulator_failed` (an emulator's process
 * did not start, or was asked what its state forbids), `emulator_gone` (its process ended or was
 * killed while in use: a lost broker), `bad_target` (an endpoint off this machine),
 * `unsupported_config` (a config SQS cannot hold), `queue_error` (SQS answered what the contract has
 * no reply for).
 */
export type SqsAdapterErrorCode =
  | 'emulator_failed'
  | 'emulator_gone'
  | 'bad_target'
  | 'unsupported_config'
  | 'queue_error';

/** An SQS adapter's error, with a stable code. */
export class SqsAdapterError extends Error {
  override readonly name = 'SqsAdapterError' as const;
  constructor(
    readonly code: SqsAdapterErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
