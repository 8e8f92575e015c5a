/**
 * The lockstep room: one runner that drives the model and an implementation with the same steps
 * and compares them after each one (runner.ts), what it returns (result.ts), what it may be asked
 * for (options.ts), and the aliasing check it ends with (aliasDifference.ts).
 */
export type { Divergence, LockstepResult, LockstepRun, LockstepStep, ModelStepView, RunInput } from './result.ts';
export { exercisedRules } from './result.ts';
export type { CheckedModel, LockstepOptions } from './options.ts';
export { REFERENCE_MODEL } from './options.ts';
export { runLockstep, runLockstepDetailed } from './runner.ts';
export { aliasDifference } from './aliasDifference.ts';
export { errorText } from './errorText.ts';
