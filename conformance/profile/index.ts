/**
 * Profiles: an implementation (a real queue, say) checked rule by rule against the model, with
 * its declared unsupported rules left out and its declared variants (model/variants.ts) in place.
 */
export type { ProfileTarget, RuleDeclaration } from './target.ts';
export type { Departure, Profile, RuleResult, RuleStatus, Unattributed } from './result.ts';
export { PROFILE_FORMAT, isChecked, profileSchema } from './result.ts';
export type { ProfileOptions } from './runProfile.ts';
export { ProfileError, campaignSeed, checkedModelOf, runProfile } from './runProfile.ts';
export type { RuleFields } from './attribution.ts';
export { RULE_FIELDS, RULE_PRIORITY, attributeDivergence, decides } from './attribution.ts';
export type { Bias, CommandKind } from './generation.ts';
export type { ProfileScenario } from './generation.ts';
export { RULE_BIAS, edgeSnapshot, targetedScenarioArb } from './generation.ts';
// The runner of a profile's runs is conformance/lockstep/'s (runLockstepDetailed with a CheckedModel);
// the model a profile checks against is named here for checkedModelOf's callers.
export type { CheckedModel } from '../lockstep/index.ts';
export { describeResult, renderProfileMarkdown, renderProfileText } from './render.ts';
