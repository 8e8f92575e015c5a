/**
 * Time limits and the exit code of a run the time limit stopped, shared by `check`, `explore`,
 * `replay` and `profile`. Apart from checkCommand.ts, which re-exports them, so that a command
 * other than `check` reads them without loading the check's engine.
 */

/** Default time limit of a whole check, in ms (ten minutes). */
export const DEFAULT_TIME_LIMIT_MS = 600_000;
/** Longest time limit accepted, in ms (a day). */
export const MAX_TIME_LIMIT_MS = 86_400_000;
/** Exit code of a check that the time limit stopped before it finished, with nothing diverging. */
export const EXIT_INCOMPLETE = 3;
