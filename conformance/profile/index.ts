/**
 * Profiles: an implementation (a real queue, say) checked rule by rule against the model, with
 * its declared unsupported rules left out and its declared variants (model/variants.ts) in place.
 */
export type { ProfileClock, ProfileTarget, RuleDeclaration, UpstreamReport } from './target.ts';
export type {
  ConcurrentSection,
  ConcurrentVerdict,
  Departure,
  Profile,
  RaceSection,
  RaceVerdict,
  RuleResult,
  RuleStatus,
  StaleAckSection,
  StaleAckVerdict,
  Unattributed,
} from './result.ts';
export {
  FAULT_NAMES,
  FAULT_VERDICTS,
  PROFILE_FORMAT,
  faultsSectionSchema,
  isChecked,
  profileSchema,
  withConcurrent,
} from './result.ts';
export type { FaultFigures, FaultResult, FaultsSection } from './result.ts';
export { describeFaultVerdict, describeFigures, faultsMarkdown } from './faultsRender.ts';
export type { ConcurrentProfileOptions } from './concurrentProfile.ts';
export {
  DEFAULT_CONCURRENT_PROFILE_RUNS,
  runConcurrentProfile,
  runRaceSearch,
  runStaleAck,
} from './concurrentProfile.ts';
export type { OneAtATime, OneAtATimeOptions } from './oneAtATime.ts';
export { sentOrderIds, departsOneAtATime } from './oneAtATime.ts';
export type { Avoidance, ConcurrentRestriction } from './concurrentRestriction.ts';
export { CONCURRENT_AVOIDANCE, concurrentRestrictionOf } from './concurrentRestriction.ts';
export type { ProfileOptions } from './runProfile.ts';
export { ProfileError, REPLAYS, REPLAYS_NEEDED, campaignSeed, checkedModelOf, runProfile } from './runProfile.ts';
export type { RuleFields } from './attribution.ts';
export { RULE_FIELDS, RULE_PRIORITY, attributeDivergence, decides } from './attribution.ts';
export type { Bias, CommandKind } from './generation.ts';
export type { ProfileScenario } from './generation.ts';
export { RULE_BIAS, edgeSnapshot, targetedScenarioArb } from './generation.ts';
// The runner of a profile's runs is conformance/lockstep/'s (runLockstepDetailed with a CheckedModel);
// the model a profile checks against is named here for checkedModelOf's callers.
export type { CheckedModel } from '../lockstep/index.ts';
export {
  describeClock,
  describeConcurrentVerdict,
  describeRaceVerdict,
  describeResult,
  describeStaleAckVerdict,
  renderProfileMarkdown,
  renderProfileText,
} from './render.ts';
