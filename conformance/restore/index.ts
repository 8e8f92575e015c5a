/**
 * The restore phase: snapshots no store could have written, each a valid snapshot changed in one
 * place and judged by the model (invalidSnapshots.ts), offered to an implementation that must
 * refuse each with the model's code and change nothing (restorePhase.ts), and the story of one it
 * got wrong (story.ts).
 */
export type { InvalidSnapshot, ModelRefusal, RefusalKind } from './invalidSnapshots.ts';
export {
  BASE_COMMANDS,
  BASE_CONFIG,
  BASE_SNAPSHOT,
  REFUSAL_KINDS,
  REFUSAL_WORDS,
  invalidSnapshots,
  modelRefusal,
} from './invalidSnapshots.ts';
export type {
  RestoreCaseOutcome,
  RestorePhaseOptions,
  RestorePhaseResult,
  RestoreSeen,
  RestoreSetupFailure,
} from './restorePhase.ts';
export { runRestorePhase } from './restorePhase.ts';
export { RESTORE_SECTION, renderRestoreSetupStory, renderRestoreStory } from './story.ts';
