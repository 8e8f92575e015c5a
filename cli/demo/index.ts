/**
 * Public names of `jobcheck demo`: the command itself, and the pieces the docs tools reuse to
 * tell a story (find it, trace it through the reference model, render a step, the rule lines).
 */
export type { DemoIO } from './demo.ts';
export { DEMO_USAGE, NOT_INTERACTIVE, runDemo } from './demo.ts';
export type { Prediction } from './predict.ts';
export { PREDICT_HINT, answerLines, parsePrediction, ruleLines, scorePrediction, whyLines } from './predict.ts';
export {
  renderFinal,
  renderFocus,
  renderStepAfter,
  renderStepBefore,
  renderStory,
  renderStoryHeader,
  renderStoryList,
  renderTrace,
} from './render.ts';
export type { Story, StoryErrorCode, StoryStep } from './story.ts';
export { StoryError, findStory, listStories, readStoryFile } from './story.ts';
export type { FocusView, StoryTrace, TracedStep } from './trace.ts';
export { focusOf, traceStory } from './trace.ts';
