/**
 * The failure story page part: a sequential divergence or a fixture failure told story-first,
 * as a section of the run page.
 */
export type { ImplKnown, ModelMove, StoryData, StoryStep, StoryVerdict } from './storyData.ts';
export { divergenceStory, fixtureStory, headline, storyData } from './storyData.ts';
export type { JobMove } from './impliedMoves.ts';
export { impliedMoves, implStatuses, statusesFromReply } from './impliedMoves.ts';
export type { JobStatuses } from './jobStatuses.ts';
export { isJobStatus, jobStatuses } from './jobStatuses.ts';
export type { ReplyField } from './replyFields.ts';
export { compactValue, replyDifferences, replyFields, replyMessage } from './replyFields.ts';
export {
  STORY_ID,
  impliedEdges,
  ruleAnchor,
  ruleSentenceHtml,
  storyHtml,
  storyJson,
  storySection,
} from './storySection.ts';
export { STORY_SCRIPT } from './storyScript.ts';
export { IMPL_RED, LIT_FILL, MODEL_GREEN, storyStyles } from './storyStyles.ts';
