/**
 * The entry of the lab's browser bundle (labBundle.ts builds it with vite into one minified IIFE
 * that defines the global `JobcheckLab`): the reference model's step, its initial state and
 * snapshots, the explanations, the rules and the lifecycle's transitions, the documented modes'
 * models (model/documented.ts), the lab's own story step, the story editor (checked by the
 * contract's command schemas), the exercises, the timeline of effect and acknowledgement, the
 * worksheet (its schema and report) and the story a lab address carries. It imports nothing that
 * uses Node's APIs (model/fixtures.ts reads files, so the page gets its stories as JSON instead);
 * the bundle is built from this file alone.
 */
export { RULES } from '../../../contract/rules.ts';
export { explainRestart, explainSnapshotCopy, explainStep } from '../../../model/explain.ts';
export { lifecycleTransitions, transitionOf } from '../../../model/lifecycle.ts';
export { rulesExercised } from '../../../model/rules.ts';
export { fromSnapshot, initialState, step, toSnapshot } from '../../../model/step.ts';
export { documentedModel } from '../../../model/documented.ts';
export { finalMismatches, isSubsetOf, playStoryStep } from './labStep.ts';
export { COMMAND_FIELDS, commandFromFields, editStory } from './labEdit.ts';
export { LAB_EXERCISES, answerOf, answersOf } from './labExercises.ts';
export { timelineOf } from './labTimeline.ts';
export { emptyWorksheet, parseWorksheet, worksheetText } from './worksheet.ts';
export { worksheetReport } from './worksheetReport.ts';
export { parseSharedStory } from './labSharedStory.ts';
