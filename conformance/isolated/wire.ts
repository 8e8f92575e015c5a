/**
 * What the two ends of an isolated module (runner.ts in the child, moduleTarget.ts in the harness)
 * agree on beyond the protocol: the restart, probe and offer requests, and how the child reports a
 * failure of the module before it exits.
 */

/** The request that restarts the module's adapter (its own restart()); answered `{"ok":true,"type":"restart"}`. */
export const RESTART_REQUEST = '{"type":"restore","restart":true}';

/**
 * The request that asks what the module exports: answered `{"ok":true,"factory":<boolean>,"concurrent":"<typeof>"}`
 * or `{"ok":false,"code":"load_failed","message":...}` when it did not load.
 */
export const PROBE_REQUEST = '{"type":"restore","probe":true}';

/**
 * The request that offers the module's adapter a value to restore, which may be no valid snapshot
 * (the restore phase): `{"type":"restore","offer":<value>}`, handed to the adapter's restoreFrom.
 * Answered `{"ok":true,"type":"restore"}`, or `{"ok":false,"code":...,"message":...}` when
 * restoreFrom throws an error with a string `code` (its refusal), or
 * `{"ok":false,"unsupported":"..."}` when the adapter has no restoreFrom.
 */
export const offerLine = (text: string): string => `{"type":"restore","offer":${text}}`;

/** The start of the stderr line in which the child reports a failure of the module, followed by `{code, message}` as JSON. */
export const MODULE_FAILURE_MARK = 'jobcheck-module-failure ';

/** The exit code of a child that reported a failure of the module. */
export const MODULE_FAILURE_EXIT = 70;

/**
 * Codes of a module's failures: it does not load or exports no factory, a call threw or rejected,
 * a value is not plain JSON within the limits.
 */
export type ModuleFailureCode = 'load_failed' | 'threw' | 'invalid_value';
